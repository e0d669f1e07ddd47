//! Loading any CPU input as timelines (for `threads`, `events`, `flamechart` and the
//! chrome-trace export): a Chrome trace gives one timeline per thread with its trace events and
//! reconstructed calls; a `.cpuprofile` or JS Self-Profiling trace one timeline of calls. The
//! reading itself is `jsprof_document::load`, shared with the service.

use std::path::Path;

use anyhow::Result;
use jsprof_profile::Profile;

use crate::input;
use crate::progress::Spinner;

pub use jsprof_document::events::parse_window;
pub use jsprof_document::load::LoadedTimelines;

/// Reads a trace, `.cpuprofile` or self-profiling trace and builds its timelines.
#[allow(dead_code)]
pub fn load_timelines(path: &Path) -> Result<LoadedTimelines> {
    load_timelines_with(path, |_, profile| Ok(profile))
}

/// As [`load_timelines`], with `transform` applied to the sampled profile before the timelines
/// are built (`--focus`, `--exclude`, …).
pub fn load_timelines_with(
    path: &Path,
    transform: impl FnOnce(&str, Profile) -> Result<Profile>,
) -> Result<LoadedTimelines> {
    let (name, text) = input::read_all(path)?;
    let spinner = Spinner::start(format!("reading {name} ({} MB)", text.len() >> 20));
    let parsed = jsprof_document::load::parse_timelines(&name, text)?
        .map_profile(|profile| transform(&name, profile))?;
    let loaded = jsprof_document::load::build_timelines(name, parsed);
    drop(spinner);
    Ok(loaded)
}
