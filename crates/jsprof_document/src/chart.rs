//! The documents the browser UI draws (`jsprof view`, `jsprof serve`, `jsprof report`): a flame
//! chart window of a timeline, the call trees of a profile, heap pages. They are columnar (one
//! array per field, strings interned once) so that a few hundred thousand calls stay a few MB,
//! and they are always bounded: the chart keeps what is at least `min_ms` long in the window and
//! merges what is shorter into grey blocks; trees leave out nodes under a share of the total.

use std::collections::HashMap;

use jsprof_analysis::{
    bottom_up_depth_limit, bottom_up_within, callees, function_table, top_down, CallTree,
    EventData, FunctionKey, Timeline, BOTTOM_UP_BUDGET,
};
use jsprof_profile::{Profile, StringId, WeightUnit};
use schemars::JsonSchema;
use serde::Serialize;

/// Strings interned once per document.
#[derive(Default, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Strings {
    list: Vec<String>,
    #[serde(skip)]
    index: HashMap<String, u32>,
}

impl Strings {
    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// Functions interned once per document: `[name, url, line, column]` (string ids, 1-based).
#[derive(Default)]
struct Functions {
    list: Vec<(u32, u32, Option<u32>, Option<u32>)>,
    index: HashMap<(u32, u32, Option<u32>, Option<u32>), u32>,
}

impl Functions {
    fn id(&mut self, key: (u32, u32, Option<u32>, Option<u32>)) -> u32 {
        *self.index.entry(key).or_insert_with(|| {
            self.list.push(key);
            self.list.len() as u32 - 1
        })
    }
}

/// The interned tables of one document: its strings and the functions that name them.
#[derive(Default)]
struct Tables {
    strings: Strings,
    functions: Functions,
}

impl Tables {
    /// The id of a function by its name and URL (in the profile's strings) and position.
    fn function(
        &mut self,
        profile: &Profile,
        name: StringId,
        url: StringId,
        line: Option<u32>,
        column: Option<u32>,
    ) -> u32 {
        let key = (
            self.strings.id(profile.strings.get(name)),
            self.strings.id(profile.strings.get(url)),
            line,
            column,
        );
        self.functions.id(key)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn ms(ns: i64) -> f64 {
    round3(jsprof_profile::ns_to_ms(ns))
}

/// Which part of a timeline to send.
#[derive(Clone, Copy, Debug)]
pub struct ChartWindow {
    /// ms from the timeline's origin; `None` = the recording's edge.
    pub start_ms: Option<f64>,
    pub end_ms: Option<f64>,
    /// Events shorter than this are merged (ms); 0 keeps all.
    pub min_ms: f64,
    /// At most this many events; `min_ms` is raised until they fit.
    pub max_events: usize,
}

#[derive(Serialize, Default, JsonSchema)]
pub struct ChartEvents {
    /// Start (ms from the origin).
    pub s: Vec<f64>,
    /// Duration (ms).
    pub d: Vec<f64>,
    /// Depth.
    pub l: Vec<u32>,
    /// Type (index into `types`).
    pub t: Vec<u8>,
    /// Name (string id).
    pub n: Vec<u32>,
    /// Function (index into `functions`), -1 for an engine event.
    pub f: Vec<i64>,
    /// Self time (ms).
    pub x: Vec<f64>,
    /// Index of the parent among these events, -1 for a top-level one.
    pub p: Vec<i64>,
}

#[derive(Serialize, Default, JsonSchema)]
pub struct MergedBlocks {
    pub s: Vec<f64>,
    pub d: Vec<f64>,
    pub l: Vec<u32>,
    /// Events merged.
    pub c: Vec<u32>,
}

#[derive(Serialize, JsonSchema)]
#[schemars(rename = "ChartThreadJson")]
pub struct ThreadJson {
    pub id: u32,
    pub name: String,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    #[serde(flatten)]
    pub about: crate::threads::ThreadAbout,
}

/// One window of a timeline's flame chart.
#[derive(Serialize, JsonSchema)]
pub struct ChartDoc {
    pub timeline: u32,
    pub thread: String,
    pub threads: Vec<ThreadJson>,
    /// The recording's extent (ms from the origin).
    pub start_ms: f64,
    pub end_ms: f64,
    /// The window sent.
    pub window: [f64; 2],
    /// Events shorter than this were merged.
    pub min_ms: f64,
    pub max_depth: u32,
    pub types: Vec<&'static str>,
    pub strings: Strings,
    /// `[name, url, line, column]`: string ids and 1-based positions (null when unknown).
    pub functions: Vec<(u32, u32, Option<u32>, Option<u32>)>,
    pub events: ChartEvents,
    pub merged: MergedBlocks,
}

impl ChartDoc {
    /// Names each thread's process from a trace's `(pid, name)` list
    /// (`CpuInput::process_names`) and the page a renderer's main thread draws.
    pub fn name_processes(mut self, input: &crate::load::CpuInput) -> ChartDoc {
        for t in &mut self.threads {
            t.about.process = crate::threads::process_name(input, t.pid);
            t.about.page = crate::threads::page_track_name(input, t.pid, &t.name);
        }
        self
    }
}

/// The event types, by their index in `ChartEvents::t`: `EventType::ALL`'s order.
fn types() -> Vec<&'static str> {
    jsprof_analysis::EventType::ALL
        .iter()
        .map(|t| t.as_str())
        .collect()
}

/// An event type's index in [`types`].
fn type_index(t: jsprof_analysis::EventType) -> u8 {
    jsprof_analysis::EventType::ALL
        .iter()
        .position(|x| *x == t)
        .expect("ALL lists every type") as u8
}

/// The extent of a timeline: ms from its origin.
pub fn extent(profile: &Profile, timeline: &Timeline) -> (f64, f64) {
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    for e in &timeline.events {
        if e.depth == 0 {
            lo = lo.min(e.start);
            hi = hi.max(e.end);
        }
    }
    if let Some(t) = timeline.profile_thread.map(|i| &profile.threads[i]) {
        if !t.samples().is_empty() {
            lo = lo.min(t.start_time());
            hi = hi.max(t.end_time());
        }
    }
    if lo > hi {
        return (0.0, 0.0);
    }
    (ms(lo - timeline.origin), ms(hi - timeline.origin))
}

/// The events of `timeline` in `window`: those at least `min_ms` long whole (with their
/// function), shorter ones merged per depth into blocks where they touch.
pub fn chart(
    profile: &Profile,
    timelines: &[Timeline],
    timeline: &Timeline,
    window: ChartWindow,
) -> ChartDoc {
    let origin = timeline.origin;
    let (start_ms, end_ms) = extent(profile, timeline);
    let w0 = window.start_ms.unwrap_or(start_ms).max(start_ms);
    let w1 = window.end_ms.unwrap_or(end_ms).min(end_ms).max(w0);
    let lo = origin + (w0 * 1e6) as i64;
    let hi = origin + (w1 * 1e6).ceil() as i64;
    let events = &timeline.events;
    // The smallest duration that keeps at most `max_events` (longest first).
    let mut min_ns = (window.min_ms.max(0.0) * 1e6) as i64;
    if window.max_events > 0 {
        let mut durations: Vec<i64> = Vec::new();
        let mut i = 0;
        while i < events.len() {
            let e = &events[i];
            if e.end < lo || e.start > hi || e.end - e.start < min_ns {
                i = (e.subtree_end as usize).max(i + 1);
                continue;
            }
            durations.push(e.end - e.start);
            i += 1;
        }
        if durations.len() > window.max_events {
            let k = durations.len() - window.max_events;
            durations.select_nth_unstable(k);
            min_ns = min_ns.max(durations[k] + 1);
        }
    }
    let mut tables = Tables::default();
    let mut out = ChartEvents::default();
    let mut merged = MergedBlocks::default();
    // Per depth: the open merged block (start, end, count).
    let mut runs: Vec<Option<(i64, i64, u32)>> = Vec::new();
    let flush = |merged: &mut MergedBlocks, depth: usize, run: (i64, i64, u32)| {
        merged.s.push(ms(run.0 - origin));
        merged.d.push(ms(run.1 - run.0));
        merged.l.push(depth as u32);
        merged.c.push(run.2);
    };
    // Our index of each kept event, for the parents.
    let mut kept: HashMap<u32, i64> = HashMap::new();
    let mut max_depth = 0;
    let mut i = 0;
    while i < events.len() {
        let e = &events[i];
        if e.end < lo || e.start > hi {
            i = (e.subtree_end as usize).max(i + 1);
            continue;
        }
        let depth = e.depth as usize;
        max_depth = max_depth.max(e.depth);
        if e.end - e.start < min_ns {
            if runs.len() <= depth {
                runs.resize(depth + 1, None);
            }
            let gap = min_ns;
            runs[depth] = match runs[depth] {
                Some((s, end, c)) if e.start <= end + gap => Some((s, end.max(e.end), c + 1)),
                Some(run) => {
                    flush(&mut merged, depth, run);
                    Some((e.start, e.end, 1))
                }
                None => Some((e.start, e.end, 1)),
            };
            i = (e.subtree_end as usize).max(i + 1);
            continue;
        }
        let index = out.s.len() as i64;
        kept.insert(i as u32, index);
        out.s.push(ms(e.start - origin));
        out.d.push(ms(e.end - e.start));
        out.l.push(e.depth);
        out.t.push(type_index(e.kind));
        out.n.push(tables.strings.id(profile.strings.get(e.name)));
        out.f.push(match e.data {
            EventData::Frame(frame) => {
                let f = profile.frames.get(frame);
                tables.function(profile, f.name, f.url, f.line, f.column) as i64
            }
            _ => -1,
        });
        out.x.push(ms(e.self_time));
        out.p
            .push(e.parent.and_then(|p| kept.get(&p).copied()).unwrap_or(-1));
        i += 1;
    }
    for (depth, run) in runs.into_iter().enumerate() {
        if let Some(run) = run {
            flush(&mut merged, depth, run);
        }
    }
    ChartDoc {
        timeline: timeline.id,
        thread: timeline.name.clone(),
        threads: timelines
            .iter()
            .map(|t| ThreadJson {
                id: t.id,
                name: t.name.clone(),
                pid: t.pid,
                tid: t.tid,
                about: crate::threads::ThreadAbout::of(None, t),
            })
            .collect(),
        start_ms,
        end_ms,
        window: [w0, w1],
        min_ms: jsprof_profile::ns_to_ms(min_ns),
        max_depth,
        types: types(),
        strings: tables.strings,
        functions: tables.functions.list,
        events: out,
        merged,
    }
}

/// A call tree, columnar, breadth-first: every root, then their children, level by level, so a
/// parent always precedes its children and siblings keep the engine's order (heaviest first).
#[derive(Serialize, Default, JsonSchema)]
pub struct TreeNodes {
    /// Parent's index (-1 for a root).
    pub p: Vec<i64>,
    /// Function (index into `functions`).
    pub f: Vec<u32>,
    /// Self and total (ms or bytes).
    pub s: Vec<f64>,
    pub t: Vec<f64>,
    /// The node's id in the engine's tree: what `…/profile/children?node=` asks for.
    pub k: Vec<u32>,
    /// How many of the node's children were not sent because the node budget was spent (they
    /// can be asked for); 0 when all that pass the threshold are here.
    pub m: Vec<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct TreeDoc {
    pub nodes: TreeNodes,
    /// Nodes left out because they are under `min_fraction` of the total (with their subtrees,
    /// counted once each).
    pub pruned: usize,
    /// Nodes over the threshold not sent because the budget (`max_nodes`) was spent; they sit
    /// under the nodes whose `m` is non-zero and are fetched when those are opened.
    pub over_budget: usize,
    /// The share of the total under which a (non-root) node is left out.
    pub min_fraction: f64,
}

/// Which of the trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKind {
    TopDown,
    BottomUp,
    /// The callees half of a function's sandwich ([`sandwich_doc`]).
    Callees(FunctionKey),
}

/// Both trees of a profile's thread.
#[derive(Serialize, JsonSchema)]
pub struct ProfileDoc {
    pub kind: &'static str,
    /// `ms` or `bytes`.
    pub unit: &'static str,
    /// The weight percentages refer to (the duration, or all bytes).
    pub total: f64,
    /// The range the trees were clipped to (ms from the timeline's origin), when one was.
    pub range: Option<[f64; 2]>,
    pub strings: Strings,
    pub functions: Vec<(u32, u32, Option<u32>, Option<u32>)>,
    pub top_down: TreeDoc,
    pub bottom_up: TreeDoc,
    /// The input's and the filters' warnings (a subtree path that matched nothing says so here).
    pub warnings: Vec<crate::JsonWarning>,
}

/// The children of one node of a tree, fetched when a node whose children were not sent (over
/// the budget) is opened. `nodes`' roots (`p` = -1) are the node's children.
#[derive(Serialize, JsonSchema)]
pub struct SubtreeDoc {
    pub unit: &'static str,
    pub total: f64,
    pub strings: Strings,
    pub functions: Vec<(u32, u32, Option<u32>, Option<u32>)>,
    pub nodes: TreeDoc,
}

/// What to keep of the trees.
#[derive(Clone, Copy, Debug)]
pub struct TreeLimits {
    /// Non-root nodes under this fraction of the total are left out. Roots are all kept: the
    /// bottom-up roots are the function table, which must equal `jsprof top`'s.
    pub min_fraction: f64,
    /// At most this many nodes per tree besides the roots, given breadth-first: a deep or
    /// wide subtree cannot spend the budget that the other roots' children need.
    pub max_nodes: usize,
}

impl Default for TreeLimits {
    fn default() -> Self {
        TreeLimits {
            min_fraction: 0.0001,
            max_nodes: 60_000,
        }
    }
}

/// What the trees of one document share: the thread, its unit, the limits, and the interned
/// tables the trees fill.
struct Trees<'a> {
    profile: &'a Profile,
    thread: usize,
    /// `ms` or `bytes`.
    unit: &'static str,
    /// The percent base.
    total: i64,
    /// What a weight is divided by for the document.
    scale: f64,
    limits: TreeLimits,
    tables: Tables,
}

impl<'a> Trees<'a> {
    fn new(profile: &'a Profile, thread: usize, limits: TreeLimits) -> Self {
        let (unit, total, scale) = units(profile, thread);
        Trees {
            profile,
            thread,
            unit,
            total,
            scale,
            limits,
            tables: Tables::default(),
        }
    }

