//! Network requests as DevTools' `NetworkRequestsHandler` derives them from the `Resource*`
//! events: one request per request id that has a `ResourceSendRequest`, its start (the first
//! `ResourceWillSendRequest`, else the first send), its end (the `ResourceFinish` event), the
//! network stack's finish time, send and download start, queueing, waiting and the sizes.

use rustc_hash::FxHashMap as HashMap;

use crate::units::{ms_to_us, ns_to_us, s_to_us};
use jsprof_profile::page_events::{
    Finish, NetworkEvent, PageEvents, RequestEvent, ResourceTiming, Response, SendRequest, Stamp,
};

/// One network request. Times are microseconds on the trace clock, as DevTools keeps them.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub request_id: String,
    pub url: String,
    pub pid: u64,
    pub tid: u64,
    /// The first `ResourceWillSendRequest` (else `ResourceSendRequest`).
    pub start: f64,
    /// The `ResourceFinish` event (else the last send): DevTools' bar ends here.
    pub end: f64,
    /// When the network stack finished (`ResourceFinish.finishTime`), else `end`.
    pub finish: f64,
    /// `requestTime + sendStart`, else `start`.
    pub send_start: f64,
    /// `requestTime + receiveHeadersEnd`, else `start`.
    pub download_start: f64,
    /// Time to the response's first byte from the send (`receiveHeadersStart - sendEnd`), 0
    /// without timing.
    pub server_response_time: f64,
    pub queueing: f64,
    pub stalled: f64,
    pub waiting: f64,
    pub download: f64,
    /// `requestTime + receiveHeadersStart` (headers end when start is missing): the response's
    /// first byte; `None` without timing.
    pub first_byte: Option<f64>,
    pub priority: String,
    pub initial_priority: String,
    pub fetch_priority_hint: String,
    pub mime_type: String,
    pub resource_type: String,
    pub request_method: Option<String>,
    /// `ResourceFinish.encodedDataLength` (0 when the request never finished).
    pub transfer_size: f64,
    pub decoded_body_length: f64,
    pub status: u32,
    pub protocol: String,
    /// `blocking`, `in_body_parser_blocking`, `non_blocking`, …
    pub render_blocking: String,
    pub from_cache: bool,
    /// Served from the disk cache (DevTools' `isDiskCached`) or the memory cache
    /// (`isMemoryCached`): Lantern simulates the first without a connection.
    pub from_disk_cache: bool,
    pub from_memory_cache: bool,
    /// The response's timing as DevTools keeps it (none for a memory-cached request, whose
    /// timing is the original request's).
    pub timing: Option<ResourceTiming>,
    /// The response's `connectionId` (0 without one) and `connectionReused`.
    pub connection_id: f64,
    pub connection_reused: bool,
    pub failed: bool,
    pub finished: bool,
    pub frame: String,
    pub initiator: Option<(String, Option<String>)>,
    /// URLs this request was redirected from, in order.
    pub redirects: Vec<String>,
    /// Each redirect's start and duration (µs), as the engine's `redirects[i].ts`/`dur`: from
    /// its `ResourceWillSendRequest` to the next (its `ResourceSendRequest`s without them).
    pub redirect_spans: Vec<(f64, f64)>,
    /// The final `ResourceSendRequest` (µs).
    pub final_send: f64,
    /// The final send's `initiator.fetchType`.
    pub fetch_type: Option<String>,
    /// The URLs of the final send's `stackTrace`, top first.
    pub stack_trace: Vec<String>,
    /// A response without a `connectionId` (a trace too old for Lantern).
    pub response_without_connection: bool,
    /// From the first send to the last (DevTools' `redirectionDuration`), µs.
    pub redirection_duration: f64,
    /// `<link rel=preload>`.
    pub is_link_preload: bool,
    /// The response headers (name, value); empty without a response.
    pub response_headers: Vec<(String, String)>,
    /// Whether the response wrote its headers (DevTools' `responseHeaders` is then not null).
    pub has_response_headers: bool,
    /// The response came from a service worker.
    pub from_service_worker: bool,
}

impl Request {
    /// Whether the request may block rendering (DevTools'
    /// `isSyntheticNetworkRequestEventRenderBlocking`: any status but the non-blocking ones).
    pub fn is_render_blocking(&self) -> bool {
        !matches!(
            self.render_blocking.as_str(),
            "non_blocking" | "dynamically_injected_non_blocking" | "potentially_blocking"
        )
    }

