//! The page-load documents of a trace: `jsprof insights` ([`InsightsReport`]: Web Vitals per
//! navigation, then each insight with its evidence), `jsprof network` ([`NetworkReport`]: the
//! waterfall) and `jsprof timings` ([`TimingsReport`]: marks and measures); the service answers
//! the same types. The numbers come from `jsprof_pageload`, DevTools' trace engine's
//! rules; times are ms from the trace's origin (DevTools' trace bounds minimum), durations ms.
//!
//! Each document has its own module ([`crate::insights`], [`crate::network`],
//! [`crate::timings`], [`crate::page_summary`]); this one keeps their public paths.

pub use crate::insights::*;
pub use crate::network::*;
pub use crate::network_tree::*;
pub use crate::page_common::{story, RequestRefJson};
pub use crate::page_summary::*;
pub use crate::timings::*;
