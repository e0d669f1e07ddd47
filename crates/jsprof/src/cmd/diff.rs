//! `jsprof diff BEFORE AFTER`: what changed between two profiles, function by function; and
//! `jsprof diff --base A… --target B…`: which functions' shares changed between two groups of
//! profiles, with statistics (`jsprof_analysis::abtest`) instead of one noisy pair.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use jsprof_analysis::abtest::{ab_test, AbOptions, AbTest, GroupMerge, ProfileWeights};
use jsprof_analysis::{DiffKey, DiffOptions};
use jsprof_document::abtest::{AbFunctionJson, AbTestReport};
use jsprof_document::load::{CpuInput, ViewSpec, Weighted};
use jsprof_document::JsonWarning;
use jsprof_profile::{Profile, WeightUnit};
use jsprof_render::{write_diff_flame_graph_svg, FlameGraphOptions};

use crate::load::load_cpu;
use crate::output::{self, columns, TextOut};
use crate::transform_args::{TransformArgs, ViewArgs};
use jsprof_document::insights::InsightsReport;
use jsprof_document::page_diff::{MetricShiftJson, PageDiffReport};
use jsprof_document::page_runs::metric_text as metric_value;

#[derive(clap::Args)]
#[command(
    after_help = "Groups of page loads: when every input of --base and --target is a Chrome \
trace and the first of --base is a page load (a trace with a navigation, e.g. from `jsprof record \
--url URL --runs N`), the groups are compared as page loads: per metric of `jsprof insights DIR` \
the Hodges-Lehmann shift with its 95 % interval and the Benjamini-Hochberg q-value (Mann-Whitney), \
the requests that became or stopped being render-blocking, the third parties that grew and the \
long tasks' count. --functions compares their functions' CPU shares instead.

Examples:
  jsprof diff before.cpuprofile after.cpuprofile
  jsprof diff --base runs/main/ --target runs/branch/        # two folders of page-load runs
  jsprof diff --base a1.cpuprofile a2.cpuprofile --target b1.cpuprofile b2.cpuprofile"
)]
pub struct Args {
    /// The baseline: any sampled input (.cpuprofile, trace, JS Self-Profiling, .heapprofile).
    #[arg(required_unless_present = "base", conflicts_with_all = ["base", "target"])]
    pub before: Option<PathBuf>,
    /// The profile to compare with it (may be another kind, e.g. a trace against a .cpuprofile).
    #[arg(required_unless_present = "base")]
    pub after: Option<PathBuf>,
    #[command(flatten)]
    pub groups: GroupArgs,
    /// How functions are matched: by name and URL (line numbers move between builds) or by the
    /// whole function (name, URL, line, column).
    #[arg(long, value_enum, default_value_t = KeyArg::NameUrl)]
    pub key: KeyArg,
    /// Scale AFTER so that its total equals BEFORE's.
    #[arg(long)]
    pub normalize: bool,
    /// How many functions to list; 0 lists all above the noise floor.
    #[arg(long, default_value_t = 25)]
    pub limit: usize,
    #[command(flatten)]
    pub compare: CompareArgs,
    /// Groups of page-load traces: compare their functions' CPU shares (as for profiles)
    /// instead of the page's metrics and insights.
    #[arg(long, requires = "base")]
    pub functions: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The window, thread and filters applied to both inputs of a comparison.
#[derive(clap::Args, Clone, Default)]
pub struct CompareArgs {
    /// The thread (inputs with one thread use it whatever `--thread` says), the range (ms from
    /// each input's start) and, for traces, entries or `--samples`.
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub transform: TransformArgs,
}

/// Two groups of profiles (`--base`, `--target`) and the statistics' settings.
#[derive(clap::Args, Clone, Default)]
pub struct GroupArgs {
    /// The base group: files or directories (each file directly in it, but hidden files and a
    /// run folder's `manifest.json`); with more than one profile on either side, the comparison
    /// is statistical (Mann-Whitney per function).
    #[arg(long, num_args = 1.., value_name = "FILE|DIR", requires = "target")]
    pub base: Vec<PathBuf>,
    /// The target group, as `--base`.
    #[arg(long, num_args = 1.., value_name = "FILE|DIR", requires = "base")]
    pub target: Vec<PathBuf>,
    #[command(flatten)]
    pub stats: StatsArgs,
    /// Group comparison: write the differential flame graph of the two merged groups (each
    /// normalised to its own total) to this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub flamegraph: Option<PathBuf>,
}

/// The group comparison's statistics (`diff --base/--target`, `lake diff`; `check`'s `[abtest]`).
#[derive(clap::Args, Clone)]
pub struct StatsArgs {
    /// Group comparison: report changes whose Benjamini-Hochberg q-value is below this.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Group comparison: … and whose share shifted by at least this many points (percent of
    /// each profile).
    #[arg(long, default_value_t = 0.5, value_name = "POINTS")]
    pub noise_floor: f64,
    /// Group comparison: test only functions present in at least this many profiles.
    #[arg(long, default_value_t = 3)]
    pub min_profiles: usize,
}

impl Default for StatsArgs {
    fn default() -> Self {
        StatsArgs {
            alpha: 0.05,
            noise_floor: 0.5,
            min_profiles: 3,
        }
    }
}

impl StatsArgs {
    /// The statistics' options, checked.
    pub fn options(&self) -> Result<AbOptions> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            bail!("--alpha must be between 0 and 1, not {}", self.alpha);
        }
        if !(self.noise_floor >= 0.0 && self.noise_floor <= 100.0) {
            bail!(
                "--noise-floor must be 0 to 100 points, not {}",
                self.noise_floor
            );
        }
        Ok(AbOptions {
            alpha: self.alpha,
            noise_floor: self.noise_floor / 100.0,
            min_profiles: self.min_profiles,
        })
    }
}

