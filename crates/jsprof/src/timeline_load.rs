//! Loading any CPU input as timelines (for `threads`, `events`, `flamechart` and the
//! chrome-trace export): a Chrome trace gives one timeline per thread with its trace events and
//! reconstructed calls; a `.cpuprofile` or JS Self-Profiling trace one timeline of calls.

use std::path::Path;

use anyhow::{anyhow, Result};
use jsprof_analysis::Timeline;
use jsprof_profile::{Format, Profile, Source, Warning};

use crate::input;
use crate::progress::Spinner;
use crate::thread_select::{self, Candidate};

/// Timelines and what they refer to (strings, frames).
pub struct LoadedTimelines {
    pub name: String,
    pub profile: Profile,
    pub timelines: Vec<Timeline>,
}

impl LoadedTimelines {
    pub fn warnings(&self) -> &[Warning] {
        &self.profile.warnings
    }

    /// The timeline `--thread` names, or the default one.
    pub fn select(&self, spec: Option<&str>) -> Result<&Timeline> {
        let candidates: Vec<Candidate> = self
            .timelines
            .iter()
            .map(|t| Candidate {
                timeline_id: t.id,
                tid: t.tid,
                pid: t.pid,
                name: &t.name,
                samples: t.samples,
            })
            .collect();
        let i = thread_select::select(&self.name, &candidates, spec)?;
        Ok(&self.timelines[i])
    }
}

/// Reads a trace, `.cpuprofile` or self-profiling trace and builds its timelines.
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
    let format = jsprof_profile::detect(&text[..text.len().min(jsprof_profile::detect::SNIFF_LEN)])
        .map_err(|e| anyhow!("{name}: {e}"))?;
    let spinner = Spinner::start(format!("reading {name} ({} MB)", text.len() >> 20));
    let loaded = match format {
        Format::Trace => {
            let trace = jsprof_profile::read_trace_from(Source::<std::io::Empty>::Slice(&text));
            drop(text);
            let mut trace = trace.map_err(|e| anyhow!("{name}: {e}"))?;
            jsprof_analysis::apply_devtools_timing(&mut trace.profile);
            trace.profile = transform(&name, trace.profile)?;
            let timelines = jsprof_analysis::trace_timelines(&trace);
            LoadedTimelines {
                name,
                profile: trace.profile,
                timelines,
            }
        }
        Format::CpuProfile | Format::SelfProfile => {
            let parsed =
                jsprof_profile::read_format_from(format, Source::<std::io::Empty>::Slice(&text));
            drop(text);
            let mut profile = parsed.map_err(|e| anyhow!("{name}: {e}"))?;
            jsprof_analysis::apply_devtools_timing(&mut profile);
            let profile = transform(&name, profile)?;
            let timelines = jsprof_analysis::profile_timelines(&profile);
            LoadedTimelines {
                name,
                profile,
                timelines,
            }
        }
        Format::HeapProfile | Format::HeapSnapshot => {
            return Err(anyhow!(
            "{name}: a heap profile or snapshot has no timeline; use `jsprof top` or `jsprof heap`"
        ))
        }
    };
    drop(spinner);
    Ok(loaded)
}

/// Parses `START..END` in milliseconds (either side may be empty) into nanoseconds.
pub fn parse_window(text: &str) -> Result<(Option<i64>, Option<i64>), String> {
    let bad = || {
        format!(
            "bad range `{text}`: expected START..END in milliseconds, either side may be empty (e.g. `100..250.5`, `..30`)"
        )
    };
    let (a, b) = text.trim().split_once("..").ok_or_else(bad)?;
    let side = |s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        let ms: f64 = s.parse().map_err(|_| bad())?;
        if !ms.is_finite() {
            return Err(bad());
        }
        Ok(Some((ms * 1e6).round() as i64))
    };
    let (start, end) = (side(a)?, side(b)?);
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err(format!("bad range `{text}`: START is after END"));
        }
    }
    Ok((start, end))
}
