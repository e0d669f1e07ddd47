//! The third-parties insight (`ThirdParties`) as DevTools' trace engine computes it: each
//! entity's transfer size and main-thread time, from the main frame's main thread. Entities are
//! named as the engine names them: a company third-party-web knows (its database is embedded,
//! the version the engine bundles) by that company's entity name ("Google Analytics"), any other
//! http(s) URL by its root domain, a Chrome extension by its id.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use jsprof_profile::page_events::PageEvents;
use jsprof_profile::TraceFile;

use super::insight_common::{in_bounds, Related, RelatedEvent, State};
use super::vitals::{NavigationVitals, Window};
use crate::network::Request;
use crate::units::ns_to_us;
use jsprof_analysis::timeline::{EventData, Timeline};

/// One entity's share of the page.
#[derive(Clone, Debug, PartialEq)]
pub struct EntitySummary {
    pub name: String,
    pub first_party: bool,
    pub transfer_size: f64,
    /// Self time (µs) of the main frame's main thread spent in the entity's events and JS.
    pub main_thread: f64,
}

/// Third parties (`ThirdParties`).
#[derive(Clone, Debug, PartialEq)]
pub struct ThirdParties {
    pub state: State,
    pub first_party: Option<String>,
    pub entities: Vec<EntitySummary>,
    /// The events the engine maps to the third-party entities (its `relatedEvents`): per
    /// entity, its requests with their network events, then its renderer entries.
    pub related: Vec<Related>,
}

/// third-party-web's `getRootDomain`: the host of the URL (or the first domain-like run of
/// characters), an IP address as is, else its last two labels (three for `gov|com|co|ne.xx`).
pub fn root_domain(url: &str) -> Option<String> {
    parse_domains(url).map(|(root, _)| root)
}

/// third-party-web's `parseDomains`: the root domain and the domain of a URL or origin.
fn parse_domains(url: &str) -> Option<(String, String)> {
    if url.len() > 10_000 || url.starts_with("data:") {
        return None;
    }
    // DOMAIN_CHARACTERS, /(?:[a-z0-9.-]+\.[a-z0-9]+|localhost)/i, wins over the URL's host when
    // it matches, and it matches the first such run anywhere in the string.
    let domain = domain_characters(url).or_else(|| {
        let rest = &url[url.find("://")? + 3..];
        let host = rest.split(['/', ':']).next()?;
        (!host.is_empty()).then(|| host.to_string())
    })?;
    let is_ip = {
        let parts: Vec<&str> = domain.split('.').collect();
        parts.len() == 4
            && parts
                .iter()
                .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit()))
    };
    if is_ip {
        return Some((domain.clone(), domain));
    }
    let labels: Vec<&str> = domain.split('.').collect();
    let n = labels.len();
    if n >= 3 {
        let second = labels[n - 2].to_ascii_lowercase();
        let last = labels[n - 1];
        if matches!(second.as_str(), "gov" | "com" | "co" | "ne")
            && last.len() == 2
            && last.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            && !labels[n - 3].is_empty()
        {
            return Some((labels[n - 3..].join("."), domain));
        }
    }
    if n >= 2 && !labels[n - 2].is_empty() && !labels[n - 1].is_empty() {
        return Some((labels[n - 2..].join("."), domain));
    }
    Some((domain.clone(), domain))
}

/// third-party-web's database of known entities (companies and their products' domains), the
/// version DevTools' trace engine bundles: `data/third-party-web-entities.tsv`, written from the
/// npm package by `tools/third-party-web/entities.mjs` (MIT; `data/LICENSE-third-party-web`).
const ENTITIES: &str = include_str!("../data/third-party-web-entities.tsv");

/// The database's lookup tables, as `createAPIFromDataset` builds them: every domain as given,
/// and a wildcard `*.x` under its root domain when `x` is one, else under `x` as a subdomain
/// (a later entity wins, as in its `Map`s).
struct Known {
    by_domain: HashMap<&'static str, &'static str>,
    by_subdomain: HashMap<&'static str, &'static str>,
    by_root: HashMap<String, &'static str>,
}

