//! `jsprof events FILE`: a timeline's events, the profiler service's `GetEvents` on the command
//! line (modes, subtree, depth, types and a time window; the document is `EventsReport` in docs/json.md).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{EventData, Mode};
use jsprof_document::events::EventsQuery;

use crate::load::load_cpu;
use crate::output::{self, Align, Table};

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub query: EventsQuery,
    /// How many rows to print in the table; 0 prints all (JSON always has all).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

use jsprof_profile::ns_to_ms as ms;

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let timeline = loaded.select(args.query.thread.as_deref())?;
    let query = args.query.event_query();
    let answer = jsprof_document::events::answer(&loaded, timeline, &query)?;
    let profile = loaded.profile();
    if args.json {
        output::print_json(&jsprof_document::events::report_of(
            &loaded, timeline, &query, &answer,
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, loaded.warnings());
    let real = query.mode == Mode::All;
    let mut columns = Vec::new();
    if real {
        columns.extend([("id", Align::Right), ("start", Align::Right)]);
    }
    columns.extend([
        ("self", Align::Right),
        ("total", Align::Right),
        ("hits", Align::Right),
        ("type", Align::Left),
        ("name", Align::Left),
        ("data", Align::Left),
    ]);
    let mut table = Table::new(&columns);
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    for r in answer.rows.iter().take(limit) {
        let mut cells = Vec::new();
        if real {
            cells.push(r.id.map_or(String::new(), |i| i.to_string()));
            cells.push(r.start.map_or(String::new(), |s| output::fmt_ms(ms(s))));
        }
        let data = match r.data {
            EventData::Frame(f) => {
                let fr = profile.frames.get(f);
                output::fmt_location(profile.strings.get(fr.url), fr.line, fr.column)
            }
            EventData::Detail(s) => profile.strings.get(s).to_string(),
            EventData::None => String::new(),
        };
        let name = profile.strings.get(r.name);
        let indent = if real {
            let depth = r.id.map_or(0, |i| timeline.events[i as usize - 1].depth) as usize;
            "  ".repeat(depth.min(40))
        } else {
            String::new()
        };
        cells.extend([
            output::fmt_ms(ms(r.self_time)),
            output::fmt_ms(ms(r.total_time)),
            r.hits.to_string(),
            r.kind.as_str().to_string(),
            if real || query.mode == Mode::UniqueEvents {
                format!("{indent}{}", output::display_function_name(name))
            } else {
                String::new()
            },
            data,
        ]);
        table.row(cells);
    }
    let mut out = output::text_stdout();
    table.write(&mut out)?;
    if answer.rows.len() > limit {
        writeln!(
            out,
            "… {} more (--limit 0 for all, --json for everything)",
            answer.rows.len() - limit
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
