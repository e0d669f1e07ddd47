//! `jsprof summary FILE`: what a profile holds and where its time (or memory) went.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{function_table, summarize};
use jsprof_profile::{Format, WeightUnit};
use serde::Serialize;

use crate::cmd::top::{
    function_json, sorted_rows, warnings_json, write_table, By, FunctionJson, NS_PER_MS,
};
use crate::load::{detect_format, load_profile};
use crate::output::{self, JsonWarning};

#[derive(clap::Args)]
pub struct Args {
    /// Any file jsprof reads (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// How many top functions to list.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct ThreadJson {
    name: String,
    pid: Option<u64>,
    tid: Option<u64>,
    samples: usize,
}

#[derive(Serialize)]
struct SummaryJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_bytes: Option<i64>,
    samples: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_ms: Option<f64>,
    threads: Vec<ThreadJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    idle_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gc_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    idle_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gc_percent: Option<f64>,
    functions: usize,
    top_functions: Vec<FunctionJson>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.file.as_os_str() != "-" && detect_format(&args.file)? == Format::HeapSnapshot {
        // A heap snapshot's overview is its Summary (classes by retained size).
        return crate::cmd::heap::run(crate::cmd::heap::HeapCommand::Summary(
            crate::cmd::heap::SummaryArgs {
                file: args.file,
                sort: crate::cmd::heap::Sort::Retained,
                limit: args.limit,
                json: args.json,
            },
        ));
    }
    let loaded = load_profile(&args.file)?;
    let profile = &loaded.profile;
    let thread =
        &profile.threads[crate::range_arg::thread(&loaded.name, profile, args.thread.as_deref())?];
    let table = function_table(profile, thread);
    let summary = summarize(profile, thread, &table);
    let unit = thread.weight_unit();
    let timed = unit == WeightUnit::Nanoseconds;
    let span = summary.end - summary.start;
    let total = thread.percent_base();
    let function_count = table.rows.len();
    let mut rows = sorted_rows(profile, table.rows, By::Self_);
    rows.truncate(args.limit);
    let ms = jsprof_profile::ns_to_ms;
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };

    if args.json {
        let json = SummaryJson {
            kind: profile.kind.as_str(),
            warnings: warnings_json(profile),
            duration_ms: timed.then(|| ms(span)),
            total_bytes: (unit == WeightUnit::Bytes).then_some(total),
            samples: if unit == WeightUnit::Bytes {
                thread.allocation_samples().len()
            } else {
                summary.samples
            },
            interval_ms: if timed {
                summary.interval.map(|i| i / NS_PER_MS)
            } else {
                None
            },
            threads: profile
                .threads
                .iter()
                .map(|t| ThreadJson {
                    name: t.name().to_string(),
                    pid: t.pid(),
                    tid: t.tid(),
                    samples: t.samples().len(),
                })
                .collect(),
            idle_ms: timed.then(|| ms(summary.meta.idle)),
            program_ms: timed.then(|| ms(summary.meta.program)),
            gc_ms: timed.then(|| ms(summary.meta.gc)),
            idle_percent: timed.then(|| pct(summary.meta.idle)),
            program_percent: timed.then(|| pct(summary.meta.program)),
            gc_percent: timed.then(|| pct(summary.meta.gc)),
            functions: function_count,
            top_functions: rows
                .iter()
                .map(|r| function_json(profile, unit, r, total))
                .collect(),
        };
        output::print_json(&json)?;
        return Ok(ExitCode::SUCCESS);
    }

    output::print_warnings(
        &loaded.name,
        profile
            .warnings
            .iter()
            .map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    writeln!(out, "{}  ({})", loaded.name, profile.kind.as_str())?;
    if timed {
        writeln!(out, "  duration   {}", output::fmt_ms(ms(span)))?;
        write!(out, "  samples    {}", summary.samples)?;
        match summary.interval {
            Some(i) => writeln!(out, ", every {:.3} ms on average", i / NS_PER_MS)?,
            None => writeln!(out)?,
        }
        let share = |label: &str, w: i64| {
            format!(
                "{label} {} ({})",
                output::fmt_ms(ms(w)),
                output::fmt_percent(pct(w))
            )
        };
        writeln!(
            out,
            "  time       {}, {}, {}",
            share("idle", summary.meta.idle),
            share("program", summary.meta.program),
            share("GC", summary.meta.gc)
        )?;
    } else {
        writeln!(
            out,
            "  allocated  {} in {} sampled allocations",
            output::fmt_bytes(total as f64),
            thread.allocation_samples().len()
        )?;
    }
    let threads: Vec<String> = profile
        .threads
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    writeln!(out, "  threads    {}", threads.join(", "))?;
    writeln!(out, "  functions  {function_count}")?;
    writeln!(out)?;
    writeln!(
        out,
        "Top functions by self {}:",
        if timed { "time" } else { "size" }
    )?;
    write_table(&mut out, profile, unit, &rows, total)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
