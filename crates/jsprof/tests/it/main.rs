//! CLI integration tests: one binary, a module per area. The lake's (`lake`, `lake_engines`,
//! `ingest`) need the binary built with the `lake` feature, as the README's test command
//! (`--all-features`) builds it.

// Tests print what they measured, for the log.
#![allow(clippy::print_stdout)]

mod abtest;
#[cfg(feature = "lake")]
mod agent;
mod broken_input;
mod check;
mod cpu;
mod diff;
mod export;
mod filters;
mod first_hour;
mod heap;
mod heap_advisors;
mod heap_cache;
mod heap_contexts;
mod heap_doors;
mod heap_explore;
mod heap_kept_alive;
mod heap_redact;
mod heap_scale;
mod heap_source_maps;
mod hostile_input;
mod hostile_serve;
#[cfg(feature = "lake")]
mod ingest;
#[cfg(feature = "lake")]
mod lake;
#[cfg(feature = "lake")]
mod lake_engines;
mod leaks;
mod lines;
mod mcp;
mod mcp_hardening;
mod npm;
mod output_files;
mod page;
mod page_checks;
mod page_lab;
/// Shared with the page-load engine's reference tests; each binary uses part of it.
#[allow(dead_code)]
#[path = "../../../jsprof_pageload/tests/reference/page_loads.rs"]
mod page_loads;
mod pointed_files;
mod process_memory;
mod record;
mod record_page;
mod record_tree;
mod report_heap;
mod serve;
mod source_maps;
mod support;
mod terminal_text;
mod timeline;
mod trace_scale;
mod ui;
mod ui_engine;
mod ui_fixes;
mod ui_heap;
mod ui_lines;
mod ui_page;
mod ui_page_diff;
mod ui_scroll;
mod ui_story;
mod ui_subtree;
mod ui_summary;
mod ui_tables;
mod ui_views;
mod view;
mod views;
