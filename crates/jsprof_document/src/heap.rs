//! `jsprof heap summary|node|retainers|diff --json` and the service's `…/heap/…` endpoints.

use std::collections::HashMap;

use jsprof_heap::{
    edge_label, edge_name, edge_type_name, retaining_paths, Analysis, ClassRow, CompareSide,
    HeapSnapshot, Identities, InterfaceDefinition, NodeOrdinal, Overview, PathOptions,
    RetainerIndex, SortBy, Statistics, Warning,
};
use schemars::JsonSchema;
use serde::Serialize;

use jsprof_profile::display::fmt_location;

use crate::{JsonWarning, ReportError, Result};

/// A distance as DevTools shows it: `None` (DevTools' `−`, JSON `null`) when nothing reaches the
/// object (-5) or only the GC roots do (100 000 000 and up): those are markers for sorting, not a
/// number of steps from the window.
pub fn shown_distance(distance: i32) -> Option<u32> {
    if (0..jsprof_heap::distances::BASE_SYSTEM_DISTANCE).contains(&distance) {
        Some(distance as u32)
    } else {
        None
    }
}

/// A distance as the text of every door shows it (DevTools' Distance column): the number, or
/// `−` (U+2212) when nothing or only the GC roots reach the object — never the 100000006 that
/// sorts it last.
pub fn distance_text(distance: i32) -> String {
    match shown_distance(distance) {
        Some(d) => d.to_string(),
        None => "\u{2212}".to_string(),
    }
}

/// A distance's JSON schema: always present, an integer or null (see [`shown_distance`]).
struct DistanceSchema;

impl JsonSchema for DistanceSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Distance".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["integer", "null"], "minimum": 0 })
    }
}

fn distance_json<S: serde::Serializer>(
    distance: &i32,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    shown_distance(*distance).serialize(s)
}

/// The warnings of a snapshot.
pub fn warnings(s: &HeapSnapshot) -> Vec<JsonWarning> {
    warnings_of(&s.warnings)
}

/// Reader warnings as JSON.
pub fn warnings_of(warnings: &[Warning]) -> Vec<JsonWarning> {
    prefixed_warnings(warnings, "")
}

/// The warnings with the file's name in front, for outputs that read several files.
pub fn warnings_named(name: &str, s: &HeapSnapshot) -> Vec<JsonWarning> {
    prefixed_warnings(&s.warnings, &format!("{name}: "))
}

/// Reader warnings as JSON, each message after `prefix`.
fn prefixed_warnings(warnings: &[Warning], prefix: &str) -> Vec<JsonWarning> {
    let json = |w: &Warning| JsonWarning {
        at: w.at.clone(),
        message: format!("{prefix}{}", w.message),
    };
    warnings.iter().map(json).collect()
}

/// Why [`open_snapshot_file`] failed: the file could not be read, or it is not a snapshot; each
/// message names the file.
#[derive(Debug)]
pub enum OpenError {
    Read(String),
    Snapshot(String),
}

/// Reads and analyses the heap snapshot at `path` (blocking) for the service and MCP, through the
/// heap index cache when the environment enables it (the CLI's, see `jsprof_heap::cache`). The
/// cache's notes go to stderr after `door` (`jsprof serve`, `jsprof mcp`).
pub fn open_snapshot_file(
    path: &std::path::Path,
    name: &str,
    door: &str,
) -> std::result::Result<jsprof_heap::Opened, OpenError> {
    let cache = jsprof_heap::HeapCache::from_env().unwrap_or_else(|e| {
        eprintln!("{door}: heap index cache off: {e}");
        None
    });
    let read = || {
        let reader = crate::text::open_reader(path)
            .map_err(|e| OpenError::Read(format!("{name}: cannot read: {e}")))?;
        jsprof_heap::read_snapshot_with(reader, jsprof_heap::ReadOptions::default())
            .map_err(|e| OpenError::Snapshot(format!("{name}: {e}")))
    };
    let opened = jsprof_heap::open_analysed(Some(path), cache.as_ref(), read, &mut |_| {})?;
    for note in &opened.notes {
        eprintln!("{door}: {note}");
    }
    Ok(opened)
}

