//! The sampled-profile model: one string table, a frame table, a stack prefix tree and per-thread
//! samples. Every importer lowers into it; every analysis and exporter reads only this.
//!
//! Invariants the analyses rely on:
//! - a stack's parent always has a smaller index than the stack itself (parents first);
//! - frames and stacks are shared by all threads of a profile;
//! - sample times are nanoseconds on the input's own clock (not yet shifted to the profile start).

use rustc_hash::FxHashMap as HashMap;
use std::num::NonZeroU32;

/// An interned string; only a [`StringTable`] mints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringId(u32);

impl StringId {
    /// The position in its table, for side arrays indexed by string.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

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

/// A frame of a [`FrameTable`], which alone mints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(u32);

impl FrameId {
    /// The position in its table, for side arrays indexed by frame.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

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

/// Samples of one thread as parallel columns of equal length (the only way to add a sample is
/// [`Samples::push`] or [`Samples::push_weighted`], which keep them so).
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Nanoseconds on the input's clock; may be unsorted as read.
    pub(crate) time: Vec<i64>,
    /// `None`: a sample on the root itself (nothing running that the profiler could name).
    pub(crate) stack: Vec<Option<StackId>>,
    /// Per-sample weights; `None` means each sample weighs 1 (see [`Thread::weight_unit`]).
    pub(crate) weight: Option<Vec<i64>>,
}

impl Samples {
    /// No samples yet, each to come with an explicit weight.
    pub fn weighted() -> Samples {
        Samples {
            weight: Some(Vec::new()),
            ..Samples::default()
        }
    }

    pub fn len(&self) -> usize {
        self.stack.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    /// Each sample's time (ns on the input's clock).
    pub fn time(&self) -> &[i64] {
        &self.time
    }

    /// Each sample's stack (`None`: on the bare root).
    pub fn stack(&self) -> &[Option<StackId>] {
        &self.stack
    }

    /// The stacks, to patch in place; the length cannot change, so the columns stay aligned.
    pub fn stack_mut(&mut self) -> &mut [Option<StackId>] {
        &mut self.stack
    }

    /// The explicit weights (bytes of a `.heapprofile`, clipped durations), if the samples have
    /// them; use [`Thread::weights`] for what a sample weighs.
    pub fn explicit_weights(&self) -> Option<&[i64]> {
        self.weight.as_deref()
    }

    /// Appends a sample; with explicit weights it weighs 1, as an unweighted sample does.
    pub fn push(&mut self, time: i64, stack: Option<StackId>) {
        self.time.push(time);
        self.stack.push(stack);
        if let Some(w) = &mut self.weight {
            w.push(1);
        }
    }

    /// Appends a sample with an explicit weight; the samples before it, if they had none, weigh 1.
    pub fn push_weighted(&mut self, time: i64, stack: Option<StackId>, weight: i64) {
        let n = self.len();
        self.weight.get_or_insert_with(|| vec![1; n]).push(weight);
        self.time.push(time);
        self.stack.push(stack);
    }

    /// Sorts the samples by time, stably (DevTools' order for equal times); a no-op when sorted.
    pub fn sort_by_time(&mut self) {
        if self.time.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_by_key(|&i| self.time[i as usize]); // stable
        let permute = |v: &[i64]| order.iter().map(|&i| v[i as usize]).collect::<Vec<_>>();
        self.time = permute(&self.time);
        if let Some(w) = &self.weight {
            self.weight = Some(permute(w));
        }
        self.stack = order.iter().map(|&i| self.stack[i as usize]).collect();
    }
}

/// Where V8 was in a script when it took one sample of a trace (`ProfileChunk`'s `lines` and
/// `columns`, 1-based); 0 for a sample without a position (V8 writes 0 for the meta nodes and
/// native code).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplePosition {
    pub line: u32,
    pub column: u32,
}

impl SamplePosition {
    pub const NONE: SamplePosition = SamplePosition { line: 0, column: 0 };

    /// Whether DevTools counts it: both a line and a column (`if (!line || !column) continue`).
    pub fn is_some(self) -> bool {
        self.line != 0 && self.column != 0
    }
}

/// One allocation sample of a `.heapprofile` (kept for counts and ordering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocationSample {
    pub stack: StackId,
    pub size: u64,
    pub ordinal: u64,
}

/// Where a stack-rewriting transform ([`Thread::map_stacks`]) sends one stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MappedStack {
    /// Nowhere: its samples become gaps on the bare root and its records are dropped.
    Gone,
    /// To a stack with the same function on top: samples and every per-stack record follow,
    /// line ticks and deopt reasons included.
    SameLeaf(StackId),
    /// To a stack with another function on top: samples, trace ids and allocations follow; line
    /// ticks and deopt reasons, which speak of the old top function's lines, are dropped.
    OtherLeaf(StackId),
}