impl GroupArgs {
    /// Both groups' files, directories expanded (their files, sorted, not recursive).
    pub fn files(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
        Ok((
            expand(&self.base, "--base")?,
            expand(&self.target, "--target")?,
        ))
    }

    pub fn options(&self) -> Result<AbOptions> {
        self.stats.options()
    }
}

fn expand(paths: &[PathBuf], flag: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let files = crate::input::files_in(p)?;
            if files.is_empty() {
                bail!("{flag} {}: the directory has no file", p.display());
            }
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        bail!("{flag} names no file");
    }
    Ok(out)
}

/// A group comparison: the test, and what the profiles warned about.
pub struct Groups {
    pub test: AbTest,
    pub warnings: Vec<JsonWarning>,
    /// The merged groups, when a flame graph was asked for.
    pub merged: Option<(Profile, Profile)>,
}

/// Loads every file of both groups (one at a time: only its per-function weights are kept) and
/// compares the groups.
pub fn compare_groups(
    compare: &CompareArgs,
    key: DiffKey,
    base: &[PathBuf],
    target: &[PathBuf],
    options: AbOptions,
    merge: bool,
) -> Result<Groups> {
    let mut warnings = Vec::new();
    let mut unit: Option<(bool, String)> = None;
    let mut load = |files: &[PathBuf]| -> Result<(Vec<ProfileWeights>, Option<GroupMerge>)> {
        let mut weights = Vec::with_capacity(files.len());
        let mut merged = merge.then(GroupMerge::default);
        for f in files {
            let side = compare.load(f)?;
            let w = side.weighted()?;
            let bytes = w.thread().weight_unit() == WeightUnit::Bytes;
            match &unit {
                Some((b, first)) if *b != bytes => bail!(
                    "{} and {first}: cannot compare a profile over time with one that weighs bytes",
                    side.name
                ),
                Some(_) => {}
                None => unit = Some((bytes, side.name.clone())),
            }
            warnings.extend(w.profile.warnings.iter().map(|x| JsonWarning {
                at: x.at.clone(),
                message: format!("{}: {}", side.name, x.message),
            }));
            weights.push(ProfileWeights::of_thread(&w.profile, w.thread(), key));
            if let Some(m) = merged.as_mut() {
                m.add(&w.profile, w.thread());
            }
        }
        Ok((weights, merged))
    };
    let (bw, bm) = load(base)?;
    let (tw, tm) = load(target)?;
    let test = ab_test(&bw, &tw, options).map_err(|e| anyhow!("{e}"))?;
    Ok(Groups {
        test,
        warnings,
        merged: bm.zip(tm).map(|(b, t)| (b.finish(), t.finish())),
    })
}

