//! The requests of a navigation as Lantern sees them, DevTools' trace engine's
//! `LanternComputationData.createNetworkRequests`: the requests that start within the
//! navigation, a request per redirect hop (times from the hop's sends, status 302, 400 bytes, no
//! resource type, as the engine makes them), the frame's URL when each was sent
//! (`requestingFrameUrl`) and each one's initiator request when it is unambiguous
//! (`chooseInitiatorRequest`). [`super::dependency_graph`] makes nodes of them.

use rustc_hash::FxHashMap as HashMap;

use jsprof_profile::page_events::ResourceTiming;
use jsprof_profile::TraceFile;

use super::graph_error::GraphError;
use super::network::Request;
use crate::units::{ns_to_us, s_to_ms, us_to_ms, us_to_s};

/// One request as Lantern sees it: a request, or one hop of its redirects.
#[derive(Clone, Debug, PartialEq)]
pub struct LanternRequest {
    /// Index into the story's requests of the request this is (or is a hop of): the engine's
    /// `rawRequest`.
    pub raw: usize,
    /// `requestId`, with a `:redirect` per hop after the first.
    pub request_id: String,
    pub url: String,
    /// `rendererStartTime`, `networkEndTime`, `responseHeadersEndTime` (ms, as Lantern keeps
    /// them).
    pub renderer_start_ms: f64,
    pub network_end_ms: f64,
    pub response_headers_end_ms: f64,
    /// Lantern's resource type (`XHR`/`Fetch` by the initiator's fetch type); `None` for a
    /// redirect hop.
    pub resource_type: Option<String>,
    pub redirect_source: Option<usize>,
    pub redirect_destination: Option<usize>,
    /// The hops before this one (empty for the first hop and unredirected requests).
    pub redirects: Vec<usize>,
    /// The request that initiated this one, when unambiguous (`chooseInitiatorRequest`).
    pub initiator_request: Option<usize>,
    /// `302` for a redirect hop (the engine keeps no status for them).
    pub status: u32,
    /// `400` for a redirect hop (the engine keeps no size for them).
    pub transfer_size: f64,
    /// The frame's URL when the request was sent (`requestingFrameUrl`).
    pub document_url: String,
    /// `networkRequestTime` (ms): the timing's request time, else the download start; a
    /// redirect hop's start.
    pub network_request_ms: f64,
    /// The URL's scheme, host name and origin as the WHATWG URL parser gives them (Lantern's
    /// `parsedURL`: connections and DNS lookups are per origin and host).
    pub scheme: String,
    pub host: String,
    pub origin: String,
    /// The response's timing; for a redirect hop the engine's made-up one (request time and
    /// headers end only — the latter in ms on the trace clock, as the engine writes it).
    pub timing: Option<ResourceTiming>,
    /// The initiator's type (`other` without one).
    pub initiator_type: String,
    /// What the simulation reads of the request (a redirect hop has its request's).
    pub priority: String,
    pub protocol: String,
    /// The decoded body's size.
    pub resource_size: f64,
    pub from_disk_cache: bool,
    pub connection_id: f64,
    pub connection_reused: bool,
    pub failed: bool,
    pub finished: bool,
}

/// A frame's URL from `min` to `max` (µs).
struct UrlWindow<'a> {
    min: f64,
    max: f64,
    url: &'a str,
}

/// A frame's windows per renderer process, processes in first-seen order.
type ProcessWindows<'a> = Vec<(u64, Vec<UrlWindow<'a>>)>;

/// Each frame's URL over time, DevTools' `rendererProcessesByFrame`: per frame, per process,
/// windows that change URL, each lasting until the frame's next window.
struct FrameWindows<'a> {
    by_frame: HashMap<&'a str, ProcessWindows<'a>>,
}