fn known() -> &'static Known {
    static KNOWN: std::sync::OnceLock<Known> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut k = Known {
            by_domain: HashMap::default(),
            by_subdomain: HashMap::default(),
            by_root: HashMap::default(),
        };
        for line in ENTITIES.lines().filter(|l| !l.starts_with('#')) {
            let Some((name, domains)) = line.split_once('\t') else {
                continue;
            };
            for domain in domains.split(' ').filter(|d| !d.is_empty()) {
                k.by_domain.insert(domain, name);
                if let Some(wild) = domain.strip_prefix("*.") {
                    match root_domain(domain) {
                        Some(root) if root == wild => {
                            k.by_root.insert(root, name);
                        }
                        _ => {
                            k.by_subdomain.insert(wild, name);
                        }
                    }
                }
            }
        }
        k
    })
}

/// third-party-web's `getEntity`: the known entity of a URL, by its domain, then each shorter
/// subdomain down to (not including) the root domain, then the root domain.
pub fn known_entity(url: &str) -> Option<&'static str> {
    let (root, domain) = parse_domains(url)?;
    let k = known();
    if let Some(name) = k.by_domain.get(domain.as_str()) {
        return Some(name);
    }
    let mut sub = domain.as_str();
    while sub.len() > root.len() {
        if let Some(name) = k.by_subdomain.get(sub) {
            return Some(name);
        }
        sub = match sub.split_once('.') {
            Some((_, rest)) => rest,
            None => break,
        };
    }
    k.by_root.get(&root).copied()
}

/// The trace engine's entity of a URL (`getEntityForUrl`): the known entity, else one made up
/// (`makeUpEntity`): a Chrome extension by its id, an http(s) URL by its root domain.
pub fn entity_of_url(url: &str) -> Option<String> {
    if let Some(name) = known_entity(url) {
        return Some(name.to_string());
    }
    if let Some(rest) = url.strip_prefix("chrome-extension://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        return (!host.is_empty()).then(|| host.to_ascii_lowercase());
    }
    if !url.starts_with("http") {
        return None;
    }
    root_domain(url)
}

/// The first match of `(?:[a-z0-9.-]+\.[a-z0-9]+|localhost)` (case-insensitive), leftmost then
/// greedy as JavaScript's regex engine picks it.
fn domain_characters(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'.' || c == b'-';
    for start in 0..b.len() {
        if word(b[start]) {
            // Greedy `[a-z0-9.-]+` then backtrack to a `.` followed by at least one alphanumeric.
            let mut end = start;
            while end < b.len() && word(b[end]) {
                end += 1;
            }
            // The longest match: the run up to its last alphanumeric preceded somewhere by a dot
            // after at least one character.
            let mut best = None;
            let mut k = end;
            while k > start + 1 {
                // Try ending at k: the tail `\.[a-z0-9]+` must be the last part.
                let tail_start = (start + 1..k).rev().find(|&d| b[d] == b'.');
                if let Some(d) = tail_start {
                    if d + 1 < k && b[d + 1..k].iter().all(u8::is_ascii_alphanumeric) {
                        best = Some(k);
                        break;
                    }
                }
                k -= 1;
            }
            if let Some(k) = best {
                return Some(s[start..k].to_string());
            }
        }
        if s[start..].len() >= 9 && s[start..start + 9].eq_ignore_ascii_case("localhost") {
            return Some(s[start..start + 9].to_string());
        }
    }
    None
}