pub use jsprof_document::abtest::group_label;

fn run_groups(args: &Args, base: &[PathBuf], target: &[PathBuf]) -> Result<ExitCode> {
    let options = args.groups.options()?;
    let key = args.key.key();
    let groups = compare_groups(
        &args.compare,
        key,
        base,
        target,
        options,
        args.groups.flamegraph.is_some(),
    )?;
    if let (Some(out), Some((b, t))) = (&args.groups.flamegraph, &groups.merged) {
        let options = FlameGraphOptions {
            title: "Differential Flame Graph".to_string(),
            subtitle: Some(format!(
                "{} → {} (each group normalised to its total) — red grew, blue shrank, hatched is gone",
                group_label(base),
                group_label(target)
            )),
            ..Default::default()
        };
        let mut file = crate::output_file::create_output(out)?;
        write_diff_flame_graph_svg(
            &mut file,
            (b, &b.threads[0]),
            (t, &t.threads[0]),
            key,
            true,
            &options,
        )
        .with_context(|| format!("writing {}", out.display()))?;
        file.finish()?;
    }
    let report = jsprof_document::abtest::report(
        &groups.test,
        &group_label(base),
        &group_label(target),
        args.key.as_str(),
        groups.warnings,
    );
    output::emit(args.json, &report, |out| {
        write_ab_report(&report, args.limit, out)
    })
}

/// The group comparison as text (`jsprof diff --base … --target …`, `jsprof lake diff`).
pub fn write_ab_report(r: &AbTestReport, limit: usize, out: &mut TextOut) -> io::Result<()> {
    for w in &r.warnings {
        eprintln!("warning: {} ({})", w.message, w.at);
    }
    writeln!(
        out,
        "base   {}  {} profiles\ntarget {}  {} profiles",
        r.base.selection, r.base.profiles, r.target.selection, r.target.profiles
    )?;
    let shown = &r.changes[..r.changes.len().min(output::limit_or_all(limit))];
    if r.changes.is_empty() {
        writeln!(
            out,
            "no function's share changed significantly by at least the noise floor"
        )?;
    } else {
        write_function_changes(shown, out)?;
    }
    let more = "more changes (--limit 0 for all)";
    output::write_more(out, r.changes.len() - shown.len(), more)?;
    writeln!(
        out,
        "{} functions tested (Mann-Whitney, Benjamini-Hochberg q < {}, shift ≥ {} points); \
         {} significant but under the floor; {} in fewer than {} profiles not tested",
        r.tested,
        r.alpha,
        r.noise_floor_points,
        r.significant_below_floor,
        r.untested,
        r.min_profiles
    )
}

