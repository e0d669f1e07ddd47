//! `jsprof heap leaks BASE TARGET FINAL`: objects created between BASE and TARGET that FINAL still
//! holds, grouped by class and retaining path.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap::{leaks_order_of, leaks_report_of, LeakSide, LeaksOptions, Named};

use super::{fmt_path, load, truncate};
use crate::input;
use crate::output::{self, fmt_bytes, Align, Table};
use crate::progress::Spinner;

/// How `heap leaks` writes a retaining path (also in docs/heap.md, "Path notation").
const PATH_NOTATION: &str = "\
Path notation (root side first; each step is a retainer's class, then the edge to the next):
  .name        a property (`global.keeper`); [\"a b\"] when the name is not an identifier
  []           an array element, its index folded (`Array[]`, `(object elements)[]`)
  {}           a hidden edge or a numbered internal slot, folded: a Map's or Set's hash-table
               entry reads `Map{table} → (array){}`
  {name}       a V8 internal edge (`{table}`, `{context}`, `{shared}`)
  ->name       a variable captured by a closure, held by its context (`system / Context->cache`)
  (GC roots)   a synthetic node (class `(synthetic)` in the Summary), by its name; a path
               through `(GC roots)`, `(Global handles)`, … is held by V8 or native code, not by
               JavaScript (`(Global handles)[]`: a handle native code holds)
An anonymous closure is named by where its function was defined: `(anonymous) app.js:12:5`.
Groups: every leaked object whose path has the same shape (indexes folded) is one group; objects
held only through another leaked object (other than an Array, Map or Set) belong to that
object's group (its retained size counts them).
Order: the snapshots are put in the process's order by their object ids (V8 numbers objects from
one growing counter), with a warning when they were given otherwise, and a warning when two are
not of one process.";

#[derive(clap::Args)]
#[command(after_long_help = PATH_NOTATION)]
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

pub fn run(args: LeaksArgs) -> Result<ExitCode> {
    let paths = [&args.base, &args.target, &args.last];
    let names = paths.map(|p| input::display_name(p));
    // One graph at a time (issue 17): each snapshot is read (or its index opened) and reduced to
    // its ids; FINAL's graph is kept when it was given last, as it normally is, and read again
    // otherwise, once the ids have said which one it is.
    let mut sides = Vec::with_capacity(3);
    let mut last_given = None;
    for (i, path) in paths.into_iter().enumerate() {
        let loaded = load(path)?;
        sides.push(LeakSide::of(&names[i], &loaded.snapshot));
        if i == 2 {
            last_given = Some(loaded);
        }
    }
    let order = leaks_order_of([
        &sides[0].identities,
        &sides[1].identities,
        &sides[2].identities,
    ]);
    if order[2] != 2 {
        last_given = None;
    }
    let last = match last_given {
        Some(loaded) => loaded,
        None => load(paths[order[2]])?,
    };
    let report = {
        let _spinner = Spinner::start("grouping the leaked objects".to_string());
        leaks_report_of(
            &sides[order[0]],
            &sides[order[1]],
            Named {
                name: &names[order[2]],
                snapshot: &last.snapshot,
                analysis: &last.analysis,
            },
            order,
            LeaksOptions {
                min_retained: args.min_retained,
                limit: args.limit,
            },
        )
    };
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (warnings, groups) = (&report.warnings, &report.groups);
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
    for g in groups {
        table.row(vec![
            truncate(&g.class, 40),
            g.count.to_string(),
            fmt_bytes(g.retained_size as f64),
            format!("@{}", g.sample_id),
            fmt_path(g.path.iter().map(|p| (p.class.as_str(), p.edge.as_str()))),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
