//! `jsprof report FILE [-o report.html]`: one self-contained HTML file — the browser UI with the
//! views precomputed and embedded (call trees, function table, flame graph, the flame chart's
//! calls down to a size that keeps the file small, a heap snapshot's Summary with its largest
//! objects and their retainers). No server, no network: it opens from disk, for CI artifacts
//! and bug reports.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use jsprof_document::chart::{self, ChartWindow, TreeLimits};
use jsprof_document::heap_pages::{self, HeapDocLimits};
use jsprof_heap::{Analysis, HeapSnapshot};
use jsprof_profile::Format;
use serde_json::{json, Value};

use crate::input;
use crate::output;
use crate::transform_args::TransformArgs;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof report app.cpuprofile                      # writes app.cpuprofile.html
  jsprof report trace.json.gz --thread 3 -o t.html
  jsprof report app.cpuprofile --focus '^render$' --hide-idle   # filters baked in
  jsprof report leak.heapsnapshot -o leak.html
  jsprof report before.heapsnapshot after.heapsnapshot      # + Comparison (heap diff)
  jsprof report base.heapsnapshot target.heapsnapshot final.heapsnapshot   # + Leaks
  jsprof report snaps/*.heapsnapshot -o leaks.html      # 4+: Leaks series with charts
  jsprof record --heap-snapshot -o mem -- node server.js && jsprof report mem/
                                  # every isolate's memory, the main thread's views
  jsprof report mem/ --isolate worker3 -o w3.html      # worker 3's series instead")]
pub struct Args {
    /// A .cpuprofile, Chrome trace, JS Self-Profiling trace, .heapprofile or .heapsnapshot (gzip
    /// too); `-` for stdin. Several heap snapshots of one process, oldest first: the report opens
    /// on the last, with its Comparison against the one before; three add Leaks (`heap leaks
    /// BASE TARGET FINAL`), four or more the Leaks series with each group's verdict and chart.
    /// A directory `record --heap-snapshot` wrote: the process's memory, isolate by isolate
    /// (`heap process DIR`), and its main thread's latest snapshot (with `--every`, its series).
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Where to write the HTML (default: the input's name with `.html` added; `-` for stdout).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// The timeline of a trace: a timeline_id from `jsprof threads`, a tid or a unique name.
    #[arg(long)]
    pub thread: Option<String>,
    /// At most this many flame-chart events are embedded (the shortest are merged into grey
    /// blocks); about 40 bytes each.
    #[arg(long, default_value_t = 300_000, value_name = "N")]
    pub max_events: usize,
    /// A heap snapshot: at most this many objects' edges are embedded for the Containment view
    /// (the root's, then a few levels down the largest objects), 50 edges each.
    #[arg(long, default_value_t = 80, value_name = "N")]
    pub containment_pages: usize,
    /// A heap snapshot: at most this many rows of the Strings, Comparison and Leaks views (the
    /// largest; the view says how many there are in all).
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub max_rows: usize,
    /// A recording's directory: the isolate whose views the report opens on, `main` (the
    /// default) or `worker N` (`worker3` too), as `heap process` names them.
    #[arg(long, value_name = "ISOLATE")]
    pub isolate: Option<String>,
    /// Filters and source maps, applied before the views are computed (the report shows them
    /// in its subtitle).
    #[command(flatten)]
    pub transform: TransformArgs,
}

fn default_output(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "report".to_string());
    let name = name.strip_suffix(".gz").unwrap_or(&name).to_string();
    file.with_file_name(format!("{name}.html"))
}

fn cpu_data(
    name: &str,
    text: input::Text,
    thread: Option<&str>,
    max_events: usize,
    transform: &TransformArgs,
) -> Result<ReportData> {
    let loaded = jsprof_document::load::read_cpu(name.to_string(), text, &transform.pipeline())?;
    let timeline = loaded.select(thread)?;
    output::warn(&loaded.name, loaded.warnings());
    let window = |max_events| ChartWindow {
        start_ms: None,
        end_ms: None,
        min_ms: 0.0,
        max_events,
    };
    let chart = chart::chart(
        loaded.profile(),
        loaded.timelines(),
        timeline,
        window(max_events),
    )
    .name_processes(&loaded);
    // One track per thread: the other threads with events share the same budget, in
    // proportion to their events (at least 1 000 each).
    let others: Vec<_> = loaded
        .timelines()
        .iter()
        .filter(|t| t.id != timeline.id && !t.events.is_empty())
        .collect();
    let all_events: usize = loaded.timelines().iter().map(|t| t.events.len()).sum();
    let mut charts = Vec::new();
    for t in &others {
        let share = (max_events as f64 * t.events.len() as f64 / all_events.max(1) as f64) as usize;
        charts.push(
            chart::chart(
                loaded.profile(),
                loaded.timelines(),
                t,
                window(share.max(1000).min(max_events)),
            )
            .name_processes(&loaded),
        );
    }
    // The trees of the same weighted view as `jsprof top`/`tree` (a trace's entries, as in
    // DevTools' Performance panel).
    let weighted = loaded.weighted(&jsprof_document::load::ViewSpec {
        thread: Some(timeline.id.to_string()),
        ..Default::default()
    })?;
    let profile = Some(chart::profile_doc(
        &weighted.profile,
        weighted.thread,
        None,
        TreeLimits::default(),
    ));
    let subtitle = format!(
        "{} · {}{} · {:.1} ms{}",
        loaded.profile().kind.as_str(),
        if timeline.name.is_empty() {
            "main"
        } else {
            &timeline.name
        },
        if loaded.timelines().len() > 1 {
            format!(
                " (timeline {} of {})",
                timeline.id,
                loaded.timelines().len()
            )
        } else {
            String::new()
        },
        chart.end_ms - chart.start_ms,
        filters_note(transform)
    );
    let mut data = json!({
        "mode": "report",
        "name": name,
        "subtitle": subtitle,
        "charts": charts,
        "chart": chart,
        "profile": profile,
    });
    let views = cpu_views(&loaded, Some(&timeline.id.to_string()))?;
    let mut blobs = Vec::new();
    if let Some(trace) = loaded.trace() {
        // The page's tracks and Insights sidebar draw `views.insights|network|timings` (put
        // there by `cpu_views` for a page load) and the filmstrip, each image in a blob of its
        // own (read when shown).
        use jsprof_document::filmstrip;
        data["filmstrip"] = serde_json::to_value(filmstrip::filmstrip(&loaded)?)?;
        for (i, shot) in filmstrip::frames(trace).iter().enumerate() {
            if let Some(image) = &shot.image {
                blobs.push((format!("shot-{i}"), image.clone()));
            }
        }
    }
    Ok(ReportData { data, views, blobs })
}

/// ` · focus ^render$, idle hidden` when filters are applied.
fn filters_note(transform: &TransformArgs) -> String {
    transform
        .describe()
        .map(|d| format!(" · {d}"))
        .unwrap_or_default()
}

/// What the page embeds: the UI's documents, and `views`, the CLI's documents as their exact text.
#[derive(serde::Serialize)]
struct ReportData {
    #[serde(flatten)]
    data: Value,
    views: Views,
    /// Base64 payloads carried beside the JSON (`ui_page::page_with_blobs`).
    #[serde(skip)]
    blobs: Vec<(String, String)>,
}

type Views = std::collections::BTreeMap<&'static str, Box<serde_json::value::RawValue>>;

/// The CLI's documents of the input, byte for byte what `jsprof summary/threads/top --json`
/// print (and the service answers), embedded whole: `top` with every function.
fn cpu_views(loaded: &jsprof_document::load::CpuInput, thread: Option<&str>) -> Result<Views> {
    use jsprof_document::raw;
    let spec = jsprof_document::load::ViewSpec {
        thread: thread.map(str::to_string),
        ..Default::default()
    };
    let weighted = loaded.weighted(&spec)?;
    let top = jsprof_document::top::view(&weighted, jsprof_document::top::By::SelfWeight, 0);
    let summary = jsprof_document::summary::summary(loaded, thread, 10)?;
    let mut views = Views::new();
    views.insert("summary", raw(&summary.report));
    if !loaded.timelines().is_empty() {
        views.insert(
            "threads",
            raw(&jsprof_document::threads::threads_report(loaded)),
        );
    }
    views.insert("top", raw(&jsprof_document::top::report(&weighted, &top)));
    // A page load: the documents of `jsprof insights`, `network` and `timings` too.
    if loaded.trace().is_some_and(|t| !t.page.is_empty()) {
        use jsprof_document::page;
        views.insert("insights", raw(&page::insights_report(loaded)?));
        views.insert("network", raw(&page::network_report(loaded)?));
        views.insert("timings", raw(&page::timings_report(loaded)?));
    }
    Ok(views)
}

fn heap_profile_data(
    name: &str,
    text: input::Text,
    transform: &TransformArgs,
) -> Result<ReportData> {
    let loaded = jsprof_document::load::read_cpu(name.to_string(), text, &transform.pipeline())?;
    let profile = loaded.profile();
    output::warn(name, &profile.warnings);
    let doc = chart::profile_doc(profile, 0, None, TreeLimits::default());
    let data = json!({
        "mode": "report",
        "name": name,
        "subtitle": format!(
            "heapprofile · {} sampled{}",
            output::fmt_bytes(doc.total),
            filters_note(transform)
        ),
        "chart": null,
        "profile": doc,
    });
    Ok(ReportData {
        data,
        views: cpu_views(&loaded, None)?,
        blobs: Vec::new(),
    })
}

/// How much of a snapshot the report embeds (`--containment-pages`, `--max-rows`), and the
/// source maps its Summary's classes are mapped with (`--sourcemap`, `--no-sourcemaps`).
#[derive(Clone, Copy)]
struct HeapLimits<'a> {
    containment_pages: usize,
    max_rows: usize,
    source_maps: &'a jsprof_document::source_maps::SourceMaps,
}

fn snapshot_data(
    name: &str,
    snapshot: &HeapSnapshot,
    analysis: &Analysis,
    limits: HeapLimits<'_>,
) -> Result<ReportData> {
    use jsprof_document::heap_report::{containment_pages, ContainmentLimits};
    use jsprof_document::heap_source_maps::{map_objects, map_summary};
    let mut doc = heap_pages::heap_doc(snapshot, analysis, HeapDocLimits::default());
    // `jsprof heap summary --limit 0 --json`, byte for byte (its classes mapped as `heap
    // summary` maps them, and the Summary the page draws too).
    let mut summary =
        jsprof_document::heap::summary_report(snapshot, analysis, jsprof_heap::SortBy::Retained, 0);
    map_summary(&mut summary, &analysis.scripts, limits.source_maps)?;
    map_summary(&mut doc.summary, &analysis.scripts, limits.source_maps)?;
    // Its objects as `heap class`, `heap retainers` and `heap dominators` place them.
    map_objects(&mut doc, &analysis.scripts, limits.source_maps)?;
    // `jsprof heap strings --limit N --json` and `jsprof heap edges … --limit 50 --json` pages, as
    // the service's `…/heap/strings` and `…/heap/edges/{node}` answer them.
    let strings =
        jsprof_document::heap_strings::strings_report(snapshot, analysis, limits.max_rows);
    let mut containment = containment_pages(
        snapshot,
        analysis,
        ContainmentLimits {
            pages: limits.containment_pages,
            ..ContainmentLimits::default()
        },
    );
    for page in &mut containment {
        let notes = map_objects(page, &analysis.scripts, limits.source_maps)?;
        page.warnings.extend(notes);
    }
    // `jsprof heap advisors --limit N --json`, as the service's `…/heap/advisors` answers it
    // (the scripts the snapshot names read as the CLI reads them).
    let advisors = jsprof_document::heap_advisors::advisors_report(
        snapshot,
        analysis,
        &jsprof_heap::RetainerIndex::new(snapshot),
        jsprof_heap::AdviseOptions::default().min_saving,
        limits.max_rows,
        &mut jsprof_document::heap_advisors::script_sources(jsprof_document::lines::LocalFiles {
            allowed: |p: &std::path::Path| Ok(p.to_path_buf()),
        }),
    );
    let data = json!({
        "mode": "report",
        "name": name,
        "subtitle": format!("{} · {} objects · {}", snapshot.kind(), snapshot.node_count(), output::fmt_bytes(analysis.total_size as f64)),
        "heap": doc,
    });
    use jsprof_document::raw;
    let mut views = Views::from([
        ("heap_summary", raw(&summary)),
        ("heap_strings", raw(&strings)),
        ("heap_advisors", raw(&advisors)),
        ("heap_containment", raw(&containment)),
    ]);
    // DevTools' "JavaScript context" select: `jsprof heap contexts --json`, and each context's
    // Summary as `heap summary --context C --limit N --json` prints it.
    let contexts = jsprof_heap::NativeContexts::of(snapshot);
    let listed = jsprof_document::heap_contexts::contexts_report(snapshot, analysis, &contexts);
    if listed.contexts.len() > 1 {
        use jsprof_document::heap_query::HeapContext;
        let mut summaries = std::collections::BTreeMap::new();
        let chosen = listed.contexts.iter().take(REPORT_CONTEXTS);
        let all = chosen
            .map(|c| HeapContext::Id(c.id))
            .chain([HeapContext::Shared, HeapContext::None]);
        for context in all {
            let mut report = jsprof_document::heap_contexts::summary_report_in_context(
                (name, snapshot, analysis),
                &contexts,
                (
                    jsprof_heap::SortBy::Retained,
                    HeapDocLimits::default().classes,
                ),
                context,
            )?;
            map_summary(&mut report, &analysis.scripts, limits.source_maps)?;
            let key = match context {
                HeapContext::Id(id) => id.to_string(),
                other => other.to_string(),
            };
            summaries.insert(key, raw(&report));
        }
        views.insert("heap_contexts", raw(&listed));
        views.insert("heap_context_summaries", raw(&summaries));
    }
    Ok(ReportData {
        data,
        views,
        blobs: Vec::new(),
    })
}

/// A snapshot `record --heap-snapshot` wrote, with the `process.memoryUsage()` it wrote beside
/// it: its isolate's memory as `jsprof heap process FILE --limit 10 --json` reads it (the live
/// view's Process tab asks for 10 owners); `None` for a snapshot without one.
fn process_data(
    file: &std::path::Path,
    loaded: &super::heap::Loaded,
) -> Result<Option<jsprof_document::process_memory::ProcessMemoryReport>> {
    use jsprof_document::process_memory::{
        isolates, memory_file_name, report, MemoryUsageFile, ReadIsolate,
    };
    let Some(name) = file.file_name().map(|n| n.to_string_lossy().to_string()) else {
        return Ok(None);
    };
    let memory_path = file.with_file_name(memory_file_name(&name));
    let Ok(text) = std::fs::read(&memory_path) else {
        return Ok(None);
    };
    let memory = MemoryUsageFile::parse(&memory_path.display().to_string(), &text)
        .map_err(anyhow::Error::msg)?;
    let Some(isolate) = isolates(vec![(name.clone(), ())]).into_iter().next() else {
        return Ok(None);
    };
    let read = ReadIsolate::new(
        &isolate.key,
        &name,
        1,
        &loaded.snapshot,
        &loaded.analysis,
        Some(&memory),
        10,
    );
    Ok(Some(report(vec![read], Vec::new())))
}

/// How many JavaScript contexts (the first, in DevTools' order) a heap report embeds a Summary
/// of, besides the shared objects and those in no context: a page with many frames would
/// otherwise repeat its Summary per frame.
const REPORT_CONTEXTS: usize = 16;

/// Several snapshots of one process: the last one's views, its Comparison against the one
/// before (`jsprof heap diff`, as the service's `…/heap/diff` computes it), and with three its
/// Leaks (`jsprof heap leaks BASE TARGET FINAL`, as the service's `…/heap/leaks`), with four or
/// more the Leaks series (`jsprof heap leaks S1 … SN --all`, read by the CLI's own reader, in
/// the series' order, which the report then opens on the last of).
fn snapshots_data(files: &[PathBuf], limits: HeapLimits<'_>) -> Result<ReportData> {
    use jsprof_document::heap::{diff_report, leaks_order, leaks_report, LeaksOptions, Named};
    for f in files {
        if crate::load::detect_format(f)? != Some(Format::HeapSnapshot) {
            bail!(
                "{}: a report of several files takes heap snapshots of one process (BASE TARGET,                  BASE TARGET FINAL, or a series)",
                input::display_name(f)
            );
        }
    }
    let mut files = files.to_vec();
    let mut views = Views::new();
    if files.len() >= 4 {
        let (files_in_order, series) = series_data(&files, limits)?;
        files = files_in_order;
        views.insert("heap_leak_series", jsprof_document::raw(&series));
    }
    let names: Vec<String> = files.iter().map(|f| input::display_name(f)).collect();
    let n = files.len();
    let last = super::heap::load(&files[n - 1])?;
    let mut base = super::heap::load(&files[n - 2])?;
    if n == 3 {
        // Given as (base, target, final) and used in the process's order, as the service does.
        let first = super::heap::load(&files[0])?;
        let given = [&first.snapshot, &base.snapshot, &last.snapshot];
        let order = leaks_order(given);
        let analyses = [&first.analysis, &base.analysis, &last.analysis];
        let named = |i: usize| Named {
            name: names[i].as_str(),
            snapshot: given[i],
            analysis: (),
        };
        let mut leaks = leaks_report(
            named(order[0]),
            named(order[1]),
            Named {
                name: &names[order[2]],
                snapshot: given[order[2]],
                analysis: analyses[order[2]],
            },
            order,
            LeaksOptions {
                min_retained: 0,
                limit: limits.max_rows,
            },
        );
        // As `heap leaks` places them: by FINAL's scripts.
        let notes = jsprof_document::heap_source_maps::map_objects(
            &mut leaks,
            &analyses[order[2]].scripts,
            limits.source_maps,
        )?;
        leaks.warnings.extend(notes);
        views.insert("heap_leaks", jsprof_document::raw(&leaks));
    }
    // Last: the comparison re-classifies the base.
    let (diff, _) = diff_report(
        Named {
            name: &names[n - 2],
            snapshot: &mut base.snapshot,
            analysis: &mut base.analysis,
        },
        Named {
            name: &names[n - 1],
            snapshot: &last.snapshot,
            analysis: &last.analysis,
        },
        limits.max_rows,
    );
    views.insert("heap_diff", jsprof_document::raw(&diff));
    drop(base);
    let shown: Vec<String> = names.iter().map(|n| short_name(n)).collect();
    let mut data = snapshot_data(&shown[n - 1], &last.snapshot, &last.analysis, limits)?;
    data.views.extend(views);
    // The snapshots, oldest first (the last is the one the report opens on).
    data.data["snapshots"] = json!(shown);
    Ok(data)
}

/// The Leaks series of four or more snapshots, as `jsprof heap leaks S1 … SN --all --limit N
/// --json` prints it, and the files in the series' order.
fn series_data(
    files: &[PathBuf],
    limits: HeapLimits<'_>,
) -> Result<(Vec<PathBuf>, jsprof_document::leak_series::LeakSeriesReport)> {
    use jsprof_document::leak_series::{LeakSeriesOptions, MAX_SNAPSHOTS};
    if files.len() > MAX_SNAPSHOTS {
        bail!(
            "a report's series takes at most {MAX_SNAPSHOTS} snapshots; {} given",
            files.len()
        );
    }
    let series = super::heap::leaks::series_report(
        files,
        LeakSeriesOptions {
            all: true,
            limit: limits.max_rows,
            ..LeakSeriesOptions::default()
        },
        limits.source_maps,
    )?;
    // Back from the series' names to the files (each name is one file's display name).
    let by_name: std::collections::HashMap<String, &PathBuf> =
        files.iter().map(|f| (input::display_name(f), f)).collect();
    let ordered = series
        .snapshots
        .iter()
        .map(|s| {
            by_name
                .get(&s.name)
                .map(|f| (*f).clone())
                .with_context(|| format!("{}: given twice", s.name))
        })
        .collect::<Result<Vec<_>>>()?;
    if ordered.len() != files.len() {
        bail!("a report's series takes each snapshot once");
    }
    Ok((ordered, series))
}

/// A directory `record --heap-snapshot` wrote (each isolate of a process with its
/// `memoryUsage()`; with `--every`, a series of each): the whole process's memory as `jsprof heap
/// process DIR --limit 10 --json` reads it, every isolate's latest snapshot, and the views of one
/// isolate (`--isolate`; the first process's main thread by default) — its latest snapshot, and
/// with a series what several snapshots add (Comparison, Leaks, the Leaks series of its last 50).
fn recording_data(dir: &Path, isolate: Option<&str>, limits: HeapLimits<'_>) -> Result<ReportData> {
    use jsprof_document::leak_series::{series_order, MAX_SNAPSHOTS};
    use jsprof_document::process_memory::isolates;
    let files = super::heap::leaks::list_snapshots(dir)?;
    let named: Vec<(String, PathBuf)> = files
        .iter()
        .map(|p| (short_name(&p.display().to_string()), p.clone()))
        .collect();
    let all = isolates(named);
    let wanted = isolate
        .map(|i| i.replace(' ', ""))
        .unwrap_or("main".to_string());
    let Some(opened) = all
        .iter()
        .find(|i| i.key.label().replace(' ', "") == wanted)
    else {
        let labels: Vec<String> = all.iter().map(|i| i.key.label()).collect();
        bail!(
            "{}: no isolate {wanted:?}; the recording has {}",
            dir.display(),
            labels.join(", ")
        );
    };
    let names: Vec<&str> = opened.names.iter().map(String::as_str).collect();
    let order = series_order(&names, &vec![None; names.len()]);
    let mut series: Vec<PathBuf> = order
        .order
        .iter()
        .map(|&i| opened.files[i].clone())
        .collect();
    if series.len() > MAX_SNAPSHOTS {
        eprintln!(
            "jsprof: {}: {} snapshots of {}'s {}; the report's series takes its last {MAX_SNAPSHOTS}",
            dir.display(),
            series.len(),
            opened.key.process,
            opened.key.label()
        );
        series.drain(..series.len() - MAX_SNAPSHOTS);
    }
    let mut data = if series.len() > 1 {
        snapshots_data(&series, limits)?
    } else {
        let loaded = super::heap::load(&series[0])?;
        snapshot_data(
            names[order.order[0]],
            &loaded.snapshot,
            &loaded.analysis,
            limits,
        )?
    };
    let process = super::heap::process::process_report(&[dir.to_path_buf()], 10)?;
    data.views
        .insert("heap_process", jsprof_document::raw(&process));
    Ok(data)
}

/// A display name's file name (the report's title names the file, not its folder).
fn short_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| name.to_string())
}

/// The report of one file.
fn one_file_data(args: &Args, file: &Path, limits: HeapLimits<'_>) -> Result<ReportData> {
    let name = input::display_name(file);
    let short = short_name(&name);
    let refuse_filters = || {
        if args.transform.describe().is_some() {
            bail!("{name}: filters apply to CPU profiles, traces and heap profiles, not to a heap snapshot");
        }
        Ok(())
    };
    // A snapshot file opens through the heap index like every heap command: its text is not
    // read at all when the index is valid.
    if crate::load::detect_format(file)? == Some(Format::HeapSnapshot) {
        refuse_filters()?;
        let loaded = super::heap::load(file)?;
        let mut data = snapshot_data(&short, &loaded.snapshot, &loaded.analysis, limits)?;
        if let Some(process) = process_data(file, &loaded)? {
            data.views
                .insert("heap_process", jsprof_document::raw(&process));
        }
        return Ok(data);
    }
    let (name, text) = input::read_all(file)?;
    match jsprof_document::load::detect(&name, &text)? {
        Format::HeapSnapshot => {
            // stdin, which has no index: the same loader, reading the text read above.
            refuse_filters()?;
            let read = || jsprof_heap::read_snapshot_with(&text[..], Default::default());
            let opened = jsprof_heap::open_analysed(None, None, read, &mut |_| {})
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            snapshot_data(&short, &opened.snapshot, &opened.analysis, limits)
        }
        Format::HeapProfile => heap_profile_data(&short, text, &args.transform),
        _ => cpu_data(
            &short,
            text,
            args.thread.as_deref(),
            args.max_events,
            &args.transform,
        ),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let source_maps = args.transform.source_maps.policy();
    let limits = HeapLimits {
        containment_pages: args.containment_pages,
        max_rows: args.max_rows,
        source_maps: &source_maps,
    };
    let file = args.files.last().expect("clap requires a file").clone();
    if args.isolate.is_some() && !file.is_dir() {
        bail!("--isolate picks an isolate of a recording's directory (`jsprof report DIR`)");
    }
    if let Some(dir) = args.files.iter().find(|f| f.is_dir()) {
        if args.files.len() > 1 {
            bail!(
                "{}: a directory (a `record --heap-snapshot` recording) is reported alone",
                dir.display()
            );
        }
    }
    let (short, data) = if file.is_dir() {
        if args.transform.describe().is_some() {
            bail!("filters apply to CPU profiles, traces and heap profiles, not to heap snapshots");
        }
        let data = recording_data(&file, args.isolate.as_deref(), limits)?;
        let name = data.data["name"].as_str().unwrap_or("report").to_string();
        (name, data)
    } else if args.files.len() > 1 {
        if args.transform.describe().is_some() {
            bail!("filters apply to CPU profiles, traces and heap profiles, not to heap snapshots");
        }
        let data = snapshots_data(&args.files, limits)?;
        let name = data.data["name"].as_str().unwrap_or("report").to_string();
        (name, data)
    } else {
        let name = input::display_name(&file);
        (short_name(&name), one_file_data(&args, &file, limits)?)
    };
    let out = args.output.clone().unwrap_or_else(|| default_output(&file));
    let blobs: Vec<(String, &str)> = data
        .blobs
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str()))
        .collect();
    let html =
        jsprof_server::ui_page::page_with_blobs(&format!("{short} — jsprof report"), &data, &blobs);
    if out.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut w = stdout.lock();
        w.write_all(html.as_bytes())?;
        w.flush()?;
    } else {
        let mut w = crate::output_file::OutputFile::create(&out)?;
        w.write_all(html.as_bytes())
            .with_context(|| format!("writing {}", out.display()))?;
        w.finish()?;
        eprintln!(
            "jsprof: wrote {} ({})",
            out.display(),
            output::fmt_bytes(html.len() as f64)
        );
    }
    Ok(ExitCode::SUCCESS)
}