/// Functions whose share changed: self and total shifts in share points with their q-values,
/// the self shares' means, and where each function is.
fn write_function_changes(rows: &[AbFunctionJson], out: &mut TextOut) -> io::Result<()> {
    let pts = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:+.2}"));
    columns(rows)
        .right("Δ self pts", move |f| pts(f.self_share.shift_points))
        .left("95 % CI", |f| {
            let s = &f.self_share;
            match (s.shift_low_points, s.shift_high_points) {
                (Some(l), Some(h)) => format!("[{l:+.2}, {h:+.2}]"),
                _ => String::new(),
            }
        })
        .right("q", |f| format!("{:.2e}", f.self_share.q))
        .right("Δ total pts", move |f| pts(f.total_share.shift_points))
        .right("q", |f| format!("{:.2e}", f.total_share.q))
        .right("Self base", |f| {
            format!("{:.2} %", f.self_share.base_mean_points)
        })
        .right("target", |f| {
            format!("{:.2} %", f.self_share.target_mean_points)
        })
        .function(|f| (&f.name, &f.url, f.line, f.column))
        .write(out)
}

pub use jsprof_document::query::KeyArg;

/// One side of a comparison: read through the pipeline, with its view (thread, range) chosen.
pub struct Side {
    pub name: String,
    pub input: CpuInput,
    spec: ViewSpec,
}

impl CompareArgs {
    pub fn load(&self, path: &Path) -> Result<Side> {
        let input = load_cpu(path, &self.transform.pipeline())?;
        let spec = jsprof_document::diff::side_spec(&input, &self.view);
        Ok(Side {
            name: input.name.clone(),
            input,
            spec,
        })
    }
}

impl Side {
    pub fn weighted(&self) -> Result<Weighted<'_>> {
        Ok(self.input.weighted(&self.spec)?)
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (before, after) = match (&args.before, &args.after) {
        (Some(b), Some(a)) => (b.clone(), a.clone()),
        _ => {
            let (base, target) = args.groups.files()?;
            // One file a side is the plain comparison of two profiles.
            if base.len() > 1 || target.len() > 1 {
                if !args.functions {
                    if let Some(runs) = page_runs(&base, &target)? {
                        return run_pages(&args, &base, &target, runs);
                    }
                }
                return run_groups(&args, &base, &target);
            }
            (base[0].clone(), target[0].clone())
        }
    };
    let before = args.compare.load(&before)?;
    let after = args.compare.load(&after)?;
    let options = DiffOptions {
        key: args.key.key(),
        normalize: args.normalize,
    };
    let (wb, wa) = (before.weighted()?, after.weighted()?);
    let compared = jsprof_document::diff::diff(
        &jsprof_document::diff::Side {
            name: &before.name,
            view: &wb,
        },
        &jsprof_document::diff::Side {
            name: &after.name,
            view: &wa,
        },
        options,
    )?;
    let diff = &compared.diff;
    let bytes = wb.thread().weight_unit() == WeightUnit::Bytes;
    let rows = &diff.rows[..diff.rows.len().min(output::limit_or_all(args.limit))];
    output::emit(args.json, &compared.report, |out| {
        for (name, side) in [(&before.name, &wb), (&after.name, &wa)] {
            output::warn(name, &side.profile.warnings);
        }
        // Profiles of very different lengths compare amounts of time, which is rarely the question
        // (a 2 s recording beside a 66 s one shows every function grown by thousands of percent).
        let ratio = diff.after_total / diff.before_total;
        if !args.normalize && diff.before_total > 0.0 && !(0.5..=2.0).contains(&ratio) {
            eprintln!(
                "note: {}'s total is {ratio:.1}× {}'s; --normalize scales it to the same total, so the \
                 table compares shares of each profile",
                after.name, before.name
            );
        }
        let fmt = move |w: f64| {
            if bytes {
                output::fmt_bytes(w)
            } else {
                output::fmt_ms(w / jsprof_profile::NS_PER_MS)
            }
        };
        let signed = move |w: f64| {
            if w > 0.0 {
                format!("+{}", fmt(w))
            } else {
                fmt(w)
            }
        };
        writeln!(
            out,
            "before {}  {}\nafter  {}  {}{}",
            before.name,
            fmt(diff.before_total),
            after.name,
            fmt(diff.after_total),
            if args.normalize {
                format!(" (scaled ×{:.4})", diff.scale)
            } else {
                String::new()
            }
        )?;
        if rows.is_empty() {
            writeln!(out, "no function changed by more than the noise floor")?;
        } else {
            columns(rows)
                .right("Δ self", move |r| signed(r.delta_self()))
                .right("Δ total", move |r| signed(r.delta_total()))
                .right("Δ %", |r| {
                    let percent = r.delta_total_percent();
                    percent.map_or("new".to_string(), |p| format!("{p:+.1} %"))
                })
                .right("Self before", move |r| fmt(r.before_self))
                .right("after", move |r| fmt(r.after_self))
                .right("Total before", move |r| fmt(r.before_total))
                .right("after", move |r| fmt(r.after_total))
                .function(|r| (&r.name, &r.url, r.line, r.column))
                .write(out)?;
        }
        let more = "more above the noise floor (--limit 0 for all)";
        output::write_more(out, diff.rows.len() - rows.len(), more)?;
        writeln!(
            out,
            "{} functions changed by less than the noise floor ({}): {} self in all",
            diff.hidden,
            fmt(diff.noise_floor),
            signed(diff.hidden_delta_self)
        )?;
        Ok(())
    })
}

