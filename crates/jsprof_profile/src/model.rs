//! The sampled-profile model: one string table, a frame table, a stack prefix tree and per-thread
//! samples. Every importer lowers into it; every analysis and exporter reads only this.
//!
//! Invariants the analyses rely on:
//! - a stack's parent always has a smaller index than the stack itself (parents first);
//! - frames and stacks are shared by all threads of a profile;
//! - sample times are nanoseconds on the input's own clock (not yet shifted to the profile start).

use rustc_hash::FxHashMap as HashMap;
use std::num::NonZeroU32;

/// An interned string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringId(pub u32);

/// Strings interned once; frames refer to them by [`StringId`].
#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashMap<Box<str>, StringId>,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut table = StringTable {
            strings: Vec::new(),
            index: HashMap::default(),
        };
        table.intern(""); // StringId(0) is always the empty string.
        table
    }
}

impl StringTable {
    pub const EMPTY: StringId = StringId(0);

    pub fn intern(&mut self, s: &str) -> StringId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StringId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.index.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: StringId) -> &str {
        &self.strings[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

/// What a frame stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// JavaScript with a script location.
    Js,
    /// Engine or embedder code without a script position (builtins, `native …`).
    Native,
    /// DevTools' pseudo-functions: `(root)`, `(program)`, `(idle)`, `(garbage collector)`.
    Meta,
}

/// A position in original (source-mapped) code, filled in by source-map resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OriginalPosition {
    pub url: StringId,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub name: Option<StringId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub u32);

/// A function at a position. `line`/`column` are 1-based, `None` when unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub name: StringId,
    pub url: StringId,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The engine's script id (a string in CDP), [`StringTable::EMPTY`] when unknown.
    pub script_id: StringId,
    pub kind: FrameKind,
    pub original: Option<OriginalPosition>,
}

/// The pseudo-function names DevTools gives special meaning to.
pub const ROOT_NAME: &str = "(root)";
pub const PROGRAM_NAME: &str = "(program)";
pub const IDLE_NAME: &str = "(idle)";
pub const GC_NAME: &str = "(garbage collector)";

impl FrameKind {
    /// Classifies a frame the way DevTools' views colour it.
    pub fn classify(name: &str, url: &str, line: Option<u32>) -> FrameKind {
        if url.is_empty() && matches!(name, ROOT_NAME | PROGRAM_NAME | IDLE_NAME | GC_NAME) {
            FrameKind::Meta
        } else if url.is_empty() || url.starts_with("native ") || line.is_none() {
            FrameKind::Native
        } else {
            FrameKind::Js
        }
    }
}

/// Frames, deduplicated.
#[derive(Clone, Debug, Default)]
pub struct FrameTable {
    frames: Vec<Frame>,
    index: HashMap<Frame, FrameId>,
}

impl FrameTable {
    pub fn intern(&mut self, frame: Frame) -> FrameId {
        if let Some(&id) = self.index.get(&frame) {
            return id;
        }
        let id = FrameId(self.frames.len() as u32);
        self.frames.push(frame);
        self.index.insert(frame, id);
        id
    }

    pub fn get(&self, id: FrameId) -> &Frame {
        &self.frames[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (FrameId, &Frame)> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| (FrameId(i as u32), f))
    }
}

/// A node of the stack prefix tree. Stored as index + 1 so that `Option<StackId>` is 4 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackId(NonZeroU32);