// Where a source map places a heap object, a class, a leak group or an allocating function
// (docs/heap.md, "Source maps"): both absent unless its script has a map that covers it, at a
// door that maps. DevTools' names and keys beside it stay as they are. (Not a doc comment: the
// documents flatten it, and its description would become theirs.)
#[derive(Serialize, JsonSchema, Default, Clone, Debug, PartialEq, Eq)]
pub struct InSource {
    /// Its name in the original source (`LeakyCache` for a minified `t`), when the map names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// Where the map places its function or constructor: `url:line:column` (1-based) in the
    /// original source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_location: Option<String>,
}

/// One object as the exploration commands list it.
#[derive(Serialize, JsonSchema)]
pub struct ObjectJson {
    pub id: u32,
    pub name: String,
    pub class: String,
    #[serde(rename = "type")]
    pub node_type: String,
    pub self_size: u64,
    pub retained_size: u64,
    /// Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`).
    #[serde(serialize_with = "distance_json")]
    #[schemars(with = "DistanceSchema")]
    pub distance: i32,
    /// Where its function is, as DevTools links it beside the object: a closure's own position,
    /// an object's constructor's (V8's `locations`): `url:line:column`, 1-based. Absent when the
    /// snapshot has none or the script has no URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Where a source map places that function or class (`name` and `class` stay DevTools').
    #[serde(flatten)]
    pub original: InSource,
    /// The location as V8 gives it (script id, 0-based line and column), for the maps.
    #[serde(skip)]
    #[schemars(skip)]
    pub at: Option<(u32, u32, u32)>,
}

/// Where the node's function is, as DevTools links it (`url:line:column`, 1-based, when its
/// script has a URL), and V8's location itself (script id, 0-based line and column) for the maps.
fn location_of(
    s: &HeapSnapshot,
    a: &Analysis,
    n: NodeOrdinal,
) -> (Option<String>, Option<(u32, u32, u32)>) {
    let at = s.location(n).map(|l| (l.script_id, l.line, l.column));
    let location = at.and_then(|(id, line, column)| {
        let i = a.scripts.binary_search_by_key(&id, |x| x.id).ok()?;
        let url = &a.scripts[i].url;
        (!url.is_empty()).then(|| fmt_location(url, Some(line + 1), Some(column + 1)))
    });
    (location, at)
}

/// The object at ordinal `n`.
pub fn object_json(s: &HeapSnapshot, a: &Analysis, n: NodeOrdinal) -> ObjectJson {
    let class = a.class_name(s, n);
    let mut name = jsprof_heap::display_name(s, n);
    if n == s.root && name.is_empty() {
        name = "(root)".to_string();
    }
    let (location, at) = location_of(s, a, n);
    ObjectJson {
        id: s.nodes.id(n),
        name,
        class,
        node_type: s.node_type_name(n).to_owned(),
        self_size: s.nodes.self_size(n) as u64,
        retained_size: a.retained[n.index()],
        distance: a.distances[n.index()],
        location,
        original: InSource::default(),
        at,
    }
}

/// The ordinal of the node with this id (`NotFound` naming the file otherwise).
pub fn ordinal_of(name: &str, s: &HeapSnapshot, id: u32) -> Result<NodeOrdinal> {
    match s.find_id(id) {
        Some(n) => Ok(n),
        None => Err(ReportError::NotFound(format!(
            "{name}: no node with id @{id}"
        ))),
    }
}

#[derive(Serialize, JsonSchema)]
pub struct StatisticsJson {
    pub total: u64,
    pub native: NativeJson,
    pub v8heap: V8HeapJson,
}

