//! Chrome traces (the Performance panel's JSON: an event array or `{"traceEvents": [...]}`).
//!
//! The events are visited one at a time from text in memory; each keeps only what jsprof needs
//! (name, category, phase, times, one type-specific datum), its `args` are looked at only for the
//! events that carry something jsprof uses. Samples come from `Profile` + `ProfileChunk` events,
//! gathered per `(pid, profile id)` as DevTools' `SamplesHandler` does (the `Profile` event's `ts`
//! is the start: `args.data.startTime` is on another clock), or from the old whole-profile
//! `CpuProfile` event.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;

use rustc_hash::FxHashMap as HashMap;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::call_frame::{NodesSeed, TreeSink};
use crate::error::ReadError;
use crate::json::{opt_cow_str, Float, IdString, JsonPath, MicrosToNanos, NodeIds, Source};
use crate::model::{
    clamp_time, Profile, ProfileKind, SamplePosition, StackId, StringTable, Thread, WeightUnit,
};
use crate::node_tree::RawTree;
use crate::page_events::{self, PageEvents, Stamp};
use crate::trace_events::{TraceEvent, TraceFile, TraceThread};
use crate::trace_segments::skip_blanks;

/// Reads a Chrome trace from decompressed JSON text.
pub fn read_trace<R: Read>(reader: R) -> Result<TraceFile, ReadError> {
    read_trace_from(Source::Reader(reader))
}

/// Like [`read_trace`], over text already in memory.
pub fn read_trace_from<R: Read>(source: Source<'_, R>) -> Result<TraceFile, ReadError> {
    match source {
        Source::Slice(bytes) => read_slice(bytes),
        Source::Reader(mut reader) => {
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes)?;
            read_slice(&bytes)
        }
    }
}

fn read_slice(bytes: &[u8]) -> Result<TraceFile, ReadError> {
    read_trace_slice(bytes, &mut |_| {})
}

/// How much of the event array one thread parses at a time.
const SEGMENT_BYTES: usize = 4 << 20;

/// The most threads that parse: past a few, applying the events in order is what waits.
const MAX_THREADS: usize = 4;

/// Like [`read_trace_from`] over text in memory, telling `consumed(n)` whenever the text before
/// offset `n` has been read: a caller holding a file mapping can let those pages go, so that the
/// file is not resident all at once. The reader may still read them again (it reads a damaged
/// trace a second time, in one pass, to report it exactly), so only pages that come back on
/// access may go.
pub fn read_trace_slice(
    bytes: &[u8],
    consumed: &mut dyn FnMut(usize),
) -> Result<TraceFile, ReadError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS));
    let state = match read_in_segments(bytes, SEGMENT_BYTES, threads, consumed) {
        Some(state) => state,
        None => read_in_one_pass(bytes)?,
    };
    let mut trace = state.finish();
    let event_times = trace.threads.iter().flat_map(|t| {
        t.events
            .iter()
            .flat_map(|e| [e.start, e.start.saturating_add(e.dur)])
    });
    crate::json::warn_clamped(&mut trace.profile, "traceEvents", event_times);
    Ok(trace)
}

/// The whole text in one pass of the deserializer: any layout, and the exact error.
fn read_in_one_pass(bytes: &[u8]) -> Result<State, ReadError> {
    let path = JsonPath::default();
    let mut state = State::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result = TopSeed {
        state: &mut state,
        path: &path,
    }
    .deserialize(&mut de);
    match result {
        Ok(repeated) => {
            if repeated {
                state.profile.warn("traceEvents", crate::json::REPEATED_KEY);
            }
            if de.end().is_err() {
                state.profile.warn("", TRAILING_BYTES);
            }
        }
        // Chrome may leave the event array open (the format allows it); what was read stands.
        Err(e) if e.classify() == serde_json::error::Category::Eof && state.events_seen > 0 => {
            state.profile.warn(path.get(), CUT_SHORT);
        }
        Err(e) => return Err(ReadError::json(&path.get(), e)),
    }
    Ok(state)
}

const TRAILING_BYTES: &str = "bytes after the end of the JSON value were ignored";
const CUT_SHORT: &str =
    "the trace ends before its JSON does; the events before this point were loaded";

/// The event array parsed in segments on `threads` threads ([`crate::trace_segments`]) and
/// applied in order: the same state as [`read_in_one_pass`], or `None` where the text is not
/// laid out as Chrome writes it (the array first, no repeated `traceEvents`) or is damaged
/// anywhere but at its end, for the one pass to read and report.
fn read_in_segments(
    bytes: &[u8],
    every: usize,
    threads: usize,
    consumed: &mut dyn FnMut(usize),
) -> Option<State> {
    use crate::trace_segments::{guess_starts, in_order, read_segment, Stop};

    let (open, object) = event_array(bytes)?;
    let first = skip_blanks(bytes, open);
    if bytes.get(first) == Some(&b']') {
        return None;
    }
    let starts = guess_starts(bytes, first, every);
    let limit = |i: usize| starts.get(i + 1).copied().unwrap_or(usize::MAX);
    let threads = if starts.len() > 1 { threads } else { 1 };
    let path = JsonPath::default();
    let mut state = State::new();
    let mut expected = first;
    let mut index = 0;
    let mut last = None;
    in_order(
        starts.len(),
        threads,
        |i| read_segment::<Element>(bytes, starts[i], limit(i)),
        |i, segment| {
            // A guess that the segment before did not end on: read from where it did.
            let segment = if segment.start == expected {
                segment
            } else {
                read_segment(bytes, expected, limit(i))
            };
            for Element { event, hints } in segment.elements {
                path.set_indexed("traceEvents", index);
                if let Some(e) = event {
                    if state.event(e, hints, &path).is_err() {
                        return false;
                    }
                }
                index += 1;
            }
            expected = segment.end;
            consumed(segment.end);
            match segment.stop {
                Stop::Limit => true,
                stop => {
                    last = Some((stop, segment.end));
                    false
                }
            }
        },
    );
    match last? {
        (Stop::Close, close) => {
            let rest = &bytes[close + 1..];
            let trailing = if object {
                // The keys after the array (`metadata`), read as the one pass would.
                let mut tail = b"{\"traceEvents\":[]".to_vec();
                tail.extend_from_slice(rest);
                let mut de = serde_json::Deserializer::from_slice(&tail);
                let mut keys = State::new();
                let repeated = TopSeed {
                    state: &mut keys,
                    path: &JsonPath::default(),
                }
                .deserialize(&mut de)
                .ok()?;
                state.page.host_dpr = keys.page.host_dpr;
                state.page.scripts.metadata_maps = keys.page.scripts.metadata_maps;
                if repeated {
                    return None;
                }
                de.end().is_err()
            } else {
                skip_blanks(rest, 0) < rest.len()
            };
            if trailing {
                state.profile.warn("", TRAILING_BYTES);
            }
        }
        (Stop::Eof, _) if state.events_seen > 0 => {
            path.set_indexed("traceEvents", index);
            state.profile.warn(path.get(), CUT_SHORT);
        }
        _ => return None,
    }
    Some(state)
}

