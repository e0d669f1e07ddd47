//! One module per subcommand.

pub mod heap;
pub mod summary;
pub mod top;
