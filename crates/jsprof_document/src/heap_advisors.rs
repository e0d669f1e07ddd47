//! `jsprof heap advisors FILE --json`: memory the program could give back — duplicated objects,
//! empty collections and duplicated strings — each finding with the bytes it would save and the
//! path that holds it (the advisors are in `jsprof_heap::advise`; the strings' in
//! `jsprof_heap::duplicate_strings`, also `heap strings`' document).

use jsprof_heap::{
    advise, duplicate_strings, AdviseOptions, Analysis, HeapSnapshot, NodeOrdinal, PathOptions,
    RetainerIndex, ScriptSources,
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{paths_json, warnings, PathJson};
use crate::lines::SourceReader;
use crate::JsonWarning;

/// One finding.
#[derive(Serialize, JsonSchema)]
pub struct AdviceJson {
    /// `duplicate_objects` (objects of one class, size and content: keep one),
    /// `empty_collections` (`Map`s, `Set`s and `Array`s with no entry but a store that takes
    /// room: create them on first use), `low_cardinality_maps` (`Map`s of 1,000 entries or more
    /// whose values take at most 16 distinct values: one `Set` of keys per value drops a value
    /// slot per entry), `sparse_arrays` (`Array`s using at most a quarter of their elements
    /// store: a store of just the elements saves the rest), `unread_context_variables` (an object only a closure's shared context
    /// keeps, through a variable no live closure of that scope names: `held_by` is
    /// `function()->variable`), `detached_by_listeners` (detached DOM trees an event listener's
    /// handler keeps: `held_by` is `Target listener handler()`; remove the listener with the
    /// element) or `duplicate_strings` (one text held more than once).
    pub advisor: &'static str,
    /// The objects' class as the Summary names it (`(string)` for strings).
    pub class: String,
    /// How the sample is held: its closest retainer's class and edge (`Session.listeners`).
    pub held_by: String,
    pub count: u64,
    /// Bytes the change would save: every duplicate's retained size but the smallest copy's;
    /// the empty collections' retained sizes (their tables and stores are in them).
    pub saving: u64,
    /// The objects' retained sizes together.
    pub retained_size: u64,
    /// One of the objects (the largest), by id.
    pub sample_id: u32,
    /// The finding may include objects that differ, or hold entries, only in small integers:
    /// V8 writes no node for those (in objects it does when the snapshot exposes numeric values).
    pub smi_blind: bool,
    /// The sample's shortest retaining path, from the object outwards.
    pub path: Option<PathJson>,
    /// For duplicated strings: the text (cut at 200 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// For low-cardinality maps: their entries together (the saving is 8 bytes each, V8's
    /// pointer size in Node; Chrome's compressed pointers take 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// For low-cardinality maps: the most distinct values one of them holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_values: Option<u64>,
    /// For unread context variables and listeners: where the function that keeps the objects
    /// is defined, `url:line:column` (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// For unread context variables: the variable's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
}

/// `heap advisors`.
#[derive(Serialize, JsonSchema)]
pub struct AdvisorsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// Findings before `limit`.
    pub total: usize,
    /// Their savings together (before `limit`).
    pub total_saving: u64,
    /// Largest saving first.
    pub advice: Vec<AdviceJson>,
}

/// Longest duplicated-string text shown.
const SHOWN_CHARS: usize = 200;

/// Every advisor's findings saving at least `min_saving` bytes, at most `limit` (0 = all).
/// `index`: the snapshot's retainer index, which the advisors and the findings' retaining paths
/// share (the service and MCP keep one per snapshot).
pub fn advisors_report(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    min_saving: u64,
    limit: usize,
    sources: &mut dyn ScriptSources,
) -> AdvisorsReport {
    let found = findings(s, a, index, min_saving, sources);
    let shown = if limit > 0 {
        limit.min(found.found.len())
    } else {
        found.found.len()
    };
    advisors_window(s, a, index, &found, 0..shown)
}

/// One finding before its retaining path is looked up.
struct Found {
    advisor: &'static str,
    class: String,
    held_by: Option<String>,
    count: u64,
    saving: u64,
    retained_size: u64,
    sample: NodeOrdinal,
    smi_blind: bool,
    value: Option<String>,
    entries: Option<(u64, u64)>,
    location: Option<String>,
    variable: Option<String>,
}

