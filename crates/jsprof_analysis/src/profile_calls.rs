//! Reconstructed JS calls ("ProfileCalls"): when each function started and how long it ran.
//!
//! Two builders, as DevTools has two:
//! - [`frame_calls`] for a bare CPU profile (`.cpuprofile`, JS Self-Profiling): DevTools'
//!   `CPUProfileDataModel.forEachFrame`, i.e. runs of consecutive samples sharing a stack prefix,
//!   after [`crate::apply_devtools_timing`]; the meta functions are calls too.
//! - [`trace_calls`] for a thread of a Chrome trace: the trace engine's `SamplesIntegrator`, which
//!   walks the samples merged in time order with the thread's trace events. Frames are equal when
//!   script, function and line are; `RunTask`/`RunMicrotasks` end the JS stack; frames that were
//!   on the stack when a trace event began are locked until it ends; a GC sample extends the
//!   previous stack; `(root)`, `(program)`, `(idle)` and `(garbage collector)` never become calls;
//!   `native V8Runtime` frames are dropped. A trace event that carries a `sampleTraceId` takes the
//!   stack of the sample V8 tagged with that id (the chunks' `trace_ids`), timed at the event's
//!   start: so a call is seen to begin where the event that it made (a timer, a layout) began.

use jsprof_profile::{
    FrameId, FrameKind, Profile, StackId, Thread, TraceEvent, TraceThread, GC_NAME, IDLE_NAME,
    PROGRAM_NAME, ROOT_NAME,
};

/// One reconstructed call. Times in nanoseconds on the input's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub frame: FrameId,
    /// The stack (profile node) the call was opened from.
    pub stack: StackId,
    pub start: i64,
    pub dur: i64,
}

impl Call {
    pub fn end(&self) -> i64 {
        self.start + self.dur
    }
}

/// DevTools' `forEachFrame` calls of a timed thread, in opening order (pre-order).
pub fn frame_calls(profile: &Profile, thread: &Thread) -> Vec<Call> {
    let stacks = &profile.stacks;
    let n = thread.samples().len();
    let mut calls: Vec<Call> = Vec::new();
    // Open calls: (stack, index into `calls`), bottom first.
    let mut open: Vec<(StackId, usize)> = Vec::new();
    let mut path: Vec<StackId> = Vec::new();
    let mut prev: Option<Option<StackId>> = None;
    for i in 0..n {
        let s = thread.samples().stack()[i];
        if prev == Some(s) {
            continue;
        }
        prev = Some(s);
        let t = thread.samples().time()[i];
        path.clear();
        let mut cur = s;
        while let Some(c) = cur {
            path.push(c);
            cur = stacks.parent(c);
        }
        path.reverse();
        let common = open
            .iter()
            .zip(&path)
            .take_while(|((a, _), b)| a == *b)
            .count();
        for &(_, c) in &open[common..] {
            calls[c].dur = t - calls[c].start;
        }
        open.truncate(common);
        for &st in &path[common..] {
            calls.push(Call {
                frame: stacks.frame(st),
                stack: st,
                start: t,
                dur: 0,
            });
            open.push((st, calls.len() - 1));
        }
    }
    let end = thread.end_time();
    for &(_, c) in &open {
        calls[c].dur = end - calls[c].start;
    }
    calls
}

/// The trace engine's `isJSInvocationEvent`: the events that matter to the integrator, and the
/// JS invocations the forced-reflow insight looks inside.
pub fn is_js_invocation(name: &str) -> bool {
    matches!(
        name,
        "RunMicrotasks"
            | "FunctionCall"
            | "EvaluateScript"
            | "v8.evaluateModule"
            | "EventDispatch"
            | "V8.Execute"
            | "V8Console::runTask"
    ) || name.starts_with("v8")
        || name.starts_with("V8")
}

/// An item of the merged walk: a trace event or a sample.
#[derive(Clone, Copy)]
enum Item {
    Event(usize),
    Sample(usize),
}

