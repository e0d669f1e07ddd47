//! `jsprof heap allocations FILE.heaptimeline --json` and the UI's Allocation stacks panel: the
//! allocation trace tree of a `.heaptimeline` with allocated and still-live objects per stack.

use jsprof_heap::{AllocationProfile, BottomUpNode, HeapSnapshot};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{warnings, InSource};
use crate::JsonWarning;

/// One allocation stack (a function with the stack that led to it).
#[derive(Serialize, JsonSchema)]
pub struct StackJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Objects allocated with this exact stack while tracking was on.
    pub count: u64,
    pub size: u64,
    /// Of those, still in the snapshot.
    pub live_count: u64,
    pub live_size: u64,
    /// The function's name in the original source, when its script has a source map that
    /// names it (docs/heap.md, "Source maps"); `name` stays V8's.
    #[serde(flatten)]
    pub original: InSource,
    /// Top-down: the functions this one called. Bottom-up: its callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<StackJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers: Option<Vec<StackJson>>,
}

/// `heap allocations`.
#[derive(Serialize, JsonSchema)]
pub struct AllocationsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// `top-down` or `bottom-up`.
    pub view: &'static str,
    pub stacks: Vec<StackJson>,
}

/// `(name, url, line, column)` of a trace function; positions are 1-based, 0 means unknown.
fn function(s: &HeapSnapshot, index: u32) -> (String, String, Option<u32>, Option<u32>) {
    match s.trace_function_infos.get(index as usize) {
        Some(f) => (
            s.strings.get(f.name),
            s.strings.get(f.script_name),
            (f.line > 0).then_some(f.line),
            (f.column > 0).then_some(f.column),
        ),
        None => (String::new(), String::new(), None, None),
    }
}

/// A stack of either view: its function, its figures (count, size, live count, live size) and
/// the stacks under it (`children` top-down, `callers` bottom-up).
fn stack_json(
    s: &HeapSnapshot,
    function_index: u32,
    [count, size, live_count, live_size]: [u64; 4],
    children: Option<Vec<StackJson>>,
    callers: Option<Vec<StackJson>>,
) -> StackJson {
    let (name, url, line, column) = function(s, function_index);
    StackJson {
        name,
        url,
        line,
        column,
        count,
        size,
        live_count,
        live_size,
        original: InSource::default(),
        children,
        callers,
    }
}

fn top_down(s: &HeapSnapshot, p: &AllocationProfile, i: usize) -> StackJson {
    let n = &p.nodes[i];
    let children = n.children.iter().map(|&c| top_down(s, p, c)).collect();
    let figures = [n.count, n.size, n.live_count, n.live_size];
    stack_json(s, n.function, figures, Some(children), None)
}

fn bottom_up(s: &HeapSnapshot, n: &BottomUpNode) -> StackJson {
    let callers = n.callers.iter().map(|c| bottom_up(s, c)).collect();
    let figures = [n.count, n.size, n.live_count, n.live_size];
    stack_json(s, n.function, figures, None, Some(callers))
}

/// The allocation stacks, top-down or (DevTools' Allocation view) per allocating function with
/// its callers; `None` when the snapshot has no allocation traces.
pub fn allocations_report(s: &HeapSnapshot, bottom_up_view: bool) -> Option<AllocationsReport> {
    let profile = AllocationProfile::new(s)?;
    let (view, stacks): (&str, Vec<StackJson>) = if bottom_up_view {
        (
            "bottom-up",
            profile
                .bottom_up()
                .iter()
                .map(|n| bottom_up(s, n))
                .collect(),
        )
    } else {
        (
            "top-down",
            profile.roots().map(|r| top_down(s, &profile, r)).collect(),
        )
    };
    Some(AllocationsReport {
        kind: s.kind(),
        warnings: warnings(s),
        view,
        stacks,
    })
}

/// Why a snapshot has no allocation stacks, and how to record one that has.
pub fn no_allocations_message(name: &str) -> String {
    format!(
        "{name}: no allocation traces (trace_tree is empty): record a .heaptimeline with allocation \
         tracking on (HeapProfiler.startTrackingHeapObjects {{trackAllocations: true}})"
    )
}
