//! `--range START..END` for every command that takes a time window: parsing for clap, and the
//! one place that applies it (the model transform `jsprof_analysis::clip`).

use anyhow::Result;
use jsprof_analysis::TimeRange;
use jsprof_profile::Profile;

/// clap's value parser for `--range`.
pub fn parse(text: &str) -> Result<TimeRange, String> {
    TimeRange::parse_ms(text).map_err(|e| e.to_string())
}

/// The profile clipped to `range` (unchanged without one), 0 ms being its first sample.
// TODO(traces): a trace's origin is DevTools' trace bounds minimum (`TraceFile::origin`), which
// `load_profile` does not keep yet; pass it here once it does.
pub fn apply(name: &str, profile: Profile, range: Option<TimeRange>) -> Result<Profile> {
    Ok(jsprof_document::top::apply_range(name, profile, range)?)
}

/// The thread a view shows: `--thread` or the default (see `thread_select`).
pub fn thread(name: &str, profile: &Profile, spec: Option<&str>) -> Result<usize> {
    Ok(jsprof_document::top::thread(name, profile, spec)?)
}

/// `[12.000 ms, 30.000 ms]`-style description for subtitles.
pub fn describe(range: Option<TimeRange>) -> Option<String> {
    let r = range?;
    let side = |v: Option<i64>| {
        v.map_or(String::new(), |ns| {
            format!("{} ms", jsprof_profile::ns_to_ms(ns))
        })
    };
    Some(format!("range {}..{}", side(r.start), side(r.end)))
}