/// The trace engine's order: start, then longer first, then samples before events.
pub fn devtools_order(a: (i64, i64, bool), b: (i64, i64, bool)) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
        .then((b.0 + b.1).cmp(&(a.0 + a.1)))
        .then(b.2.cmp(&a.2))
}

/// Reconstructs the calls of a trace thread: `trace` holds its trace events (any order),
/// `thread` its timed samples and the stacks of its sample trace ids. Calls come out in the order DevTools creates them.
pub fn trace_calls(profile: &Profile, thread: &Thread, trace: &TraceThread) -> Vec<Call> {
    let events = &trace.events;
    // The trace engine's thread entries are complete events and `I` instants; instants play a
    // part only when they carry a sample trace id.
    let mut evs: Vec<usize> = (0..events.len())
        .filter(|&i| match events[i].ph {
            b'I' => events[i].sample_trace_id != 0,
            _ => !events[i].is_instant(),
        })
        .collect();
    evs.sort_by(|&a, &b| {
        devtools_order(
            (events[a].start, events[a].dur, false),
            (events[b].start, events[b].dur, false),
        )
    });
    let n = thread.samples().len();
    let mut merged: Vec<Item> = Vec::with_capacity(evs.len() + n);
    {
        let (mut i, mut j) = (0, 0);
        while i < evs.len() && j < n {
            let e = &events[evs[i]];
            let st = thread.samples().time()[j];
            if devtools_order((e.start, e.dur, false), (st, 0, true)).is_le() {
                merged.push(Item::Event(evs[i]));
                i += 1;
            } else {
                merged.push(Item::Sample(j));
                j += 1;
            }
        }
        merged.extend(evs[i..].iter().map(|&e| Item::Event(e)));
        merged.extend((j..n).map(Item::Sample));
    }

    let mut it = Integrator {
        profile,
        thread,
        calls: Vec::new(),
        current: Vec::new(),
        locked: Vec::new(),
        fake: false,
        scratch: Vec::new(),
    };
    let mut stack: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < merged.len() {
        let item = merged[k];
        let Some(&parent) = stack.last() else {
            match item {
                Item::Sample(s) => it.on_sample(s, None),
                Item::Event(e) => {
                    stack.push(e);
                    it.on_event_start(&events[e], profile);
                }
            }
            k += 1;
            continue;
        };
        let p = &events[parent];
        let begin = match item {
            Item::Event(e) => events[e].start,
            Item::Sample(s) => thread.samples().time()[s],
        };
        if begin >= p.end() {
            it.on_event_end(p);
            stack.pop();
            continue;
        }
        match item {
            Item::Sample(s) => it.on_sample(s, Some(p)),
            Item::Event(e) => {
                it.on_event_start(&events[e], profile);
                stack.push(e);
            }
        }
        k += 1;
    }
    while let Some(e) = stack.pop() {
        it.on_event_end(&events[e]);
    }
    it.calls
}

struct Integrator<'a> {
    profile: &'a Profile,
    thread: &'a Thread,
    calls: Vec<Call>,
    /// Indices into `calls`.
    current: Vec<usize>,
    locked: Vec<usize>,
    fake: bool,
    scratch: Vec<StackId>,
}

