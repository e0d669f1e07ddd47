//! `jsprof lines --json`, the UI's source panel (`/api/ui/…/lines`) and the MCP `source` tool:
//! a function's source lines with the self time V8 recorded on each — a `.cpuprofile`'s
//! `positionTicks`, a trace's per-sample `lines` — as DevTools' Sources gutter shows them
//! (`jsprof_analysis::line_profile`).
//!
//! The source text comes from a reader the front door passes in, so each decides what it may
//! read: the CLI any local file the profile names, the service only files under a session's
//! directories. Without it the lines that have ticks are still listed, with no text.

use std::path::PathBuf;

use jsprof_analysis::{line_profiles, FunctionKey, FunctionRow, LineSource};
use jsprof_profile::WeightUnit;
use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::Weighted;
use crate::top::{function_json, By, FunctionJson};
use crate::{warnings_json, JsonWarning, ReportError, Result, NS_PER_MS};

/// Lines shown before the first and after the last interesting line (the function's own line
/// and its ticked lines), unless asked otherwise.
pub const DEFAULT_CONTEXT: u32 = 3;
/// At most this many lines of text per function: a function's ticks lie in its body, so more
/// means a huge function or a misplaced tick; the ticked lines are listed anyway.
pub const MAX_TEXT_LINES: u32 = 2_000;
/// Characters of one line kept (minified code has megabyte lines).
const MAX_LINE_CHARS: usize = 400;
/// Bytes of a source file read at most.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Which functions to show.
#[derive(Clone, Debug)]
pub enum Select {
    /// Functions whose name the expression matches (the CLI's `--function RE`), at most
    /// `limit` of them, by self time.
    Name { pattern: Regex, limit: usize },
    /// One function, exactly (the UI's `?name=&url=&line=&column=`).
    Exact {
        name: String,
        url: String,
        line: Option<u32>,
        column: Option<u32>,
    },
}

/// What a front door lets the document read: the text of the file a URL names, or why not.
pub trait SourceReader {
    fn read(&mut self, url: &str) -> std::result::Result<(PathBuf, Vec<u8>), String>;
}

/// A reader that reads nothing (the numbers alone).
pub struct NoSource;

impl SourceReader for NoSource {
    fn read(&mut self, _: &str) -> std::result::Result<(PathBuf, Vec<u8>), String> {
        Err("source text not requested".into())
    }
}

/// Reads the local file a `file://` URL or an absolute path names, when `allowed` says yes.
pub struct LocalFiles<F: FnMut(&std::path::Path) -> std::result::Result<PathBuf, String>> {
    pub allowed: F,
}

impl<F: FnMut(&std::path::Path) -> std::result::Result<PathBuf, String>> SourceReader
    for LocalFiles<F>
{
    fn read(&mut self, url: &str) -> std::result::Result<(PathBuf, Vec<u8>), String> {
        let Some(path) = crate::source_maps::local_path(url) else {
            return Err(format!(
                "{url} is not a local file (only file:// URLs and absolute paths are read)"
            ));
        };
        let path = (self.allowed)(&path)?;
        read_capped(&path).map(|bytes| (path, bytes))
    }
}

/// The first [`MAX_SOURCE_BYTES`] of a file.
/// A regular file only ([`crate::local_file`]): a FIFO or device a profile names is refused.
pub fn read_capped(path: &std::path::Path) -> std::result::Result<Vec<u8>, String> {
    crate::local_file::read_prefix(path, MAX_SOURCE_BYTES, &[])
        .map_err(|e| format!("cannot read {e}"))
}

/// The whole document.
#[derive(Serialize, JsonSchema)]
pub struct LinesReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// Where the per-line numbers come from: `position_ticks` (a `.cpuprofile`: V8's counts per
    /// node and line), `sample_lines` (a trace: the line V8 wrote with each sample); `null`
    /// when the input has neither.
    pub line_source: Option<&'static str>,
    /// What one line tick weighs (ms): the profile's duration over its nodes' `hitCount`s
    /// summed (DevTools' figure). `null` unless the lines are `position_ticks` (a trace's
    /// samples each weigh the time since the sample before, as DevTools counts them).
    pub tick_ms: Option<f64>,
    /// `table` when the lines weigh what the function table weighs ([`in_table_weights`]: the
    /// UI's source panel beside the Functions table); absent for the Sources gutter's weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<&'static str>,
    /// Why there are no per-line numbers at all (an input without line data), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The matching functions, by self time.
    pub functions: Vec<FunctionLines>,
}

