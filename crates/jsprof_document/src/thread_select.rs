//! `--thread T` where an input has several timelines: a `timeline_id` from `jsprof threads`, a
//! tid, or a thread name when it is unique. Without one: the `CrRendererMain` with the most
//! samples, else the only sampled thread, else the thread with the most samples.

use crate::{ReportError, Result};

/// What selection needs to know of a thread.
pub struct Candidate<'a> {
    pub timeline_id: u32,
    pub tid: Option<u64>,
    pub pid: Option<u64>,
    pub name: &'a str,
    pub samples: usize,
}

/// The index of the thread `spec` names (or the default thread) among `candidates`.
/// Ambiguous or unknown specs are an error listing the candidates (the caller exits 2).
pub fn select(name: &str, candidates: &[Candidate], spec: Option<&str>) -> Result<usize> {
    if candidates.is_empty() {
        return Err(ReportError::Input(format!("{name}: no threads")));
    }
    let list = || {
        candidates
            .iter()
            .map(|c| {
                format!(
                    "  {:>3}  pid {:<8} tid {:<8} {} ({} samples)",
                    c.timeline_id,
                    c.pid.map_or("-".into(), |p| p.to_string()),
                    c.tid.map_or("-".into(), |t| t.to_string()),
                    if c.name.is_empty() {
                        "(unnamed)"
                    } else {
                        c.name
                    },
                    c.samples
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let Some(spec) = spec.map(str::trim) else {
        let best = |filter: &dyn Fn(&Candidate) -> bool| {
            candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| filter(c) && c.samples > 0)
                .max_by_key(|(i, c)| (c.samples, std::cmp::Reverse(*i)))
                .map(|(i, _)| i)
        };
        if let Some(i) = best(&|c| c.name == "CrRendererMain") {
            return Ok(i);
        }
        if let Some(i) = best(&|_| true) {
            return Ok(i);
        }
        if candidates.len() == 1 {
            return Ok(0);
        }
        // No samples anywhere: the renderer main thread, else the busiest timeline is unknown.
        if let Some(i) = candidates.iter().position(|c| c.name == "CrRendererMain") {
            return Ok(i);
        }
        return Err(ReportError::Usage(format!(
            "{name}: no thread has samples; choose one with --thread:\n{}",
            list()
        )));
    };
    let matches: Vec<usize> = if let Ok(n) = spec.parse::<u64>() {
        let by_id: Vec<usize> = candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| c.timeline_id as u64 == n)
            .map(|(i, _)| i)
            .collect();
        if by_id.is_empty() {
            candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| c.tid == Some(n))
                .map(|(i, _)| i)
                .collect()
        } else {
            by_id
        }
    } else {
        candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| c.name == spec)
            .map(|(i, _)| i)
            .collect()
    };
    match matches.as_slice() {
        [i] => Ok(*i),
        [] => Err(ReportError::NotFound(format!(
            "{name}: no thread `{spec}`; the threads are (timeline_id, pid, tid, name):\n{}",
            list()
        ))),
        _ => Err(ReportError::Usage(format!(
            "{name}: `{spec}` names several threads; use a timeline_id:\n{}",
            matches
                .iter()
                .map(|&i| {
                    let c = &candidates[i];
                    format!(
                        "  {:>3}  pid {} tid {} {} ({} samples)",
                        c.timeline_id,
                        c.pid.map_or("-".into(), |p| p.to_string()),
                        c.tid.map_or("-".into(), |t| t.to_string()),
                        c.name,
                        c.samples
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        ))),
    }
}

/// Selects among the sampled threads of a profile (for `top`/`summary` on a trace): returns
/// the index into `profile.threads`.
pub fn select_profile_thread(
    name: &str,
    profile: &jsprof_profile::Profile,
    spec: Option<&str>,
) -> Result<usize> {
    let candidates: Vec<Candidate> = profile
        .threads
        .iter()
        .enumerate()
        .map(|(i, t)| Candidate {
            timeline_id: i as u32 + 1,
            tid: t.tid(),
            pid: t.pid(),
            name: t.name(),
            samples: t.samples().len(),
        })
        .collect();
    select(name, &candidates, spec)
}
