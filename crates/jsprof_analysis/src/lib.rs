//! Analyses over jsprof's sampled-profile model, returning numbers (never text or pixels): DevTools'
//! timing rules, the function table and both call trees (the one engine behind every table, tree,
//! flame graph and diff), the model transforms (range clip, filters, source maps), the calls
//! DevTools reconstructs, timelines with GetEvents, and a trace thread's entries as a weighted
//! profile (`entries_profile`, DevTools' Performance-panel Bottom-up). Drawing is
//! `jsprof_render`'s; documents are `jsprof_document`'s.
//!
//! ```no_run
//! let file = std::io::BufReader::new(std::fs::File::open("app.cpuprofile")?);
//! let mut profile = jsprof_profile::read(file)?;
//! jsprof_analysis::apply_devtools_timing(&mut profile);
//! let table = jsprof_analysis::function_table(&profile, &profile.threads[0]);
//! for row in &table.rows {
//!     println!("{} {} ns", profile.strings.get(row.key.name), row.self_weight);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod abtest;
mod call_tree;
mod diff;
mod entries_profile;
pub mod filter;
mod function_table;
mod get_events;
mod line_profile;
mod profile_calls;
pub mod range;
mod source_maps;
mod summary;
pub mod timeline;
mod timing;
pub mod trend;

pub use call_tree::{
    bottom_up, bottom_up_depth_limit, bottom_up_within, callees, top_down, CallTree, CallTreeKind,
    CallTreeNode, BOTTOM_UP_BUDGET,
};
pub use diff::{
    before_totals_on_after_tree, diff_profiles, DiffError, DiffKey, DiffOptions, DiffRow,
    ProfileDiff,
};
pub use entries_profile::entries_profile;
pub use filter::{filter, Filters};
pub use function_table::{function_table, weight_where, FunctionKey, FunctionRow, FunctionTable};
pub use get_events::{get_events, EventQuery, EventRow, EventsAnswer, Mode, QueryError};
pub use line_profile::{
    line_profile, line_profiles, LineProfile, LineSource, LineTicks, ScriptLines,
};
pub use profile_calls::{devtools_order, frame_calls, is_js_invocation, trace_calls, Call};
pub use range::{clip, time_origin, RangeError, TimeRange};
pub use source_maps::{apply_source_maps, ScriptMap, ScriptMapping};
pub use summary::{summarize, MetaShares, ProfileSummary};
pub use timeline::{
    profile_timelines, trace_timelines, trace_timelines_with, EventData, EventType, Timeline,
    TimelineEvent,
};
pub use timing::{apply_devtools_timing, MetaStacks};