/// The trace engine's `VISIBLE_TRACE_EVENT_TYPES`: the events its bottom-up trees show. The
/// others are left out, their time staying with their nearest shown ancestor.
const VISIBLE: &[&str] = &[
    "AbortPostTaskCallback",
    "Animation",
    "AsyncTask",
    "v8.deserializeOnBackground",
    "v8.produceModuleCache",
    "v8.produceCache",
    "CancelAnimationFrame",
    "CancelIdleCallback",
    "Commit",
    "V8.CompileCode",
    "V8.CompileModule",
    "v8.compile",
    "CompositeLayers",
    "ComputeIntersections",
    "ConsoleTime",
    "CppGC.IncrementalSweep",
    "DoDecryptReply",
    "DoDecrypt",
    "DoDigestReply",
    "DoDigest",
    "DoEncryptReply",
    "DoEncrypt",
    "DoSignReply",
    "DoSign",
    "DoVerifyReply",
    "DoVerify",
    "Decode Image",
    "EmbedderCallback",
    "v8.evaluateModule",
    "EvaluateScript",
    "EventDispatch",
    "EventTiming",
    "V8.FinalizeDeserialization",
    "FireAnimationFrame",
    "FireIdleCallback",
    "FunctionCall",
    "BlinkGC.AtomicPhase",
    "GCEvent",
    "GPUTask",
    "HandlePostMessage",
    "HitTest",
    "JSSample",
    "Layerize",
    "Layout",
    "MajorGC",
    "MinorGC",
    "V8.OptimizeCode",
    "PaintSetup",
    "Paint",
    "ParseAuthorStyleSheet",
    "ParseHTML",
    "PrePaint",
    "ProfileCall",
    "Program",
    "RasterTask",
    "RequestAnimationFrame",
    "RequestIdleCallback",
    "ResourceFinish",
    "ResourceReceivedData",
    "ResourceReceiveResponse",
    "ResourceSendRequest",
    "ResourceWillSendRequest",
    "RunMicrotasks",
    "RunPostTaskCallback",
    "RunTask",
    "SchedulePostMessage",
    "SchedulePostTaskCallback",
    "ScheduleStyleRecalculation",
    "ScrollLayer",
    "CpuProfiler::StartProfiling",
    "v8.parseOnBackgroundParsing",
    "v8.parseOnBackgroundWaiting",
    "v8.parseOnBackground",
    "SyntheticLayoutShiftCluster",
    "SyntheticLayoutShift",
    "TimeStamp",
    "TimerFire",
    "TimerInstall",
    "TimerRemove",
    "UpdateLayerTree",
    "UpdateLayoutTree",
    "UserTiming",
    "V8Console::runTask",
    "v8.wasm.cachedModule",
    "v8.wasm.compiledModule",
    "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid",
    "v8.wasm.streamFromResponseCallback",
    "WebSocketCreate",
    "WebSocketDestroy",
    "WebSocketReceiveHandshakeResponse",
    "WebSocketReceive",
    "WebSocketSendHandshakeRequest",
    "WebSocketSend",
    "XHRLoad",
    "XHRReadyStateChange",
];

/// Self time (µs) of each shown event of `tl` within `b`, as the engine's bottom-up tree with
/// its visible-events filter counts it: the event's time in the window less that of its
/// nearest shown descendants.
fn visible_self_times(
    tl: &Timeline,
    strings: &jsprof_profile::StringTable,
    b: &Window,
) -> Vec<(usize, f64)> {
    let n = tl.events.len();
    let visible: Vec<bool> = tl
        .events
        .iter()
        .map(|e| matches!(e.data, EventData::Frame(_)) || VISIBLE.contains(&strings.get(e.name)))
        .collect();
    // Events are in pre-order, so a parent's answer is known before its children ask.
    let mut shown_ancestor: Vec<Option<usize>> = vec![None; n];
    let mut self_time = vec![0.0; n];
    for (i, e) in tl.events.iter().enumerate() {
        shown_ancestor[i] = e.parent.map(|p| p as usize).and_then(|p| {
            if visible[p] {
                Some(p)
            } else {
                shown_ancestor[p]
            }
        });
        if !visible[i] {
            continue;
        }
        let clipped = (ns_to_us(e.end).min(b.end) - ns_to_us(e.start).max(b.start)).max(0.0);
        self_time[i] += clipped;
        if let Some(a) = shown_ancestor[i] {
            self_time[a] -= clipped;
        }
    }
    (0..n)
        .filter(|&i| {
            visible[i]
                && in_bounds(
                    ns_to_us(tl.events[i].start),
                    ns_to_us(tl.events[i].end - tl.events[i].start),
                    b,
                )
        })
        .map(|i| (i, self_time[i]))
        .collect()
}

/// Where the engine's bottom-up tree made a node (`forEachEvent`'s order): an event's end, `0`
/// and its depth negated (an inner event closes first) and its index; or a network event's time,
/// `1` (after the events that closed by then), `0, 0`.
type Met = (i64, u8, i64, usize);

