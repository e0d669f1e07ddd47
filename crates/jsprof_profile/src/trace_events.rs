//! What a Chrome trace holds besides its CPU samples: the trace events of every thread, thread
//! and process names, and the trace bounds DevTools computes. [`crate::read_trace_from`] fills
//! these in; the typed timeline built on top lives in `jsprof_analysis::timeline`.

use crate::model::{Profile, StringId};
use crate::page_events::PageEvents;

/// One trace event of a thread as read: `X` events, `B`/`E` pairs joined into one, and instant
/// events (`I`, `i`, `R`) as zero-length markers. Times are nanoseconds on the trace clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub name: StringId,
    pub cat: StringId,
    /// The phase as written (`b'X'`, `b'B'`, `b'I'`, `b'i'`, `b'R'`).
    pub ph: u8,
    pub start: i64,
    /// Zero for instant events and for a `B` that never got its `E`.
    pub dur: i64,
    /// The event's type-specific datum (a URL, an event type), [`crate::StringTable::EMPTY`] when none.
    pub detail: StringId,
    /// `args.data.sampleTraceId` (or `args.sampleTraceId`, `args.beginData.sampleTraceId`): the id
    /// of a CPU sample V8 took when the event began, whose stack DevTools gives the event
    /// ([`Thread::trace_id_stacks`](crate::Thread::trace_id_stacks)); 0 when none.
    pub sample_trace_id: u64,
}

impl TraceEvent {
    pub fn end(&self) -> i64 {
        self.start + self.dur
    }

    /// Instant events: DevTools' `I` phase and the newer `i`, and marks (`R`).
    pub fn is_instant(&self) -> bool {
        matches!(self.ph, b'I' | b'i' | b'R' | b'n')
    }
}

/// One thread of a trace: its name, its trace events in file order, and the sampled profile
/// DevTools would pick for it.
#[derive(Clone, Debug, Default)]
pub struct TraceThread {
    pub pid: u64,
    pub tid: u64,
    pub name: String,
    pub events: Vec<TraceEvent>,
    /// Index into [`Profile::threads`] of the profile DevTools uses for this thread (whose
    /// [`Thread::trace_id_stacks`](crate::Thread::trace_id_stacks) give tagged events their
    /// stacks).
    pub profile_thread: Option<usize>,
    /// The events that DevTools' trace engine attributes to a URL when it maps events to
    /// entities (third parties): (index into `events`, that URL), by index. Only `X`, `B` and
    /// `I` events, the engine's renderer entries; a call's URL is its frame's.
    pub urls: Vec<(u32, StringId)>,
    /// The order in which the reader met this thread's first `X`, `B`, `E` or `I` event among
    /// all threads (0 first): the order of the engine's renderer processes and threads.
    /// `None` for a thread with none.
    pub first_entry: Option<u32>,
}

/// A whole trace: the sampled profiles (per thread the one DevTools uses, ordered by
/// `(pid, tid)`) and the trace events per thread.
#[derive(Clone, Debug)]
pub struct TraceFile {
    pub profile: Profile,
    /// Threads: the sampled ones first (in the order of `profile.threads`), then the others by
    /// `(pid, tid)`.
    pub threads: Vec<TraceThread>,
    /// DevTools' trace bounds (ns): min/max over `B`/`E`/`X`/`I` events, the start moved to
    /// `TracingStartedInBrowser` when there is one. `None` for a trace without such events.
    pub bounds: Option<(i64, i64)>,
    /// `process_name` metadata: (pid, name).
    pub process_names: Vec<(u64, String)>,
    /// The page's own events: requests, navigations, markers, shifts, interactions, user
    /// timings, screenshots (boxed: a trace of JS alone has none).
    pub page: Box<PageEvents>,
}

impl TraceFile {
    /// The time origin (0 ms) of the trace as DevTools shows it.
    pub fn origin(&self) -> i64 {
        match self.bounds {
            Some((min, _)) => min,
            None => self
                .profile
                .threads
                .iter()
                .map(|t| t.start_time())
                .min()
                .unwrap_or(0),
        }
    }
}
