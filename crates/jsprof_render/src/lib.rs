//! What jsprof draws and writes for other viewers, from the numbers `jsprof_analysis` computes:
//! the flame graph (and its differential form) and the flame chart as standalone SVGs, and
//! timelines as a Chrome trace. Analyses return numbers; this crate owns how they look — colours,
//! geometry, labels, tooltips, the one XML escaper and the one escaper of text a terminal shows
//! ([`terminal`]). Names and locations are written as
//! [`jsprof_profile::display`] says, as in the CLI's tables.
//!
//! ```no_run
//! use jsprof_render::{write_flame_graph_svg, FlameGraphOptions};
//!
//! let file = std::io::BufReader::new(std::fs::File::open("app.cpuprofile")?);
//! let mut profile = jsprof_profile::read(file)?;
//! jsprof_analysis::apply_devtools_timing(&mut profile);
//! let options = FlameGraphOptions {
//!     title: "app".to_string(),
//!     ..Default::default()
//! };
//! let out = std::io::BufWriter::new(std::fs::File::create("app.svg")?);
//! write_flame_graph_svg(out, &profile, &profile.threads[0], &options)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! To place frames without drawing them (another renderer, a test), call
//! [`flame_graph::layout`] on a [`jsprof_analysis::top_down`] tree.

mod chrome_trace;
mod flame_chart;
pub mod flame_graph;
pub mod terminal;
pub mod xml;

pub use chrome_trace::write_chrome_trace;
pub use flame_chart::{write_flame_chart_svg, FlameChartOptions};
pub use flame_graph::{write_diff_flame_graph_svg, write_flame_graph_svg, FlameGraphOptions};