#[derive(Serialize, JsonSchema)]
pub struct NativeJson {
    pub total: u64,
    #[serde(rename = "typedArrays")]
    pub typed_arrays: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct V8HeapJson {
    pub total: i64,
    pub code: u64,
    #[serde(rename = "jsArrays")]
    pub js_arrays: u64,
    pub strings: u64,
    pub system: u64,
}

pub fn statistics_json(st: &Statistics) -> StatisticsJson {
    StatisticsJson {
        total: st.total,
        native: NativeJson {
            total: st.native_total,
            typed_arrays: st.native_typed_arrays,
        },
        v8heap: V8HeapJson {
            total: st.v8heap_total,
            code: st.code,
            js_arrays: st.js_arrays,
            strings: st.strings,
            system: st.system,
        },
    }
}

#[derive(Serialize, JsonSchema)]
pub struct ClassJson {
    pub key: String,
    pub name: String,
    pub count: u64,
    pub self_size: u64,
    pub retained_size: u64,
    /// Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`).
    #[serde(serialize_with = "distance_json")]
    #[schemars(with = "DistanceSchema")]
    pub distance: i32,
    /// For a class whose constructor is in a script with a source map: its name in the original
    /// source (`LeakyCache` for a minified `t`), when the map names it (docs/heap.md, "Source
    /// maps"). `key` and `name` stay DevTools'.
    #[serde(flatten)]
    pub original: InSource,
}

/// `heap summary`: DevTools' Summary.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "HeapSummaryReport")]
pub struct SummaryReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub node_count: usize,
    pub total_size: u64,
    pub statistics: StatisticsJson,
    /// Only with `--between`: the Summary covers the objects allocated between two snapshots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub between: Option<BetweenJson>,
    /// Only with `--context`: the Summary covers one JavaScript context's objects (or the
    /// shared or unattributed ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::heap_contexts::SummaryContextJson>,
    pub classes: Vec<ClassJson>,
}

/// The objects a `--between` Summary covers (DevTools' "Objects allocated between Snapshot 1 and
/// Snapshot 2"): ids after the first snapshot's largest JS object id, up to the second's.
#[derive(Clone, Copy, Serialize, JsonSchema)]
pub struct BetweenJson {
    pub after_id: u32,
    pub up_to_id: u32,
}

impl BetweenJson {
    /// The ids of the objects allocated between the two snapshots.
    pub fn ids(&self) -> std::ops::RangeInclusive<u32> {
        self.after_id.saturating_add(1)..=self.up_to_id
    }

    /// The objects allocated between snapshots FIRST and SECOND (named for the warning), from
    /// their largest JS object ids. V8's ids only grow over a process's life, so given newest
    /// first the two are taken in time order, with a warning saying so (rather than an empty
    /// Summary).
    pub fn of(first: (&str, u32), second: (&str, u32)) -> (BetweenJson, Option<JsonWarning>) {
        if first.1 <= second.1 {
            return (
                BetweenJson {
                    after_id: first.1,
                    up_to_id: second.1,
                },
                None,
            );
        }
        let warning = JsonWarning {
            at: String::new(),
            message: format!(
                "{} was taken after {} (its object ids are newer): showing the objects allocated \
                 between {} and {}",
                first.0, second.0, second.0, first.0
            ),
        };
        (
            BetweenJson {
                after_id: second.1,
                up_to_id: first.1,
            },
            Some(warning),
        )
    }
}

/// The Summary sorted by `sort`, at most `limit` classes (0 = all).
pub fn summary_report(s: &HeapSnapshot, a: &Analysis, sort: SortBy, limit: usize) -> SummaryReport {
    overview_summary_report(&Overview::of(s, a), sort, limit)
}

/// [`summary_report`] from a snapshot's [`Overview`] (as the heap index keeps it).
pub fn overview_summary_report(o: &Overview, sort: SortBy, limit: usize) -> SummaryReport {
    SummaryReport {
        kind: o.kind,
        warnings: warnings_of(&o.warnings),
        node_count: o.node_count,
        total_size: o.total_size,
        statistics: statistics_json(&o.statistics),
        between: None,
        context: None,
        classes: classes_json(o.classes_by(sort), limit),
    }
}

