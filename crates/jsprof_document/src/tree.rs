//! `jsprof tree --json` and the service's `…/tree`: DevTools' Call tree (top-down) or Bottom-up.

use jsprof_analysis::{
    bottom_up_depth_limit, bottom_up_within, callees, function_table, top_down, CallTree,
    CallTreeKind, FunctionRow, BOTTOM_UP_BUDGET,
};
use jsprof_profile::{Profile, WeightUnit};
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::{CpuInput, WeightSource, Weighted};
pub use crate::query::TreeQuery;
use crate::top::{is_samples, weighted_function, FunctionJson};
use crate::{warnings_json, JsonWarning, NS_PER_MS};

/// One node, in depth-first pre-order (`parent` names an earlier `id`).
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "TreeNodeJson")]
pub struct NodeJson {
    pub id: u32,
    pub parent: Option<u32>,
    pub depth: u32,
    /// Its function, with the node's weights.
    #[serde(flatten)]
    pub function: FunctionJson,
}

/// What every tree document starts with: the input, the view, the whole's weight, warnings.
#[derive(Serialize, JsonSchema)]
pub struct TreeHeader {
    pub kind: &'static str,
    /// As in `top`: `"trace-entries"` for a trace thread's entries, absent for samples.
    #[serde(skip_serializing_if = "is_samples")]
    pub source: WeightSource,
    pub view: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    pub warnings: Vec<JsonWarning>,
    /// A bottom-up tree (or a sandwich's callers) whose stacks are so deep that the callers
    /// were cut at this many levels (the roots and the levels shown are exact); pass a smaller
    /// `max_depth` to choose the cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers_cut_at_depth: Option<u32>,
}

impl TreeHeader {
    fn new(
        weighted: &Weighted,
        view: &'static str,
        unit: WeightUnit,
        total: i64,
        cut: Option<u32>,
    ) -> TreeHeader {
        let profile = &*weighted.profile;
        TreeHeader {
            kind: profile.kind.as_str(),
            source: weighted.source,
            view,
            duration_ms: (unit != WeightUnit::Bytes).then(|| total as f64 / NS_PER_MS),
            total_bytes: (unit == WeightUnit::Bytes).then_some(total),
            warnings: warnings_json(&profile.warnings),
            callers_cut_at_depth: cut,
        }
    }
}

/// The whole `tree` document.
#[derive(Serialize, JsonSchema)]
pub struct TreeReport {
    #[serde(flatten)]
    pub header: TreeHeader,
    pub nodes: Vec<NodeJson>,
}

/// What to show of the tree.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeOptions {
    pub bottom_up: bool,
    /// Levels to show (1 = the roots only); 0 shows all.
    pub max_depth: u32,
    /// Hide nodes under this percentage of the total (and what is beneath them).
    pub min_percent: f64,
}

/// A node picked for output: tree node, its output id and its parent's.
pub struct Shown {
    pub node: u32,
    pub id: u32,
    pub parent: Option<u32>,
    pub depth: u32,
}

/// The tree of `profile.threads[thread]` and the nodes shown of it.
pub struct TreeView {
    pub tree: CallTree,
    pub unit: WeightUnit,
    pub total: i64,
    pub shown: Vec<Shown>,
    /// A bottom-up tree's callers were cut at this many levels to bound the work.
    pub callers_cut_at: Option<u32>,
}

fn pick(tree: &CallTree, total: i64, max_depth: u32, min_percent: f64) -> Vec<Shown> {
    pick_from(tree, &tree.roots, total, max_depth, min_percent)
}

/// The nodes under `starts` (depth-first pre-order) that `max_depth` and `min_percent` keep.
fn pick_from(
    tree: &CallTree,
    starts: &[u32],
    total: i64,
    max_depth: u32,
    min_percent: f64,
) -> Vec<Shown> {
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let mut shown = Vec::new();
    let mut todo: Vec<(u32, Option<u32>)> = starts.iter().rev().map(|&r| (r, None)).collect();
    while let Some((n, parent)) = todo.pop() {
        let node = &tree.nodes[n as usize];
        if (max_depth > 0 && node.depth >= max_depth) || pct(node.total_weight) < min_percent {
            continue;
        }
        let id = shown.len() as u32;
        shown.push(Shown {
            node: n,
            id,
            parent,
            depth: node.depth,
        });
        todo.extend(node.children.iter().rev().map(|&c| (c, Some(id))));
    }
    shown
}

