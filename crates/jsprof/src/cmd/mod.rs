//! One module per subcommand.

pub mod check;
pub mod diff;
pub mod events;
pub mod export;
pub mod filmstrip;
pub mod flamechart;
pub mod flamegraph;
pub mod heap;
pub mod insights;
#[cfg(feature = "lake")]
pub mod lake;
#[cfg(not(feature = "lake"))]
#[path = "lake_absent.rs"]
pub mod lake;
pub mod lines;
pub mod mcp;
pub mod network;
pub mod record;
pub mod report;
pub mod serve;
pub mod summary;
pub mod threads;
pub mod timings;
pub mod top;
pub mod tree;
pub mod view;