/// One function and its lines.
#[derive(Serialize, JsonSchema)]
pub struct FunctionLines {
    /// The function as `top` lists it (name, url, line, column, self and total).
    #[serde(flatten)]
    pub function: FunctionJson,
    /// Line ticks of the function, summed over its lines: its nodes' `hitCount`s (V8 counts
    /// them apart from the samples, so their time need not be the self time); for a trace,
    /// its samples with a line (all but the thread's first).
    pub ticks: u64,
    /// The function's self time as the gutter adds it up: `ticks` × `tick_ms`; for a trace,
    /// each counted sample's time since the sample before (so about, not exactly, `self_ms`).
    pub lines_self_ms: f64,
    /// The file the text was read from; `null` when it was not read.
    pub source_file: Option<String>,
    /// Why the text is missing, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_note: Option<String>,
    /// The line with the most self time (the panel scrolls to it); `null` without ticks.
    pub hottest_line: Option<u32>,
    /// With the source: every line from a little before the function to a little after its
    /// last ticked line; without it, only the ticked lines.
    pub lines: Vec<LineJson>,
}

/// One source line.
#[derive(Serialize, JsonSchema)]
pub struct LineJson {
    /// 1-based, in the function's file (the original file where a source map applies).
    pub line: u32,
    /// The line's text (cut at 400 characters); `null` without the source.
    pub text: Option<String>,
    /// Ticks on the line (a trace: samples on it).
    pub ticks: u64,
    /// Self time on the line (ms): what DevTools' Sources gutter shows.
    pub self_ms: f64,
    /// Of the profile's duration, as `top`'s `self_percent`.
    pub self_percent: f64,
}

