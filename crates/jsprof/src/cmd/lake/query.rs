//! `lake ls`, `lake top`, `lake tree` and `lake sql`: the selection's profiles, functions and
//! merged tree, and read-only SQL over the views.

use std::borrow::Cow;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::lake as lake_doc;
use jsprof_document::lake_query::{LakeTopQuery, LakeTreeQuery};
use jsprof_document::load::{WeightSource, Weighted};
use jsprof_lake::query;
use jsprof_lake::Lake;

use super::{merged, selection, to_u32, UnitArg, Where};
use crate::output::{self, columns};

#[derive(clap::Args)]
pub struct QueryArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub selection: Where,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TopArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub query: LakeTopQuery,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TreeArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub query: LakeTreeQuery,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct SqlArgs {
    pub lake: PathBuf,
    /// One read-only query (SELECT, WITH, EXPLAIN) over the views.
    pub sql: String,
    /// Memory the query's sorts, aggregates and joins may hold, and the largest result a
    /// function such as `repeat` may make (bytes, or with K, M, G); past it the query fails.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = crate::size_arg::parse_size)]
    pub max_memory: u64,
    /// Seconds the query may run (opening the lake included); past them it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Print JSON (one object per row) instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run_ls(a: QueryArgs) -> Result<ExitCode> {
    let sel = selection(&a.selection)?;
    let rows = with_reader!(&a.lake, &sel, |r| query::ls(r, &sel))?;
    if a.json {
        let profiles = rows.into_iter().map(profile_json).collect();
        output::print_json(&lake_doc::LakeLsReport::new(profiles))?;
        return Ok(ExitCode::SUCCESS);
    }
    let table = columns(&rows)
        .left("Profile", |p| p.profile_id.clone())
        .left("Kind", |p| p.kind.clone())
        .left("Source", |p| p.source_name.clone())
        .left("Thread", |p| p.thread.clone().unwrap_or_default())
        .left("Start", |p| {
            p.start_time.clone().unwrap_or_else(|| "-".into())
        })
        .right("Duration", |p| match p.weight_unit.as_str() {
            "bytes" => "-".into(),
            _ => output::fmt_ms(p.duration_us / 1000.0),
        })
        .right("Samples", |p| p.sample_count.to_string())
        .left("Labels", |p| {
            let labels: Vec<String> = p.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            labels.join(" ")
        });
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}

/// A profile of `lake ls` as its document lists it.
fn profile_json(p: query::ProfileInfo) -> lake_doc::LakeProfileJson {
    lake_doc::LakeProfileJson {
        profile_id: p.profile_id,
        kind: p.kind,
        source_name: p.source_name,
        thread: p.thread,
        start_time: p.start_time,
        duration_ms: p.duration_us / 1000.0,
        sample_count: p.sample_count,
        weight_unit: p.weight_unit,
        labels: p.labels,
        added_at: p.added_at,
    }
}

pub(super) fn run_top(a: TopArgs) -> Result<ExitCode> {
    let sel = selection(&a.query.selection)?;
    let unit = a.query.unit.map(UnitArg::as_str);
    let answer = with_reader!(&a.lake, &sel, |r| query::top(r, &sel, unit))?;
    if let Some(note) = &answer.note {
        eprintln!("note: {note}");
    }
    let functions = answer.rows.iter().map(|r| lake_doc::LakeFunction {
        name: &r.name,
        url: &r.url,
        line: to_u32(r.line),
        column: to_u32(r.column),
        self_weight: r.self_weight,
        total_weight: r.total_weight,
    });
    let view = lake_doc::top_view(
        lake_doc::weight_unit(&answer.unit),
        answer.total,
        answer.profiles,
        functions,
        a.query.by,
        a.query.limit,
    );
    if a.json {
        output::print_json(&lake_doc::top_report(&view, &answer.unit))?;
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{} profiles", view.profiles);
    output::to_stdout(|out| {
        crate::cmd::top::write_table(out, &view.profile, view.unit, &view.rows, view.total)
    })?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_tree(a: TreeArgs) -> Result<ExitCode> {
    let sel = selection(&a.query.selection)?;
    let (profile, _) = merged(&a.lake, &sel, a.query.unit.map(UnitArg::as_str))?;
    let weighted = Weighted {
        profile: Cow::Owned(profile),
        thread: 0,
        source: WeightSource::Samples,
    };
    let view = jsprof_document::tree::view(&weighted, a.query.options());
    if a.json {
        output::print_json(&jsprof_document::tree::report(&weighted, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::to_stdout(|out| crate::cmd::tree::write_table(out, &weighted.profile, &view))?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_sql(a: SqlArgs) -> Result<ExitCode> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        anyhow::bail!("--timeout needs a positive number of seconds");
    }
    let limits = jsprof_lake::Limits {
        max_memory: usize::try_from(a.max_memory).unwrap_or(usize::MAX).max(1),
        timeout: std::time::Duration::from_secs_f64(a.timeout.min(1e9)),
    };
    let lake = Lake::open(&a.lake)?;
    let (batches, warnings) = jsprof_lake::read::sql(&lake, &a.sql, &limits)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if a.json {
        let rows = jsprof_lake::query::rows_json(&batches)?;
        output::print_json(&lake_doc::LakeSqlReport::new(rows))?;
        return Ok(ExitCode::SUCCESS);
    }
    let columns: Vec<String> = batches
        .first()
        .map(|b| {
            b.schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect()
        })
        .unwrap_or_default();
    let rows = jsprof_lake::query::rows_json(&batches)?;
    output::to_stdout(|out| sql_table(&columns, &rows).write(out))?;
    Ok(ExitCode::SUCCESS)
}

/// `lake sql`'s rows as a table like every other (the cells are the lake's — function names,
/// labels — so they are escaped as every table's are): numbers right-aligned, NULL empty.
fn sql_table(columns: &[String], rows: &[serde_json::Value]) -> output::Table {
    let numeric = |c: &String| {
        rows.iter().all(|r| {
            matches!(
                r.get(c),
                None | Some(serde_json::Value::Null | serde_json::Value::Number(_))
            )
        })
    };
    let aligns: Vec<(&str, output::Align)> = columns
        .iter()
        .map(|c| {
            let align = if numeric(c) {
                output::Align::Right
            } else {
                output::Align::Left
            };
            (c.as_str(), align)
        })
        .collect();
    let mut table = output::Table::new(&aligns);
    for row in rows {
        table.row(
            columns
                .iter()
                .map(|c| match row.get(c) {
                    None | Some(serde_json::Value::Null) => String::new(),
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                })
                .collect(),
        );
    }
    table
}
