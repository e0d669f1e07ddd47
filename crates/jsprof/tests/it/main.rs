//! CLI integration tests: one binary, a module per area.

mod cpu;
mod heap;
mod support;
