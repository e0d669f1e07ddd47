//! What a profile holds, at a glance: span, samples, interval, and where the time went.

use jsprof_profile::{Profile, Thread, GC_NAME, IDLE_NAME, PROGRAM_NAME};

use crate::function_table::FunctionTable;

/// Self weight of the pseudo-functions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetaShares {
    pub idle: i64,
    pub program: i64,
    pub gc: i64,
}

/// A thread's overview.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileSummary {
    pub samples: usize,
    /// Span from the first sample to where the last one ends (ns; bytes for heap profiles).
    pub start: i64,
    pub end: i64,
    /// Average time between samples (ns), `None` with fewer than two samples.
    pub interval: Option<f64>,
    pub total_weight: i64,
    pub meta: MetaShares,
}

/// Summarizes `thread` from its function table.
pub fn summarize(profile: &Profile, thread: &Thread, table: &FunctionTable) -> ProfileSummary {
    let mut meta = MetaShares::default();
    for row in &table.rows {
        if row.key.url != jsprof_profile::StringTable::EMPTY {
            continue;
        }
        match profile.strings.get(row.key.name) {
            IDLE_NAME => meta.idle += row.self_weight,
            PROGRAM_NAME => meta.program += row.self_weight,
            GC_NAME => meta.gc += row.self_weight,
            _ => {}
        }
    }
    let times = &thread.samples().time();
    let interval = (times.len() >= 2)
        .then(|| (times[times.len() - 1] - times[0]) as f64 / (times.len() - 1) as f64);
    ProfileSummary {
        samples: thread.samples().len(),
        start: thread.start_time(),
        end: thread.end_time(),
        interval,
        total_weight: table.total_weight,
        meta,
    }
}
