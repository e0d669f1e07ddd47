//! One module per subcommand.

pub mod check;
pub mod diff;
pub mod events;
pub mod export;
pub mod flamechart;
pub mod flamegraph;
pub mod heap;
pub mod mcp;
pub mod record;
pub mod report;
pub mod serve;
pub mod summary;
pub mod threads;
pub mod top;
pub mod tree;
pub mod view;