/// Transfer size per request id as the engine's bottom-up tree tallies it from the network events
/// on the main thread within `b` (`ungroupedTopNodes`): chunks add up, a response or finish with
/// a size replaces the tally, and a cache hit counts nothing. With each, the time of its first
/// such event (when the tree made its node).
fn main_thread_transfer_sizes(
    page: &PageEvents,
    tl: &Timeline,
    b: &Window,
) -> Vec<(String, f64, i64)> {
    use jsprof_profile::page_events::NetworkEvent;
    let on_main = |e: &&jsprof_profile::page_events::RequestEvent| {
        Some(e.at.pid) == tl.pid && Some(e.at.tid) == tl.tid
    };
    let mut cache_hit: HashMap<&str, bool> = HashMap::default();
    for e in page.requests.iter().filter(on_main) {
        if let NetworkEvent::ReceiveResponse(r) = &e.event {
            cache_hit.insert(&e.request_id, r.from_cache);
        }
    }
    let mut events: Vec<&jsprof_profile::page_events::RequestEvent> = page
        .requests
        .iter()
        .filter(on_main)
        .filter(|e| {
            let ts = ns_to_us(e.at.ts);
            b.start <= ts && ts <= b.end
        })
        .collect();
    events.sort_by_key(|e| e.at.ts);
    let mut out: Vec<(String, f64, i64)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::default();
    for e in events {
        let len = match &e.event {
            NetworkEvent::ReceiveResponse(r) => r.encoded_data_length,
            NetworkEvent::ReceivedData {
                encoded_data_length,
            } => *encoded_data_length,
            NetworkEvent::Finish(f) => f.encoded_data_length.unwrap_or(0.0),
            _ => continue,
        };
        let hit = cache_hit
            .get(e.request_id.as_str())
            .copied()
            .unwrap_or(false);
        let i = *at.entry(e.request_id.as_str()).or_insert_with(|| {
            out.push((e.request_id.clone(), 0.0, e.at.ts));
            out.len() - 1
        });
        let size = &mut out[i].1;
        match &e.event {
            NetworkEvent::ReceivedData { .. } if hit => *size = 0.0,
            NetworkEvent::ReceivedData { .. } => *size += len,
            NetworkEvent::Finish(_) if len == 0.0 && hit => *size = 0.0,
            _ if len > 0.0 => *size = len,
            _ => {}
        }
    }
    out
}

