//! What the page-load documents share: the clock that turns the engine's µs on the trace clock
//! into ms from the trace's origin, a request as the documents point at it, and the page story
//! of an input. A leaf: every page document imports it, and it imports none of them.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::units::us_to_ms;
use jsprof_pageload::{page_story, PageStory, Request};

use crate::load::CpuInput;
use crate::{ReportError, Result};

/// A request named by another document (an LCP image, a render-blocking request).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RequestRefJson {
    pub url: String,
    pub request_id: String,
    pub start_ms: f64,
    pub end_ms: f64,
    pub dur_ms: f64,
}

/// The page story of a trace input, or an error naming the input when it is not a trace.
pub fn story(input: &CpuInput) -> Result<PageStory> {
    match input.trace() {
        Some(trace) => Ok(page_story(trace)),
        None => Err(ReportError::Input(format!(
            "{}: not a Chrome trace; insights, network and timings read a Performance-panel trace",
            input.name
        ))),
    }
}

/// Converts µs on the trace clock to ms from the origin (lengths: `units::us_to_ms`).
pub(crate) struct Clock {
    origin: f64,
}

impl Clock {
    /// A clock whose origin is `origin_us` on the trace clock.
    pub(crate) fn new(origin_us: f64) -> Self {
        Clock { origin: origin_us }
    }
    /// µs on the trace clock to ms from the origin.
    pub(crate) fn ts(&self, us: f64) -> f64 {
        us_to_ms(us - self.origin)
    }
    pub(crate) fn request_ref(&self, r: &Request) -> RequestRefJson {
        RequestRefJson {
            url: r.url.clone(),
            request_id: r.request_id.clone(),
            start_ms: self.ts(r.start),
            end_ms: self.ts(r.end),
            dur_ms: us_to_ms(r.end - r.start),
        }
    }
}
