//! CLI integration tests: one binary, a module per area.

mod broken_input;
mod check;
mod cpu;
mod diff;
mod export;
mod filters;
mod first_hour;
mod heap;
mod heap_cache;
mod heap_explore;
mod heap_scale;
mod hostile_input;
mod hostile_serve;
#[cfg(feature = "lake")]
mod lake;
mod leaks;
mod mcp;
mod page;
mod record;
mod record_tree;
mod serve;
mod source_maps;
mod support;
mod timeline;
mod ui;
mod ui_engine;
mod ui_fixes;
mod ui_page;
mod ui_tables;
mod views;
