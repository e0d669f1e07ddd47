//! `jsprof heap leaks BASE TARGET FINAL`: objects created between BASE and TARGET that FINAL still
//! holds, grouped by class and retaining path.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_heap::leaks;
use serde::Serialize;

use super::{load, read_only, truncate};
use crate::output::{self, fmt_bytes, Align, JsonWarning, Table};

#[derive(clap::Args)]
pub struct LeaksArgs {
    /// Before the action under suspicion.
    pub base: PathBuf,
    /// After the action.
    pub target: PathBuf,
    /// Later again (after undoing the action, or repeating it).
    pub last: PathBuf,
    /// Hide groups retaining less than this many bytes in FINAL.
    #[arg(long, default_value_t = 0)]
    pub min_retained: u64,
    /// How many groups to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct StepJson {
    edge: String,
    class: String,
}

#[derive(Serialize)]
struct GroupJson {
    class: String,
    count: u64,
    retained_size: u64,
    /// From the root side to the leaked object: each node's class and the edge to the next.
    path: Vec<StepJson>,
    sample_id: u32,
}

#[derive(Serialize)]
struct LeaksJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    groups: Vec<GroupJson>,
}

pub fn run(args: LeaksArgs) -> Result<ExitCode> {
    let (base_name, base) = read_only(&args.base)?;
    let (target_name, target) = read_only(&args.target)?;
    let last = load(&args.last)?;
    let mut groups = leaks(&base, &target, &last.snapshot, &last.analysis);
    groups.retain(|g| g.retained_size >= args.min_retained);
    if args.limit > 0 {
        groups.truncate(args.limit);
    }
    let named = |name: &str, s: &jsprof_heap::HeapSnapshot| -> Vec<JsonWarning> {
        s.warnings
            .iter()
            .map(|w| JsonWarning {
                at: w.at.clone(),
                message: format!("{name}: {}", w.message),
            })
            .collect()
    };
    let mut warnings = named(&base_name, &base);
    warnings.extend(named(&target_name, &target));
    warnings.extend(last.warnings_json_named());
    let s = &last.snapshot;
    if args.json {
        output::print_json(&LeaksJson {
            kind: s.kind(),
            warnings,
            groups: groups
                .into_iter()
                .map(|g| GroupJson {
                    class: g.class,
                    count: g.count,
                    retained_size: g.retained_size,
                    path: g
                        .path
                        .into_iter()
                        .map(|p| StepJson {
                            edge: p.edge,
                            class: p.class,
                        })
                        .collect(),
                    sample_id: s.nodes.id[g.sample as usize],
                })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    output::print_warnings(
        "heap leaks",
        warnings.iter().map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let mut table = Table::new(&[
        ("Class", Align::Left),
        ("Count", Align::Right),
        ("Retained size", Align::Right),
        ("Sample", Align::Right),
        ("Retained through", Align::Left),
    ]);
    for g in &groups {
        let path = g
            .path
            .iter()
            .map(|p| format!("{}{}", truncate(&p.class, 30), p.edge))
            .collect::<Vec<_>>()
            .join(" → ");
        table.row(vec![
            truncate(&g.class, 40),
            g.count.to_string(),
            fmt_bytes(g.retained_size as f64),
            format!("@{}", s.nodes.id[g.sample as usize]),
            if path.is_empty() {
                "-".to_string()
            } else {
                path
            },
        ]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
