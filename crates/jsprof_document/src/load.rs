//! The load pipeline, the one way every front door reads a CPU input:
//!
//! ```text
//! read (text.rs) → detect → model → DevTools' timing → source maps → filters → [view: thread, range]
//! ```
//!
//! [`read_cpu`] runs the steps up to the filters and returns a [`CpuInput`]; the views then pick
//! a thread and a time range from it with [`CpuInput::weighted`] (top, tree, flame graph, diff,
//! summary) or [`CpuInput::select`] (events, flame chart). The CLI runs it once per command, the
//! service once per (artifact, filters) and keeps the result; the report and the UI are drawn
//! from the same values.
//!
//! The range comes last: it is a view of the filtered model, so the service can clip one cached
//! load to every range a page asks for. Filters and the range commute — both act per sample, and a
//! filter never moves a sample in time or changes its weight (see `jsprof_analysis::filter`).
//!
//! On a Chrome trace, the weighted views are DevTools' Performance panel's: made of the thread's
//! entries (reconstructed JS calls nested with the trace events, [`jsprof_analysis::entries_profile`]),
//! not of its CPU samples; [`ViewSpec::samples`] asks for the samples instead. The filters then
//! apply to the entries — so that `--focus Paint` or `--exclude RunTask` work on native entries
//! too — while the timelines (events, flame chart) are reconstructed from the filtered samples.

use schemars::JsonSchema;
use std::borrow::Cow;
use std::sync::OnceLock;

use jsprof_analysis::{TimeRange, Timeline};
use jsprof_profile::{Format, Profile, Source, TraceFile, Warning};

use crate::filters::FilterSpec;
use crate::source_maps::SourceMaps;
use crate::thread_select::{self, Candidate};
use crate::{ReportError, Result};

/// The steps of the pipeline a caller chooses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pipeline {
    pub source_maps: SourceMaps,
    pub filters: FilterSpec,
}

/// The format of `text`, from its first bytes.
pub fn detect(name: &str, text: &[u8]) -> Result<Format> {
    jsprof_profile::detect(&text[..text.len().min(jsprof_profile::detect::SNIFF_LEN)])
        .map_err(|e| ReportError::Input(format!("{name}: {e}")))
}

/// The model of a CPU input: a trace keeps its trace events beside its samples.
enum Model {
    Trace(TraceFile),
    Profile(Profile),
}

/// A CPU input (`.cpuprofile`, JS Self-Profiling trace, Chrome trace, `.heapprofile`) read through
/// the pipeline. Its timelines are built on first use.
pub struct CpuInput {
    /// How the input is named in messages.
    pub name: String,
    /// After timing and source maps; not filtered.
    model: Model,
    /// The filters, compiled; `None` without any.
    filters: Option<jsprof_analysis::Filters>,
    /// The samples with the filters applied (when there are filters).
    filtered: Option<Profile>,
    /// Built from the filtered samples: events and the flame chart.
    timelines: OnceLock<Vec<Timeline>>,
    /// A trace's timelines from the unfiltered samples, for the entries (with filters only).
    entry_timelines: OnceLock<Vec<Timeline>>,
}

/// What a weighted view shows: a thread, a time range, and for a trace whether its samples are
/// wanted instead of the Performance panel's entries. The CLI's `--thread`, `--range` and
/// `--samples`, the service's parameters and MCP's arguments of the same names (one definition,
/// as [`FilterSpec`]; see [`crate::query`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ViewSpec {
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub thread: Option<String>,
    /// Only time within START..END (ms from the profile's start — a trace's first timestamp;
    /// either side may be empty), clipped as DevTools' range selection does.
    #[cfg_attr(feature = "clap", arg(long, value_name = "START..END", value_parser = crate::query::parse_range, allow_hyphen_values = true))]
    #[serde(default, deserialize_with = "crate::query::de_range")]
    #[schemars(with = "Option<String>")]
    pub range: Option<TimeRange>,
    /// For a trace: weigh the thread's CPU samples instead of its entries (the Performance panel's
    /// JS calls and trace events, the default).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub samples: bool,
}

/// What a weighted view's numbers are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WeightSource {
    /// The profile's samples (`.cpuprofile`, self-profiling, heap profile; a trace with `--samples`).
    Samples,
    /// A trace thread's entries: JS calls and trace events, as DevTools' Performance panel.
    TraceEntries,
}