/// The Summary of the objects allocated between two snapshots (`between`), as
/// [`summary_report`].
pub fn summary_report_between(
    s: &HeapSnapshot,
    a: &Analysis,
    sort: SortBy,
    limit: usize,
    between: BetweenJson,
) -> SummaryReport {
    let rows = jsprof_heap::summary_between(s, a, sort, between.ids());
    SummaryReport {
        kind: s.kind(),
        warnings: warnings(s),
        node_count: s.node_count(),
        total_size: a.total_size,
        statistics: statistics_json(&a.statistics),
        between: Some(between),
        context: None,
        classes: classes_json(rows, limit),
    }
}

/// The first `limit` rows (0 = all) as JSON.
pub(crate) fn classes_json(mut rows: Vec<ClassRow>, limit: usize) -> Vec<ClassJson> {
    if limit > 0 {
        rows.truncate(limit);
    }
    rows.into_iter()
        .map(|r| ClassJson {
            key: r.key,
            name: r.name,
            count: r.count,
            self_size: r.self_size,
            retained_size: r.retained_size,
            distance: r.distance,
            original: InSource::default(),
        })
        .collect()
}

#[derive(Serialize, JsonSchema)]
#[schemars(rename = "HeapNodeJson")]
pub struct NodeJson {
    pub id: u32,
    pub name: String,
    #[serde(rename = "type")]
    pub node_type: String,
    pub self_size: u64,
    pub retained_size: u64,
    /// Steps from the window; `null` when only the GC roots or nothing reach it (DevTools' `−`).
    #[serde(serialize_with = "distance_json")]
    #[schemars(with = "DistanceSchema")]
    pub distance: i32,
    pub dominator_id: u32,
    pub edge_count: u64,
    pub retainer_count: u64,
    /// As an object in a list: where its function is, and its original (docs/heap.md, "Source
    /// maps").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(flatten)]
    pub original: InSource,
    #[serde(skip)]
    #[schemars(skip)]
    pub at: Option<(u32, u32, u32)>,
}

/// `heap node`: single objects by id.
#[derive(Serialize, JsonSchema)]
pub struct NodesReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub nodes: Vec<NodeJson>,
}

/// The objects with these ids, in order; every missing id is named in one `NotFound`.
pub fn nodes_report(
    name: &str,
    s: &HeapSnapshot,
    a: &Analysis,
    ids: &[u32],
) -> Result<NodesReport> {
    // One pass over the ids column for all requested ids (the first node with an id wins).
    let mut wanted: Vec<(u32, Option<NodeOrdinal>)> = ids.iter().map(|&id| (id, None)).collect();
    let mut slots: HashMap<u32, Vec<usize>> = HashMap::new();
    for (slot, (id, _)) in wanted.iter().enumerate() {
        slots.entry(*id).or_default().push(slot);
    }
    for (ordinal, id) in s.nodes.ids() {
        if let Some(found) = slots.remove(&id) {
            for slot in found {
                wanted[slot].1 = Some(ordinal);
            }
        }
    }
    let missing: Vec<String> = wanted
        .iter()
        .filter(|w| w.1.is_none())
        .map(|w| format!("@{}", w.0))
        .collect();
    if !missing.is_empty() {
        return Err(ReportError::NotFound(format!(
            "{name}: no node with id {}",
            missing.join(", ")
        )));
    }
    Ok(NodesReport {
        kind: s.kind(),
        warnings: warnings(s),
        nodes: wanted
            .iter()
            .filter_map(|w| w.1)
            .map(|ordinal| {
                let n = a.node_info(s, ordinal);
                let (location, at) = location_of(s, a, ordinal);
                NodeJson {
                    id: n.id,
                    name: n.name,
                    node_type: n.node_type,
                    self_size: n.self_size,
                    retained_size: n.retained_size,
                    distance: n.distance,
                    dominator_id: n.dominator_id,
                    edge_count: n.edge_count,
                    retainer_count: n.retainer_count,
                    location,
                    original: InSource::default(),
                    at,
                }
            })
            .collect(),
    })
}

