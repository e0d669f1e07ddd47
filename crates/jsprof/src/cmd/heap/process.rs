//! `jsprof heap process DIR|SNAPSHOT…`: a Node process's memory, isolate by isolate — each one's
//! JS heap and external buffers with their owners, and the RSS none of them explains
//! (`jsprof_document::process_memory`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_document::process_memory::{
    isolates, memory_file_name, no_memory_file, report, MemoryUsageFile, ProcessMemoryReport,
    ReadIsolate,
};

use super::{fmt_id, load, truncate};
use crate::input;
use crate::output::{self, columns, fmt_bytes};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof record --heap-snapshot -o mem -- node server.js   # every isolate, and its memoryUsage()
  jsprof heap process mem/
  jsprof heap process mem/ --json | jq '.processes[].unexplained'")]
pub struct ProcessArgs {
    /// The snapshots of a process and its workers, or a directory of them (`record
    /// --heap-snapshot`'s output). Files are told apart by the names `record` writes
    /// (`STEM`, `STEM-workerN`, `…-K` with `--every`); each isolate's latest snapshot is read,
    /// with the `STEM.memory.json` beside it when there is one.
    #[arg(required = true, value_name = "SNAPSHOT|DIR")]
    pub snapshots: Vec<PathBuf>,
    /// How many owners of external buffers to list per isolate; 0 lists all.
    #[arg(long, default_value_t = 5)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The snapshot files given, directories listed.
fn snapshot_files(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in given {
        if p.is_dir() {
            files.extend(super::leaks::list_snapshots(p)?);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// The process document of these snapshots (or directories of them), `limit` owners per isolate:
/// each isolate's latest snapshot with the memory-usage file beside it — what `heap process`
/// prints and `jsprof report DIR` embeds.
pub(crate) fn process_report(given: &[PathBuf], limit: usize) -> Result<ProcessMemoryReport> {
    let files: Vec<(String, PathBuf)> = snapshot_files(given)?
        .into_iter()
        .map(|p| {
            let name = p.file_name().map_or_else(
                || input::display_name(&p),
                |n| n.to_string_lossy().to_string(),
            );
            (name, p)
        })
        .collect();
    let mut warnings = Vec::new();
    let mut read = Vec::new();
    for isolate in isolates(files) {
        let (file, name) = isolate.latest();
        let memory_path = file.with_file_name(memory_file_name(name));
        let memory = match std::fs::read(&memory_path) {
            Ok(text) => {
                let shown = memory_path.display().to_string();
                Some(MemoryUsageFile::parse(&shown, &text).map_err(anyhow::Error::msg)?)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                warnings.push(no_memory_file(name));
                None
            }
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", memory_path.display()))
            }
        };
        let loaded = load(file)?;
        output::warn(&loaded.name, &loaded.snapshot.warnings);
        read.push(ReadIsolate::new(
            &isolate.key,
            name,
            isolate.files.len(),
            &loaded.snapshot,
            &loaded.analysis,
            memory.as_ref(),
            limit,
        ));
    }
    Ok(report(read, warnings))
}

pub fn run(args: ProcessArgs) -> Result<ExitCode> {
    let doc = process_report(&args.snapshots, args.limit)?;
    output::emit(args.json, &doc, |out| {
        output::warn("heap process", &doc.warnings);
        for p in &doc.processes {
            let pid = p.pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
            writeln!(out, "{}{pid}", p.process)?;
            if let (Some(rss), Some(heaps), Some(external), Some(rest)) =
                (p.rss, p.js_heaps, p.external, p.unexplained)
            {
                writeln!(
                    out,
                    "  RSS {} = V8 heaps {} + external {} + not explained by any isolate {}",
                    fmt_bytes(rss as f64),
                    fmt_bytes(heaps as f64),
                    fmt_bytes(external as f64),
                    signed(rest),
                )?;
            }
            let usage =
                |i: &jsprof_document::process_memory::IsolateJson,
                 f: fn(&jsprof_document::process_memory::MemoryUsage) -> u64| {
                    i.memory_usage
                        .as_ref()
                        .map_or("-".to_string(), |m| fmt_bytes(f(m) as f64))
                };
            columns(&p.isolates)
                .left("Isolate", |i| i.isolate.clone())
                .right("JS heap", |i| fmt_bytes(i.js_heap as f64))
                .right("heapUsed", |i| usage(i, |m| m.heap_used))
                .right("heapTotal", |i| usage(i, |m| m.heap_total))
                .right("Buffers", |i| fmt_bytes(i.external_buffers as f64))
                .right("arrayBuffers", |i| usage(i, |m| m.array_buffers))
                .right("external", |i| usage(i, |m| m.external))
                .left("Snapshot", |i| {
                    format!("{} (of {})", i.snapshot, i.snapshots)
                })
                .write(out)?;
            for i in &p.isolates {
                if i.owners.is_empty() {
                    continue;
                }
                writeln!(out, "  {}'s buffers are owned by:", i.isolate)?;
                for o in &i.owners {
                    let sample = o.sample_id.map(|id| format!(", e.g. {}", fmt_id(id)));
                    writeln!(
                        out,
                        "    {:>10}  {} ({} buffer{}{})",
                        fmt_bytes(o.bytes as f64),
                        truncate(&o.class, 60),
                        o.count,
                        if o.count == 1 { "" } else { "s" },
                        sample.unwrap_or_default()
                    )?;
                }
            }
        }
        Ok(())
    })
}

fn signed(v: i64) -> String {
    if v < 0 {
        format!("-{}", fmt_bytes(v.unsigned_abs() as f64))
    } else {
        fmt_bytes(v as f64)
    }
}