/// Runs of a page load: each run's file name and insights document, and its main thread's
/// function weights in the same order.
#[derive(Default, Clone)]
pub struct Runs {
    pub reports: Vec<(String, InsightsReport)>,
    pub weights: Vec<ProfileWeights>,
}

/// Each group's runs as page loads (their insights documents), when the groups are page loads:
/// every input a Chrome trace (by its content) and the first of `--base` a trace with a
/// navigation. `None`: compare functions. A page-load comparison refuses an input that is not a
/// page load, naming it.
pub fn page_runs(base: &[PathBuf], target: &[PathBuf]) -> Result<Option<(Runs, Runs)>> {
    for f in base.iter().chain(target) {
        if crate::load::detect_format(f)? != Some(jsprof_profile::Format::Trace) {
            return Ok(None);
        }
    }
    let first = crate::cmd::insights::load_runs(&base[..1], true)?;
    if !jsprof_document::page_runs::is_page_load(&first.reports[0].1) {
        return Ok(None);
    }
    let mut runs = [Runs::default(), Runs::default()];
    for (side, files) in [base, target].into_iter().enumerate() {
        let loaded = if side == 0 {
            let mut all = first.clone();
            let rest = crate::cmd::insights::load_runs(&files[1..], true)?;
            all.reports.extend(rest.reports);
            all.weights.extend(rest.weights);
            all
        } else {
            crate::cmd::insights::load_runs(files, true)?
        };
        for ((name, report), file) in loaded.reports.iter().zip(files) {
            if !jsprof_document::page_runs::is_page_load(report) {
                bail!(
                    "{}: a trace without a navigation, among page loads ({name} of --{}); \
                     compare page loads with page loads, or give --functions to compare the \
                     traces' functions",
                    file.display(),
                    if side == 0 { "base" } else { "target" }
                );
            }
        }
        runs[side] = loaded;
    }
    let [b, t] = runs;
    Ok(Some((b, t)))
}

fn run_pages(
    args: &Args,
    base: &[PathBuf],
    target: &[PathBuf],
    (b, t): (Runs, Runs),
) -> Result<ExitCode> {
    let options = args.groups.options()?;
    let report = jsprof_document::page_diff::page_diff(
        &b.reports,
        &t.reports,
        [&b.weights, &t.weights],
        (&group_label(base), &group_label(target)),
        options,
    );
    output::emit(args.json, &report, |out| write_page_diff(&report, out))
}

/// A change of a page-load metric, with its sign.
fn metric_change(metric: &str, v: f64) -> String {
    let s = metric_value(metric, v.abs());
    if v > 0.0 {
        format!("+{s}")
    } else if v < 0.0 {
        format!("-{s}")
    } else {
        s
    }
}

