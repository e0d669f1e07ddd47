//! The page-load engine: what Chrome DevTools' Performance panel says about a page load,
//! computed from a Chrome trace the way its trace engine computes it, so that the numbers are
//! DevTools' own. It is a port of the trace engine's handlers (network requests, Web Vitals,
//! user timings, long tasks) and insights, and of Lantern, the simulator behind the insights'
//! estimated savings, over jsprof's trace model (`jsprof_profile`). It gives numbers, never
//! text: the JSON and text documents built from them are `jsprof_document`'s.
//!
//! ```no_run
//! # let bytes: &[u8] = b"";
//! let trace = jsprof_profile::read_trace(bytes).unwrap();
//! let story = jsprof_pageload::page_story(&trace);
//! for nav in &story.vitals.navigations {
//!     if let Some(lcp) = &nav.lcp {
//!         // Microseconds from the navigation's start, as the engine keeps them.
//!         let ms = jsprof_pageload::units::us_to_ms(lcp.metric.value);
//!         println!("{}: LCP {ms} ms ({})", nav.id, lcp.metric.classification);
//!     }
//! }
//! ```
//!
//! [`page_story`] reads the page's whole story: network requests ([`network`]), Web Vitals per
//! navigation ([`vitals`]: FCP, LCP and its breakdown, CLS and its clusters, INP and its
//! phases), user timings and long tasks ([`timings`]) and the filmstrip. The insights of a
//! navigation gather in [`insights`]; each page check has its own module ([`viewport`],
//! [`character_set`], [`cache`], [`modern_http`], [`font_display`], [`image_delivery`],
//! [`slow_css_selector`], [`third_parties`], [`duplicated_javascript`],
//! [`legacy_javascript`], [`cls_culprits`], [`network_tree`]), and [`lantern`] simulates the
//! navigation over its dependency graph ([`dependency_graph`]).
//!
//! **Units.** The trace model keeps nanoseconds as `i64`; this crate works in the trace
//! engine's units so that its arithmetic is the engine's to the last bit: microseconds on the
//! trace clock as `f64` everywhere, seconds and milliseconds where the network events' timings
//! and Lantern use them. Every conversion goes through [`units`]; the one at the boundary with
//! the trace model is [`units::ns_to_us`]. The documents turn the µs into milliseconds from
//! the trace's origin.

pub mod animations;
pub mod cache;
pub mod character_set;
pub mod cls_culprits;
pub mod dependency_graph;
pub mod devtools_url;
pub mod duplicated_javascript;
pub mod font_display;
mod graph_error;
pub mod image_delivery;
mod insight_common;
pub mod insights;
pub mod lantern;
pub mod lantern_requests;
pub mod legacy_javascript;
pub mod modern_http;
pub mod network;
pub mod network_tree;
pub mod script_maps;
pub mod scripts;
pub mod slow_css_selector;
mod story;
pub mod third_parties;
pub mod timings;
pub mod units;
pub mod viewport;
pub mod vitals;

pub use network::Request;
pub use story::{page_story, PageStory};
pub use timings::{LongTasks, UserTimings};
pub use vitals::{Cluster, Interaction, NavigationVitals, Vitals, Window};