#[derive(Serialize, JsonSchema)]
#[schemars(rename = "HeapStepJson")]
pub struct StepJson {
    pub edge_type: String,
    pub edge_name: String,
    /// The edge as DevTools labels it (`.name`, `[0]`, `->var`, `{internal}`).
    pub edge: String,
    /// The retainer: the object the edge comes from.
    pub retainer: ObjectJson,
}

#[derive(Serialize, JsonSchema)]
pub struct PathJson {
    /// From the object's own retainer outwards; the last retainer is held by the root.
    pub steps: Vec<StepJson>,
}

/// `heap retainers`: why an object is alive.
#[derive(Serialize, JsonSchema)]
pub struct RetainersReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub object: ObjectJson,
    pub paths: Vec<PathJson>,
}

pub use crate::heap_query::RetainersOptions;

/// The shortest retaining paths of the object at ordinal `node`.
pub fn retainers_report(
    s: &HeapSnapshot,
    a: &Analysis,
    node: NodeOrdinal,
    options: RetainersOptions,
) -> RetainersReport {
    retainers_report_with(s, a, &RetainerIndex::new(s), node, options)
}

/// [`retainers_report`] with a retainer index built once for many questions (the service).
pub fn retainers_report_with(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    node: NodeOrdinal,
    options: RetainersOptions,
) -> RetainersReport {
    let path_options = PathOptions {
        max_paths: options.paths,
        max_depth: options.max_depth,
        ..PathOptions::default()
    };
    let paths = paths_json(s, a, index, node, path_options);
    RetainersReport {
        kind: s.kind(),
        warnings: warnings(s),
        object: object_json(s, a, node),
        paths,
    }
}

#[derive(Serialize, JsonSchema)]
pub struct ClassDiffJson {
    pub key: String,
    pub name: String,
    pub new_count: u64,
    pub deleted_count: u64,
    pub count_delta: i64,
    pub alloc_size: u64,
    pub freed_size: u64,
    pub size_delta: i64,
    pub retained_delta: i64,
}

/// `heap diff`: DevTools' Comparison plus the retained-size change.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "HeapDiffReport")]
pub struct DiffReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub classes: Vec<ClassDiffJson>,
}

/// A snapshot named for messages.
pub struct Named<'a, S, A> {
    pub name: &'a str,
    pub snapshot: S,
    pub analysis: A,
}

/// Compares `target` against `base` (which the comparison re-classifies, hence `&mut`). Returns
/// the report and, when the snapshots share no object ids, the warning that says so (also in
/// the report's warnings).
pub fn diff_report(
    base: Named<&mut HeapSnapshot, &mut Analysis>,
    target: Named<&HeapSnapshot, &Analysis>,
    limit: usize,
) -> (DiffReport, Option<String>) {
    let target_side = DiffSide::target(target.name, target.snapshot, target.analysis);
    let base_side = DiffSide::base(
        base.name,
        base.snapshot,
        base.analysis,
        &target.analysis.interfaces,
    );
    diff_report_of(base_side, &target_side, limit)
}

/// One snapshot of `heap diff` without its graph: what the comparison and the report need of it.
/// The CLI makes the target's, drops that graph, then reads the base: one graph at a time.
pub struct DiffSide<'a> {
    pub name: &'a str,
    pub kind: &'static str,
    /// Its warnings, named.
    pub warnings: Vec<JsonWarning>,
    pub side: CompareSide,
}