impl Integrator<'_> {
    fn on_event_start(&mut self, e: &TraceEvent, profile: &Profile) {
        let name = profile.strings.get(e.name);
        if name == "RunMicrotasks" || name == "RunTask" {
            self.locked.clear();
            self.truncate(0, e.start);
            self.fake = false;
        }
        if self.fake {
            let depth = self.locked.pop().unwrap_or(0);
            self.truncate(depth, e.start);
            self.fake = false;
        }
        let tagged = match e.sample_trace_id {
            0 => None,
            id => self.thread.trace_id_stack(id),
        };
        match tagged {
            Some(stack) => {
                // The garbage collector's node has no stack of its own here: DevTools gives
                // the event an empty one.
                let gc = stack.is_some_and(|st| {
                    let f = profile.frames.get(profile.stacks.frame(st));
                    f.kind == FrameKind::Meta && profile.strings.get(f.name) == GC_NAME
                });
                self.load_stack(if gc { None } else { stack });
                self.merge_scratch(e.start, e.end());
            }
            None => self.extend_current(e.end(), e.start),
        }
        self.locked.push(self.current.len());
    }

    fn on_sample(&mut self, s: usize, parent: Option<&TraceEvent>) {
        let invocation = parent.is_some_and(|p| is_js_invocation(self.profile.strings.get(p.name)));
        if invocation || self.fake {
            self.extract_sample(s);
        } else if self.current.is_empty() {
            self.fake = true;
            self.extract_sample(s);
            self.locked.push(0);
        }
    }

    fn on_event_end(&mut self, e: &TraceEvent) {
        let depth = self.locked.pop().unwrap_or(0);
        self.truncate(depth, e.end());
    }

    /// A trace event's stack is the current one: the frames from the locked depth on last at
    /// least until the event's end, then are cut back to the event's start.
    fn extend_current(&mut self, end: i64, start: i64) {
        let from = self.locked.last().copied().unwrap_or(0);
        for k in from..self.current.len() {
            let c = &mut self.calls[self.current[k]];
            c.dur = c.dur.max(end - c.start);
        }
        let len = self.current.len();
        self.truncate(len, start);
    }

    fn extract_sample(&mut self, s: usize) {
        let time = self.thread.samples().time()[s];
        self.load_stack(self.thread.samples().stack()[s]);
        self.merge_scratch(time, time);
    }

    /// Puts `stack` into `scratch`, bottom first, without `native V8Runtime` frames.
    fn load_stack(&mut self, stack: Option<StackId>) {
        let profile = self.profile;
        self.scratch.clear();
        let mut cur = stack;
        while let Some(c) = cur {
            let f = profile.frames.get(profile.stacks.frame(c));
            if profile.strings.get(f.url) != "native V8Runtime" {
                self.scratch.push(c);
            }
            cur = profile.stacks.parent(c);
        }
        self.scratch.reverse();
    }

    /// Merges the stack in `scratch`, seen at `time`, into the current one: the common frames
    /// above the locked depth last at least until `end`, the others end at `time` and the new
    /// ones open at `time`.
    fn merge_scratch(&mut self, time: i64, end: i64) {
        let profile = self.profile;
        let min = self.scratch.len().min(self.current.len());
        let mut i = self.locked.last().copied().unwrap_or(0);
        while i < min {
            let new = profile.frames.get(profile.stacks.frame(self.scratch[i]));
            let old = &mut self.calls[self.current[i]];
            let old_frame = profile.frames.get(old.frame);
            if new.script_id != old_frame.script_id
                || new.name != old_frame.name
                || new.line != old_frame.line
            {
                break;
            }
            old.dur = old.dur.max(end - old.start);
            i += 1;
        }
        self.truncate(i, time);
        for k in i..self.scratch.len() {
            let st = self.scratch[k];
            let frame_id = profile.stacks.frame(st);
            let frame = profile.frames.get(frame_id);
            if frame.kind == FrameKind::Meta
                && matches!(
                    profile.strings.get(frame.name),
                    ROOT_NAME | PROGRAM_NAME | IDLE_NAME | GC_NAME
                )
            {
                continue;
            }
            self.calls.push(Call {
                frame: frame_id,
                stack: st,
                start: time,
                dur: 0,
            });
            self.current.push(self.calls.len() - 1);
        }
    }

    fn truncate(&mut self, mut depth: usize, time: i64) {
        if let Some(&locked) = self.locked.last() {
            if locked != 0 && depth < locked {
                depth = locked;
            }
        }
        depth = depth.min(self.current.len());
        for &c in &self.current {
            let call = &mut self.calls[c];
            call.dur = (time - call.start).max(0);
        }
        self.current.truncate(depth);
    }
}
