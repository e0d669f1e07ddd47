//! `jsprof tree FILE`: DevTools' Call tree (top-down) or, with `--bottom-up`, its Bottom-up tab;
//! with `--sandwich RE`, speedscope's sandwich of one function (its callers, then its callees).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::tree::{TreeOptions, TreeQuery, TreeView};
use jsprof_profile::Profile;

use crate::load::load_cpu;
use crate::output;

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub query: TreeQuery,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let weighted = loaded.weighted(&args.query.view)?;
    let profile = &*weighted.profile;
    let options = args.query.options();
    if let Some(pattern) = &args.query.sandwich {
        return sandwich(&loaded, &weighted, pattern, options, args.json);
    }
    let view = jsprof_document::tree::view(&weighted, options);
    if args.json {
        output::print_json(&jsprof_document::tree::report(&weighted, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, &profile.warnings);
    // Rows hidden by --min-percent or --max-depth are the user's choice; a tree with no node
    // at all is not. (A range's total is its span, so the total alone does not tell.)
    if view.tree.roots.is_empty() {
        eprintln!(
            "{}",
            crate::cmd::top::empty_note(&loaded, &weighted, &args.query.view, &args.transform)
        );
    }
    note_callers_cut(&loaded.name, view.callers_cut_at);
    let mut out = output::text_stdout();
    write_table(&mut out, profile, &view)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Says on stderr that the callers were cut at `depth` levels, when they were.
fn note_callers_cut(name: &str, cut_at: Option<u32>) {
    if let Some(depth) = cut_at {
        eprintln!(
            "note: {name}: the stacks are too deep to show every caller; callers are cut at \
             {depth} levels (--max-depth chooses the cut)"
        );
    }
}

fn sandwich(
    loaded: &jsprof_document::load::CpuInput,
    weighted: &jsprof_document::load::Weighted,
    pattern: &str,
    options: TreeOptions,
    json: bool,
) -> Result<ExitCode> {
    let profile = &*weighted.profile;
    let re = jsprof_document::tree::sandwich_pattern(pattern)?;
    let (view, rows) = jsprof_document::tree::sandwich_matching(weighted, &re, options)
        .map_err(|e| anyhow::anyhow!("{}: --sandwich: {e}", loaded.name))?;
    if json {
        output::print_json(&jsprof_document::tree::sandwich_report(
            weighted, &view, &rows,
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, &profile.warnings);
    let key = &view.function.key;
    let name = output::shown(output::display_function_name(profile.strings.get(key.name)));
    let at = output::fmt_location(profile.strings.get(key.url), key.line, key.column);
    let at = output::shown(&at);
    if !rows.is_empty() {
        eprintln!(
            "note: {}: --sandwich {pattern} matches {} functions; showing the heaviest, {name} \
             {at} (narrow the pattern for another: {})",
            loaded.name,
            rows.len() + 1,
            rows.iter()
                .take(5)
                .map(|r| output::shown(output::display_function_name(
                    profile.strings.get(r.key.name)
                )))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    note_callers_cut(&loaded.name, view.callers.callers_cut_at);
    let mut out = output::text_stdout();
    writeln!(out, "Callers of {name} {at}")?;
    write_table(&mut out, profile, &view.callers)?;
    writeln!(out)?;
    writeln!(out, "Callees of {name} {at}")?;
    write_table(&mut out, profile, &view.callees)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The human table of a tree view, shared with `lake tree`.
pub(crate) fn write_table(
    out: &mut impl Write,
    profile: &Profile,
    view: &TreeView,
) -> io::Result<()> {
    let (tree, shown, unit, total) = (&view.tree, &view.shown, view.unit, view.total);
    let mut table = output::WeightTable::new(unit, total);
    for s in shown {
        let node = &tree.nodes[s.node as usize];
        let name = output::display_function_name(profile.strings.get(node.function.name));
        table.row(
            node.self_weight,
            node.total_weight,
            format!("{}{name}", "  ".repeat(s.depth as usize)),
            output::fmt_location(
                profile.strings.get(node.function.url),
                node.function.line,
                node.function.column,
            ),
        );
    }
    table.write(out)
}