impl<'a> DiffSide<'a> {
    /// The later snapshot.
    pub fn target(name: &'a str, s: &HeapSnapshot, a: &Analysis) -> DiffSide<'a> {
        DiffSide {
            name,
            kind: s.kind(),
            warnings: warnings_named(name, s),
            side: CompareSide::target(s, a),
        }
    }

    /// The earlier snapshot, re-classified with the target's interface definitions.
    pub fn base(
        name: &'a str,
        s: &mut HeapSnapshot,
        a: &mut Analysis,
        target_interfaces: &[InterfaceDefinition],
    ) -> DiffSide<'a> {
        DiffSide {
            name,
            kind: s.kind(),
            warnings: warnings_named(name, s),
            side: CompareSide::base(s, a, target_interfaces),
        }
    }
}

/// [`diff_report`] of two snapshots known by their [`DiffSide`]s.
pub fn diff_report_of(
    base: DiffSide<'_>,
    target: &DiffSide<'_>,
    limit: usize,
) -> (DiffReport, Option<String>) {
    let DiffSide {
        name: base_name,
        warnings: mut base_warnings,
        side: base_side,
        ..
    } = base;
    let comparison = jsprof_heap::compare_sides(base_side, &target.side);
    let mut warnings = std::mem::take(&mut base_warnings);
    warnings.extend(target.warnings.iter().cloned());
    let unrelated = (!comparison.ids_match()).then(|| {
        format!(
            "{} and {} share no object ids ({} ids in common, {} of them naming the same object): \
             they are not snapshots of one process, so the counts below compare unrelated objects",
            base_name, target.name, comparison.shared_ids, comparison.same_object_ids
        )
    });
    if let Some(message) = &unrelated {
        warnings.push(JsonWarning {
            at: String::new(),
            message: message.clone(),
        });
    }
    let mut classes = comparison.classes;
    if limit > 0 {
        classes.truncate(limit);
    }
    let report = DiffReport {
        kind: target.kind,
        warnings,
        classes: classes
            .into_iter()
            .map(|c| ClassDiffJson {
                key: c.key,
                name: c.name,
                new_count: c.new_count,
                deleted_count: c.deleted_count,
                count_delta: c.count_delta,
                alloc_size: c.alloc_size,
                freed_size: c.freed_size,
                size_delta: c.size_delta,
                retained_delta: c.retained_delta,
            })
            .collect(),
    };
    (report, unrelated)
}

/// The shortest retaining paths of `node` as `heap retainers` and the UI's Retainers show them:
/// the one place paths become JSON.
pub fn paths_json(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    node: NodeOrdinal,
    options: PathOptions,
) -> Vec<PathJson> {
    retaining_paths(s, a, index, node, options)
        .into_iter()
        .map(|p| PathJson {
            steps: p
                .edges
                .iter()
                .map(|&e| StepJson {
                    edge_type: edge_type_name(s, e).to_owned(),
                    edge_name: edge_name(s, e),
                    edge: edge_label(s, e),
                    retainer: object_json(s, a, index.source(s, e)),
                })
                .collect(),
        })
        .collect()
}

/// One group of leaked objects: the objects of FINAL created between BASE and TARGET (and not part
/// of another leaked object), grouped by class and retaining-path shape.
#[derive(Serialize, JsonSchema)]
pub struct LeakGroupJson {
    /// The Summary's class; a closure's is its function's name (`(anonymous)` when it has none)
    /// and where it was defined, `name file.js:LINE:COL`.
    pub class: String,
    pub count: u64,
    /// The sum of the objects' retained sizes in FINAL.
    pub retained_size: u64,
    /// From the root side to the leaked object: each node's class and the edge to the next, in
    /// DevTools' notation with indexes folded (`[]` an element, `{}` a hidden or numbered internal
    /// slot, such as a `Map`'s or `Set`'s hash-table entry). The sample's path; every object of
    /// the group has a path of this shape.
    pub path: Vec<LeakStepJson>,
    /// The group's largest object (its id in FINAL, for its Retainers).
    pub sample_id: u32,
    /// Where a source map places the class (its constructor) or the closure's function: its
    /// original name and `url:line:column` (docs/heap.md, "Source maps").
    #[serde(flatten)]
    pub original: InSource,
    /// The sample's place, for the maps.
    #[serde(skip)]
    #[schemars(skip)]
    pub place: Option<jsprof_heap::Place>,
}

