//! The page's whole story from one trace: what every document of a page load starts from.

use jsprof_profile::TraceFile;

use crate::insight_common::frame_pids;
use crate::network::{self, Request};
use crate::timings::{self, LongTasks, UserTimings};
use crate::units::ns_to_us;
use crate::vitals::{self, Vitals, Window};

/// Everything [`page_story`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct PageStory {
    /// The trace bounds (µs): the time origin is `bounds.start`.
    pub bounds: Window,
    pub requests: Vec<Request>,
    pub vitals: Vitals,
    pub user_timings: UserTimings,
    pub long_tasks: LongTasks,
    /// Screenshot times (µs) and whether each has a readable image, by time.
    pub screenshots: Vec<(f64, bool)>,
}

/// Reads the page-load story of `trace`.
pub fn page_story(trace: &TraceFile) -> PageStory {
    let (lo, hi) = trace.bounds.unwrap_or((trace.origin(), trace.origin()));
    let bounds = Window {
        start: ns_to_us(lo),
        end: ns_to_us(hi),
    };
    let page = &trace.page;
    let requests = network::requests(page);
    let vitals = vitals::vitals(page, &requests, bounds);
    let mut screenshots: Vec<(f64, bool)> = page
        .screenshots
        .iter()
        .map(|s| (ns_to_us(s.at.ts), s.image.is_some()))
        .collect();
    screenshots.sort_by(|a, b| a.0.total_cmp(&b.0));
    let main_pids = frame_pids(page, &vitals.main_frame);
    PageStory {
        bounds,
        user_timings: timings::user_timings(page),
        long_tasks: timings::long_tasks(trace, &main_pids),
        requests,
        vitals,
        screenshots,
    }
}
