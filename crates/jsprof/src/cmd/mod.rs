//! One module per subcommand.

pub mod events;
pub mod flamechart;
pub mod heap;
pub mod summary;
pub mod threads;
pub mod top;