    /// A weight as the document writes it.
    fn weight(&self, w: i64) -> f64 {
        round3(w as f64 / self.scale)
    }

    /// Whether a node of total weight `t` passes the threshold (a root always does).
    fn passes(&self, t: i64) -> bool {
        let threshold = (self.total as f64 * self.limits.min_fraction) as i64;
        t >= threshold || t >= self.total
    }

    /// The engine's tree of the thread.
    fn engine(&self, kind: TreeKind) -> CallTree {
        engine_tree(self.profile, self.thread, kind)
    }

    /// The nodes under `starts` (given as the first level), breadth-first within the budget.
    fn doc(&mut self, tree: &CallTree, starts: &[u32]) -> TreeDoc {
        let mut nodes = TreeNodes::default();
        let mut pruned = 0;
        let mut over_budget = 0;
        // Every start is sent (the roots); the budget counts the nodes beneath them.
        let budget = starts.len() + self.limits.max_nodes;
        let mut queue: std::collections::VecDeque<(u32, i64)> =
            starts.iter().map(|&r| (r, -1)).collect();
        while let Some((n, parent)) = queue.pop_front() {
            let node = &tree.nodes[n as usize];
            if parent >= 0 && !self.passes(node.total_weight) {
                pruned += 1;
                continue;
            }
            if nodes.p.len() >= budget {
                // Over the budget: its parent says so, and it can be asked for.
                nodes.m[parent as usize] += 1;
                over_budget += 1;
                continue;
            }
            let k = &node.function;
            let index = nodes.p.len() as i64;
            nodes.p.push(parent);
            nodes.f.push(
                self.tables
                    .function(self.profile, k.name, k.url, k.line, k.column),
            );
            nodes.s.push(self.weight(node.self_weight));
            nodes.t.push(self.weight(node.total_weight));
            nodes.k.push(n);
            nodes.m.push(0);
            queue.extend(node.children.iter().map(|&c| (c, index)));
        }
        TreeDoc {
            nodes,
            pruned,
            over_budget,
            min_fraction: self.limits.min_fraction,
        }
    }
}

/// The engine's tree of a thread.
fn engine_tree(profile: &Profile, thread: usize, kind: TreeKind) -> CallTree {
    let t = &profile.threads[thread];
    match kind {
        TreeKind::TopDown => top_down(profile, t),
        // Bounded as `jsprof tree --bottom-up` bounds it (deep stacks grow it with depth squared).
        TreeKind::BottomUp => bottom_up_within(
            profile,
            t,
            bottom_up_depth_limit(profile, t, BOTTOM_UP_BUDGET),
        ),
        TreeKind::Callees(key) => callees(profile, t, &key),
    }
}

/// A sampled function of `profile.threads[thread]` by name, URL and position (what the UI's
/// tables show of it); `None` when no sample has it.
pub fn find_function(
    profile: &Profile,
    thread: usize,
    name: &str,
    url: &str,
    line: Option<u32>,
    column: Option<u32>,
) -> Option<FunctionKey> {
    function_table(profile, &profile.threads[thread])
        .rows
        .into_iter()
        .map(|r| r.key)
        .find(|k| {
            profile.strings.get(k.name) == name
                && profile.strings.get(k.url) == url
                && k.line == line
                && k.column == column
        })
}

/// Speedscope's sandwich of one function for the UI: its callers (the Bottom-up tree under the
/// function's root: the node ids are the Bottom-up tree's, so `…/profile/children?tree=bottom_up`
/// opens them) and its callees (`tree=callees` with the function opens those).
#[derive(Serialize, JsonSchema)]
pub struct SandwichDoc {
    pub unit: &'static str,
    pub total: f64,
    pub range: Option<[f64; 2]>,
    pub strings: Strings,
    pub functions: Vec<(u32, u32, Option<u32>, Option<u32>)>,
    /// The function (index into `functions`) with its self and total (the `top` row).
    pub function: u32,
    pub function_self: f64,
    pub function_total: f64,
    /// One root, the function; the callers beneath.
    pub callers: TreeDoc,
    /// One root, the function; its callees beneath.
    pub callees: TreeDoc,
}

/// The sandwich of `key` on `profile.threads[thread]`; both halves are empty when the function
/// has no samples there.
pub fn sandwich_doc(
    profile: &Profile,
    thread: usize,
    key: FunctionKey,
    range: Option<[f64; 2]>,
    limits: TreeLimits,
) -> SandwichDoc {
    let mut trees = Trees::new(profile, thread, limits);
    let up = trees.engine(TreeKind::BottomUp);
    let root: Vec<u32> = up
        .roots
        .iter()
        .copied()
        .filter(|&r| up.nodes[r as usize].function == key)
        .collect();
    let (self_weight, total_weight) = root.first().map_or((0, 0), |&r| {
        let n = &up.nodes[r as usize];
        (n.self_weight, n.total_weight)
    });
    let callers = trees.doc(&up, &root);
    let down = trees.engine(TreeKind::Callees(key));
    let callees = trees.doc(&down, &down.roots);
    let function = trees
        .tables
        .function(profile, key.name, key.url, key.line, key.column);
    SandwichDoc {
        unit: trees.unit,
        total: trees.weight(trees.total),
        range,
        function,
        function_self: trees.weight(self_weight),
        function_total: trees.weight(total_weight),
        strings: trees.tables.strings,
        functions: trees.tables.functions.list,
        callers,
        callees,
    }
}

/// The unit's name, the percent base and what a weight is divided by for the document.
fn units(profile: &Profile, thread: usize) -> (&'static str, i64, f64) {
    let t = &profile.threads[thread];
    if t.weight_unit() == WeightUnit::Bytes {
        ("bytes", t.percent_base(), 1.0)
    } else {
        ("ms", t.percent_base(), jsprof_profile::NS_PER_MS)
    }
}

/// The top-down and bottom-up trees of `profile.threads[thread]`.
pub fn profile_doc(
    profile: &Profile,
    thread: usize,
    range: Option<[f64; 2]>,
    limits: TreeLimits,
) -> ProfileDoc {
    let mut trees = Trees::new(profile, thread, limits);
    let mut doc = |kind| {
        let tree = trees.engine(kind);
        trees.doc(&tree, &tree.roots)
    };
    let top_down = doc(TreeKind::TopDown);
    let bottom_up = doc(TreeKind::BottomUp);
    ProfileDoc {
        kind: profile.kind.as_str(),
        unit: trees.unit,
        total: trees.weight(trees.total),
        range,
        strings: trees.tables.strings,
        functions: trees.tables.functions.list,
        top_down,
        bottom_up,
        warnings: crate::warnings_json(&profile.warnings),
    }
}

/// The subtree under node `node` (an id from [`TreeNodes::k`]) of one of the trees, its
/// children as roots, within the same limits; `None` when the tree has no such node.
pub fn subtree_doc(
    profile: &Profile,
    thread: usize,
    kind: TreeKind,
    node: u32,
    limits: TreeLimits,
) -> Option<SubtreeDoc> {
    let mut trees = Trees::new(profile, thread, limits);
    let tree = trees.engine(kind);
    let children = &tree.nodes.get(node as usize)?.children;
    // The children pass the threshold as their parent's children did in the first document.
    let starts: Vec<u32> = children
        .iter()
        .copied()
        .filter(|&c| trees.passes(tree.nodes[c as usize].total_weight))
        .collect();
    let mut nodes = trees.doc(&tree, &starts);
    nodes.pruned += children.len() - starts.len();
    Some(SubtreeDoc {
        unit: trees.unit,
        total: trees.weight(trees.total),
        strings: trees.tables.strings,
        functions: trees.tables.functions.list,
        nodes,
    })
}
