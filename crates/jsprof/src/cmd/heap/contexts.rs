//! `jsprof heap contexts FILE`: the snapshot's JavaScript contexts (native contexts: a page's
//! frames, `vm` realms) with the bytes each owns, as DevTools' Summary "JavaScript context"
//! select lists them; `heap summary --context ID` shows one's objects.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_contexts::contexts_report;
use jsprof_heap::NativeContexts;

use super::{fmt_id, load, truncate};
use crate::output::{columns, fmt_bytes};

#[derive(clap::Args)]
pub struct ContextsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ContextsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let contexts = NativeContexts::of(&loaded.snapshot);
    let report = contexts_report(&loaded.snapshot, &loaded.analysis, &contexts);
    loaded.emit(args.json, &report, |out| {
        columns(&report.contexts)
            .right("Id", |c| fmt_id(c.id))
            .left("Context", |c| truncate(&c.name, 80))
            .right("Attributed", |c| fmt_bytes(c.attributed_size as f64))
            .right("Self size", |c| fmt_bytes(c.self_size as f64))
            .right("Retained size", |c| fmt_bytes(c.retained_size as f64))
            .write(out)?;
        writeln!(
            out,
            "shared between contexts: {}; in no context: {}",
            fmt_bytes(report.shared_size as f64),
            fmt_bytes(report.unattributed_size as f64)
        )?;
        writeln!(
            out,
            "one context's Summary: jsprof heap summary FILE --context ID (or shared, none)"
        )
    })
}
