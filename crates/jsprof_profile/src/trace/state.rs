//! What a trace's events accumulate while they are read, in file order: threads and their
//! events, the samples of each profile, names, bounds and the page's events; and how it is
//! finished into a [`TraceFile`].

use rustc_hash::FxHashMap as HashMap;
use serde::de::DeserializeSeed;
use serde_json::value::RawValue;

use super::de::{
    detail_kind, detail_of, entity_url, ns, parse_args, phase, sample_trace_id, ArgsHints, ArgsIn,
    ArgsSeed, Chunk, EventIn,
};
use super::lower::{append_tree, chunk_positions, lower_profile, StackIndex};
use crate::call_frame::TreeSink;
use crate::json::JsonPath;
use crate::model::{Profile, ProfileKind, SamplePosition, StackId, StringTable};
use crate::node_tree::RawTree;
use crate::page_events::{self, PageEvents, Stamp};
use crate::trace_events::{TraceEvent, TraceFile, TraceThread};

/// Samples of one `(pid, profile id)` as gathered from its events.
pub(super) struct ProfileAcc {
    pub(super) pid: u64,
    pub(super) tid: Option<u64>,
    /// The `Profile` event's `ts` (ns), or `cpuProfile.startTime` of a `CpuProfile` event.
    pub(super) start: Option<i64>,
    pub(super) end: Option<i64>,
    pub(super) tree: RawTree,
    pub(super) samples: Vec<u32>,
    pub(super) deltas: Vec<i64>,
    pub(super) source: Option<String>,
    /// The first chunk's position (for a profile without a `Profile` event).
    pub(super) first_ts: i64,
    pub(super) first_tid: u64,
    /// `cpuProfile.trace_ids` of its chunks: (sample trace id, node id).
    pub(super) trace_ids: Vec<(u64, u64)>,
    /// The chunks' `lines`/`columns`, one per sample, from the first chunk that has them on
    /// (the samples before it have none); `None` while no chunk had them.
    pub(super) positions: Option<Vec<SamplePosition>>,
    /// Chunks whose `lines` or `columns` could not be used, and the first one's problem.
    pub(super) bad_positions: usize,
    pub(super) first_bad_positions: Option<(String, String)>,
}

pub(super) struct State {
    pub(super) profile: Profile,
    pub(super) threads: Vec<TraceThread>,
    /// Threads met so far with an `X`, `B`, `E` or `I` event ([`TraceThread::first_entry`]).
    pub(super) entry_threads: u32,
    pub(super) thread_index: HashMap<(u64, u64), usize>,
    /// Open `B` events per thread: indices into that thread's events.
    pub(super) open: HashMap<(u64, u64), Vec<usize>>,
    pub(super) profiles: Vec<ProfileAcc>,
    pub(super) profile_index: HashMap<(u64, String), usize>,
    pub(super) thread_names: HashMap<(u64, u64), String>,
    pub(super) process_names: Vec<(u64, String)>,
    pub(super) bounds: Option<(i64, i64)>,
    pub(super) page: PageEvents,
    pub(super) tracing_started: Option<i64>,
    pub(super) unmatched_ends: usize,
    pub(super) mismatched_ends: usize,
    pub(super) bad_args: usize,
    pub(super) events_seen: usize,
}

impl State {
    pub(super) fn new() -> State {
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

    pub(super) fn event(
        &mut self,
        e: EventIn<'_>,
        hints: ArgsHints,
        path: &JsonPath,
    ) -> Result<(), String> {
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

    pub(super) fn finish(mut self) -> TraceFile {
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