impl StackId {
    pub fn from_index(index: usize) -> StackId {
        StackId(NonZeroU32::new(index as u32 + 1).expect("stack index overflow"))
    }

    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The stack prefix tree: each stack is a frame on top of a parent stack (`None` = on the root).
#[derive(Clone, Debug, Default)]
pub struct StackTable {
    parent: Vec<Option<StackId>>,
    frame: Vec<FrameId>,
    depth: Vec<u32>,
    /// The input's own node id for each stack (`.cpuprofile` node ids), kept for exact round trips.
    node_id: Vec<u64>,
}

impl StackTable {
    /// Appends a stack. The parent must already exist (parents come first).
    pub fn push(&mut self, parent: Option<StackId>, frame: FrameId, node_id: u64) -> StackId {
        let depth = match parent {
            Some(p) => {
                debug_assert!(p.index() < self.parent.len());
                self.depth[p.index()] + 1
            }
            None => 0,
        };
        let id = StackId::from_index(self.parent.len());
        self.parent.push(parent);
        self.frame.push(frame);
        self.depth.push(depth);
        self.node_id.push(node_id);
        id
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    pub fn parent(&self, id: StackId) -> Option<StackId> {
        self.parent[id.index()]
    }

    pub fn frame(&self, id: StackId) -> FrameId {
        self.frame[id.index()]
    }

    /// 0 for a stack directly on the root.
    pub fn depth(&self, id: StackId) -> u32 {
        self.depth[id.index()]
    }

    pub fn node_id(&self, id: StackId) -> u64 {
        self.node_id[id.index()]
    }

    /// The largest node id in use (for allocating fresh ids in transforms).
    pub fn max_node_id(&self) -> u64 {
        self.node_id.iter().copied().max().unwrap_or(0)
    }

    pub fn ids(&self) -> impl DoubleEndedIterator<Item = StackId> + ExactSizeIterator {
        (0..self.parent.len()).map(StackId::from_index)
    }

    /// The depth-0 ancestor of `id` (DevTools' "bottom node").
    pub fn bottom(&self, mut id: StackId) -> StackId {
        while let Some(p) = self.parent(id) {
            id = p;
        }
        id
    }

    /// Frames from the top (leaf) of the stack down to the root.
    pub fn frames_leaf_first(&self, id: Option<StackId>) -> impl Iterator<Item = FrameId> + '_ {
        let mut next = id;
        std::iter::from_fn(move || {
            let s = next?;
            next = self.parent(s);
            Some(self.frame(s))
        })
    }
}

/// What sample weights measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightUnit {
    /// Nanoseconds of time (CPU profiles, once timed).
    Nanoseconds,
    /// Sample counts (CPU profiles before timing).
    Samples,
    /// Allocated bytes (`.heapprofile`).
    Bytes,
}

/// Samples of one thread as parallel columns.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Nanoseconds on the input's clock; may be unsorted as read.
    pub time: Vec<i64>,
    /// `None`: a sample on the root itself (nothing running that the profiler could name).
    pub stack: Vec<Option<StackId>>,
    /// Per-sample weights; `None` means each sample weighs 1 (see [`Thread::weight_unit`]).
    pub weight: Option<Vec<i64>>,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    pub fn weight(&self, i: usize) -> i64 {
        self.weight.as_ref().map_or(1, |w| w[i])
    }

    pub fn push(&mut self, time: i64, stack: Option<StackId>) {
        self.time.push(time);
        self.stack.push(stack);
    }
}

/// One allocation sample of a `.heapprofile` (kept for counts and ordering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocationSample {
    pub stack: StackId,
    pub size: u64,
    pub ordinal: u64,
}

/// A sampled thread.
#[derive(Clone, Debug, Default)]
pub struct Thread {
    pub name: String,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    pub samples: Samples,
    pub weight_unit: Option<WeightUnit>,
    /// The profile's own start/end as its header states them (ns), if it has them.
    pub declared_start: Option<i64>,
    pub declared_end: Option<i64>,
    /// When set, the last sample lasts until this time rather than one average interval.
    pub samples_end: Option<i64>,
    /// Line-level ticks per stack (`positionTicks`), 1-based lines.
    pub position_ticks: Vec<(StackId, u32, u32)>,
    /// `deoptReason` per stack, when the input gave one.
    pub deopt_reasons: Vec<(StackId, StringId)>,
    /// `.heapprofile` samples.
    pub allocation_samples: Vec<AllocationSample>,
    /// A trace's `sampleTraceId`s (its ProfileChunks' `trace_ids`): id → the stack of the sample
    /// V8 tagged with it (`None` for a stack DevTools leaves empty: the root's or the garbage
    /// collector's). Trace events carrying the id take this stack. Kept here, beside the
    /// samples, so that a transform that rewrites the stack table rewrites these too.
    pub trace_id_stacks: HashMap<u64, Option<StackId>>,
}

