//! `jsprof summary FILE`: what a profile holds and where its time (or memory) went.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::load::Pipeline;
use jsprof_profile::Format;

use crate::cmd::top::{write_table, NS_PER_MS};
use crate::load::{detect_format, load_cpu};
use crate::output;

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
    /// The Performance panel's Summary of a selection: the thread's time in START..END (ms from
    /// the input's time origin, either side may be empty) by DevTools' categories.
    #[arg(long, value_name = "START..END", value_parser = crate::range_arg::parse)]
    pub range: Option<jsprof_analysis::TimeRange>,
    /// That Summary by category over the whole recording (`--range ..`).
    #[arg(long)]
    pub categories: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if detect_format(&args.file)? == Some(Format::HeapSnapshot) {
        // A heap snapshot's overview is its Summary (classes by retained size).
        return crate::cmd::heap::run(crate::cmd::heap::HeapCommand::Summary(
            crate::cmd::heap::SummaryArgs {
                file: args.file,
                query: jsprof_document::heap_query::HeapSummaryQuery {
                    limit: args.limit,
                    ..Default::default()
                },
                between: None,
                source_maps: Default::default(),
                json: args.json,
            },
        ));
    }
    let loaded = load_cpu(&args.file, &Pipeline::default())?;
    if args.range.is_some() || args.categories {
        return by_category(&loaded, &args);
    }
    let summary = jsprof_document::summary::summary(&loaded, args.thread.as_deref(), args.limit)?;
    if args.json {
        output::print_json(&summary.report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let stats = &summary.samples;
    let report = &summary.report;
    let profile = loaded.profile();
    let timed = report.duration_ms.is_some();
    let span = stats.end - stats.start;
    let total = if timed { span } else { stats.total_weight };
    let ms = |ns: i64| ns as f64 / NS_PER_MS;
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    output::warn(&loaded.name, &profile.warnings);
    let mut out = output::text_stdout();
    writeln!(out, "{}  ({})", loaded.name, profile.kind.as_str())?;
    if timed {
        writeln!(out, "  duration   {}", output::fmt_ms(ms(span)))?;
        write!(out, "  samples    {}", stats.samples)?;
        match stats.interval {
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
            share("idle", stats.meta.idle),
            share("program", stats.meta.program),
            share("GC", stats.meta.gc)
        )?;
    } else {
        writeln!(
            out,
            "  allocated  {} in {} sampled allocations",
            output::fmt_bytes(total as f64),
            report.samples
        )?;
    }
    let threads: Vec<String> = profile
        .threads
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    writeln!(out, "  threads    {}", threads.join(", "))?;
    writeln!(out, "  functions  {}", report.functions)?;
    if let Some(p) = &report.page {
        let metric = |v: Option<f64>, r: &Option<String>| match (v, r) {
            (Some(v), Some(r)) => format!("{} ({r})", output::fmt_ms(v)),
            _ => "-".to_string(),
        };
        writeln!(
            out,
            "  page       {}: LCP {}, CLS {:.3} ({}), INP {}",
            p.url,
            metric(p.lcp_ms, &p.lcp_rating),
            p.cls,
            p.cls_rating,
            metric(p.inp_ms, &p.inp_rating)
        )?;
        if let Some(w) = &p.worst_insight {
            writeln!(out, "  worst insight  {w}")?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Top functions by self {}:",
        if timed { "time" } else { "size" }
    )?;
    let top = &summary.top;
    write_table(
        &mut out,
        &summary.top_of.profile,
        top.unit,
        &top.rows,
        top.total,
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `--range A..B` / `--categories`: the selection's time by category, as the UI's Summary panel.
fn by_category(loaded: &jsprof_document::load::CpuInput, args: &Args) -> Result<ExitCode> {
    let doc = jsprof_document::selection_summary::document(
        loaded,
        args.thread.as_deref(),
        args.range.unwrap_or_default(),
    )?;
    if args.json {
        output::print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, &loaded.profile().warnings);
    let mut out = output::text_stdout();
    writeln!(
        out,
        "{}  thread {}, {}..{} ({})",
        loaded.name,
        doc.thread,
        output::fmt_ms(doc.start_ms),
        output::fmt_ms(doc.end_ms),
        output::fmt_ms(doc.total_ms)
    )?;
    for c in &doc.categories {
        writeln!(
            out,
            "  {:<11}{:>12}{:>9}",
            c.title,
            output::fmt_ms(c.ms),
            output::fmt_percent(c.percent)
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