#[derive(Serialize, JsonSchema)]
pub struct LeakStepJson {
    pub edge: String,
    pub class: String,
    /// Where a source map places the step's class or closure, as a group's.
    #[serde(flatten)]
    pub original: InSource,
    #[serde(skip)]
    #[schemars(skip)]
    pub place: Option<jsprof_heap::Place>,
}

impl LeakStepJson {
    pub fn of(step: jsprof_heap::LeakStep) -> LeakStepJson {
        LeakStepJson {
            edge: step.edge,
            class: step.class,
            original: InSource::default(),
            place: step.place,
        }
    }
}

/// One of the three snapshots, as the leak search used it.
#[derive(Serialize, JsonSchema)]
pub struct LeakSnapshotJson {
    /// `base`, `target` or `final`: its place in the process's order.
    pub role: &'static str,
    /// The place it was given in (`base`, `target` or `final`); differs from `role` when the
    /// snapshots were given out of order and were reordered.
    pub given: &'static str,
    pub name: String,
    /// Its largest heap-object id (V8's are odd; even ids are synthetic or native nodes): V8's
    /// ids only grow over a process's life, so this orders the snapshots.
    pub max_node_id: u32,
}

/// `jsprof heap leaks BASE TARGET FINAL --json` and the UI's Leaks tab.
#[derive(Serialize, JsonSchema)]
pub struct LeaksReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// The snapshots in the order used: base, target, final.
    pub snapshots: Vec<LeakSnapshotJson>,
    /// Groups found (above `min_retained`), before `limit`.
    pub total: usize,
    /// Largest retained first.
    pub groups: Vec<LeakGroupJson>,
}

/// What to list of the leak groups.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeaksOptions {
    /// Hide groups retaining less than this many bytes in FINAL.
    pub min_retained: u64,
    /// At most this many groups; 0 lists all.
    pub limit: usize,
}

const ROLES: [&str; 3] = ["base", "target", "final"];

/// The order in which the process took the snapshots given as (base, target, final): indexes into
/// the given three, first taken first. Callers analyse `order[2]`, the final one, and pass the
/// three to [`leaks_report`] in this order with `order` itself.
pub fn leaks_order(given: [&HeapSnapshot; 3]) -> [usize; 3] {
    let order = jsprof_heap::process_order(&given);
    [order[0], order[1], order[2]]
}

/// [`leaks_order`] of snapshots known by their ids.
pub fn leaks_order_of(given: [&Identities; 3]) -> [usize; 3] {
    let order = jsprof_heap::process_order_of(&given);
    [order[0], order[1], order[2]]
}

/// Warnings about the order and the origin of snapshots given as `names`/`snapshots` and used in
/// `order` (see [`leaks_order`]): a reordering, and pairs not of one process.
pub fn order_warnings(
    names: &[&str],
    snapshots: &[&HeapSnapshot],
    order: &[usize],
) -> Vec<JsonWarning> {
    let identities: Vec<Identities> = snapshots.iter().map(|s| Identities::of(s)).collect();
    let identities: Vec<&Identities> = identities.iter().collect();
    order_warnings_of(names, &identities, order)
}