/// Builds the tree and picks the nodes to show.
pub fn view(weighted: &Weighted, options: TreeOptions) -> TreeView {
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    // A bottom-up tree is built only as deep as it is shown, and never past what
    // BOTTOM_UP_BUDGET node visits allow (deep stacks make it grow with the square of the depth).
    let mut callers_cut_at = None;
    let tree = if options.bottom_up {
        let wanted = (options.max_depth > 0).then_some(options.max_depth);
        let affordable = bottom_up_depth_limit(profile, thread, BOTTOM_UP_BUDGET);
        let levels = match (wanted, affordable) {
            (Some(w), Some(a)) if a < w => {
                callers_cut_at = Some(a);
                Some(a)
            }
            (None, Some(a)) => {
                callers_cut_at = Some(a);
                Some(a)
            }
            (w, _) => w,
        };
        bottom_up_within(profile, thread, levels)
    } else {
        top_down(profile, thread)
    };
    let unit = thread.weight_unit();
    let total = thread.percent_base();
    let shown = pick(&tree, total, options.max_depth, options.min_percent);
    TreeView {
        tree,
        unit,
        total,
        shown,
        callers_cut_at,
    }
}

fn node_json(profile: &Profile, view: &TreeView, s: &Shown) -> NodeJson {
    let node = &view.tree.nodes[s.node as usize];
    NodeJson {
        id: s.id,
        parent: s.parent,
        depth: s.depth,
        function: weighted_function(
            profile,
            view.unit,
            &node.function,
            [node.self_weight, node.total_weight],
            view.total,
        ),
    }
}

/// The JSON document of a view.
pub fn report(weighted: &Weighted, view: &TreeView) -> TreeReport {
    let profile = &*weighted.profile;
    let name = match view.tree.kind {
        CallTreeKind::TopDown => "top-down",
        CallTreeKind::BottomUp => "bottom-up",
    };
    TreeReport {
        header: TreeHeader::new(weighted, name, view.unit, view.total, view.callers_cut_at),
        nodes: view
            .shown
            .iter()
            .map(|s| node_json(profile, view, s))
            .collect(),
    }
}

/// The functions of the weighted thread whose name or URL matches `pattern`, heaviest total
/// first (ties by name and position): what `--sandwich RE` chooses from.
pub fn matching_functions(weighted: &Weighted, pattern: &regex::Regex) -> Vec<FunctionRow> {
    let profile = &*weighted.profile;
    let table = function_table(profile, weighted.thread());
    let mut rows: Vec<FunctionRow> = table
        .rows
        .into_iter()
        .filter(|r| {
            pattern.is_match(profile.strings.get(r.key.name))
                || pattern.is_match(profile.strings.get(r.key.url))
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.total_weight, b.self_weight)
            .cmp(&(a.total_weight, a.self_weight))
            .then_with(|| a.key.cmp_in(&b.key, profile))
    });
    rows
}

/// The sandwich `--sandwich RE` (the service's `sandwich=RE`, MCP's `sandwich`) asks for: of the
/// heaviest function whose name or URL matches, with the other matches heaviest first.
/// `NotFound` when no sampled function matches.
pub fn sandwich_matching(
    weighted: &Weighted,
    pattern: &regex::Regex,
    options: TreeOptions,
) -> crate::Result<(SandwichView, Vec<FunctionRow>)> {
    let mut rows = matching_functions(weighted, pattern);
    if rows.is_empty() {
        return Err(crate::ReportError::NotFound(format!(
            "no sampled function's name or URL matches `{}` (`jsprof top` lists them)",
            pattern.as_str().escape_debug()
        )));
    }
    let function = rows.remove(0);
    Ok((sandwich(weighted, function, options), rows))
}

/// Speedscope's sandwich of one function: its callers (the Bottom-up tree from the function, as
/// `tree --bottom-up` shows it under that root) and its callees (every call of it merged, from
/// its outermost frame down).
pub struct SandwichView {
    pub function: FunctionRow,
    pub callers: TreeView,
    pub callees: TreeView,
}

