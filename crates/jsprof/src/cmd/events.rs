//! `jsprof events FILE`: a timeline's events, the profiler service's `GetEvents` on the command
//! line (modes, subtree, depth, types and a time window; see CONTRACT.md).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{EventData, EventQuery, EventType, Mode};

use crate::load::load_cpu;
use crate::output::{self, Align, Table};
use jsprof_document::events::parse_window;

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The timeline: a timeline_id from `jsprof threads`, a tid or a unique thread name.
    #[arg(long)]
    pub thread: Option<String>,
    /// all | unique-types | unique-events | reduce-all.
    #[arg(long, default_value = "all", value_parser = parse_mode)]
    pub mode: Mode,
    /// Events overlapping START..END (ms; either side may be empty) are returned whole.
    #[arg(long, value_parser = parse_window)]
    pub range: Option<(Option<i64>, Option<i64>)>,
    /// Iterate from this event id instead of the timeline's root (the event itself is left out).
    #[arg(long = "event")]
    pub event: Option<u32>,
    /// 1 = top-level events only (with --event: its children).
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Only these types (comma-separated), e.g. `JS_CALL,GC`.
    #[arg(long = "type", value_delimiter = ',', value_parser = parse_type)]
    pub types: Vec<EventType>,
    /// How many rows to print in the table; 0 prints all (JSON always has all).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

use jsprof_document::events::{parse_mode, parse_type};

use jsprof_profile::ns_to_ms as ms;

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let timeline = loaded.select(args.thread.as_deref())?;
    let (start, end) = args.range.unwrap_or((None, None));
    let query = EventQuery {
        mode: args.mode,
        start,
        end,
        event_id: args.event,
        max_depth: args.max_depth,
        types: args.types.clone(),
    };
    let answer = jsprof_document::events::answer(&loaded, timeline, &query)?;
    let profile = loaded.profile();
    if args.json {
        output::print_json(&jsprof_document::events::report_of(
            &loaded, timeline, &query, &answer,
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, loaded.warnings());
    let real = args.mode == Mode::All;
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
            if real || args.mode == Mode::UniqueEvents {
                format!("{indent}{}", output::display_function_name(name))
            } else {
                String::new()
            },
            data,
        ]);
        table.row(cells);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
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