impl MappedStack {
    /// The stack the samples land on (`None`: the bare root).
    pub fn stack(self) -> Option<StackId> {
        match self {
            MappedStack::Gone => None,
            MappedStack::SameLeaf(s) | MappedStack::OtherLeaf(s) => Some(s),
        }
    }

    fn same_leaf(self) -> Option<StackId> {
        match self {
            MappedStack::SameLeaf(s) => Some(s),
            _ => None,
        }
    }
}

/// A sampled thread.
///
/// Its fields are private because five of them are keyed by [`StackId`] — the samples' stacks,
/// `position_ticks`, `deopt_reasons`, `allocation_samples` and `trace_id_stacks` — and a
/// transform that rewrote the stack table but forgot one of them would leave it naming stacks
/// that no longer exist (or worse, other stacks). [`Thread::map_stacks`] is the one way to move
/// them all; [`Thread::with_samples`] replaces the samples over the same stacks.
#[derive(Clone, Debug, Default)]
pub struct Thread {
    pub(crate) name: String,
    pub(crate) pid: Option<u64>,
    pub(crate) tid: Option<u64>,
    pub(crate) samples: Samples,
    pub(crate) weight_unit: Option<WeightUnit>,
    /// The profile's own start/end as its header states them (ns), if it has them.
    pub(crate) declared_start: Option<i64>,
    pub(crate) declared_end: Option<i64>,
    /// When set, the last sample lasts until this time rather than one average interval.
    pub(crate) samples_end: Option<i64>,
    /// Line-level ticks per stack (`positionTicks`), 1-based lines.
    pub(crate) position_ticks: Vec<(StackId, u32, u32)>,
    /// The nodes' `hitCount`s summed, as a `.cpuprofile` states them (DevTools'
    /// `totalHitCount`); `None` when its nodes have none.
    pub(crate) hit_count: Option<u64>,
    /// `deoptReason` per stack, when the input gave one.
    pub(crate) deopt_reasons: Vec<(StackId, StringId)>,
    /// A trace's per-sample positions (see [`Thread::sample_positions`]); `None` for inputs
    /// without them, so they cost no memory there.
    pub(crate) sample_positions: Option<Vec<SamplePosition>>,
    /// `.heapprofile` samples.
    pub(crate) allocation_samples: Vec<AllocationSample>,
    /// A trace's `sampleTraceId`s (its ProfileChunks' `trace_ids`): id → the stack of the sample
    /// V8 tagged with it (`None` for a stack DevTools leaves empty: the root's or the garbage
    /// collector's). Trace events carrying the id take this stack.
    pub(crate) trace_id_stacks: HashMap<u64, Option<StackId>>,
}

