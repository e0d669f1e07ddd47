//! Integration tests of the heap engine: one binary, a module per area.

mod comparison_objects;
mod dominators;
mod edges;
mod explore;
mod fixture;
mod fuzz_regressions;
mod golden;
mod leaks;
mod reader;
mod summary_between;