impl<'a> FrameWindows<'a> {
    fn new(trace: &'a TraceFile, trace_end: f64) -> FrameWindows<'a> {
        let mut by_frame: HashMap<&str, ProcessWindows> = HashMap::default();
        for f in &trace.page.frame_urls {
            let procs = by_frame.entry(f.frame.as_str()).or_default();
            let p = match procs.iter().position(|(pid, _)| *pid == f.process_id) {
                Some(p) => p,
                None => {
                    procs.push((f.process_id, Vec::new()));
                    procs.len() - 1
                }
            };
            let windows = &mut procs[p].1;
            if windows.last().is_some_and(|w| w.url == f.url) {
                continue;
            }
            windows.push(UrlWindow {
                min: ns_to_us(f.ts),
                max: 0.0,
                url: f.url.as_str(),
            });
        }
        for procs in by_frame.values_mut() {
            let mut order: Vec<(usize, usize)> = procs
                .iter()
                .enumerate()
                .flat_map(|(p, (_, ws))| (0..ws.len()).map(move |w| (p, w)))
                .collect();
            order.sort_by(|a, b| procs[a.0].1[a.1].min.total_cmp(&procs[b.0].1[b.1].min));
            for k in 0..order.len() {
                let max = match order.get(k + 1) {
                    Some(&(p, w)) => procs[p].1[w].min - 1.0,
                    None => trace_end,
                };
                let (p, w) = order[k];
                procs[p].1[w].max = max;
            }
        }
        FrameWindows { by_frame }
    }

    /// `activeURLForFrameAtTime`.
    fn url_at(&self, frame: &str, t: f64) -> &'a str {
        let Some(procs) = self.by_frame.get(frame) else {
            return "";
        };
        procs
            .iter()
            .flat_map(|(_, ws)| ws)
            .find(|w| w.min <= t && w.max >= t)
            .map_or("", |w| w.url)
    }
}