pub(crate) fn third_parties(
    trace: &TraceFile,
    requests: &[Request],
    nav: &NavigationVitals,
    timelines: &[Timeline],
) -> ThirdParties {
    let b = &nav.bounds;
    let mut entities: Vec<EntitySummary> = Vec::new();
    // When the engine's bottom-up tree first met each entity (by `entities`' index), as a sort
    // key: its entity groups, and so the insight's related events, come in that order.
    let mut met: Vec<Met> = Vec::new();
    let mut cache: HashMap<String, Option<String>> = HashMap::default();
    let mut entity_of = |url: &str| -> Option<String> {
        if url.is_empty() {
            return None;
        }
        cache
            .entry(url.to_string())
            .or_insert_with(|| entity_of_url(url))
            .clone()
    };
    let add = |entities: &mut Vec<EntitySummary>,
               met: &mut Vec<Met>,
               name: String,
               at: Met,
               size: f64,
               time: f64| {
        match entities.iter().position(|e| e.name == name) {
            Some(i) => {
                let e = &mut entities[i];
                e.transfer_size += size;
                e.main_thread += time;
                met[i] = met[i].min(at);
            }
            None => {
                entities.push(EntitySummary {
                    name,
                    first_party: false,
                    transfer_size: size,
                    main_thread: time,
                });
                met.push(at);
            }
        }
    };
    // The main-frame process's main thread: the engine groups its entries' self time by the
    // entity of each entry's own URL (a JS call's script, a script's or style sheet's URL).
    let main_pids = super::insight_common::main_frame_pids(trace, nav);
    let strings = &trace.profile.strings;
    let main = timelines
        .iter()
        .find(|t| t.pid.is_some_and(|p| main_pids.contains(&p)) && t.name == "CrRendererMain");
    if let Some(tl) = main {
        // The URL the engine attributes each event to (`getNonResolvedURL`, kept by the reader
        // per event), by (start, name): a timeline's events are its thread's events re-ordered.
        let urls: HashMap<(i64, jsprof_profile::StringId), jsprof_profile::StringId> = trace
            .threads
            .iter()
            .find(|t| Some(t.pid) == tl.pid && Some(t.tid) == tl.tid)
            .map(|t| {
                t.urls
                    .iter()
                    .map(|&(i, url)| {
                        let e = &t.events[i as usize];
                        ((e.start, e.name), url)
                    })
                    .collect()
            })
            .unwrap_or_default();
        for (i, self_time) in visible_self_times(tl, strings, b) {
            let e = &tl.events[i];
            // The engine's tree makes no node for an event without a duration (`forEachEvent`
            // hands it on as an instant, which only the network's tally reads): a
            // `RequestAnimationFrame` or `TimerInstall` names no entity.
            if e.end <= e.start {
                continue;
            }
            // A JS call's script; a trace event's own URL (a style sheet's parse has none:
            // the engine reads `stylesheetUrl`, which Chrome spells `styleSheetUrl`).
            let url = match e.data {
                EventData::Frame(f) => strings.get(trace.profile.frames.get(f).url),
                _ => match urls.get(&(e.start, e.name)) {
                    Some(&url) => strings.get(url),
                    None => continue,
                },
            };
            if let Some(name) = entity_of(url) {
                // The engine's node for the event is made when the event ends (`forEachEvent`
                // closes events in end order, an inner one first).
                let at = (e.end, 0, -(e.depth as i64), i);
                add(&mut entities, &mut met, name, at, 0.0, self_time);
            }
        }
    }
    if let Some(tl) = main {
        let by_id: HashMap<&str, &Request> = requests
            .iter()
            .map(|r| (r.request_id.as_str(), r))
            .collect();
        for (id, size, first_ts) in main_thread_transfer_sizes(&trace.page, tl, b) {
            // The engine maps a request's events to the entity of its (final) URL.
            let Some(r) = by_id.get(id.as_str()) else {
                continue;
            };
            if let Some(name) = entity_of(&r.url) {
                // A network event's node is made when it comes, after the events that ended
                // by then.
                add(
                    &mut entities,
                    &mut met,
                    name,
                    (first_ts, 1, 0, 0),
                    size,
                    0.0,
                );
            }
        }
    }
    // The order the tree met the entities in, by name (before the table's sort).
    let order: HashMap<String, Met> = entities
        .iter()
        .zip(&met)
        .map(|(e, &at)| (e.name.clone(), at))
        .collect();
    let first_party = entity_of(&nav.url);
    // The insight's table order (heaviest main-thread time first, then transfer size); the
    // engine's own list follows the order its bottom-up tree happened to meet them in.
    entities.sort_by(|a, b| {
        b.main_thread
            .total_cmp(&a.main_thread)
            .then(b.transfer_size.total_cmp(&a.transfer_size))
            .then_with(|| a.name.cmp(&b.name))
    });
    for e in &mut entities {
        e.first_party = first_party.as_deref() == Some(e.name.as_str());
    }
    // The engine concatenates the entities' events in the order of its summaries: its
    // bottom-up tree's entity groups, in the order the tree met each entity's first node.
    let mut third: Vec<&str> = entities
        .iter()
        .filter(|e| !e.first_party)
        .map(|e| e.name.as_str())
        .collect();
    third.sort_by_key(|&name| order[name]);
    let related = if third.is_empty() {
        Vec::new()
    } else {
        entity_events(trace, requests, timelines, &third, &mut entity_of)
    };
    ThirdParties {
        state: if entities.iter().any(|e| !e.first_party) {
            State::Informative
        } else {
            State::Pass
        },
        first_party,
        entities,
        related,
    }
}