/// A profile and the thread of it a view shows.
pub struct Weighted<'a> {
    pub profile: Cow<'a, Profile>,
    pub thread: usize,
    pub source: WeightSource,
}

impl Weighted<'_> {
    pub fn thread(&self) -> &jsprof_profile::Thread {
        &self.profile.threads[self.thread]
    }
}

/// Reads a CPU input: detect, model, DevTools' timing, source maps, filters. `text` is released
/// as soon as it is parsed. Heap snapshots are refused with a pointer to `jsprof heap`.
pub fn read_cpu<T: crate::input::ReadOnce>(
    name: String,
    text: T,
    pipeline: &Pipeline,
) -> Result<CpuInput> {
    let format = detect(&name, &text)?;
    let bad = |e: jsprof_profile::ReadError| ReportError::Input(format!("{name}: {e}"));
    let model = match format {
        Format::Trace => {
            let mut read = 0;
            let trace = jsprof_profile::read_trace_slice(&text, &mut |n| {
                text.read_past(read..n);
                read = n;
            });
            drop(text);
            let mut trace = trace.map_err(bad)?;
            let kind = trace.profile.kind;
            let profile = std::mem::replace(&mut trace.profile, Profile::new(kind));
            trace.profile = prepare(profile, pipeline)?;
            Model::Trace(trace)
        }
        Format::CpuProfile | Format::SelfProfile | Format::HeapProfile => {
            let parsed =
                jsprof_profile::read_format_from(format, Source::<std::io::Empty>::Slice(&text));
            drop(text);
            Model::Profile(prepare(parsed.map_err(bad)?, pipeline)?)
        }
        Format::HeapSnapshot => {
            return Err(ReportError::Input(format!(
                "{name}: this is a heap snapshot; use `jsprof heap summary {name}`"
            )))
        }
    };
    let filters = match pipeline.filters.is_empty() {
        true => None,
        false => Some(pipeline.filters.compile()?),
    };
    let filtered = filters.as_ref().map(|f| match &model {
        // Subtree paths come from the entries' tree, where engine events hold the JS calls.
        Model::Trace(t) => jsprof_analysis::filter(&t.profile, &f.for_samples_of(&t.profile)),
        Model::Profile(p) => jsprof_analysis::filter(p, f),
    });
    Ok(CpuInput {
        name,
        model,
        filters,
        filtered,
        timelines: OnceLock::new(),
        entry_timelines: OnceLock::new(),
    })
}

/// The model steps after reading: DevTools' timing, source maps.
fn prepare(mut profile: Profile, pipeline: &Pipeline) -> Result<Profile> {
    jsprof_analysis::apply_devtools_timing(&mut profile);
    crate::source_maps::apply(profile, &pipeline.source_maps)
}

impl CpuInput {
    /// The sampled profile (a trace's CPU samples), filtered.
    pub fn profile(&self) -> &Profile {
        match (&self.filtered, &self.model) {
            (Some(p), _) => p,
            (None, Model::Trace(t)) => &t.profile,
            (None, Model::Profile(p)) => p,
        }
    }

    pub fn warnings(&self) -> &[Warning] {
        &self.profile().warnings
    }

    pub fn is_trace(&self) -> bool {
        matches!(self.model, Model::Trace(_))
    }

    /// The trace itself (its page events, threads and bounds), `None` for a profile.
    pub fn trace(&self) -> Option<&TraceFile> {
        match &self.model {
            Model::Trace(t) => Some(t),
            Model::Profile(_) => None,
        }
    }

    /// The trace's process names, (pid, name).
    pub fn process_names(&self) -> &[(u64, String)] {
        match &self.model {
            Model::Trace(t) => &t.process_names,
            Model::Profile(_) => &[],
        }
    }

    /// The time origin (0 ms): DevTools' trace bounds minimum for a trace, the first sample for a
    /// profile.
    pub fn origin(&self) -> i64 {
        match &self.model {
            Model::Trace(t) => t.origin(),
            Model::Profile(p) => jsprof_analysis::time_origin(p),
        }
    }

