//! CLI integration tests: one binary, a module per area.

mod broken_input;
mod check;
mod cpu;
mod diff;
mod export;
mod filters;
mod heap;
mod heap_explore;
mod hostile_input;
mod hostile_serve;
mod leaks;
mod record;
mod serve;
mod source_maps;
mod support;
mod timeline;
mod ui;
mod ui_engine;
mod views;