/// The page-load comparison as text: a row per metric, then the insights that changed.
pub fn write_page_diff(r: &PageDiffReport, out: &mut TextOut) -> io::Result<()> {
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    for (name, s) in [("base  ", &r.base), ("target", &r.target)] {
        writeln!(
            out,
            "{name} {}  {} runs of {}{}",
            s.selection,
            s.runs,
            s.url.as_deref().unwrap_or("?"),
            s.median_run
                .as_deref()
                .map(|m| format!(" (median run: {m})"))
                .unwrap_or_default()
        )?;
    }
    write_metric_shifts(
        r.metrics.iter().chain([&r.long_tasks]),
        r.level,
        r.alpha,
        out,
    )?;
    for (title, changes) in [
        ("render-blocking requests", &r.render_blocking),
        ("requests on the critical path", &r.critical_path),
        ("uncached requests", &r.uncached),
    ] {
        if changes.is_empty() {
            continue;
        }
        writeln!(out, "\n{title}")?;
        for c in changes {
            writeln!(
                out,
                "  {} {}  (base {} of {} runs, target {} of {})",
                c.change, c.url, c.base_runs, r.base.runs, c.target_runs, r.target.runs
            )?;
        }
    }
    if !r.third_parties.is_empty() {
        writeln!(out, "\nthird parties that grew")?;
        let both = |base: String, target: String| format!("{base} → {target}");
        columns(&r.third_parties)
            .left("entity", |e| output::shown(&e.entity).to_string())
            .right("main thread", move |e| {
                both(
                    output::fmt_ms(e.base_main_thread_ms),
                    output::fmt_ms(e.target_main_thread_ms),
                )
            })
            .right("shift", |e| output::fmt_ms(e.main_thread_shift_ms))
            .right("transfer", move |e| {
                both(
                    output::fmt_bytes(e.base_transfer_size),
                    output::fmt_bytes(e.target_transfer_size),
                )
            })
            .right("shift", |e| output::fmt_bytes(e.transfer_shift_bytes))
            .write(out)?;
    }
    if !r.functions.is_empty() {
        writeln!(
            out,
            "\nfunctions whose share of the main thread changed (points of each run's main thread)"
        )?;
        let shown = &r.functions[..r.functions.len().min(15)];
        write_function_changes(shown, out)?;
        let more = "more functions (--json for all)";
        output::write_more(out, r.functions.len() - shown.len(), more)?;
    }
    Ok(())
}

/// The metrics' shifts as a table, and how to read it (`diff --base A/ --target B/` on page
/// loads, `lake diff --page-loads`).
pub fn write_metric_shifts<'a>(
    rows: impl IntoIterator<Item = &'a MetricShiftJson>,
    level: f64,
    alpha: f64,
    out: &mut TextOut,
) -> io::Result<()> {
    columns(rows)
        .left("metric", |m| output::metric_name(&m.metric))
        .right("base", |m| metric_value(&m.metric, m.base_median))
        .right("target", |m| metric_value(&m.metric, m.target_median))
        .right("shift", |m| metric_change(&m.metric, m.shift))
        .left("95 % CI", |m| {
            let (low, high) = (m.shift_low, m.shift_high);
            format!(
                "[{}, {}]",
                metric_change(&m.metric, low),
                metric_change(&m.metric, high)
            )
        })
        .right("q", |m| format!("{:.2e}", m.q))
        .left("", |m| match (m.significant, m.shift > 0.0) {
            (false, _) => String::new(),
            (true, true) => "grew".to_string(),
            (true, false) => "shrank".to_string(),
        })
        .write(out)?;
    writeln!(
        out,
        "medians per side; shift: Hodges-Lehmann (target − base) with its {:.0} % interval; \
         q: Mann-Whitney, Benjamini-Hochberg over the metrics; significant below {}",
        level * 100.0,
        alpha
    )
}