/// Every finding, largest saving first, without their retaining paths: what
/// [`advisors_window`] pages. The paths are most of the work (one search each), so a door that
/// pages the findings (MCP) keeps these and looks up only a page's paths.
pub struct Findings {
    found: Vec<Found>,
    total_saving: u64,
}

impl Findings {
    /// How many findings there are.
    pub fn len(&self) -> usize {
        self.found.len()
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }
}

/// Every advisor's findings saving at least `min_saving` bytes, largest saving first.
/// `sources`: where whole scripts are read when the snapshot holds only their start
/// ([`script_sources`]).
pub fn findings(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    min_saving: u64,
    sources: &mut dyn ScriptSources,
) -> Findings {
    let mut found: Vec<Found> = advise(s, a, index, AdviseOptions { min_saving }, sources)
        .into_iter()
        .map(|f| Found {
            advisor: f.kind.as_str(),
            class: f.class,
            held_by: Some(f.held_by),
            count: f.count,
            saving: f.saving,
            retained_size: f.retained_size,
            sample: f.sample,
            smi_blind: f.smi_blind,
            value: None,
            entries: f.entries,
            location: f.location,
            variable: f.variable,
        })
        .collect();
    found.extend(
        duplicate_strings(s, a)
            .into_iter()
            .filter(|g| g.wasted_size >= min_saving.max(1))
            .map(|g| Found {
                advisor: "duplicate_strings",
                class: a.class_name(s, g.sample),
                held_by: None,
                count: g.count,
                saving: g.wasted_size,
                retained_size: g.retained_size,
                sample: g.sample,
                smi_blind: false,
                value: Some(g.value.chars().take(SHOWN_CHARS).collect()),
                entries: None,
                location: None,
                variable: None,
            }),
    );
    found.sort_by(|x, y| {
        y.saving
            .cmp(&x.saving)
            .then(x.advisor.cmp(y.advisor))
            .then(s.nodes.id(x.sample).cmp(&s.nodes.id(y.sample)))
    });
    let total_saving = found.iter().map(|f| f.saving).sum();
    Findings {
        found,
        total_saving,
    }
}

/// The document of `findings` with only `window` of them as its advice, each with its path;
/// `total` and `total_saving` count them all.
pub fn advisors_window(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    findings: &Findings,
    window: std::ops::Range<usize>,
) -> AdvisorsReport {
    let options = PathOptions {
        max_paths: 1,
        ..PathOptions::default()
    };
    AdvisorsReport {
        kind: s.kind(),
        warnings: warnings(s),
        total: findings.found.len(),
        total_saving: findings.total_saving,
        advice: findings.found[window]
            .iter()
            .map(|f| {
                let path = paths_json(s, a, index, f.sample, options)
                    .into_iter()
                    .next();
                let held_by = f.held_by.clone().unwrap_or_else(|| {
                    path.as_ref()
                        .and_then(|p| p.steps.first())
                        .map(|step| format!("{}{}", step.retainer.class, step.edge))
                        .unwrap_or_default()
                });
                AdviceJson {
                    advisor: f.advisor,
                    class: f.class.clone(),
                    held_by,
                    count: f.count,
                    saving: f.saving,
                    retained_size: f.retained_size,
                    sample_id: s.nodes.id(f.sample),
                    smi_blind: f.smi_blind,
                    path,
                    value: f.value.clone(),
                    entries: f.entries.map(|(n, _)| n),
                    distinct_values: f.entries.map(|(_, d)| d),
                    location: f.location.clone(),
                    variable: f.variable.clone(),
                }
            })
            .collect(),
    }
}

/// The advisors' [`ScriptSources`] over a door's [`SourceReader`]: the local files it may read
/// (`jsprof lines`' rule at the CLI, the service's source roots there). Nothing is read twice.
pub fn script_sources<R: SourceReader>(reader: R) -> impl ScriptSources {
    struct Read<R>(R);
    impl<R: SourceReader> ScriptSources for Read<R> {
        fn read(&mut self, url: &str) -> Option<Vec<u8>> {
            self.0.read(url).ok().map(|(_, bytes)| bytes)
        }
    }
    Read(reader)
}