/// Where the event array's elements begin (just past its `[`), and whether it is the value of
/// `traceEvents` (true) or the whole text: only when it comes first, as Chrome writes it.
fn event_array(bytes: &[u8]) -> Option<(usize, bool)> {
    let at = skip_blanks(bytes, 0);
    match bytes.get(at)? {
        b'[' => Some((at + 1, false)),
        b'{' => {
            let key = b"\"traceEvents\"";
            let at = skip_blanks(bytes, at + 1);
            bytes.get(at..at + key.len()).filter(|k| k == key)?;
            let at = skip_blanks(bytes, at + key.len());
            (bytes.get(at) == Some(&b':')).then_some(())?;
            let at = skip_blanks(bytes, at + 1);
            (bytes.get(at) == Some(&b'[')).then_some((at + 1, true))
        }
        _ => None,
    }
}

/// A process or thread id: a number (strings holding one tolerated).
#[derive(Clone, Copy, Default)]
struct Pid(u64);

impl Pid {
    fn of_str(s: &str) -> Pid {
        let s = s.trim();
        Pid(s
            .parse::<u64>()
            .or_else(|_| s.parse::<i64>().map(|v| v as u64))
            .or_else(|_| s.parse::<f64>().map(Pid::of_f64_bits))
            .unwrap_or(0))
    }

    fn of_f64_bits(v: f64) -> u64 {
        // An integral value within u64 is that value (as its decimal text would parse);
        // anything else goes through i64 (truncated, saturating; negatives wrap).
        if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
            v as u64
        } else {
            v as i64 as u64
        }
    }
}