    /// The URL the trace names as the request's initiator: the initiator's URL, else the
    /// payload stack's top frame; `None` when both are missing or empty.
    pub fn initiator_url(&self) -> Option<&str> {
        self.initiator
            .as_ref()
            .and_then(|(_, u)| u.as_deref())
            .filter(|u| !u.is_empty())
            .or_else(|| self.stack_trace.first().map(String::as_str))
            .filter(|u| !u.is_empty())
    }
}

#[derive(Default)]
struct Gathered<'a> {
    change_priority: Option<&'a str>,
    will_send: Vec<&'a Stamp>,
    send: Vec<(&'a Stamp, &'a SendRequest)>,
    response: Option<(&'a Stamp, &'a Response)>,
    finish: Option<(&'a Stamp, &'a Finish)>,
    memory_cached: bool,
    preload_blocking: Option<Option<&'a str>>,
}

/// The first value of `list` above zero, else 0 (DevTools' `firstPositiveValueInList`).
fn first_positive(list: &[Option<f64>]) -> f64 {
    list.iter()
        .flatten()
        .copied()
        .find(|&v| v > 0.0)
        .unwrap_or(0.0)
}

/// Every request, in the order DevTools lists them: its first event's place in the file. The
/// trace engine handles events in the order the file gives them, which Chrome keeps by thread
/// rather than by time: a request whose first event comes later in the file is listed later,
/// even when it started earlier (`lantern_sim::a_page_load_of_two_thousand_requests…`).
pub fn requests(page: &PageEvents) -> Vec<Request> {
    let events: Vec<&RequestEvent> = page.requests.iter().collect();
    let mut order: Vec<&str> = Vec::new();
    let mut by_id: HashMap<&str, Gathered> = HashMap::default();
    for e in events {
        let g = by_id.entry(e.request_id.as_str()).or_insert_with(|| {
            order.push(e.request_id.as_str());
            Gathered::default()
        });
        match &e.event {
            NetworkEvent::WillSendRequest => g.will_send.push(&e.at),
            NetworkEvent::SendRequest(s) => g.send.push((&e.at, s)),
            NetworkEvent::ReceiveResponse(r) => g.response = Some((&e.at, r)),
            NetworkEvent::ReceivedData { .. } => {}
            NetworkEvent::Finish(f) => g.finish = Some((&e.at, f)),
            NetworkEvent::ChangePriority { priority } => g.change_priority = Some(priority),
            NetworkEvent::MarkAsCached => g.memory_cached = true,
            NetworkEvent::PreloadRenderBlockingStatusChange { render_blocking } => {
                g.preload_blocking = Some(render_blocking.as_deref())
            }
        }
    }
    let mut out = Vec::new();
    for id in order {
        let g = &by_id[id];
        // Incomplete requests (no send) are dropped, as DevTools drops them.
        let (Some(&(first_at, first)), Some(&(final_at, last))) = (g.send.first(), g.send.last())
        else {
            continue;
        };
        if last.url.starts_with("data:") {
            continue;
        }
        const ALLOWED: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];
        if !ALLOWED.iter().any(|p| first.url.starts_with(p)) {
            continue;
        }
        let is_pushed = g
            .finish
            .is_none_or(|(_, f)| f.encoded_data_length != Some(0.0));
        let from_disk_cache = g
            .response
            .is_some_and(|(_, r)| r.from_cache && !r.from_service_worker && !is_pushed);
        let timing = match g.memory_cached {
            true => None,
            false => g.response.and_then(|(_, r)| r.timing.as_ref()),
        };
        let start = ns_to_us(g.will_send.first().map_or(first_at.ts, |s| s.ts));
        let end_redirect = ns_to_us(g.will_send.last().map_or(final_at.ts, |s| s.ts));
        let end = g.finish.map_or(end_redirect, |(at, _)| ns_to_us(at.ts));
        let finish = g
            .finish
            .and_then(|(_, f)| f.finish_time)
            .map_or(end, s_to_us);
        let response_ts = g.response.map(|(at, _)| ns_to_us(at.ts));
        let queueing = timing.map_or(0.0, |t| (s_to_us(t.request_time) - end_redirect).max(0.0));
        let stalled = match timing {
            Some(t) => first_positive(&[
                Some(ms_to_us(t.dns_start)),
                Some(ms_to_us(t.connect_start)),
                Some(ms_to_us(t.send_start)),
                response_ts.map(|r| r - end_redirect),
            ]),
            None => response_ts.map_or(0.0, |r| r - start),
        };
        let send_start = timing.map_or(start, |t| s_to_us(t.request_time) + ms_to_us(t.send_start));
        let waiting = timing.map_or(0.0, |t| ms_to_us(t.receive_headers_end - t.send_end));
        let server_response_time = timing.map_or(0.0, |t| {
            ms_to_us(t.receive_headers_start.unwrap_or(t.receive_headers_end) - t.send_end)
        });
        let download_start = timing.map_or(start, |t| {
            s_to_us(t.request_time) + ms_to_us(t.receive_headers_end)
        });
        let download = match (timing, response_ts) {
            (Some(_), _) => finish - download_start,
            (None, Some(r)) => end - r,
            (None, None) => 0.0,
        };
        let first_byte = g.response.and_then(|(_, r)| r.timing.as_ref()).map(|t| {
            s_to_us(t.request_time)
                + ms_to_us(t.receive_headers_start.unwrap_or(t.receive_headers_end))
        });
        let render_blocking = match g.preload_blocking {
            Some(Some(b)) => b,
            _ => last.render_blocking.as_deref().unwrap_or("non_blocking"),
        };
        let (transfer_size, decoded_body_length) = g.finish.map_or((0.0, 0.0), |(_, f)| {
            (f.encoded_data_length.unwrap_or(0.0), f.decoded_body_length)
        });
        out.push(Request {
            request_id: id.to_string(),
            url: last.url.clone(),
            pid: final_at.pid,
            tid: final_at.tid,
            start,
            end,
            finish,
            send_start,
            download_start,
            server_response_time,
            queueing,
            stalled,
            waiting,
            download,
            first_byte,
            priority: g.change_priority.unwrap_or(&last.priority).to_string(),
            initial_priority: last.priority.clone(),
            fetch_priority_hint: last
                .fetch_priority_hint
                .clone()
                .unwrap_or_else(|| "auto".to_string()),
            mime_type: g
                .response
                .map(|(_, r)| r.mime_type.clone())
                .unwrap_or_default(),
            resource_type: last
                .resource_type
                .clone()
                .unwrap_or_else(|| "Other".to_string()),
            request_method: last.request_method.clone(),
            transfer_size,
            decoded_body_length,
            status: g.response.map_or(0, |(_, r)| r.status),
            protocol: g
                .response
                .and_then(|(_, r)| r.protocol.clone())
                .unwrap_or_else(|| "unknown".to_string()),
            render_blocking: render_blocking.to_string(),
            from_cache: from_disk_cache || g.memory_cached,
            from_disk_cache,
            from_memory_cache: g.memory_cached,
            timing: timing.cloned(),
            connection_id: g.response.map_or(0.0, |(_, r)| r.connection_id),
            connection_reused: g.response.is_some_and(|(_, r)| r.connection_reused),
            failed: g.finish.is_some_and(|(_, f)| f.did_fail),
            finished: g.finish.is_some(),
            frame: last.frame.clone(),
            initiator: last.initiator.clone(),
            redirects: g.send[..g.send.len() - 1]
                .iter()
                .map(|(_, s)| s.url.clone())
                .collect(),
            redirect_spans: (0..g.send.len() - 1)
                .map(|i| match (g.will_send.get(i), g.will_send.get(i + 1)) {
                    (Some(a), Some(b)) => (ns_to_us(a.ts), ns_to_us(b.ts) - ns_to_us(a.ts)),
                    _ => (
                        ns_to_us(g.send[i].0.ts),
                        ns_to_us(g.send[i + 1].0.ts) - ns_to_us(g.send[i].0.ts),
                    ),
                })
                .collect(),
            final_send: ns_to_us(final_at.ts),
            fetch_type: last.fetch_type.clone(),
            stack_trace: last.stack_trace.clone(),
            response_without_connection: g.response.is_some_and(|(_, r)| !r.has_connection_id),
            redirection_duration: end_redirect - start,
            is_link_preload: last.is_link_preload,
            response_headers: g
                .response
                .map(|(_, r)| r.headers.clone())
                .unwrap_or_default(),
            has_response_headers: g.response.is_some_and(|(_, r)| r.has_headers),
            from_service_worker: g.response.is_some_and(|(_, r)| r.from_service_worker),
        });
    }
    out
}