/// The sandwich of `function` (a row of the weighted thread's function table), each half cut at
/// `options.max_depth` levels and `options.min_percent` as `tree` cuts.
pub fn sandwich(weighted: &Weighted, function: FunctionRow, options: TreeOptions) -> SandwichView {
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    let unit = thread.weight_unit();
    let total = thread.percent_base();
    let mut callers = view(
        weighted,
        TreeOptions {
            bottom_up: true,
            ..options
        },
    );
    // Only the function's own root of the Bottom-up tree.
    let root = callers
        .tree
        .roots
        .iter()
        .copied()
        .find(|&r| callers.tree.nodes[r as usize].function == function.key);
    callers.shown = match root {
        Some(r) => pick_from(
            &callers.tree,
            &[r],
            total,
            options.max_depth,
            options.min_percent,
        ),
        None => Vec::new(),
    };
    let tree = callees(profile, thread, &function.key);
    let shown = pick(&tree, total, options.max_depth, options.min_percent);
    SandwichView {
        function,
        callers,
        callees: TreeView {
            tree,
            unit,
            total,
            shown,
            callers_cut_at: None,
        },
    }
}

/// The function a sandwich is of.
#[derive(Serialize, JsonSchema)]
pub struct SandwichFunction {
    /// Its `top` row.
    #[serde(flatten)]
    pub row: FunctionJson,
}

/// `jsprof tree --sandwich RE --json`.
#[derive(Serialize, JsonSchema)]
pub struct SandwichReport {
    #[serde(flatten)]
    pub header: TreeHeader,
    /// The function (the heaviest of those the pattern matches), with its `top` row's weights.
    pub function: SandwichFunction,
    /// Other functions the pattern matched, heaviest first (at most 20): narrow the pattern to
    /// pick one of them.
    pub other_matches: Vec<SandwichFunction>,
    /// The function as the root, the functions that called it beneath (Bottom-up's rows).
    pub callers: Vec<NodeJson>,
    /// The function as the root, what it called beneath (its calls merged).
    pub callees: Vec<NodeJson>,
}

fn function_json(
    profile: &Profile,
    unit: WeightUnit,
    total: i64,
    row: &FunctionRow,
) -> SandwichFunction {
    SandwichFunction {
        row: crate::top::function_json(profile, unit, row, total),
    }
}

/// The JSON document of a sandwich; `others`: the other matches.
pub fn sandwich_report(
    weighted: &Weighted,
    view: &SandwichView,
    others: &[FunctionRow],
) -> SandwichReport {
    let profile = &*weighted.profile;
    let (unit, total) = (view.callees.unit, view.callees.total);
    SandwichReport {
        header: TreeHeader::new(
            weighted,
            "sandwich",
            unit,
            total,
            view.callers.callers_cut_at,
        ),
        function: function_json(profile, unit, total, &view.function),
        other_matches: others
            .iter()
            .take(20)
            .map(|r| function_json(profile, unit, total, r))
            .collect(),
        callers: view
            .callers
            .shown
            .iter()
            .map(|s| node_json(profile, &view.callers, s))
            .collect(),
        callees: view
            .callees
            .shown
            .iter()
            .map(|s| node_json(profile, &view.callees, s))
            .collect(),
    }
}

/// A sandwich's pattern (`--sandwich RE`, `sandwich=RE`, MCP's `function`) as every door reads
/// it.
pub fn sandwich_pattern(pattern: &str) -> crate::Result<regex::Regex> {
    regex::Regex::new(pattern)
        .map_err(|e| crate::ReportError::Usage(format!("bad `sandwich`: {e}")))
}

/// `jsprof tree --json`'s answer: the tree, or with `sandwich` the sandwich.
#[derive(Serialize)]
#[serde(untagged)]
pub enum TreeAnswer {
    Tree(TreeReport),
    Sandwich(SandwichReport),
}

/// The document for `query`: the one answer every front door gives.
pub fn answer(input: &CpuInput, query: &TreeQuery) -> crate::Result<TreeAnswer> {
    if query.sandwich.is_some() && query.bottom_up {
        return Err(crate::ReportError::Usage(
            "`sandwich` shows both directions: leave out `bottom_up`".to_string(),
        ));
    }
    let weighted = input.weighted(&query.view)?;
    let options = query.options();
    Ok(match &query.sandwich {
        Some(pattern) => {
            let re = sandwich_pattern(pattern)?;
            let (view, others) = sandwich_matching(&weighted, &re, options)?;
            TreeAnswer::Sandwich(sandwich_report(&weighted, &view, &others))
        }
        None => TreeAnswer::Tree(report(&weighted, &view(&weighted, options))),
    })
}