/// The document for the weighted thread's functions that `select` picks, `context` lines
/// around each, the text from `source`.
pub fn report(
    weighted: &Weighted,
    select: &Select,
    context: u32,
    source: &mut dyn SourceReader,
) -> Result<LinesReport> {
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    if thread.weight_unit() != WeightUnit::Nanoseconds {
        return Err(ReportError::Input(
            "per-line costs are times; this profile's weights are not".into(),
        ));
    }
    let view = crate::top::view(weighted, By::SelfWeight, 0);
    let rows: Vec<&FunctionRow> = match select {
        Select::Name { pattern, limit } => view
            .rows
            .iter()
            .filter(|r| pattern.is_match(profile.strings.get(r.key.name)))
            .take(if *limit == 0 { usize::MAX } else { *limit })
            .collect(),
        Select::Exact {
            name,
            url,
            line,
            column,
        } => view
            .rows
            .iter()
            .filter(|r| {
                profile.strings.get(r.key.name) == name
                    && profile.strings.get(r.key.url) == url
                    && r.key.line == *line
                    && r.key.column == *column
            })
            .collect(),
    };
    if rows.is_empty() {
        return Err(ReportError::NotFound(match select {
            Select::Name { pattern, .. } => {
                format!("no function's name matches `{pattern}` (names as `top` prints them)")
            }
            Select::Exact {
                name, url, line, ..
            } => format!(
                "no function `{name}` at {url}:{} in this view",
                line.map_or("?".into(), |l| l.to_string())
            ),
        }));
    }
    let total = view.total;
    // Every selected function's lines in one pass over the thread.
    let group: std::collections::HashMap<FunctionKey, usize> =
        rows.iter().enumerate().map(|(i, r)| (r.key, i)).collect();
    let (line_source, costs) = line_profiles(profile, thread, rows.len(), |f| {
        group.get(&FunctionKey::of(profile, f)).copied()
    });
    let ms = |weight: f64| weight / NS_PER_MS;
    let pct = |weight: f64| {
        if total > 0 {
            weight * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let mut functions = Vec::new();
    for (row, lines) in rows.into_iter().zip(costs) {
        let key = row.key;
        // (line, ticks, weight)
        let ticked: Vec<(u32, u64, f64)> = lines
            .scripts
            .iter()
            .flat_map(|s| s.lines.iter().map(|l| (l.line, l.ticks, l.weight)))
            .collect();
        let hottest_line = ticked
            .iter()
            .max_by(|a, b| a.2.total_cmp(&b.2).then(a.1.cmp(&b.1)).then(b.0.cmp(&a.0)))
            .map(|l| l.0);
        let url = profile.strings.get(key.url);
        let text = if url.is_empty() {
            Err("the function has no script".to_string())
        } else {
            source.read(url)
        };
        let (source_file, source_note, lines_json) = match text {
            Ok((path, bytes)) => {
                let interesting = ticked.iter().map(|l| l.0).chain(key.line);
                let lo = interesting.clone().min().unwrap_or(1);
                let hi = interesting.max().unwrap_or(1);
                let first = lo.saturating_sub(context).max(1);
                let last = hi
                    .saturating_add(context)
                    .min(first.saturating_add(MAX_TEXT_LINES - 1));
                let mut out = Vec::new();
                let mut at = 0;
                for (i, text) in bytes.split(|&b| b == b'\n').enumerate() {
                    let n = i as u32 + 1;
                    if n > last {
                        break;
                    }
                    if n < first {
                        continue;
                    }
                    while at < ticked.len() && ticked[at].0 < n {
                        at += 1;
                    }
                    let (t, w) = ticked
                        .get(at)
                        .filter(|l| l.0 == n)
                        .map_or((0, 0.0), |l| (l.1, l.2));
                    let text = String::from_utf8_lossy(text);
                    out.push(LineJson {
                        line: n,
                        text: Some(
                            text.trim_end_matches('\r')
                                .chars()
                                .take(MAX_LINE_CHARS)
                                .collect(),
                        ),
                        ticks: t,
                        self_ms: ms(w),
                        self_percent: pct(w),
                    });
                }
                // Ticked lines past the window or the file's end are still listed.
                for &(line, t, w) in &ticked {
                    if !out.iter().any(|l| l.line == line) {
                        out.push(LineJson {
                            line,
                            text: None,
                            ticks: t,
                            self_ms: ms(w),
                            self_percent: pct(w),
                        });
                    }
                }
                out.sort_by_key(|l| l.line);
                (Some(path.display().to_string()), None, out)
            }
            Err(why) => (
                None,
                Some(why),
                ticked
                    .iter()
                    .map(|&(line, t, w)| LineJson {
                        line,
                        text: None,
                        ticks: t,
                        self_ms: ms(w),
                        self_percent: pct(w),
                    })
                    .collect(),
            ),
        };
        functions.push(FunctionLines {
            function: function_json(profile, thread.weight_unit(), row, total),
            ticks: lines.ticks,
            lines_self_ms: ms(lines.weight),
            source_file,
            source_note,
            hottest_line,
            lines: lines_json,
        });
    }
    let (line_source, tick_ms) = match line_source {
        LineSource::None => (None, None),
        LineSource::PositionTicks { tick_ns } => {
            (Some("position_ticks"), Some(tick_ns / NS_PER_MS))
        }
        LineSource::SamplePositions => (Some("sample_lines"), None),
    };
    Ok(LinesReport {
        kind: profile.kind.as_str(),
        warnings: warnings_json(&profile.warnings),
        line_source,
        tick_ms,
        weights: None,
        note: line_source.is_none().then(|| {
            "this input has no line data: V8 writes it in a .cpuprofile's positionTicks and in \
             a Chromium trace's ProfileChunk lines (not in JS Self-Profiling traces nor in \
             old traces); a range selection drops it, as it counts the \
             whole recording"
                .to_string()
        }),
        functions,
    })
}

/// A trace's `doc` (the Sources gutter's lines, from the samples) in the units of the function
/// table beside the source panel: each function as `table`'s view lists it (the trace's
/// entries, as `jsprof top`), and its self time shared over its lines by their share of the
/// sampled line time. So the lines of a function sum to the self time its table row shows; a
/// function the table lacks, or one without line samples, keeps the gutter's numbers. A
/// `.cpuprofile`'s lines (`position_ticks`) are left as they are: its table weighs the samples.
pub fn in_table_weights(mut doc: LinesReport, table: &Weighted) -> LinesReport {
    if doc.line_source != Some("sample_lines") {
        return doc;
    }
    let profile = &*table.profile;
    let view = crate::top::view(table, By::SelfWeight, 0);
    let unit = table.thread().weight_unit();
    for f in &mut doc.functions {
        let row = view.rows.iter().find(|r| {
            profile.strings.get(r.key.name) == f.function.name
                && profile.strings.get(r.key.url) == f.function.url
                && r.key.line == f.function.line
                && r.key.column == f.function.column
        });
        let Some(row) = row else { continue };
        if f.lines_self_ms <= 0.0 {
            continue;
        }
        let self_ms = row.self_weight as f64 / NS_PER_MS;
        let scale = self_ms / f.lines_self_ms;
        for line in &mut f.lines {
            line.self_ms *= scale;
            line.self_percent = if view.total > 0 {
                line.self_ms * NS_PER_MS * 100.0 / view.total as f64
            } else {
                0.0
            };
        }
        f.lines_self_ms = self_ms;
        f.function = function_json(profile, unit, row, view.total);
    }
    doc.weights = Some("table");
    doc
}
