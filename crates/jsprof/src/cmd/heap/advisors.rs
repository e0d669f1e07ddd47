//! `jsprof heap advisors FILE`: memory the program could give back, largest saving first.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_advisors::{advisors_report, script_sources};
use jsprof_document::lines::LocalFiles;

use super::{fmt_id, load, truncate};
use crate::output::{columns, fmt_bytes};

#[derive(clap::Args)]
pub struct AdvisorsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// How many findings to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Leave out findings that would save fewer bytes.
    #[arg(long, default_value_t = 1024)]
    pub min_saving: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AdvisorsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let index = jsprof_heap::RetainerIndex::new(&loaded.snapshot);
    let report = advisors_report(
        &loaded.snapshot,
        &loaded.analysis,
        &index,
        args.min_saving,
        args.limit,
        // The scripts the snapshot names, where they are local files (`jsprof lines`' rule).
        &mut script_sources(LocalFiles {
            allowed: |p: &std::path::Path| Ok(p.to_path_buf()),
        }),
    );
    loaded.emit(args.json, &report, |out| {
        columns(&report.advice)
            .left("Advisor", |f| f.advisor.replace('_', " "))
            .left("Class", |f| {
                let mut class = match (&f.value, f.entries, f.distinct_values) {
                    (Some(value), _, _) => format!("{:?}", truncate(value, 40)),
                    (None, Some(n), Some(d)) => {
                        format!("{} ({n} entries, {d} values)", truncate(&f.class, 30))
                    }
                    _ => truncate(&f.class, 40),
                };
                if f.smi_blind {
                    class.push_str(" *");
                }
                class
            })
            .left("Held by", |f| truncate(&f.held_by, 40))
            .right("Count", |f| f.count.to_string())
            .right("Saving", |f| fmt_bytes(f.saving as f64))
            .right("Sample", |f| fmt_id(f.sample_id))
            .write(out)?;
        writeln!(
            out,
            "{} findings, {} in all{}",
            report.total,
            fmt_bytes(report.total_saving as f64),
            if report.advice.iter().any(|f| f.smi_blind) {
                "; * small integers are not in snapshots: such objects may differ only in them"
            } else {
                ""
            }
        )
    })
}
