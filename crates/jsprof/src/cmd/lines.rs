//! `jsprof lines FILE --function RE`: a function's source with the self time of each line, as
//! DevTools' Sources gutter shows it (a `.cpuprofile`'s `positionTicks`, a Chromium trace's
//! per-sample `lines`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_document::lines::{LocalFiles, NoSource, Select, SourceReader};
use jsprof_document::load::ViewSpec;

use crate::load::load_cpu;
use crate::output::{self, fmt_ms, fmt_percent};

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile or a Chromium trace (gzip too; `-` for stdin): V8 writes lines in those
    /// (`positionTicks`; a trace's `ProfileChunk` `lines`).
    pub file: PathBuf,
    /// The functions whose name this regular expression matches (names as `top` prints them;
    /// anchor it, `^scan$`, for one name).
    #[arg(long, value_name = "RE")]
    pub function: String,
    /// How many matching functions to show, by self time; 0 shows all.
    #[arg(long, default_value_t = 5)]
    pub limit: usize,
    /// Source lines shown before the function and after its last line with ticks.
    #[arg(long, default_value_t = jsprof_document::lines::DEFAULT_CONTEXT)]
    pub context: u32,
    /// Print only the lines with ticks; do not read the source files.
    #[arg(long)]
    pub no_source: bool,
    /// For a file with several threads: the thread (a timeline_id from `jsprof threads`, a tid
    /// or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let pattern = regex::Regex::new(&args.function)
        .with_context(|| format!("--function {:?} is not a regular expression", args.function))?;
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    // Lines count the whole recording (no --range), and on a trace they belong to the CPU
    // samples, not to the Performance panel's entries.
    let weighted = loaded.weighted(&ViewSpec {
        thread: args.thread.clone(),
        range: None,
        samples: true,
    })?;
    let select = Select::Name {
        pattern,
        limit: args.limit,
    };
    // The user's own files: any local file the profile names.
    let mut files = LocalFiles {
        allowed: |p: &std::path::Path| Ok(p.to_path_buf()),
    };
    let mut none = NoSource;
    let source: &mut dyn SourceReader = if args.no_source {
        &mut none
    } else {
        &mut files
    };
    let doc = jsprof_document::lines::report(&weighted, &select, args.context, source)
        .with_context(|| loaded.name.clone())?;
    if args.json {
        output::print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, &weighted.profile.warnings);
    if let Some(note) = &doc.note {
        eprintln!("{}: {note}", loaded.name);
    }
    let mut out = output::text_stdout();
    for (i, f) in doc.functions.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let name = output::shown(output::display_function_name(&f.function.name));
        let at = |v: Option<u32>| v.map_or("?".to_string(), |v| v.to_string());
        writeln!(
            out,
            "{name}  {}:{}:{}",
            output::shown(&f.function.url),
            at(f.function.line),
            at(f.function.column)
        )?;
        let w = &f.function.weights;
        // A trace's lines are samples, each weighing the interval before it.
        let counted = match doc.line_source {
            Some("sample_lines") => "samples with a line",
            _ => "line ticks",
        };
        writeln!(
            out,
            "  self {} ({}), total {} ({}); {} {counted} = {}",
            fmt_ms(w.self_ms.unwrap_or(0.0)),
            fmt_percent(w.self_percent),
            fmt_ms(w.total_ms.unwrap_or(0.0)),
            fmt_percent(w.total_percent),
            f.ticks,
            fmt_ms(f.lines_self_ms)
        )?;
        match (&f.source_file, &f.source_note) {
            (Some(file), _) => writeln!(out, "  source {}", output::shown(file))?,
            (None, Some(why)) => writeln!(out, "  no source: {}", output::shown(why))?,
            (None, None) => {}
        }
        let cells: Vec<(String, String, String)> = f
            .lines
            .iter()
            .map(|l| {
                let (ms, pct) = if l.ticks > 0 {
                    (fmt_ms(l.self_ms), fmt_percent(l.self_percent))
                } else {
                    (String::new(), String::new())
                };
                (ms, pct, l.line.to_string())
            })
            .collect();
        let wms = cells.iter().map(|c| c.0.len()).max().unwrap_or(0).max(4);
        let wpct = cells.iter().map(|c| c.1.len()).max().unwrap_or(0).max(6);
        let wline = cells.iter().map(|c| c.2.len()).max().unwrap_or(0).max(4);
        writeln!(
            out,
            "  {:>wms$}  {:>wpct$}  {:>wline$}",
            "Self", "Self %", "Line"
        )?;
        // A long function (a bundle's module wrapper spans thousands of lines) is shown as its
        // first line and the lines within --context of a line with samples; each run left out
        // is one line saying how long it is (the JSON keeps every line).
        let near: Vec<u32> = f
            .lines
            .iter()
            .filter(|l| l.ticks > 0)
            .map(|l| l.line)
            .collect();
        let shown = |line: u32| {
            Some(line) == f.function.line || near.iter().any(|&t| line.abs_diff(t) <= args.context)
        };
        let fold = |out: &mut output::TextOut, skipped: usize| {
            if skipped == 0 {
                return Ok(());
            }
            let w = wms + wpct + wline + 4;
            writeln!(out, "  {:>w$} ⋮ {skipped} lines without samples", "")
        };
        let mut skipped = 0usize;
        for (l, (ms, pct, line)) in f.lines.iter().zip(&cells) {
            if !shown(l.line) {
                skipped += 1;
                continue;
            }
            fold(&mut out, skipped)?;
            skipped = 0;
            let marker = if Some(l.line) == f.hottest_line {
                '▶'
            } else {
                '│'
            };
            let text = expand_tabs(l.text.as_deref().unwrap_or(""));
            let row = format!("  {ms:>wms$}  {pct:>wpct$}  {line:>wline$} {marker} {text}");
            writeln!(out, "{}", row.trim_end())?;
        }
        fold(&mut out, skipped)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A source line with its tabs expanded to stops every 8 columns, as a terminal shows them (the
/// text output escapes control characters, tabs among them).
fn expand_tabs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\t') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut column = 0;
    for c in text.chars() {
        if c == '\t' {
            let n = 8 - column % 8;
            out.extend(std::iter::repeat_n(' ', n));
            column += n;
        } else {
            out.push(c);
            column += 1;
        }
    }
    out.into()
}
