//! Reading a CPU input into what the views need: a timed profile, or timelines (one per thread;
//! a Chrome trace's with its trace events, a bare profile's with its reconstructed calls).

use std::ops::Deref;

use jsprof_analysis::Timeline;
use jsprof_profile::{Format, Profile, Source, Warning};

use crate::thread_select::{self, Candidate};
use crate::{ReportError, Result};

/// Timelines and what they refer to (strings, frames).
pub struct LoadedTimelines {
    /// How the input is named in messages.
    pub name: String,
    pub profile: Profile,
    pub timelines: Vec<Timeline>,
}

impl LoadedTimelines {
    pub fn warnings(&self) -> &[Warning] {
        &self.profile.warnings
    }

    /// The timeline `spec` names (a timeline id, a tid or a unique thread name), or the default.
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

/// The format of `text`, from its first bytes.
pub fn detect(name: &str, text: &[u8]) -> Result<Format> {
    jsprof_profile::detect(&text[..text.len().min(jsprof_profile::detect::SNIFF_LEN)])
        .map_err(|e| ReportError::Input(format!("{name}: {e}")))
}

/// A parsed timeline input before its timelines are built: a trace keeps its trace events.
pub enum Parsed {
    Trace(jsprof_profile::TraceFile),
    Profile(Profile),
}

impl Parsed {
    /// Replaces the sampled profile (a trace's samples) by `f` of it: transforms applied
    /// before the timelines are built.
    pub fn map_profile<E>(
        self,
        f: impl FnOnce(Profile) -> std::result::Result<Profile, E>,
    ) -> std::result::Result<Parsed, E> {
        Ok(match self {
            Parsed::Trace(mut t) => {
                let empty = Profile::new(t.profile.kind);
                let profile = std::mem::replace(&mut t.profile, empty);
                t.profile = f(profile)?;
                Parsed::Trace(t)
            }
            Parsed::Profile(p) => Parsed::Profile(f(p)?),
        })
    }
}

/// Reads a trace, `.cpuprofile` or self-profiling trace and applies DevTools' timing. `text` is
/// released as soon as it is parsed.
pub fn parse_timelines<T: Deref<Target = [u8]>>(name: &str, text: T) -> Result<Parsed> {
    let format = detect(name, &text)?;
    let bad = |e: jsprof_profile::ReadError| ReportError::Input(format!("{name}: {e}"));
    match format {
        Format::Trace => {
            let trace = jsprof_profile::read_trace_from(Source::<std::io::Empty>::Slice(&text));
            drop(text);
            let mut trace = trace.map_err(bad)?;
            jsprof_analysis::apply_devtools_timing(&mut trace.profile);
            Ok(Parsed::Trace(trace))
        }
        Format::CpuProfile | Format::SelfProfile => {
            let parsed =
                jsprof_profile::read_format_from(format, Source::<std::io::Empty>::Slice(&text));
            drop(text);
            let mut profile = parsed.map_err(bad)?;
            jsprof_analysis::apply_devtools_timing(&mut profile);
            Ok(Parsed::Profile(profile))
        }
        Format::HeapProfile | Format::HeapSnapshot => Err(ReportError::Input(format!(
            "{name}: a heap profile or snapshot has no timeline; use `jsprof top` or `jsprof heap`"
        ))),
    }
}

/// Builds the timelines of a parsed input.
pub fn build_timelines(name: String, parsed: Parsed) -> LoadedTimelines {
    match parsed {
        Parsed::Trace(trace) => {
            let timelines = jsprof_analysis::trace_timelines(&trace);
            LoadedTimelines {
                name,
                profile: trace.profile,
                timelines,
            }
        }
        Parsed::Profile(profile) => {
            let timelines = jsprof_analysis::profile_timelines(&profile);
            LoadedTimelines {
                name,
                profile,
                timelines,
            }
        }
    }
}

/// Reads a trace, `.cpuprofile` or self-profiling trace and builds its timelines.
pub fn timelines<T: Deref<Target = [u8]>>(name: String, text: T) -> Result<LoadedTimelines> {
    let parsed = parse_timelines(&name, text)?;
    Ok(build_timelines(name, parsed))
}

/// Reads any sampled format (CPU profile, self-profiling trace, trace, heap profile) and applies
/// DevTools' timing rules. Heap snapshots are refused with a pointer to `jsprof heap`.
pub fn profile<T: Deref<Target = [u8]>>(name: &str, text: T) -> Result<Profile> {
    let format = detect(name, &text)?;
    if format == Format::HeapSnapshot {
        return Err(ReportError::Input(format!(
            "{name}: this is a heap snapshot; use `jsprof heap summary {name}`"
        )));
    }
    let parsed = jsprof_profile::read_format_from(format, Source::<std::io::Empty>::Slice(&text));
    drop(text);
    let mut profile = parsed.map_err(|e| ReportError::Input(format!("{name}: {e}")))?;
    jsprof_analysis::apply_devtools_timing(&mut profile);
    Ok(profile)
}