impl Thread {
    /// An empty thread whose samples will weigh `unit`.
    pub fn new(unit: WeightUnit) -> Thread {
        Thread {
            weight_unit: Some(unit),
            ..Thread::default()
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pid(&self) -> Option<u64> {
        self.pid
    }

    pub fn tid(&self) -> Option<u64> {
        self.tid
    }

    pub fn samples(&self) -> &Samples {
        &self.samples
    }

    /// The samples, to append to, sort or patch in place (the columns stay aligned).
    pub fn samples_mut(&mut self) -> &mut Samples {
        &mut self.samples
    }

    pub fn weight_unit(&self) -> WeightUnit {
        self.weight_unit.unwrap_or(WeightUnit::Samples)
    }

    /// Names the thread (for transforms that build a thread from another source, as a trace
    /// thread's entries).
    pub fn set_identity(&mut self, name: String, pid: Option<u64>, tid: Option<u64>) {
        self.name = name;
        self.pid = pid;
        self.tid = tid;
    }

    pub fn set_weight_unit(&mut self, unit: WeightUnit) {
        self.weight_unit = Some(unit);
    }

    /// The header's start time (ns), if it stated one.
    pub fn declared_start(&self) -> Option<i64> {
        self.declared_start
    }

    /// The header's end time (ns), if it stated one.
    pub fn declared_end(&self) -> Option<i64> {
        self.declared_end
    }

    pub fn set_declared_range(&mut self, start: Option<i64>, end: Option<i64>) {
        self.declared_start = start;
        self.declared_end = end;
    }

    /// When set, where the last sample ends (else it ends where it starts).
    pub fn samples_end(&self) -> Option<i64> {
        self.samples_end
    }

    pub fn set_samples_end(&mut self, end: Option<i64>) {
        self.samples_end = end;
    }

    /// Line-level ticks `(stack, 1-based line, ticks)` (`positionTicks`).
    pub fn position_ticks(&self) -> &[(StackId, u32, u32)] {
        &self.position_ticks
    }

    /// The nodes' `hitCount`s summed, when the file gives them (DevTools' `totalHitCount`, what
    /// a line tick's time is computed with). V8 counts them apart from `samples`: the two can
    /// differ.
    pub fn hit_count(&self) -> Option<u64> {
        self.hit_count
    }

    pub fn set_hit_count(&mut self, hits: Option<u64>) {
        self.hit_count = hits;
    }

    /// `deoptReason` per stack, at most one per stack.
    pub fn deopt_reasons(&self) -> &[(StackId, StringId)] {
        &self.deopt_reasons
    }

    /// `.heapprofile` allocation samples, by ordinal.
    pub fn allocation_samples(&self) -> &[AllocationSample] {
        &self.allocation_samples
    }

    /// Adds `ticks` line ticks on 1-based `line` of `stack`'s top frame.
    pub fn push_position_tick(&mut self, stack: StackId, line: u32, ticks: u32) {
        self.position_ticks.push((stack, line, ticks));
    }

    /// Moves the line ticks of each `(stack, line, ticks)` to the line `f` gives, dropping those
    /// it gives none for (a source map moves ticks with their frame to the original file).
    pub fn map_position_tick_lines(&mut self, mut f: impl FnMut(StackId, u32, u32) -> Option<u32>) {
        self.position_ticks
            .retain_mut(|(s, line, n)| match f(*s, *line, *n) {
                Some(to) => {
                    *line = to;
                    true
                }
                None => false,
            });
    }

    /// A trace's per-sample positions, one per sample, when its `ProfileChunk`s carry `lines`.
    ///
    /// `positions[i]` is the position V8 wrote for the i-th sample **in the order the trace
    /// lists them**, while after [`Samples::sort_by_time`] `samples()` is in time order: the
    /// two are paired by index, as DevTools' `CPUProfileDataModel` pairs them (its sort moves
    /// `samples` and `timestamps`, not `lines` and `columns`), so that per-line times are the
    /// Sources gutter's. Where a trace's samples are in time order, the pairing is the
    /// natural one.
    pub fn sample_positions(&self) -> Option<&[SamplePosition]> {
        self.sample_positions.as_deref()
    }

    /// Sets the per-sample positions (see [`Thread::sample_positions`]); `None` removes them.
    ///
    /// # Panics
    /// When there is not one position per sample.
    pub fn set_sample_positions(&mut self, positions: Option<Vec<SamplePosition>>) {
        if let Some(p) = &positions {
            assert_eq!(p.len(), self.samples.len(), "one position per sample");
        }
        self.sample_positions = positions;
    }

    /// Moves each sample's position where `f` says (`f(index, stack, position)`; a source map
    /// moves it with its frame to the original file), [`SamplePosition::NONE`] to drop it.
    pub fn map_sample_positions(
        &mut self,
        mut f: impl FnMut(usize, Option<StackId>, SamplePosition) -> SamplePosition,
    ) {
        if let Some(positions) = &mut self.sample_positions {
            for (i, p) in positions.iter_mut().enumerate() {
                if p.is_some() {
                    *p = f(i, self.samples.stack[i], *p);
                }
            }
        }
    }

    /// Records why `stack`'s top function was deoptimized; a stack keeps its first reason.
    pub fn push_deopt_reason(&mut self, stack: StackId, reason: StringId) {
        if !self.deopt_reasons.iter().any(|&(s, _)| s == stack) {
            self.deopt_reasons.push((stack, reason));
        }
    }

    /// Adds a `.heapprofile` allocation sample.
    pub fn push_allocation_sample(&mut self, sample: AllocationSample) {
        self.allocation_samples.push(sample);
    }

    /// Tags `stack` with a trace's `sampleTraceId` (`None`: a stack DevTools leaves empty).
    pub fn insert_trace_id(&mut self, trace_id: u64, stack: Option<StackId>) {
        self.trace_id_stacks.insert(trace_id, stack);
    }

    /// Every `sampleTraceId` of a trace with its stack.
    pub fn trace_id_stacks(&self) -> &HashMap<u64, Option<StackId>> {
        &self.trace_id_stacks
    }

    /// The stack of the sample tagged `trace_id`: `None` when no sample carries the id,
    /// `Some(None)` when it is one DevTools leaves empty.
    pub fn trace_id_stack(&self, trace_id: u64) -> Option<Option<StackId>> {
        self.trace_id_stacks.get(&trace_id).copied()
    }

    /// The thread with every stack it names sent through `f`: the samples' stacks, line ticks,
    /// deopt reasons, allocation samples and trace ids. Times and weights are untouched, so a
    /// sample whose stack is [`MappedStack::Gone`] stays where it was, a gap on the bare root.
    /// Line ticks that land on one stack and line add up (in first-seen order); of the deopt
    /// reasons landing on one stack the first is kept. `f` is called once per occurrence of a
    /// stack, so it should be a lookup.
    pub fn map_stacks(&self, mut f: impl FnMut(StackId) -> MappedStack) -> Thread {
        let mut ticks: HashMap<(StackId, u32), u32> = HashMap::default();
        let mut order = Vec::new();
        for &(s, line, n) in &self.position_ticks {
            if let Some(to) = f(s).same_leaf() {
                let e = ticks.entry((to, line)).or_insert_with(|| {
                    order.push((to, line));
                    0
                });
                *e += n;
            }
        }
        let mut deopt_seen = std::collections::HashSet::new();
        let deopt_reasons = self
            .deopt_reasons
            .iter()
            .filter_map(|&(s, r)| f(s).same_leaf().map(|n| (n, r)))
            .filter(|(n, _)| deopt_seen.insert(*n))
            .collect();
        // A position speaks of its sample's top function: it stays only where that stays.
        let sample_positions = self.sample_positions.as_ref().map(|positions| {
            positions
                .iter()
                .zip(&self.samples.stack)
                .map(|(&p, &s)| match s.map(&mut f) {
                    Some(MappedStack::SameLeaf(_)) => p,
                    _ => SamplePosition::NONE,
                })
                .collect()
        });
        Thread {
            name: self.name.clone(),
            pid: self.pid,
            tid: self.tid,
            samples: Samples {
                time: self.samples.time.clone(),
                stack: self
                    .samples
                    .stack
                    .iter()
                    .map(|s| s.and_then(|s| f(s).stack()))
                    .collect(),
                weight: self.samples.weight.clone(),
            },
            weight_unit: self.weight_unit,
            declared_start: self.declared_start,
            declared_end: self.declared_end,
            samples_end: self.samples_end,
            position_ticks: order
                .into_iter()
                .map(|(s, line)| (s, line, ticks[&(s, line)]))
                .collect(),
            hit_count: self.hit_count,
            deopt_reasons,
            sample_positions,
            allocation_samples: self
                .allocation_samples
                .iter()
                .filter_map(|a| {
                    f(a.stack)
                        .stack()
                        .map(|stack| AllocationSample { stack, ..*a })
                })
                .collect(),
            trace_id_stacks: self
                .trace_id_stacks
                .iter()
                .map(|(&id, &s)| (id, s.and_then(|s| f(s).stack())))
                .collect(),
        }
    }

    /// The thread with other samples over the same stacks, ending at `samples_end`. What is said
    /// about stacks (deopt reasons, trace ids) is kept; what counts samples (line ticks,
    /// allocation samples, sample positions) cannot be recounted for the new samples and is
    /// dropped.
    pub fn with_samples(&self, samples: Samples, samples_end: Option<i64>) -> Thread {
        Thread {
            name: self.name.clone(),
            pid: self.pid,
            tid: self.tid,
            samples,
            weight_unit: self.weight_unit,
            declared_start: self.declared_start,
            declared_end: self.declared_end,
            samples_end,
            position_ticks: Vec::new(),
            hit_count: None,
            deopt_reasons: self.deopt_reasons.clone(),
            sample_positions: None,
            allocation_samples: Vec::new(),
            trace_id_stacks: self.trace_id_stacks.clone(),
        }
    }

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

    /// What percentages of this thread are of: for a timed thread its span from the first
    /// sample to where the last ends, gaps included (as DevTools' tables count); for weights that
    /// are not plain sample durations (clipped, bytes, counts) their sum.
    pub fn percent_base(&self) -> i64 {
        if self.weight_unit() == WeightUnit::Nanoseconds && self.samples.weight.is_none() {
            self.end_time() - self.start_time()
        } else {
            self.weights().sum()
        }
    }

    /// Where the last sample ends (DevTools' profile end).
    pub fn end_time(&self) -> i64 {
        self.samples_end
            .or(self.samples.time.last().copied())
            .or(self.declared_end)
            .unwrap_or(0)
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

/// Nanoseconds per millisecond: the model keeps integer ns, every table and JSON shows ms.
pub const NS_PER_MS: f64 = 1e6;

/// Nanoseconds as (fractional) milliseconds.
pub fn ns_to_ms(ns: i64) -> f64 {
    ns as f64 / NS_PER_MS
}

/// Milliseconds as nanoseconds, rounded to the nearest (saturating at `i64`'s bounds).
pub fn ms_to_ns(ms: f64) -> i64 {
    (ms * NS_PER_MS).round() as i64
}

/// Converts a 0-based position as `.cpuprofile` stores it (`-1` = unknown) to 1-based.
pub fn one_based(zero_based: i64) -> Option<u32> {
    if zero_based < 0 || zero_based >= u32::MAX as i64 {
        None
    } else {
        Some(zero_based as u32 + 1)
    }
}
