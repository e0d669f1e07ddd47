//! The page-load engine against DevTools' trace engine: its reference tests, on the recorded
//! page loads and their goldens (`fixtures/trace/*.insights.json.gz`) and on edited page loads
//! with the live oracle (`target/oracle/insights-oracle.mjs`, built by
//! `tools/oracle/build.sh`; with `CI` set a missing oracle fails, never skips). They call the
//! libraries, not the binary: the documents are those `jsprof insights`, `network` and
//! `timings` print with `--json`. The CLI's own tests (`crates/jsprof/tests/it/page*.rs`) keep
//! a smoke test per command.

mod image_delivery;
mod insight_events;
mod lantern_sim;
mod page;
mod page_checks;
mod page_loads;
mod page_scripts;
mod support;
