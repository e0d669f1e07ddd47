//! CPU profile commands.