impl<'de> Deserialize<'de> for Pid {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Pid, D::Error> {
        // A visitor of its own: going through a string (`IdString`) allocated twice an event.
        struct V;
        impl Visitor<'_> for V {
            type Value = Pid;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Pid, E> {
                Ok(Pid(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Pid, E> {
                Ok(Pid(v as u64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Pid, E> {
                Ok(Pid(Pid::of_f64_bits(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Pid, E> {
                Ok(Pid::of_str(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Pid, E> {
                Ok(Pid(0))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct EventIn<'a> {
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    ph: Option<Cow<'a, str>>,
    #[serde(default)]
    ts: Option<Float>,
    #[serde(default)]
    dur: Option<Float>,
    #[serde(default)]
    pid: Option<Pid>,
    #[serde(default)]
    tid: Option<Pid>,
    #[serde(borrow, default)]
    id: Option<IdString<'a>>,
    /// `{"local": …}` or `{"global": …}`: async events' scoped ids (user timing measures).
    #[serde(borrow, default)]
    id2: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

/// What an event's args hold that decides whether they are read: found where the event is
/// parsed (on a parsing thread, see [`crate::trace_segments`]), as a search through the args'
/// text costs about as much as the rest of applying the event.
#[derive(Clone, Copy, Default)]
struct ArgsHints {
    /// `sampleTraceId` on an event kept without a detail.
    sample_trace_id: bool,
    /// A `url` key on an event the trace engine keeps as a renderer entry (`X`, `B`, `I`): its
    /// URL may name the entity (third party) behind it ([`TraceThread::urls`]).
    url: bool,
}

impl ArgsHints {
    fn of(e: &EventIn<'_>) -> ArgsHints {
        let Some(args) = e.args.map(RawValue::get) else {
            return ArgsHints::default();
        };
        let ph = phase(e);
        let name = e.name.as_deref().unwrap_or("");
        ArgsHints {
            sample_trace_id: matches!(ph, b'X' | b'B' | b'I' | b'i' | b'R')
                && detail_kind(name).is_none()
                && args.contains("sampleTraceId"),
            url: matches!(ph, b'X' | b'B' | b'I')
                && (args.contains("url\"") || args.contains("stylesheetUrl\"")),
        }
    }
}

fn phase(e: &EventIn<'_>) -> u8 {
    e.ph.as_deref().and_then(|p| p.bytes().next()).unwrap_or(0)
}

/// An element of the event array (an event or `null`) and its args' hints.
struct Element<'a> {
    event: Option<EventIn<'a>>,
    hints: ArgsHints,
}

impl<'de> Deserialize<'de> for Element<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Element<'de>, D::Error> {
        let event = Option::<EventIn<'de>>::deserialize(d)?;
        let hints = event.as_ref().map(ArgsHints::of).unwrap_or_default();
        Ok(Element { event, hints })
    }
}

/// The args fields read for typed events.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ArgsIn<'a> {
    #[serde(borrow)]
    data: Option<DataIn<'a>>,
    #[serde(rename = "sampleTraceId", deserialize_with = "lenient_id")]
    sample_trace_id: Option<u64>,
    #[serde(borrow, rename = "beginData")]
    begin_data: Option<DataIn<'a>>,
    #[serde(borrow, rename = "fileName", deserialize_with = "opt_cow_str")]
    file_name: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    name: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DataIn<'a> {
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    url: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "styleSheetUrl", deserialize_with = "opt_cow_str")]
    style_sheet_url: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "type", deserialize_with = "opt_cow_str")]
    type_: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    source: Option<Cow<'a, str>>,
    #[serde(rename = "sampleTraceId", deserialize_with = "lenient_id")]
    sample_trace_id: Option<u64>,
}

/// A sample trace id as V8 writes it (an integer); anything else reads as none.
fn lenient_id<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n.as_u64(),
        _ => None,
    })
}

/// The trace engine's `extractSampleTraceId`: `beginData`'s when the args have `beginData`,
/// else the args' own or `data`'s.
fn sample_trace_id(args: &ArgsIn<'_>) -> u64 {
    let id = match &args.begin_data {
        Some(b) => b.sample_trace_id,
        None => args
            .sample_trace_id
            .or(args.data.as_ref().and_then(|d| d.sample_trace_id)),
    };
    id.unwrap_or(0)
}

/// Samples of one `(pid, profile id)` as gathered from its events.
struct ProfileAcc {
    pid: u64,
    tid: Option<u64>,
    /// The `Profile` event's `ts` (ns), or `cpuProfile.startTime` of a `CpuProfile` event.
    start: Option<i64>,
    end: Option<i64>,
    tree: RawTree,
    samples: Vec<u32>,
    deltas: Vec<i64>,
    source: Option<String>,
    /// The first chunk's position (for a profile without a `Profile` event).
    first_ts: i64,
    first_tid: u64,
    /// `cpuProfile.trace_ids` of its chunks: (sample trace id, node id).
    trace_ids: Vec<(u64, u64)>,
    /// The chunks' `lines`/`columns`, one per sample, from the first chunk that has them on
    /// (the samples before it have none); `None` while no chunk had them.
    positions: Option<Vec<SamplePosition>>,
    /// Chunks whose `lines` or `columns` could not be used, and the first one's problem.
    bad_positions: usize,
    first_bad_positions: Option<(String, String)>,
}

struct State {
    profile: Profile,
    threads: Vec<TraceThread>,
    /// Threads met so far with an `X`, `B`, `E` or `I` event ([`TraceThread::first_entry`]).
    entry_threads: u32,
    thread_index: HashMap<(u64, u64), usize>,
    /// Open `B` events per thread: indices into that thread's events.
    open: HashMap<(u64, u64), Vec<usize>>,
    profiles: Vec<ProfileAcc>,
    profile_index: HashMap<(u64, String), usize>,
    thread_names: HashMap<(u64, u64), String>,
    process_names: Vec<(u64, String)>,
    bounds: Option<(i64, i64)>,
    page: PageEvents,
    tracing_started: Option<i64>,
    unmatched_ends: usize,
    mismatched_ends: usize,
    bad_args: usize,
    events_seen: usize,
}

fn ns(us: f64) -> i64 {
    if us.is_finite() {
        clamp_time((us * 1000.0).round() as i64)
    } else {
        0
    }
}

impl State {
    fn new() -> State {
        State {
            profile: Profile::new(ProfileKind::Trace),
            threads: Vec::new(),
            entry_threads: 0,
            thread_index: HashMap::default(),
            open: HashMap::default(),
            profiles: Vec::new(),
            profile_index: HashMap::default(),
            thread_names: HashMap::default(),
            process_names: Vec::new(),
            bounds: None,
            page: PageEvents::default(),
            tracing_started: None,
            unmatched_ends: 0,
            mismatched_ends: 0,
            bad_args: 0,
            events_seen: 0,
        }
    }

    fn thread(&mut self, pid: u64, tid: u64) -> usize {
        let threads = &mut self.threads;
        *self.thread_index.entry((pid, tid)).or_insert_with(|| {
            threads.push(TraceThread {
                pid,
                tid,
                ..TraceThread::default()
            });
            threads.len() - 1
        })
    }

    fn profile_acc(&mut self, pid: u64, id: &str, ts: i64, tid: u64) -> usize {
        let profiles = &mut self.profiles;
        *self
            .profile_index
            .entry((pid, id.to_string()))
            .or_insert_with(|| {
                profiles.push(ProfileAcc {
                    pid,
                    tid: None,
                    start: None,
                    end: None,
                    tree: RawTree::default(),
                    samples: Vec::new(),
                    deltas: Vec::new(),
                    source: None,
                    first_ts: ts,
                    first_tid: tid,
                    trace_ids: Vec::new(),
                    positions: None,
                    bad_positions: 0,
                    first_bad_positions: None,
                });
                profiles.len() - 1
            })
    }

    fn event(&mut self, e: EventIn<'_>, hints: ArgsHints, path: &JsonPath) -> Result<(), String> {
        self.events_seen += 1;
        let ph = phase(&e);
        let name = e.name.as_deref().unwrap_or("");
        let ts_us = e.ts.map(|f| f.0);
        let ts = ts_us.map_or(0, ns);
        let dur = e.dur.map_or(0, |d| ns(d.0).max(0));
        let pid = e.pid.unwrap_or_default().0;
        let tid = e.tid.unwrap_or_default().0;

        // DevTools' trace bounds (MetaHandler).
        if ts_us.is_some_and(|t| t != 0.0)
            && !name.ends_with("::UMA")
            && matches!(ph, b'B' | b'E' | b'X' | b'I')
        {
            let end = ts + if ph == b'X' { dur } else { 0 };
            self.bounds = Some(match self.bounds {
                Some((lo, hi)) => (lo.min(ts), hi.max(end)),
                None => (ts, end),
            });
        }

        let cat = e.cat.as_deref().unwrap_or("");
        if page_events::wanted(name, cat) {
            let id = match (&e.id, e.id2) {
                (Some(id), _) => Some(id.0.as_ref()),
                (None, Some(id2)) => Some(id2.get()),
                (None, None) => None,
            };
            let at = Stamp { ts, pid, tid };
            self.page.push_timed(
                name,
                cat,
                ph,
                at,
                if ph == b'X' { dur } else { 0 },
                id,
                e.args.map(RawValue::get),
            );
        }
        if page_events::is_graph_mark(name) {
            let at = Stamp { ts, pid, tid };
            self.page.push_graph_mark(name, at, dur);
        }

        match (ph, name) {
            (b'M', "thread_name") | (b'M', "process_name") => {
                let args: ArgsIn = parse_args(e.args).unwrap_or_default();
                let n = args.name.map(|n| n.into_owned()).unwrap_or_default();
                if name == "thread_name" {
                    self.thread_names.insert((pid, tid), n);
                } else {
                    self.process_names.push((pid, n));
                }
                return Ok(());
            }
            (_, "TracingStartedInBrowser") => self.tracing_started = Some(ts),
            (b'P', "Profile") => {
                let id = e.id.as_ref().map_or("", |i| &i.0).to_string();
                let p = self.profile_acc(pid, &id, ts, tid);
                self.profiles[p].start = Some(ts);
                self.profiles[p].tid = Some(tid);
                let args: ArgsIn = parse_args(e.args).unwrap_or_default();
                if let Some(src) = args.data.and_then(|d| d.source) {
                    self.profiles[p].source = Some(src.into_owned());
                }
                return Ok(());
            }
            (b'P', "ProfileChunk") => {
                let id = e.id.as_ref().map_or("", |i| &i.0).to_string();
                let p = self.profile_acc(pid, &id, ts, tid);
                if let Some(args) = e.args {
                    self.read_chunk(p, args.get(), path)?;
                }
                return Ok(());
            }
            (_, "CpuProfile") => {
                let id = match &e.id {
                    Some(i) => i.0.to_string(),
                    None => format!("cpuprofile:{tid}"),
                };
                let p = self.profile_acc(pid, &id, ts, tid);
                self.profiles[p].tid = Some(tid);
                if let Some(args) = e.args {
                    self.read_chunk(p, args.get(), path)?;
                }
                if self.profiles[p].start.is_none() {
                    self.profiles[p].start = Some(ts);
                }
                return Ok(());
            }
            _ => {}
        }

        if !matches!(ph, b'X' | b'B' | b'E' | b'I' | b'i' | b'R') {
            return Ok(());
        }
        let t = self.thread(pid, tid);
        if matches!(ph, b'X' | b'B' | b'E' | b'I') && self.threads[t].first_entry.is_none() {
            self.threads[t].first_entry = Some(self.entry_threads);
            self.entry_threads += 1;
        }
        if ph == b'E' {
            let open = self.open.entry((pid, tid)).or_default();
            match open.pop() {
                Some(b) => {
                    let begin = &mut self.threads[t].events[b];
                    let begin_name = self.profile.strings.get(begin.name);
                    if !name.is_empty() && begin_name != name {
                        self.mismatched_ends += 1;
                    } else {
                        begin.dur = (ts - begin.start).max(0);
                    }
                }
                None => self.unmatched_ends += 1,
            }
            return Ok(());
        }
        let kind = detail_kind(name);
        // Most events' args matter to nothing here: parse only those with a detail or a sample
        // trace id.
        let wanted = kind.is_some() || hints.sample_trace_id;
        let (detail, sample_trace_id) = if wanted {
            match parse_args(e.args) {
                Some(args) => (
                    kind.and_then(|k| detail_of(k, &args))
                        .map_or(StringTable::EMPTY, |d| self.profile.strings.intern(d)),
                    sample_trace_id(&args),
                ),
                None => {
                    self.bad_args += usize::from(e.args.is_some());
                    (StringTable::EMPTY, 0)
                }
            }
        } else {
            (StringTable::EMPTY, 0)
        };
        let event = TraceEvent {
            name: self.profile.strings.intern(name),
            cat: self.profile.strings.intern(e.cat.as_deref().unwrap_or("")),
            ph,
            start: ts,
            dur: if ph == b'X' { dur } else { 0 },
            detail,
            sample_trace_id,
        };
        let url = if hints.url {
            entity_url(name, e.args)
        } else {
            None
        };
        if let Some(url) = url {
            let url = self.profile.strings.intern(&url);
            let thread = &mut self.threads[t];
            thread.urls.push((thread.events.len() as u32, url));
        }
        let events = &mut self.threads[t].events;
        events.push(event);
        if ph == b'B' {
            let index = events.len() - 1;
            self.open.entry((pid, tid)).or_default().push(index);
        }
        Ok(())
    }

    /// A `ProfileChunk`'s or `CpuProfile`'s args: `{data: {cpuProfile: {nodes, samples, …},
    /// timeDeltas}}`. A chunk without `data` adds nothing.
    fn read_chunk(&mut self, p: usize, args: &str, path: &JsonPath) -> Result<(), String> {
        let mut de = serde_json::Deserializer::from_str(args);
        let at = path.get();
        let sink_path = JsonPath::default();
        sink_path.set(format_args!("{at}.args.data.cpuProfile"));
        let mut sink = TreeSink::new(&mut self.profile, &sink_path);
        let mut chunk = Chunk::default();
        ArgsSeed {
            sink: &mut sink,
            chunk: &mut chunk,
        }
        .deserialize(&mut de)
        .map_err(|e| format!("{}: {e}", sink_path.get()))?;
        let tree = std::mem::take(&mut sink.tree);
        drop(sink);
        let acc = &mut self.profiles[p];
        append_tree(&mut acc.tree, tree);
        let n = chunk.samples.as_ref().map_or(0, Vec::len);
        let positions = match chunk_positions(n, chunk.lines, chunk.columns) {
            Ok(positions) => positions,
            Err((field, why)) => {
                acc.bad_positions += 1;
                acc.first_bad_positions
                    .get_or_insert_with(|| (format!("{at}.args.data.{field}"), why));
                None
            }
        };
        if positions.is_some() || acc.positions.is_some() {
            let all = acc
                .positions
                .get_or_insert_with(|| vec![SamplePosition::NONE; acc.samples.len()]);
            match positions {
                Some(p) => all.extend(p),
                // DevTools fills a chunk without them with zeros: no position.
                None => all.resize(all.len() + n, SamplePosition::NONE),
            }
        }
        if let Some(s) = chunk.samples {
            acc.samples.extend(s);
        }
        if let Some(d) = chunk.deltas {
            acc.deltas.extend(d);
        }
        if let Some(s) = chunk.start {
            if acc.start.is_none() {
                acc.start = Some(s);
            }
        }
        if let Some(e) = chunk.end {
            acc.end = Some(e);
        }
        if let Some(src) = chunk.source {
            acc.source = Some(src);
        }
        acc.trace_ids.extend(chunk.trace_ids);
        Ok(())
    }

    fn finish(mut self) -> TraceFile {
        if let Some(t) = self.tracing_started {
            if let Some((_, hi)) = self.bounds {
                self.bounds = Some((t, hi));
            }
        }
        if self.mismatched_ends > 0 {
            self.profile.warn(
                "traceEvents",
                format!(
                    "{} `E` events do not match the open `B` event; the `B` events were kept with no duration",
                    self.mismatched_ends
                ),
            );
        }
        if self.unmatched_ends > 0 {
            self.profile.warn(
                "traceEvents",
                format!(
                    "{} `E` events without a `B` event were skipped",
                    self.unmatched_ends
                ),
            );
        }
        if self.bad_args > 0 {
            self.profile.warn(
                "traceEvents",
                format!(
                    "{} events had unreadable args; their details were skipped",
                    self.bad_args
                ),
            );
        }
        for (&(pid, tid), name) in &self.thread_names {
            if let Some(&t) = self.thread_index.get(&(pid, tid)) {
                self.threads[t].name = name.clone();
            }
        }
        // Profiles, lowered in the order DevTools met them; per thread DevTools takes the
        // first, preferring the sources `Internal` then `Inspector`.
        let profiles = std::mem::take(&mut self.profiles);
        let mut index = StackIndex::default();
        let mut chosen: HashMap<(u64, u64), (usize, u8)> = HashMap::default();
        // Per lowered profile (parallel to `self.profile.threads`), its sample trace ids.
        let mut trace_ids: Vec<HashMap<u64, Option<StackId>>> = Vec::new();
        for (i, acc) in profiles.into_iter().enumerate() {
            let at = format!("traceEvents: profile {i} (pid {})", acc.pid);
            // DevTools learns a profile's thread from its `Profile` event only and leaves out
            // profiles without one (typically a profiler started before the trace, such as a
            // DevTools-protocol `Profiler.start`, whose chunks stream into the trace too).
            let Some(tid) = acc.tid else {
                self.profile.warn(
                    &at,
                    format!(
                        "{} samples (thread {}) without a `Profile` event (a profiler started before the trace); skipped, as DevTools does",
                        acc.samples.len(), acc.first_tid
                    ),
                );
                continue;
            };
            let pid = acc.pid;
            let priority = match acc.source.as_deref() {
                Some("Internal") => 2,
                Some("Inspector") => 1,
                _ => 0,
            };
            let Some((mut thread, ids)) = lower_profile(&mut self.profile, &mut index, acc, &at)
            else {
                continue;
            };
            trace_ids.push(ids);
            thread.pid = Some(pid);
            thread.tid = Some(tid);
            thread.name = self
                .thread_names
                .get(&(pid, tid))
                .cloned()
                .unwrap_or_default();
            self.profile.threads.push(thread);
            let p = self.profile.threads.len() - 1;
            match chosen.get(&(pid, tid)) {
                Some(&(_, best)) if best >= priority => {}
                _ => {
                    chosen.insert((pid, tid), (p, priority));
                }
            }
        }
        // Keep the profile DevTools uses per thread, ordered by (pid, tid); the others are
        // dropped (DevTools ignores them too).
        let mut keep: Vec<((u64, u64), usize)> =
            chosen.iter().map(|(&k, &(p, _))| (k, p)).collect();
        keep.sort();
        let dropped = self.profile.threads.len() - keep.len();
        if dropped > 0 {
            self.profile.warn(
                "traceEvents",
                format!(
                    "{dropped} profiles share a thread with another one; only the one DevTools shows is kept"
                ),
            );
        }
        let mut all = std::mem::take(&mut self.profile.threads);
        for (i, &((pid, tid), p)) in keep.iter().enumerate() {
            let mut thread = std::mem::take(&mut all[p]);
            thread.trace_id_stacks = std::mem::take(&mut trace_ids[p]);
            self.profile.threads.push(thread);
            let t = self.thread(pid, tid);
            self.threads[t].profile_thread = Some(i);
        }
        for (&(pid, tid), name) in &self.thread_names {
            if let Some(&t) = self.thread_index.get(&(pid, tid)) {
                self.threads[t].name = name.clone();
            }
        }
        // Sampled threads first, in the order of `profile.threads` (so a timeline id is also a
        // sampled thread's position), then the others by (pid, tid).
        self.threads
            .sort_by_key(|t| (t.profile_thread.unwrap_or(usize::MAX), t.pid, t.tid));
        for (at, message) in self.page.warnings() {
            self.profile.warn(at, message);
        }
        TraceFile {
            profile: self.profile,
            threads: self.threads,
            bounds: self.bounds,
            process_names: self.process_names,
            page: Box::new(self.page),
        }
    }
}

/// A chunk's positions from its `lines` and `columns` (`args.data`, beside `timeDeltas`), one
/// per sample; a missing array reads as zeros, as DevTools fills it. `Ok(None)` when the chunk
/// has neither; `Err((field, why))` when one is not a list of `n` numbers.
type PositionsOf = Result<Option<Vec<SamplePosition>>, (&'static str, String)>;

fn chunk_positions(
    n: usize,
    lines: Option<Result<Vec<u32>, String>>,
    columns: Option<Result<Vec<u32>, String>>,
) -> PositionsOf {
    if lines.is_none() && columns.is_none() {
        return Ok(None);
    }
    let check = |field: &'static str, list: Option<Result<Vec<u32>, String>>| match list {
        None => Ok(None),
        Some(Err(why)) => Err((field, why)),
        Some(Ok(v)) if v.len() != n => Err((field, format!("{} values for {n} samples", v.len()))),
        Some(Ok(v)) => Ok(Some(v)),
    };
    let lines = check("lines", lines)?;
    let columns = check("columns", columns)?;
    let at = |v: &Option<Vec<u32>>, i: usize| v.as_ref().map_or(0, |v| v[i]);
    Ok(Some(
        (0..n)
            .map(|i| SamplePosition {
                line: at(&lines, i),
                column: at(&columns, i),
            })
            .collect(),
    ))
}

/// A `lines` or `columns` array: `Some(Ok(numbers))`, `None` for `null`, `Some(Err(why))` for
/// anything that is not an array of integers from 0 to 2^32 − 1.
struct PositionList;

impl<'de> DeserializeSeed<'de> for PositionList {
    type Value = Option<Result<Vec<u32>, String>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PositionList {
    type Value = Option<Result<Vec<u32>, String>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of line or column numbers")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut bad = None;
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            match v.as_u64().and_then(|v| u32::try_from(v).ok()) {
                Some(v) => out.push(v),
                None => {
                    bad.get_or_insert_with(|| {
                        // Shown cut: a hostile item may be a huge string.
                        let shown: String = v.to_string().chars().take(40).collect();
                        format!("item {} is {shown}, not a line or column number", out.len())
                    });
                    out.push(0);
                }
            }
        }
        Ok(Some(bad.map_or(Ok(out), Err)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Some(Err("an object, not an array".into())))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Some(Err("a string, not an array".into())))
    }
}

/// What a chunk's args add to its profile.
#[derive(Default)]
struct Chunk {
    samples: Option<Vec<u32>>,
    deltas: Option<Vec<i64>>,
    start: Option<i64>,
    end: Option<i64>,
    source: Option<String>,
    trace_ids: Vec<(u64, u64)>,
    /// `args.data.lines` / `args.data.columns` (where DevTools reads them, not in `cpuProfile`).
    lines: Option<Result<Vec<u32>, String>>,
    columns: Option<Result<Vec<u32>, String>>,
}

struct ArgsSeed<'s, 'a> {
    sink: &'s mut TreeSink<'a>,
    chunk: &'s mut Chunk,
}

impl<'de> DeserializeSeed<'de> for ArgsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ArgsSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an args object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "data" {
                map.next_value_seed(DataSeed {
                    sink: &mut *self.sink,
                    chunk: &mut *self.chunk,
                    profile_level: false,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `args.data` (`profile_level` false) or `args.data.cpuProfile` (true): the same fields, except
/// that `startTime`/`endTime` are believed only inside `cpuProfile`.
struct DataSeed<'s, 'a> {
    sink: &'s mut TreeSink<'a>,
    chunk: &'s mut Chunk,
    profile_level: bool,
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a profile data object")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "cpuProfile" if !self.profile_level => map.next_value_seed(DataSeed {
                    sink: &mut *self.sink,
                    chunk: &mut *self.chunk,
                    profile_level: true,
                })?,
                "nodes" if self.profile_level => map.next_value_seed(NodesSeed(&mut *self.sink))?,
                "samples" if self.profile_level => {
                    let mut v = Vec::new();
                    map.next_value_seed(NodeIds(&mut v))?;
                    self.chunk.samples.get_or_insert_with(Vec::new).extend(v);
                }
                "timeDeltas" => {
                    let mut v = Vec::new();
                    map.next_value_seed(MicrosToNanos(&mut v))?;
                    self.chunk.deltas.get_or_insert_with(Vec::new).extend(v);
                }
                "lines" if !self.profile_level => {
                    self.chunk.lines = map.next_value_seed(PositionList)?;
                }
                "columns" if !self.profile_level => {
                    self.chunk.columns = map.next_value_seed(PositionList)?;
                }
                "startTime" if self.profile_level => {
                    self.chunk.start = map.next_value::<Option<Float>>()?.map(|f| ns(f.0));
                }
                "endTime" if self.profile_level => {
                    self.chunk.end = map.next_value::<Option<Float>>()?.map(|f| ns(f.0));
                }
                "trace_ids" if self.profile_level => {
                    let ids =
                        map.next_value::<Option<HashMap<Cow<'de, str>, serde_json::Value>>>()?;
                    for (k, v) in ids.into_iter().flatten() {
                        if let (Ok(k), Some(v)) = (k.parse::<u64>(), v.as_u64()) {
                            self.chunk.trace_ids.push((k, v));
                        }
                    }
                }
                "source" => {
                    self.chunk.source = map
                        .next_value::<Option<Cow<'de, str>>>()?
                        .map(|s| s.into_owned());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

fn append_tree(dst: &mut RawTree, mut src: RawTree) {
    let child_offset = dst.children.len() as u32;
    let tick_offset = dst.ticks.len() as u32;
    for node in &mut src.nodes {
        if let Some(r) = &mut node.children {
            *r = r.start + child_offset..r.end + child_offset;
        }
        node.ticks = node.ticks.start + tick_offset..node.ticks.end + tick_offset;
    }
    dst.children.extend(src.children);
    dst.ticks.extend(src.ticks);
    dst.nodes.extend(src.nodes);
}

/// Stacks shared by all profiles of a trace: the same frame on the same parent is one stack, so
/// that the meta nodes of every thread are the same stacks.
#[derive(Default)]
struct StackIndex {
    stacks: HashMap<(Option<StackId>, crate::model::FrameId), StackId>,
}

/// Lowers one profile's nodes and samples into a thread (without pid/tid/name).
fn lower_profile(
    profile: &mut Profile,
    index: &mut StackIndex,
    acc: ProfileAcc,
    at: &str,
) -> Option<(Thread, HashMap<u64, Option<StackId>>)> {
    let tree = acc.tree;
    let n = tree.nodes.len();
    if n == 0 {
        return None;
    }
    let mut by_id: HashMap<u64, usize> = HashMap::default();
    for (i, node) in tree.nodes.iter().enumerate() {
        by_id.entry(node.id).or_insert(i);
    }
    let root = 0;
    let from_parents = tree.nodes[root].children.is_none();
    let mut built: Vec<Vec<u32>> = Vec::new();
    if from_parents {
        built = vec![Vec::new(); n];
        for (i, node) in tree.nodes.iter().enumerate().skip(1) {
            if let Some(&p) = node.parent.and_then(|p| by_id.get(&p)) {
                built[p].push(i as u32);
            }
        }
    }
    let mut stack_of: HashMap<u64, Option<StackId>> = HashMap::default();
    stack_of.insert(tree.nodes[root].id, None);
    let mut visited = vec![false; n];
    visited[root] = true;
    let mut todo: Vec<(usize, Option<StackId>)> = Vec::new();
    let children = |i: usize| -> Vec<usize> {
        if from_parents {
            built[i].iter().map(|&c| c as usize).collect()
        } else if let Some(r) = tree.nodes[i].children.clone() {
            tree.children[r.start as usize..r.end as usize]
                .iter()
                .filter_map(|id| by_id.get(id).copied())
                .collect()
        } else {
            Vec::new()
        }
    };
    todo.extend(children(root).into_iter().rev().map(|c| (c, None)));
    while let Some((i, parent)) = todo.pop() {
        if visited[i] {
            continue;
        }
        visited[i] = true;
        let node = &tree.nodes[i];
        let stack = *index
            .stacks
            .entry((parent, node.frame))
            .or_insert_with(|| profile.stacks.push(parent, node.frame, node.id));
        stack_of.entry(node.id).or_insert(Some(stack));
        todo.extend(children(i).into_iter().rev().map(|c| (c, Some(stack))));
    }
    let unreachable = visited.iter().filter(|v| !**v).count();
    if unreachable > 0 {
        profile.warn(
            at,
            format!("{unreachable} nodes are not reachable from the root; skipped"),
        );
    }

    let mut thread = Thread {
        weight_unit: Some(WeightUnit::Samples),
        ..Thread::default()
    };
    let start = acc.start.unwrap_or(acc.first_ts);
    if acc.samples.len() != acc.deltas.len() {
        profile.warn(
            at,
            format!(
                "{} samples but {} timeDeltas; the extra ones were skipped",
                acc.samples.len(),
                acc.deltas.len()
            ),
        );
    }
    if let Some((path, why)) = &acc.first_bad_positions {
        let others = match acc.bad_positions {
            1 => String::new(),
            n => format!(" (and {} more chunks)", n - 1),
        };
        profile.warn(
            path,
            format!("{why}{others}; that chunk's samples have no line"),
        );
    }
    let mut time = start;
    let mut unknown = 0usize;
    for (&id, &delta) in acc.samples.iter().zip(&acc.deltas) {
        time = clamp_time(time + delta);
        match stack_of.get(&(id as u64)) {
            Some(&stack) => thread.samples.push(time, stack),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        profile.warn(at, format!("{unknown} samples name no node; skipped"));
    }
    // Only positions that DevTools counts make the thread keep them; they stay with the
    // samples kept, in place (no second column as long as the samples).
    let positions = acc.positions.filter(|p| p.iter().any(|p| p.is_some()));
    thread.sample_positions = positions.map(|mut p| {
        p.truncate(acc.samples.len().min(acc.deltas.len()));
        if unknown > 0 {
            let mut ids = acc.samples.iter();
            p.retain(|_| {
                ids.next()
                    .is_some_and(|id| stack_of.contains_key(&(*id as u64)))
            });
        }
        p
    });
    thread.declared_start = Some(start);
    thread.declared_end = Some(acc.end.unwrap_or(time));
    let trace_ids = acc
        .trace_ids
        .iter()
        .filter_map(|&(trace, node)| stack_of.get(&node).map(|&stack| (trace, stack)))
        .collect();
    Some((thread, trace_ids))
}

#[derive(Clone, Copy)]
enum DetailKind {
    Url,
    BeginUrl,
    StyleSheet,
    EventType,
}

fn detail_kind(name: &str) -> Option<DetailKind> {
    Some(match name {
        "ParseHTML" => DetailKind::BeginUrl,
        "ParseAuthorStyleSheet" => DetailKind::StyleSheet,
        "v8.compile" | "v8.compileModule" | "CompileScript" | "CompileCode" | "EvaluateScript"
        | "v8.evaluateModule" | "FunctionCall" => DetailKind::Url,
        "EventDispatch" => DetailKind::EventType,
        _ => return None,
    })
}

fn detail_of<'a>(kind: DetailKind, args: &'a ArgsIn<'a>) -> Option<&'a str> {
    let data = args.data.as_ref();
    let s = match kind {
        DetailKind::Url => data
            .and_then(|d| d.url.as_deref())
            .or(args.file_name.as_deref()),
        DetailKind::BeginUrl => args
            .begin_data
            .as_ref()
            .and_then(|d| d.url.as_deref())
            .or(data.and_then(|d| d.url.as_deref())),
        DetailKind::StyleSheet => data.and_then(|d| d.style_sheet_url.as_deref()),
        DetailKind::EventType => data.and_then(|d| d.type_.as_deref()),
    };
    s.filter(|s| !s.is_empty())
}

/// The URL DevTools' trace engine attributes an event to when it maps events to entities
/// (`getNonResolvedURL` without the handlers' data): a style sheet parse's
/// `args.data.stylesheetUrl` (a key Chrome does not write: it spells it `styleSheetUrl`), else
/// the top frame of `args.data.stackTrace`, else for `ParseHTML` `args.beginData.url`, else
/// `args.data.url`. `None` for an empty or missing URL, and for args that are not JSON.
fn entity_url(name: &str, args: Option<&RawValue>) -> Option<String> {
    use serde_json::Value;
    let args: Value = serde_json::from_str(args?.get()).ok()?;
    let data = args.get("data");
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if name == "ParseAuthorStyleSheet" {
        return text(data.and_then(|d| d.get("stylesheetUrl")));
    }
    if let Some(stack) = data
        .and_then(|d| d.get("stackTrace"))
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    {
        return text(stack[0].get("url"));
    }
    if name == "ParseHTML" {
        return text(args.get("beginData").and_then(|b| b.get("url")));
    }
    text(data.and_then(|d| d.get("url")))
}

fn parse_args(raw: Option<&RawValue>) -> Option<ArgsIn<'_>> {
    serde_json::from_str(raw?.get()).ok()
}

/// `metadata.hostDPR`: the device pixel ratio of the machine that recorded (DevTools' saved
/// traces); a value that is not a number reads as none.
#[derive(Deserialize)]
struct HostDpr {
    #[serde(rename = "hostDPR", default, deserialize_with = "lenient_f64")]
    host_dpr: Option<f64>,
}

fn lenient_f64<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(serde_json::Value::deserialize(d)?.as_f64())
}

struct TopSeed<'s> {
    state: &'s mut State,
    path: &'s JsonPath,
}

/// The value is whether `traceEvents` was repeated (the last one wins, as in `JSON.parse`).
impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a trace event array or an object with `traceEvents`")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        EventsSeed {
            state: self.state,
            path: self.path,
        }
        .visit_seq(seq)?;
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        let mut repeated = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "traceEvents" {
                if found {
                    // Only the last array counts: what the earlier ones built is dropped.
                    let host_dpr = self.state.page.host_dpr;
                    let maps = std::mem::take(&mut self.state.page.scripts.metadata_maps);
                    *self.state = State::new();
                    self.state.page.host_dpr = host_dpr;
                    self.state.page.scripts.metadata_maps = maps;
                    repeated = true;
                }
                map.next_value_seed(EventsSeed {
                    state: &mut *self.state,
                    path: self.path,
                })?;
                found = true;
                self.path.set("");
            } else if key == "metadata" {
                // DevTools' saved traces carry the host's device pixel ratio and the source
                // maps it saved with the trace here; the rest is not read.
                self.path.set("metadata");
                let raw = map.next_value::<&'de RawValue>()?;
                self.state.page.host_dpr = serde_json::from_str::<HostDpr>(raw.get())
                    .ok()
                    .and_then(|m| m.host_dpr);
                self.state.page.scripts.read_metadata(raw.get());
            } else {
                self.path.set(&*key);
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(de::Error::missing_field("traceEvents"));
        }
        Ok(repeated)
    }
}

struct EventsSeed<'s> {
    state: &'s mut State,
    path: &'s JsonPath,
}

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            self.path.set_indexed("traceEvents", i);
            match seq.next_element::<Option<EventIn<'de>>>()? {
                None => break,
                Some(None) => {}
                Some(Some(e)) => {
                    let hints = ArgsHints::of(&e);
                    self.state
                        .event(e, hints, self.path)
                        .map_err(de::Error::custom)?
                }
            }
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The URL an event is attributed to, in the engine's order of places to look.
    #[test]
    fn entity_urls_follow_the_engines_order() {
        let url = |name: &str, args: &str| {
            let raw: Box<RawValue> = serde_json::from_str(args).unwrap();
            entity_url(name, Some(&raw))
        };
        let stack = r#"{"data":{"url":"https://d/","stackTrace":[{"url":"https://top/"},{"url":"https://next/"}]}}"#;
        assert_eq!(url("EventDispatch", stack).as_deref(), Some("https://top/"));
        // An empty stack does not count; an empty top URL is no URL (not the data's).
        let empty = r#"{"data":{"url":"https://d/","stackTrace":[]}}"#;
        assert_eq!(url("X", empty).as_deref(), Some("https://d/"));
        let blank_top = r#"{"data":{"url":"https://d/","stackTrace":[{"url":""}]}}"#;
        assert_eq!(url("X", blank_top), None);
        let html = r#"{"beginData":{"url":"https://page/"},"data":{"url":"https://d/"}}"#;
        assert_eq!(url("ParseHTML", html).as_deref(), Some("https://page/"));
        assert_eq!(url("Other", html).as_deref(), Some("https://d/"));
        // Chrome's `styleSheetUrl` is not the `stylesheetUrl` the engine reads.
        let css = r#"{"data":{"styleSheetUrl":"https://s.css","url":"https://d/"}}"#;
        assert_eq!(url("ParseAuthorStyleSheet", css), None);
        let css = r#"{"data":{"stylesheetUrl":"https://s.css"}}"#;
        assert_eq!(
            url("ParseAuthorStyleSheet", css).as_deref(),
            Some("https://s.css")
        );
        assert_eq!(url("X", r#"{"data":{"url":5}}"#), None);
        assert_eq!(url("X", r#"{"data":"text"}"#), None);
        assert_eq!(entity_url("X", None), None);
    }

    /// Names, categories and phases borrow from the text unless escaped; process and thread
    /// ids read from numbers and strings as before (an integral float is its value, others go
    /// through i64, a string is trimmed and parsed the same way).
    #[test]
    fn events_borrow_their_strings_and_ids_read_any_number() {
        let text = r#"{"name":"RunTask","cat":"toplevel","ph":"X","pid":7,"tid":" 9 "}"#;
        let e: EventIn = serde_json::from_str(text).unwrap();
        assert!(matches!(e.name, Some(Cow::Borrowed("RunTask"))));
        assert!(matches!(e.cat, Some(Cow::Borrowed("toplevel"))));
        assert_eq!((e.pid.unwrap().0, e.tid.unwrap().0), (7, 9));
        let e: EventIn = serde_json::from_str(r#"{"name":"a\"b","ph":null}"#).unwrap();
        assert!(matches!(e.name.as_deref(), Some("a\"b")));
        assert!(e.ph.is_none());
        assert!(serde_json::from_str::<EventIn>(r#"{"name":5}"#).is_err());
        let pid = |v: &str| serde_json::from_str::<Pid>(v).unwrap().0;
        assert_eq!(pid("-3"), -3i64 as u64);
        assert_eq!(pid("3.0"), 3);
        assert_eq!(pid("3.7"), 3);
        assert_eq!(pid("-2.5"), -2i64 as u64);
        assert_eq!(pid("1e19"), 10_000_000_000_000_000_000);
        assert_eq!(pid("1e20"), i64::MAX as u64);
        assert_eq!(pid("\"12\""), 12);
        assert_eq!(pid("\"-12\""), -12i64 as u64);
        assert_eq!(pid("\"x\""), 0);
        assert_eq!(pid("null"), 0);
    }

    fn trace(chunks: &[&str]) -> String {
        let mut events = vec![
            r#"{"name":"Profile","ph":"P","pid":1,"tid":1,"id":"0x1","ts":0,"args":{"data":{}}}"#
                .to_string(),
        ];
        for (i, data) in chunks.iter().enumerate() {
            let nodes = if i == 0 {
                r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":""}},{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":3,"url":"a.js","lineNumber":0,"columnNumber":0}}"#
            } else {
                ""
            };
            events.push(format!(
                r#"{{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"id":"0x1","ts":{i},"args":{{"data":{{"cpuProfile":{{"nodes":[{nodes}],"samples":[2,2]}},"timeDeltas":[10,10]{data}}}}}}}"#
            ));
        }
        format!("[{}]", events.join(","))
    }

    fn positions(text: &str) -> Option<Vec<(u32, u32)>> {
        let t = read_trace(text.as_bytes()).unwrap();
        t.profile.threads[0]
            .sample_positions()
            .map(|p| p.iter().map(|p| (p.line, p.column)).collect())
    }

    #[test]
    fn positions_line_up_with_the_samples_across_chunks() {
        // The first chunk has none: its samples get none, the later ones theirs.
        let text = trace(&["", r#","lines":[4,5],"columns":[2,0]"#, ""]);
        assert_eq!(
            positions(&text),
            Some(vec![(0, 0), (0, 0), (4, 2), (5, 0), (0, 0), (0, 0)])
        );
    }

    #[test]
    fn a_sample_naming_no_node_takes_its_position_along() {
        let text = trace(&[
            r#","lines":[4,5],"columns":[1,1]"#,
            r#","lines":[6,7],"columns":[1,1]"#,
        ])
        .replacen("\"samples\":[2,2]", "\"samples\":[2,9]", 1);
        // Sample 9 is skipped, and line 5 with it.
        assert_eq!(positions(&text), Some(vec![(4, 1), (6, 1), (7, 1)]));
    }

    #[test]
    fn no_positions_cost_nothing() {
        assert_eq!(positions(&trace(&["", ""])), None);
        // Lines without columns: DevTools counts none of them.
        assert_eq!(positions(&trace(&[r#","lines":[4,5]"#])), None);
    }

    /// The recorded traces, decompressed.
    fn recorded() -> Vec<(String, Vec<u8>)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/trace");
        let mut traces = Vec::new();
        for name in [
            "page",
            "primes",
            "pageload",
            "pageload-shifts",
            "pageload-bgimage",
        ] {
            let gz = std::fs::read(format!("{dir}/{name}.trace.json.gz")).unwrap();
            let mut text = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut text)
                .unwrap();
            traces.push((name.to_string(), text));
        }
        traces
    }

    fn one_pass(bytes: &[u8]) -> String {
        format!("{:?}", read_in_one_pass(bytes).unwrap().finish())
    }

    fn in_segments(bytes: &[u8], every: usize, threads: usize) -> Option<String> {
        let state = read_in_segments(bytes, every, threads, &mut |_| {})?;
        Some(format!("{:?}", state.finish()))
    }

    #[test]
    fn segments_read_what_one_pass_reads() {
        for (name, text) in recorded() {
            let expected = one_pass(&text);
            // Small segments: many guesses, some inside `ProfileChunk` node arrays.
            for (every, threads) in [(usize::MAX, 1), (40_000, 2), (3_000, 3)] {
                let got = in_segments(&text, every, threads);
                assert!(got.is_some(), "{name}: {every} B segments fell back");
                assert!(
                    got.as_deref() == Some(&*expected),
                    "{name}: {every} B segments"
                );
            }
        }
    }

    #[test]
    fn segments_read_other_layouts_and_damage_as_one_pass_does() {
        let (_, page) = recorded().swap_remove(0);
        let page = String::from_utf8(page).unwrap();
        let close = page.find("],\"metadata\"").unwrap();
        let events = &page[page.find('[').unwrap()..close + 1];
        let one_line = page.replace(",\n{", ",{");
        let mut cases: Vec<Vec<u8>> = [
            one_line.clone(),
            events.to_string(),
            format!("{events} \n"),
            format!("{events} x"),
            format!(
                "{}, \"traceEvents\": []}}",
                &page[..page.rfind('}').unwrap()]
            ),
            page.replace(",\n{", " ,\r\n\t{"),
        ]
        .map(String::into_bytes)
        .into();
        // Cut short anywhere: mid-event, after a comma, after an event, in the metadata.
        let bytes = page.as_bytes();
        for cut in [bytes.len() / 3, page.find("},\n{").unwrap() + 2, close] {
            cases.push(bytes[..cut].to_vec());
            cases.push(bytes[..cut + 1].to_vec());
        }
        cases.push(bytes[..bytes.len() - 10].to_vec());
        for (i, text) in cases.iter().enumerate() {
            let expected = match read_in_one_pass(text) {
                Ok(state) => format!("{:?}", state.finish()),
                Err(e) => format!("{e}"),
            };
            for (every, threads) in [(usize::MAX, 1), (5_000, 2)] {
                // A fall back is the one pass itself; what is read without one must equal it.
                if let Some(got) = in_segments(text, every, threads) {
                    assert!(got == expected, "case {i}, {every} B segments");
                }
            }
        }
        // The layouts Chrome writes and a cut-short trace need no second pass.
        for text in [bytes, one_line.as_bytes(), &bytes[..bytes.len() / 3]] {
            assert!(in_segments(text, 5_000, 2).is_some());
        }
    }

    #[test]
    fn consumed_offsets_grow_to_the_array_end() {
        let (_, page) = recorded().swap_remove(0);
        let mut seen = Vec::new();
        read_in_segments(&page, 10_000, 2, &mut |n| seen.push(n)).unwrap();
        assert!(seen.len() > 10);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        let close = String::from_utf8(page)
            .unwrap()
            .find("],\"metadata\"")
            .unwrap();
        assert_eq!(*seen.last().unwrap(), close);
    }

    #[test]
    fn bad_positions_are_a_warning() {
        let text = trace(&[
            r#","lines":[4,5,6],"columns":"x""#,
            r#","lines":[7,8],"columns":[1,1]"#,
        ]);
        let t = read_trace(text.as_bytes()).unwrap();
        assert_eq!(positions(&text), Some(vec![(0, 0), (0, 0), (7, 1), (8, 1)]));
        let w = &t.profile.warnings[0];
        assert_eq!(w.at, "traceEvents[1].args.data.lines");
        assert!(
            w.message.contains("3 values for 2 samples"),
            "{}",
            w.message
        );
    }
}
