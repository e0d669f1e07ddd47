//! `jsprof events FILE`: a timeline's events, the profiler service's `GetEvents` on the command
//! line (modes, subtree, depth, types and a time window; the document is `EventsReport` in docs/json.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{EventData, Mode};
use jsprof_document::events::EventsQuery;

use crate::load::load_cpu;
use crate::output::{self, columns};

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
        output::print_json(&jsprof_document::events::stream(
            &loaded, timeline, &query, &answer,
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, loaded.warnings());
    let real = query.mode == Mode::All;
    let limit = output::limit_or_all(args.limit);
    let rows = &answer.rows[..answer.rows.len().min(limit)];
    let table = columns(rows);
    // Each event where it is in the timeline: its id, start and depth.
    let table = match real {
        true => table
            .right("id", |r| r.id.map_or(String::new(), |i| i.to_string()))
            .right("start", |r| {
                r.start.map_or(String::new(), |s| output::fmt_ms(ms(s)))
            }),
        false => table,
    };
    let named = real || query.mode == Mode::UniqueEvents;
    let table = table
        .right("self", |r| output::fmt_ms(ms(r.self_time)))
        .right("total", |r| output::fmt_ms(ms(r.total_time)))
        .right("hits", |r| r.hits.to_string())
        .left("type", |r| r.kind.as_str().to_string())
        .left("name", move |r| {
            let name = output::display_function_name(profile.strings.get(r.name));
            let depth = match (real, r.id) {
                (true, Some(i)) => timeline.events[i as usize - 1].depth as usize,
                _ => 0,
            };
            match named {
                true => format!("{}{name}", "  ".repeat(depth.min(40))),
                false => String::new(),
            }
        })
        .left("data", |r| match r.data {
            EventData::Frame(f) => {
                let fr = profile.frames.get(f);
                output::fmt_location(profile.strings.get(fr.url), fr.line, fr.column)
            }
            EventData::Detail(s) => profile.strings.get(s).to_string(),
            EventData::None => String::new(),
        });
    output::to_stdout(|out| {
        table.write(out)?;
        let more = "more (--limit 0 for all, --json for everything)";
        output::write_more(out, answer.rows.len() - rows.len(), more)
    })?;
    Ok(ExitCode::SUCCESS)
}
