//! Heap commands.