impl Thread {
    pub fn weight_unit(&self) -> WeightUnit {
        self.weight_unit.unwrap_or(WeightUnit::Samples)
    }
}

/// Which format a profile was read from (the `"kind"` of every JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileKind {
    CpuProfile,
    SelfProfile,
    Trace,
    HeapProfile,
}

impl ProfileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileKind::CpuProfile => "cpuprofile",
            ProfileKind::SelfProfile => "selfprofile",
            ProfileKind::Trace => "trace",
            ProfileKind::HeapProfile => "heapprofile",
        }
    }
}

/// Something in the input that was skipped or repaired while loading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// A JSON path (`nodes[12].children`) or byte offset; empty when it concerns the whole file.
    pub at: String,
    pub message: String,
}

impl Warning {
    pub fn new(at: impl Into<String>, message: impl Into<String>) -> Warning {
        Warning {
            at: at.into(),
            message: message.into(),
        }
    }
}

/// A whole sampled profile.
#[derive(Clone, Debug)]
pub struct Profile {
    pub kind: ProfileKind,
    pub strings: StringTable,
    pub frames: FrameTable,
    pub stacks: StackTable,
    pub threads: Vec<Thread>,
    pub warnings: Vec<Warning>,
}

impl Profile {
    pub fn new(kind: ProfileKind) -> Profile {
        Profile {
            kind,
            strings: StringTable::default(),
            frames: FrameTable::default(),
            stacks: StackTable::default(),
            threads: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Interns a frame from its parts; `line`/`column` 1-based.
    pub fn intern_frame(
        &mut self,
        name: &str,
        url: &str,
        line: Option<u32>,
        column: Option<u32>,
        script_id: &str,
    ) -> FrameId {
        let kind = FrameKind::classify(name, url, line);
        let frame = Frame {
            name: self.strings.intern(name),
            url: self.strings.intern(url),
            line,
            column,
            script_id: self.strings.intern(script_id),
            kind,
            original: None,
        };
        self.frames.intern(frame)
    }

    pub fn frame_name(&self, frame: FrameId) -> &str {
        self.strings.get(self.frames.get(frame).name)
    }

    pub fn warn(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Warning::new(at, message));
    }
}

/// The largest magnitude a time may have (ns, about 73 years): inputs are clamped to it so that
/// differences, averages and sums of durations can never overflow.
pub const MAX_TIME_NS: i64 = 1 << 61;

/// Clamps a time read from an input into `±MAX_TIME_NS`.
pub fn clamp_time(ns: i64) -> i64 {
    ns.clamp(-MAX_TIME_NS, MAX_TIME_NS)
}

/// Converts a 0-based position as `.cpuprofile` stores it (`-1` = unknown) to 1-based.
pub fn one_based(zero_based: i64) -> Option<u32> {
    if zero_based < 0 || zero_based >= u32::MAX as i64 {
        None
    } else {
        Some(zero_based as u32 + 1)
    }
}

impl Thread {
    /// Each sample's weight in [`Thread::weight_unit`]: explicit weights, or for a timed thread
    /// the time until the next sample (the last lasting until [`Thread::samples_end`]).
    pub fn weights(&self) -> impl Iterator<Item = i64> + '_ {
        let n = self.samples.len();
        let timed = self.samples.weight.is_none() && self.weight_unit() == WeightUnit::Nanoseconds;
        let end = self
            .samples_end
            .or(self.samples.time.last().copied())
            .unwrap_or(0);
        (0..n).map(move |i| {
            if let Some(w) = &self.samples.weight {
                w[i]
            } else if timed {
                let next = if i + 1 < n {
                    self.samples.time[i + 1]
                } else {
                    end
                };
                next - self.samples.time[i]
            } else {
                1
            }
        })
    }

    /// The first sample's time (DevTools' profile start), or the declared start without samples.
    pub fn start_time(&self) -> i64 {
        self.samples
            .time
            .first()
            .copied()
            .or(self.declared_start)
            .unwrap_or(0)
    }

    /// Where the last sample ends (DevTools' profile end).
    pub fn end_time(&self) -> i64 {
        self.samples_end
            .or(self.samples.time.last().copied())
            .or(self.declared_end)
            .unwrap_or(0)
    }
}