/// The events of `wanted` entities as the engine's `entityMappings.eventsByEntity` lists them,
/// entity after entity in the order given. First its network requests (in the order the engine
/// met them: our requests' order), each as the request and then its network events grouped
/// by kind, the kinds in the order the request's first event of each came; then the renderer
/// entries (the `X`, `B` and `I` events of the processes that host a frame, and the JS calls)
/// that its tree building kept, process by process and thread by thread in the order their
/// first event came, each thread's entries in start order.
fn entity_events(
    trace: &TraceFile,
    requests: &[Request],
    timelines: &[Timeline],
    wanted: &[&str],
    entity_of: &mut impl FnMut(&str) -> Option<String>,
) -> Vec<Related> {
    use jsprof_profile::page_events::NetworkEvent;
    let mut by_entity: Vec<Vec<Related>> = vec![Vec::new(); wanted.len()];
    let slot = |url: &str, entity_of: &mut dyn FnMut(&str) -> Option<String>| {
        let name = entity_of(url)?;
        wanted.iter().position(|w| *w == name)
    };
    // Network: each request's events by id, grouped as the engine stores them per request.
    let mut by_id: HashMap<&str, Vec<&jsprof_profile::page_events::RequestEvent>> =
        HashMap::default();
    for e in &trace.page.requests {
        by_id.entry(e.request_id.as_str()).or_default().push(e);
    }
    let kind = |e: &NetworkEvent| match e {
        NetworkEvent::ChangePriority { .. } => 0,
        NetworkEvent::WillSendRequest => 1,
        NetworkEvent::SendRequest(_) => 2,
        NetworkEvent::ReceiveResponse(_) => 3,
        NetworkEvent::ReceivedData { .. } => 4,
        NetworkEvent::Finish(_) => 5,
        NetworkEvent::MarkAsCached => 6,
        NetworkEvent::PreloadRenderBlockingStatusChange { .. } => 7,
    };
    // Kinds the engine keeps one of (the last), the others all in order.
    let single = |k: usize| matches!(k, 0 | 3 | 5 | 6);
    let name_of = |e: &NetworkEvent| match e {
        NetworkEvent::ChangePriority { .. } => "ResourceChangePriority",
        NetworkEvent::WillSendRequest => "ResourceWillSendRequest",
        NetworkEvent::SendRequest(_) => "ResourceSendRequest",
        NetworkEvent::ReceiveResponse(_) => "ResourceReceiveResponse",
        NetworkEvent::ReceivedData { .. } => "ResourceReceivedData",
        NetworkEvent::Finish(_) => "ResourceFinish",
        NetworkEvent::MarkAsCached => "ResourceMarkAsCached",
        NetworkEvent::PreloadRenderBlockingStatusChange { .. } => {
            "PreloadRenderBlockingStatusChange"
        }
    };
    // Events the network mapping took: the renderer's mapping skips them (an event is mapped
    // once), by (pid, tid, ts, name).
    let mut mapped: HashSet<(u64, u64, i64, &str)> = HashSet::default();
    for (i, r) in requests.iter().enumerate() {
        let Some(entity) = entity_of(&r.url) else {
            continue;
        };
        let mut out = wanted
            .iter()
            .position(|w| *w == entity)
            .map(|w| &mut by_entity[w]);
        if let Some(out) = out.as_mut() {
            out.push(Related::Request(i));
        }
        let events = by_id
            .get(r.request_id.as_str())
            .map_or(&[][..], Vec::as_slice);
        let mut kinds: Vec<usize> = Vec::new();
        for e in events {
            let k = kind(&e.event);
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        for k in kinds {
            let mut of_kind = events.iter().filter(|e| kind(&e.event) == k);
            let chosen: Vec<_> = if single(k) {
                of_kind.next_back().into_iter().collect()
            } else {
                of_kind.collect()
            };
            for e in chosen {
                let name = name_of(&e.event);
                mapped.insert((e.at.pid, e.at.tid, e.at.ts, name));
                if let Some(out) = out.as_mut() {
                    out.push(Related::Event(RelatedEvent::placed(
                        trace, timelines, e.at.pid, e.at.tid, name, e.at.ts, e.dur,
                    )));
                }
            }
        }
    }
    // Renderer entries: the processes that host a frame (the engine drops the others).
    let renderers: HashSet<u64> = trace
        .page
        .frame_urls
        .iter()
        .filter(|f| url::Url::parse(&f.url).is_ok())
        .map(|f| f.process_id)
        .collect();
    let mut threads: Vec<usize> = (0..trace.threads.len())
        .filter(|&t| {
            let t = &trace.threads[t];
            renderers.contains(&t.pid) && t.first_entry.is_some()
        })
        .collect();
    let process_rank: HashMap<u64, u32> = threads.iter().fold(HashMap::default(), |mut m, &t| {
        let t = &trace.threads[t];
        let first = t.first_entry.unwrap_or(u32::MAX);
        let r = m.entry(t.pid).or_insert(first);
        *r = (*r).min(first);
        m
    });
    threads.sort_by_key(|&t| {
        let t = &trace.threads[t];
        (process_rank[&t.pid], t.first_entry)
    });
    let strings = &trace.profile.strings;
    for t in threads {
        let thread = &trace.threads[t];
        let tl = timelines
            .get(t)
            .filter(|tl| tl.pid == Some(thread.pid) && tl.tid == Some(thread.tid));
        let calls = tl.map_or(&[][..], |tl| tl.calls.as_slice());
        let events = &thread.events;
        let n = events.len();
        let key = |i: usize| match events.get(i) {
            Some(e) => (e.start, e.dur, false),
            None => (calls[i - n].start, calls[i - n].dur, true),
        };
        let mut order: Vec<usize> = (0..n)
            .filter(|&i| matches!(events[i].ph, b'X' | b'B' | b'I'))
            .chain(n..n + calls.len())
            .collect();
        order.sort_by(|&a, &b| jsprof_analysis::devtools_order(key(a), key(b)));
        // The engine's `treify`: an entry that starts inside the open one but ends after it
        // is left out of the tree, and so out of the entity mapping.
        let mut open: Vec<(i64, i64)> = Vec::new();
        for i in order {
            let (start, dur, _) = key(i);
            while open.last().is_some_and(|&(_, end)| start >= end) {
                open.pop();
            }
            if open.last().is_some_and(|&(_, end)| start + dur > end) {
                continue;
            }
            open.push((start, start + dur));
            let url = match events.get(i) {
                Some(_) => thread
                    .urls
                    .binary_search_by_key(&(i as u32), |&(e, _)| e)
                    .ok()
                    .map(|k| strings.get(thread.urls[k].1)),
                None => Some(strings.get(trace.profile.frames.get(calls[i - n].frame).url)),
            };
            if let Some(e) = events.get(i) {
                if mapped.contains(&(thread.pid, thread.tid, e.start, strings.get(e.name))) {
                    continue;
                }
            }
            let Some(w) = url
                .filter(|u| !u.is_empty())
                .and_then(|u| slot(u, entity_of))
            else {
                continue;
            };
            by_entity[w].push(Related::Event(match events.get(i) {
                Some(e) => RelatedEvent::of(trace, timelines, t, e),
                None => match tl {
                    Some(tl) => RelatedEvent::of_call(tl, &calls[i - n]),
                    None => continue,
                },
            }));
        }
    }
    by_entity.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_domains_follow_third_party_web() {
        for (url, want) in [
            ("http://127.0.0.1:8790/app.js", Some("127.0.0.1")),
            ("http://localhost:8791/w.js", Some("localhost")),
            ("https://cdn.static.example.com/x.js", Some("example.com")),
            ("https://www.bbc.co.uk/", Some("bbc.co.uk")),
            ("data:text/plain,hi", None),
        ] {
            assert_eq!(root_domain(url).as_deref(), want, "{url}");
        }
    }

    /// Every domain of the embedded database (a wildcard's root and a subdomain under it), and
    /// domains it does not know, looked up by us and by third-party-web's own `getEntity` (the
    /// npm package the oracle build installs): the same entity, or none, for each.
    #[test]
    fn known_entities_are_third_party_webs() {
        let package = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/oracle/node_modules/third-party-web");
        if !package.exists() {
            assert!(
                std::env::var_os("CI").is_none(),
                "{} is missing: bash tools/oracle/build.sh target/oracle",
                package.display()
            );
            eprintln!("skipped: no {}", package.display());
            return;
        }
        let mut urls = vec![
            "https://www.example-unknown-shop.com/app.js".to_string(),
            "http://127.0.0.1:8790/app.js".to_string(),
            "chrome-extension://abcdefghijklmnop/content.js".to_string(),
            "https://a.b.c.d.e.example.co.uk/x".to_string(),
            String::new(),
        ];
        for line in ENTITIES.lines().filter(|l| !l.starts_with('#')) {
            let (_, domains) = line.split_once('\t').unwrap();
            for d in domains.split(' ') {
                match d.strip_prefix("*.") {
                    Some(w) => {
                        urls.push(format!("https://{w}/a.js"));
                        urls.push(format!("https://deep.sub.{w}/b.js?x=1"));
                    }
                    None => urls.push(format!("https://{d}:8443/c.js")),
                }
            }
        }
        let list = std::env::temp_dir().join(format!("tpw-urls-{}.json", std::process::id()));
        std::fs::write(&list, serde_json::to_string(&urls).unwrap()).unwrap();
        let script = format!(
            "const t = require({:?}); const urls = JSON.parse(require('fs').readFileSync({:?}, 'utf8')); \
             process.stdout.write(JSON.stringify(urls.map((u) => (t.getEntity(u) || {{}}).name ?? null)));",
            package.display().to_string(),
            list.display().to_string()
        );
        let out = std::process::Command::new("node")
            .arg("-e")
            .arg(script)
            .output()
            .expect("node");
        let _ = std::fs::remove_file(&list);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Vec<Option<String>> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(want.len(), urls.len());
        let mut named = 0;
        for (u, w) in urls.iter().zip(&want) {
            assert_eq!(known_entity(u), w.as_deref(), "{u}");
            named += w.is_some() as usize;
        }
        assert!(
            named > 2000,
            "only {named} URLs named: the table did not load"
        );
    }
}