    /// The timelines, one per thread (built on first use). A heap profile has none.
    pub fn timelines(&self) -> &[Timeline] {
        self.timelines.get_or_init(|| match &self.model {
            Model::Trace(t) => jsprof_analysis::trace_timelines_with(t, self.profile()),
            Model::Profile(p) if p.kind == jsprof_profile::ProfileKind::HeapProfile => Vec::new(),
            Model::Profile(_) => jsprof_analysis::profile_timelines(self.profile()),
        })
    }

    /// The timelines the entries are weighed from: a trace's, from its unfiltered samples.
    fn entry_timelines(&self, trace: &TraceFile) -> &[Timeline] {
        if self.filters.is_none() {
            return self.timelines();
        }
        self.entry_timelines
            .get_or_init(|| jsprof_analysis::trace_timelines(trace))
    }

    /// The timeline `spec` names (a timeline id, a tid or a unique thread name), or the default.
    pub fn select(&self, spec: Option<&str>) -> Result<&Timeline> {
        if self.profile().kind == jsprof_profile::ProfileKind::HeapProfile {
            return Err(ReportError::Input(format!(
                "{}: a heap profile has no timeline; use `jsprof top` or `jsprof tree`",
                self.name
            )));
        }
        let timelines = self.timelines();
        let candidates: Vec<Candidate> = timelines
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
        Ok(&timelines[i])
    }

    /// The trace's window in absolute ns: its bounds, or the extent of its samples and events.
    fn trace_window(&self, trace: &TraceFile) -> (i64, i64) {
        if let Some(bounds) = trace.bounds {
            return bounds;
        }
        let mut lo = i64::MAX;
        let mut hi = i64::MIN;
        for t in &trace.profile.threads {
            if !t.samples().is_empty() {
                lo = lo.min(t.start_time());
                hi = hi.max(t.end_time());
            }
        }
        for t in &trace.threads {
            for e in &t.events {
                lo = lo.min(e.start);
                hi = hi.max(e.end());
            }
        }
        if lo > hi {
            (0, 0)
        } else {
            (lo, hi)
        }
    }

    /// The weighted profile of one thread in one range, which every table, tree, flame graph and
    /// diff is computed from.
    pub fn weighted(&self, spec: &ViewSpec) -> Result<Weighted<'_>> {
        match &self.model {
            Model::Trace(trace) if !spec.samples => {
                // Selected among the timelines the user sees (`jsprof threads`), then taken from
                // the unfiltered ones: the same threads in the same order.
                let index = self.select(spec.thread.as_deref())?.id as usize - 1;
                let timeline = &self.entry_timelines(trace)[index];
                let (lo, hi) = self.trace_window(trace);
                let origin = self.origin();
                let window = match spec.range {
                    None => (lo, hi),
                    Some(r) => (
                        r.start.map_or(lo, |s| origin + s),
                        r.end.map_or(hi, |e| origin + e),
                    ),
                };
                if window.1 < window.0 {
                    return Err(ReportError::Usage(format!(
                        "{}: the range ends before it starts",
                        self.name
                    )));
                }
                let mut profile =
                    jsprof_analysis::entries_profile(&trace.profile, timeline, window);
                // The loader's warnings come along (entries_profile copies them), then the
                // filters' own on these entries: a subtree path is read off the entries' tree,
                // so whether it matched the CPU samples says nothing here.
                if let Some(filters) = &self.filters {
                    profile = jsprof_analysis::filter(&profile, filters);
                }
                Ok(Weighted {
                    profile: Cow::Owned(profile),
                    thread: 0,
                    source: WeightSource::TraceEntries,
                })
            }
            _ => {
                let profile = self.profile();
                if profile.threads.is_empty() {
                    return Err(ReportError::Input(format!(
                        "{}: the profile has no threads",
                        self.name
                    )));
                }
                let profile = match spec.range {
                    None => Cow::Borrowed(profile),
                    Some(r) => Cow::Owned(
                        jsprof_analysis::clip(profile, r, self.origin())
                            .map_err(|e| ReportError::Usage(format!("{}: {e}", self.name)))?,
                    ),
                };
                let thread = thread_select::select_profile_thread(
                    &self.name,
                    &profile,
                    spec.thread.as_deref(),
                )?;
                Ok(Weighted {
                    profile,
                    thread,
                    source: WeightSource::Samples,
                })
            }
        }
    }
}