/// `getNetworkInitiators`: the initiator's URL, else for a script the URLs of its stack.
pub(crate) fn network_initiators(r: &Request) -> Vec<&str> {
    match &r.initiator {
        Some((_, Some(url))) if !url.is_empty() => vec![url.as_str()],
        Some((t, _)) if t == "script" => {
            let mut out: Vec<&str> = Vec::new();
            for u in &r.stack_trace {
                if !u.is_empty() && !out.contains(&u.as_str()) {
                    out.push(u);
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// `createNetworkRequests`: the requests that start in `[start, end)` (µs), a request per
/// redirect hop, and their initiators.
pub(crate) fn lantern_requests(
    trace: &TraceFile,
    requests: &[Request],
    trace_end: f64,
    start: f64,
    end: f64,
) -> Result<Vec<LanternRequest>, GraphError> {
    let frames = FrameWindows::new(trace, trace_end);
    let mut out: Vec<LanternRequest> = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        if !(r.start >= start && r.start < end) {
            continue;
        }
        if r.response_without_connection {
            return Err(GraphError::TooOld);
        }
        let resource_type = match r.fetch_type.as_deref() {
            Some("xmlhttprequest") => "XHR".to_string(),
            Some("fetch") => "Fetch".to_string(),
            _ => r.resource_type.clone(),
        };
        // The engine leaves out what the URL parser refuses.
        let Ok(parsed) = url::Url::parse(&r.url) else {
            continue;
        };
        let document_url = frames.url_at(&r.frame, r.final_send).to_string();
        let network_request_ms = match &r.timing {
            Some(t) => s_to_ms(t.request_time),
            None => us_to_ms(r.download_start),
        };
        let raw = LanternRequest {
            raw: i,
            request_id: r.request_id.clone(),
            url: r.url.clone(),
            renderer_start_ms: us_to_ms(r.start),
            network_end_ms: us_to_ms(r.finish),
            response_headers_end_ms: us_to_ms(r.download_start),
            resource_type: Some(resource_type),
            redirect_source: None,
            redirect_destination: None,
            redirects: Vec::new(),
            initiator_request: None,
            status: r.status,
            transfer_size: r.transfer_size,
            document_url,
            network_request_ms,
            scheme: parsed.scheme().to_string(),
            host: parsed.host_str().unwrap_or("").to_string(),
            origin: parsed.origin().ascii_serialization(),
            timing: r.timing.clone(),
            initiator_type: r
                .initiator
                .as_ref()
                .map_or_else(|| "other".to_string(), |(t, _)| t.clone()),
            priority: r.priority.clone(),
            protocol: r.protocol.clone(),
            resource_size: r.decoded_body_length,
            from_disk_cache: r.from_disk_cache,
            connection_id: r.connection_id,
            connection_reused: r.connection_reused,
            failed: r.failed,
            finished: r.finished,
        };
        if r.redirect_spans.is_empty() {
            out.push(raw);
            continue;
        }
        let first = out.len();
        for (url, &(ts, dur)) in r.redirects.iter().zip(&r.redirect_spans) {
            let end_ms = us_to_ms(ts + dur);
            // A hop whose URL does not parse makes the engine throw; keep the final URL's parts.
            let parsed = url::Url::parse(url).unwrap_or_else(|_| parsed.clone());
            out.push(LanternRequest {
                url: url.clone(),
                renderer_start_ms: us_to_ms(ts),
                network_end_ms: end_ms,
                response_headers_end_ms: end_ms,
                resource_type: None,
                status: 302,
                transfer_size: 400.0,
                network_request_ms: us_to_ms(ts),
                scheme: parsed.scheme().to_string(),
                host: parsed.host_str().unwrap_or("").to_string(),
                origin: parsed.origin().ascii_serialization(),
                timing: Some(ResourceTiming {
                    request_time: us_to_s(ts),
                    dns_start: -1.0,
                    dns_end: -1.0,
                    connect_start: -1.0,
                    connect_end: -1.0,
                    ssl_start: -1.0,
                    ssl_end: -1.0,
                    send_start: -1.0,
                    send_end: -1.0,
                    receive_headers_start: Some(end_ms),
                    receive_headers_end: end_ms,
                    proxy_start: -1.0,
                    proxy_end: -1.0,
                }),
                ..raw.clone()
            });
        }
        out.push(raw);
        let chain: Vec<usize> = (first..out.len()).collect();
        for (k, &c) in chain.iter().enumerate() {
            if k > 0 {
                out[c].redirect_source = Some(chain[k - 1]);
                out[c].redirects = chain[..k].to_vec();
                out[c].request_id = format!("{}:redirect", out[chain[k - 1]].request_id);
            }
            if k + 1 < chain.len() {
                out[c].redirect_destination = Some(chain[k + 1]);
            }
        }
    }
    // linkInitiators.
    let mut by_url: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, l) in out.iter().enumerate() {
        by_url.entry(l.url.as_str()).or_default().push(i);
    }
    let initiators: Vec<Option<usize>> = (0..out.len())
        .map(|i| choose_initiator(&out, requests, &by_url, i))
        .collect();
    for (l, init) in out.iter_mut().zip(initiators) {
        l.initiator_request = init;
    }
    Ok(out)
}

/// `chooseInitiatorRequest`: the request's initiator when it is unambiguous.
fn choose_initiator(
    all: &[LanternRequest],
    raw: &[Request],
    by_url: &HashMap<&str, Vec<usize>>,
    i: usize,
) -> Option<usize> {
    let l = &all[i];
    if l.redirect_source.is_some() {
        return l.redirect_source;
    }
    let r = &raw[l.raw];
    let url = *network_initiators(r).first()?;
    let mut cands: Vec<usize> = by_url
        .get(url)
        .map(|c| {
            c.iter()
                .copied()
                .filter(|&c| {
                    let cr = &raw[all[c].raw];
                    all[c].response_headers_end_ms <= l.renderer_start_ms
                        && cr.finished
                        && !cr.failed
                })
                .collect()
        })
        .unwrap_or_default();
    let narrow = |cands: &mut Vec<usize>, keep: &dyn Fn(usize) -> bool| {
        if cands.len() > 1 {
            let kept: Vec<usize> = cands.iter().copied().filter(|&c| keep(c)).collect();
            if !kept.is_empty() {
                *cands = kept;
            }
        }
    };
    narrow(&mut cands, &|c| {
        all[c].resource_type.as_deref() != Some("Other")
    });
    narrow(&mut cands, &|c| raw[all[c].raw].frame == r.frame);
    if r.initiator.as_ref().is_some_and(|(t, _)| t == "parser") {
        narrow(&mut cands, &|c| {
            all[c].resource_type.as_deref() == Some("Document")
        });
    }
    if cands.len() > 1 {
        let preload: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&c| raw[all[c].raw].is_link_preload)
            .collect();
        if !preload.is_empty() {
            let others: Vec<usize> = cands
                .iter()
                .copied()
                .filter(|&c| !raw[all[c].raw].is_link_preload)
                .collect();
            if !others.is_empty() && others.iter().all(|&c| raw[all[c].raw].from_cache) {
                cands = preload;
            }
        }
    }
    (cands.len() == 1).then(|| cands[0])
}