/// [`order_warnings`] of snapshots known by their ids.
pub fn order_warnings_of(
    names: &[&str],
    snapshots: &[&Identities],
    order: &[usize],
) -> Vec<JsonWarning> {
    let mut warnings = Vec::new();
    if order.iter().enumerate().any(|(i, &o)| i != o) {
        let list = |ix: &mut dyn Iterator<Item = usize>| {
            ix.map(|i| names[i]).collect::<Vec<_>>().join(", ")
        };
        warnings.push(JsonWarning {
            at: String::new(),
            message: format!(
                "the snapshots were given as {} but their object ids say the process took them as {} \
                 (V8's ids only grow): using that order",
                list(&mut (0..names.len())),
                list(&mut order.iter().copied()),
            ),
        });
    }
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if !snapshots[a].same_process(snapshots[b]) {
            warnings.push(JsonWarning {
                at: String::new(),
                message: format!(
                    "{} and {} are not snapshots of one process (their object ids name different \
                     objects): objects cannot be followed from one to the other",
                    names[a], names[b]
                ),
            });
        }
    }
    warnings
}

/// One of the earlier snapshots of `heap leaks` without its graph: its ids, all the leak search
/// needs of it, and its warnings. The CLI keeps BASE and TARGET as these, so it holds one full
/// graph (FINAL's) and not three.
pub struct LeakSide<'a> {
    pub name: &'a str,
    /// Its warnings, named.
    pub warnings: Vec<JsonWarning>,
    pub identities: Identities,
}

impl<'a> LeakSide<'a> {
    pub fn of(name: &'a str, s: &HeapSnapshot) -> LeakSide<'a> {
        LeakSide {
            name,
            warnings: warnings_named(name, s),
            identities: Identities::of(s),
        }
    }
}

/// jsprof_heap's leak detection over three snapshots, as one document. The snapshots come in the
/// process's order (`order` from [`leaks_order`] says where each was given, for the warnings).
pub fn leaks_report(
    base: Named<&HeapSnapshot, ()>,
    target: Named<&HeapSnapshot, ()>,
    last: Named<&HeapSnapshot, &Analysis>,
    order: [usize; 3],
    options: LeaksOptions,
) -> LeaksReport {
    leaks_report_of(
        &LeakSide::of(base.name, base.snapshot),
        &LeakSide::of(target.name, target.snapshot),
        last,
        order,
        options,
    )
}

/// [`leaks_report`] with BASE and TARGET known by their [`LeakSide`]s.
pub fn leaks_report_of(
    base: &LeakSide<'_>,
    target: &LeakSide<'_>,
    last: Named<&HeapSnapshot, &Analysis>,
    order: [usize; 3],
    options: LeaksOptions,
) -> LeaksReport {
    let mut groups = jsprof_heap::leaks_since(
        &base.identities,
        &target.identities,
        last.snapshot,
        last.analysis,
    );
    groups.retain(|g| g.retained_size >= options.min_retained);
    let total = groups.len();
    if options.limit > 0 {
        groups.truncate(options.limit);
    }
    let last_identities = Identities::of(last.snapshot);
    let used = [&base.identities, &target.identities, &last_identities];
    let used_names = [base.name, target.name, last.name];
    // Back into the given order, to say what was reordered.
    let mut given_names = [""; 3];
    let mut given_ids = used;
    for (place, &g) in order.iter().enumerate() {
        given_names[g] = used_names[place];
        given_ids[g] = used[place];
    }
    let mut warnings = order_warnings_of(&given_names, &given_ids, &order);
    warnings.extend(base.warnings.iter().cloned());
    warnings.extend(target.warnings.iter().cloned());
    warnings.extend(warnings_named(last.name, last.snapshot));
    let s = last.snapshot;
    LeaksReport {
        kind: s.kind(),
        warnings,
        snapshots: (0..3)
            .map(|place| LeakSnapshotJson {
                role: ROLES[place],
                given: ROLES[order[place]],
                name: used_names[place].to_string(),
                max_node_id: used[place].max_node_id(),
            })
            .collect(),
        total,
        groups: groups
            .into_iter()
            .map(|g| LeakGroupJson {
                class: g.class,
                count: g.count,
                retained_size: g.retained_size,
                path: g.path.into_iter().map(LeakStepJson::of).collect(),
                sample_id: s.nodes.id(g.sample),
                original: InSource::default(),
                place: g.place,
            })
            .collect(),
    }
}
