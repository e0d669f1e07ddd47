//! `jsprof insights TRACE`: the page's Web Vitals per navigation (FCP, LCP, CLS, INP, DCL,
//! load), then the evidence DevTools' insights show: the LCP breakdown, the longest
//! interaction's phases, the layout-shift clusters, render-blocking requests, LCP discovery,
//! document latency, the network dependency tree, forced reflow, DOM size, third parties and
//! long tasks.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::output::{self, columns, fmt_ms, Align, Table, TextOut};
use jsprof_document::insights::InsightsReport;
use jsprof_document::load::CpuInput;
use jsprof_document::page::{cls_text, rating_text, MetricJson, WindowJson};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    if args.file.is_dir() {
        return runs(&args);
    }
    crate::load::document(&args, jsprof_document::page::insights_report, write)
}

/// Each navigation's metrics and insights, then the page's long tasks, requests and screenshots.
fn write(loaded: &CpuInput, report: &InsightsReport, out: &mut TextOut) -> std::io::Result<()> {
    output::warn(&loaded.name, loaded.warnings());
    for n in &report.navigations {
        writeln!(out, "{} {}", n.id, n.url)?;
        let m = &n.metrics;
        let mut table = Table::new(&[
            ("metric", Align::Left),
            ("value", Align::Right),
            ("at", Align::Right),
            ("rating", Align::Left),
        ]);
        let mut row = |name: &str, metric: Option<&MetricJson>| {
            if let Some(x) = metric {
                table.row(vec![
                    name.to_string(),
                    fmt_ms(x.value_ms),
                    fmt_ms(x.ts_ms),
                    rating_text(&x.classification).to_string(),
                ]);
            }
        };
        row("FCP", m.fcp.as_ref());
        row("DCL", m.dcl.as_ref());
        row("Load", m.load.as_ref());
        if let Some(l) = &m.lcp {
            table.row(vec![
                format!("LCP ({})", l.lcp_type.as_deref().unwrap_or("?")),
                fmt_ms(l.value_ms),
                fmt_ms(l.ts_ms),
                rating_text(&l.classification).to_string(),
            ]);
        }
        table.row(vec![
            "CLS".to_string(),
            cls_text(m.cls.score),
            m.cls
                .worst_cluster
                .as_ref()
                .map_or("-".to_string(), |c| fmt_ms(c.start_ms)),
            rating_text(&m.cls.classification).to_string(),
        ]);
        if let Some(i) = &m.inp {
            table.row(vec![
                format!("INP ({})", i.interaction.event_type),
                fmt_ms(i.value_ms),
                fmt_ms(i.interaction.start_ms),
                rating_text(&i.classification).to_string(),
            ]);
        }
        table.write(out)?;
        let ins = &n.insights;
        if let Some(b) = &ins.lcp_breakdown {
            writeln!(out, "\nLCP breakdown")?;
            let w = |out: &mut dyn Write, name: &str, w: Option<&WindowJson>| match w {
                Some(w) => writeln!(out, "  {name:<14} {:>10}", fmt_ms(w.dur_ms)),
                None => Ok(()),
            };
            w(out, "TTFB", Some(&b.ttfb))?;
            w(out, "load delay", b.load_delay.as_ref())?;
            w(out, "load duration", b.load_duration.as_ref())?;
            w(out, "render delay", Some(&b.render_delay))?;
        }
        if let Some(i) = &ins.inp_breakdown {
            writeln!(
                out,
                "\nINP breakdown ({} at {})",
                i.event_type,
                fmt_ms(i.start_ms)
            )?;
            writeln!(
                out,
                "  {:<18} {:>10}",
                "input delay",
                fmt_ms(i.input_delay_ms)
            )?;
            writeln!(
                out,
                "  {:<18} {:>10}",
                "processing",
                fmt_ms(i.processing_ms)
            )?;
            writeln!(
                out,
                "  {:<18} {:>10}",
                "presentation delay",
                fmt_ms(i.presentation_delay_ms)
            )?;
        }
        if !ins.cls_clusters.is_empty() {
            writeln!(out, "\nLayout shift clusters")?;
            for c in &ins.cls_clusters {
                writeln!(
                    out,
                    "  {:>10} +{:<10} score {:.4}, {} shifts",
                    fmt_ms(c.start_ms),
                    fmt_ms(c.dur_ms),
                    c.score,
                    c.shifts
                )?;
            }
        }
        if let Some(cc) = &ins.cls_culprits {
            for k in cc.clusters.iter().filter(|k| !k.culprits.is_empty()) {
                writeln!(
                    out,
                    "\nLayout shift culprits (cluster at {}): {}",
                    fmt_ms(k.cluster_start_ms),
                    cc.state
                )?;
                for c in &k.culprits {
                    writeln!(out, "  {:<14} {}", c.kind, c.url.as_deref().unwrap_or(""))?;
                }
            }
            if !cc.animation_failures.is_empty() {
                writeln!(out, "\nAnimations the compositor could not run")?;
                for f in &cc.animation_failures {
                    writeln!(
                        out,
                        "  {:>10}  {} {}: {}",
                        fmt_ms(f.animation_ts_ms),
                        f.name.as_deref().unwrap_or("(unnamed)"),
                        f.unsupported_properties.join(", "),
                        f.failure_reasons.join(", ")
                    )?;
                }
            }
        }
        if !ins.render_blocking.is_empty() {
            write_render_blocking(out, ins)?;
        }
        if let Some(d) = &ins.lcp_discovery {
            writeln!(out, "\nLCP request discovery: {}", d.state)?;
            let check = |ok: bool| if ok { "yes" } else { "NO" };
            writeln!(
                out,
                "  discoverable in the HTML  {}\n  fetchpriority=high        {}\n  not lazily loaded         {}",
                check(d.request_discoverable),
                check(d.priority_hinted),
                check(d.eagerly_loaded)
            )?;
            if let Some(delay) = d.discovery_delay_ms {
                writeln!(
                    out,
                    "  requested {} after the document's first byte",
                    fmt_ms(delay)
                )?;
            }
        }
        if let Some(d) = &ins.document_latency {
            writeln!(out, "\nDocument request latency: {}", d.state)?;
            writeln!(
                out,
                "  server response {} ms, redirects {} ms, compression {}",
                d.server_response_ms,
                d.redirect_ms,
                if d.uses_compression {
                    "applied".to_string()
                } else {
                    format!("missing ({} B to save)", d.uncompressed_bytes)
                }
            )?;
        }
        if let Some(t) = ins.network_dependency_tree.as_ref() {
            write_network_tree(out, t)?;
        }
        if let Some(f) = ins.forced_reflow.as_ref().filter(|f| f.reflow_events > 0) {
            writeln!(
                out,
                "\nForced reflow: {} ({} reflows, {})",
                f.state,
                f.reflow_events,
                fmt_ms(f.total_reflow_ms)
            )?;
            for s in &f.bottom_up {
                let at = s.frame.as_ref().map_or("(no stack)".to_string(), |f| {
                    format!("{} {}:{}:{}", f.function, f.url, f.line + 1, f.column + 1)
                });
                writeln!(out, "  {:>10}  {:>5}x  {at}", fmt_ms(s.total_ms), s.reflows)?;
            }
        }
        if let Some(d) = &ins.dom_size {
            if let Some(total) = d.total_elements {
                writeln!(
                    out,
                    "\nDOM size: {} ({total} elements, depth {}, at most {} children)",
                    d.state,
                    d.max_depth.map_or("?".to_string(), |x| x.to_string()),
                    d.max_children.map_or("?".to_string(), |x| x.to_string())
                )?;
            }
            for u in &d.large_updates {
                writeln!(out, "  {:>10}  {} of {}", fmt_ms(u.dur_ms), u.kind, u.size)?;
            }
        }
        if let Some(t) = &ins.third_parties {
            writeln!(out, "\nThird parties: {}", t.state)?;
            for e in &t.entities {
                writeln!(
                    out,
                    "  {:<24} {:>10} {:>10}{}",
                    e.entity,
                    output::fmt_bytes(e.transfer_size as f64),
                    fmt_ms(e.main_thread_ms),
                    if e.first_party { "  (first party)" } else { "" }
                )?;
            }
        }
        write_page_checks(out, ins)?;
        writeln!(out)?;
    }
    let lt = &report.long_tasks;
    writeln!(
        out,
        "Long tasks: {} ({} total, {} blocking); {} requests ({} transferred); {} screenshots",
        lt.count,
        fmt_ms(lt.total_ms),
        fmt_ms(lt.blocking_ms),
        report.requests,
        output::fmt_bytes(report.transfer_size),
        report.screenshots.count
    )
}

/// An insight's Lantern savings after its verdict, as the render-blocking requests': `, would
/// save FCP 0 ms, LCP 750 ms`; nothing when it saves nothing (or the engine would not simulate).
fn fmt_savings(s: Option<&jsprof_document::page_checks::MetricSavingsJson>) -> String {
    match s {
        Some(s) if s.fcp_ms != 0.0 || s.lcp_ms != 0.0 => {
            format!(
                ", would save FCP {:.0} ms, LCP {:.0} ms",
                s.fcp_ms, s.lcp_ms
            )
        }
        _ => String::new(),
    }
}

/// The page checks (image delivery, viewport, character set, cache, modern HTTP, font display,
/// CSS selector costs when the trace has them, legacy and duplicated JavaScript): one line each
/// with its state and verdict, and what failed beneath.
fn write_page_checks(
    out: &mut dyn Write,
    ins: &jsprof_document::page::InsightsJson,
) -> std::io::Result<()> {
    writeln!(out, "\nPage checks")?;
    let line = |out: &mut dyn Write, what: &str, state: &str, verdict: String| {
        writeln!(out, "  {what:<18} {state:<12} {verdict}")
    };
    if let Some(d) = &ins.image_delivery {
        let verdict = format!(
            "{} images to shrink, {} to save{}",
            d.optimizable_images.len(),
            output::fmt_bytes(d.wasted_bytes),
            fmt_savings(d.metric_savings.as_ref())
        );
        line(out, "image delivery", &d.state, verdict)?;
        for m in &d.optimizable_images {
            let how: Vec<String> = m
                .optimizations
                .iter()
                .map(|o| {
                    let what = match (o.kind.as_str(), &o.file_dimensions, &o.display_dimensions) {
                        ("RESPONSIVE_SIZE", Some(f), Some(d)) => format!(
                            "resized from {}x{} to {}x{}",
                            f.width, f.height, d.width, d.height
                        ),
                        ("MODERN_FORMAT_OR_COMPRESSION", ..) => "modern format".to_string(),
                        ("ADJUST_COMPRESSION", ..) => "more compression".to_string(),
                        ("VIDEO_FORMAT", ..) => "as video".to_string(),
                        (kind, ..) => kind.to_string(),
                    };
                    format!("{what} {}", output::fmt_bytes(o.byte_savings))
                })
                .collect();
            writeln!(
                out,
                "    {:>10}  {}  ({})",
                output::fmt_bytes(m.byte_savings),
                m.request.url,
                how.join(", ")
            )?;
        }
    }
    if let Some(v) = &ins.viewport {
        let verdict = match v.mobile_optimized {
            Some(true) => "optimized for mobile".to_string(),
            Some(false) => format!(
                "not optimized for mobile, INP savings {}",
                fmt_ms(v.inp_savings_ms.unwrap_or(0.0))
            ),
            None => "no frame committed".to_string(),
        };
        line(out, "viewport", &v.state, verdict)?;
    }
    if let Some(c) = &ins.character_set {
        let verdict = match &c.request {
            None => "no document request".to_string(),
            Some(_) => format!(
                "charset in Content-Type: {}, <meta charset> in the first 1024 bytes: {}",
                if c.http_charset { "yes" } else { "no" },
                match &c.meta_charset_disposition {
                    None => "unknown",
                    Some(_) if c.meta_charset => "yes",
                    Some(_) => "no",
                }
            ),
        };
        line(out, "character set", &c.state, verdict)?;
    }
    if let Some(c) = &ins.cache {
        let verdict = format!(
            "{} requests with short lifetimes, {} to download again{}",
            c.requests.len(),
            output::fmt_bytes(c.wasted_bytes),
            fmt_savings(c.metric_savings.as_ref())
        );
        line(out, "cache lifetimes", &c.state, verdict)?;
        for r in &c.requests {
            writeln!(
                out,
                "    ttl {:>8} s {:>10}  {}",
                r.ttl_s,
                output::fmt_bytes(r.wasted_bytes),
                r.request.url
            )?;
        }
    }
    if let Some(m) = &ins.modern_http {
        // DevTools counts only the HTTP/1.x requests of an origin serving six or more static
        // resources (what HTTP/2 would multiplex), so "0 HTTP/1.x requests" on a page loaded
        // over HTTP/1.1 read as a contradiction.
        let verdict = match m.http1_requests.len() {
            0 => "no origin serves six or more static resources over HTTP/1.x".to_string(),
            n => format!(
                "{n} requests HTTP/2 would multiplex (HTTP/1.x origins with six or more static \
                 resources){}",
                fmt_savings(m.metric_savings.as_ref())
            ),
        };
        line(out, "modern HTTP", &m.state, verdict)?;
        for r in &m.http1_requests {
            writeln!(out, "    {}", r.url)?;
        }
    }
    if let Some(f) = &ins.font_display {
        let verdict = format!("{} fonts hide text while loading", f.fonts.len());
        line(out, "font display", &f.state, verdict)?;
        for font in &f.fonts {
            writeln!(
                out,
                "    {:>10}  {:<8} {}",
                fmt_ms(font.wasted_ms),
                font.display,
                font.name.as_deref().unwrap_or(&font.request.url)
            )?;
        }
    }
    if let Some(c) = ins
        .slow_css_selector
        .as_ref()
        .filter(|c| c.total_match_attempts > 0.0)
    {
        let verdict = format!(
            "{} matching, {} attempts, {} matches",
            fmt_ms(c.total_elapsed_ms),
            c.total_match_attempts,
            c.total_match_count
        );
        line(out, "CSS selector costs", &c.state, verdict)?;
        for (what, t) in [
            ("slowest", &c.top_elapsed),
            ("most tried", &c.top_match_attempts),
        ] {
            if let Some(t) = t {
                writeln!(
                    out,
                    "    {what:<10} {:>10} {:>8} attempts  {}",
                    fmt_ms(t.elapsed_ms),
                    t.match_attempts,
                    t.selector
                )?;
            }
        }
    }
    script_insights(out, ins)
}

/// Legacy and duplicated JavaScript: each script with its savings and what was found where.
fn script_insights(
    out: &mut dyn Write,
    ins: &jsprof_document::page::InsightsJson,
) -> std::io::Result<()> {
    let line = |out: &mut dyn Write, what: &str, state: &str, verdict: String| {
        writeln!(out, "  {what:<18} {state:<12} {verdict}")
    };
    let savings = |fcp: Option<f64>, lcp: Option<f64>| match (fcp, lcp) {
        (Some(f), Some(l)) if f > 0.0 || l > 0.0 => {
            format!(", FCP savings {}, LCP savings {}", fmt_ms(f), fmt_ms(l))
        }
        _ => String::new(),
    };
    if let Some(l) = &ins.legacy_javascript {
        let verdict = format!(
            "{} scripts with polyfills or transforms, {} wasted{}",
            l.scripts.len(),
            output::fmt_bytes(l.wasted_bytes),
            savings(l.fcp_savings_ms, l.lcp_savings_ms)
        );
        line(out, "legacy JS", &l.state, verdict)?;
        for s in &l.scripts {
            let url = s.url.as_deref().filter(|u| !u.is_empty());
            writeln!(
                out,
                "    {:>10}  {}",
                output::fmt_bytes(s.estimated_byte_savings),
                url.unwrap_or("(a script without a url)")
            )?;
            for m in &s.matches {
                writeln!(
                    out,
                    "                {}  {}:{}",
                    m.name,
                    m.line + 1,
                    m.column + 1
                )?;
            }
        }
    }
    if let Some(d) = &ins.duplicated_javascript {
        let verdict = format!(
            "{} of {} scripts share {} sources, {} duplicated{}",
            d.scripts_with_duplication.len(),
            d.scripts,
            d.duplication.len(),
            output::fmt_bytes(d.wasted_bytes),
            savings(d.fcp_savings_ms, d.lcp_savings_ms)
        );
        line(out, "duplicated JS", &d.state, verdict)?;
        // By package, as the Performance panel lists them.
        for dup in &d.duplication_by_package {
            writeln!(
                out,
                "    {:>10}  {}",
                output::fmt_bytes(dup.estimated_duplicate_bytes),
                dup.source
            )?;
            for c in &dup.copies {
                let url = c.url.as_deref().filter(|u| !u.is_empty());
                writeln!(
                    out,
                    "                {:>10}  {}",
                    output::fmt_bytes(c.attributed_size),
                    url.unwrap_or("(a script without a url)")
                )?;
            }
        }
    }
    Ok(())
}

/// The network dependency tree as an indented tree: each request's end from the chain's start,
/// the critical path marked `*`.
fn write_network_tree(
    out: &mut dyn Write,
    t: &jsprof_document::page::NetworkDependencyTreeJson,
) -> std::io::Result<()> {
    writeln!(
        out,
        "\nNetwork dependency tree: {} (max critical path latency {})",
        t.state,
        fmt_ms(t.max_critical_path_latency_ms)
    )?;
    if let Some(e) = &t.graph_error {
        writeln!(out, "  no Lantern context: {e}")?;
    }
    for r in &t.chain {
        writeln!(
            out,
            "  {:>10} {} {:indent$}{}",
            fmt_ms(r.time_from_initial_ms),
            if r.is_longest { '*' } else { ' ' },
            "",
            r.url,
            indent = 2 * r.depth
        )?;
    }
    for p in &t.preconnected_origins {
        writeln!(
            out,
            "  preconnected ({}): {}{}",
            p.source,
            p.url,
            if p.unused {
                "  (unused)"
            } else if p.crossorigin {
                "  (unused: check its crossorigin attribute)"
            } else {
                ""
            }
        )?;
    }
    for c in &t.preconnect_candidates {
        writeln!(
            out,
            "  preconnect to {} would save {}",
            c.origin,
            fmt_ms(c.wasted_ms)
        )?;
    }
    Ok(())
}

/// The render-blocking requests, with Lantern's estimated savings where the engine has them.
fn write_render_blocking(
    out: &mut dyn Write,
    ins: &jsprof_document::page::InsightsJson,
) -> std::io::Result<()> {
    let savings = ins.render_blocking_savings.as_ref();
    match savings {
        Some(s) => writeln!(
            out,
            "\nRender-blocking requests (deferring them would save FCP {} ms, LCP {} ms)",
            s.fcp_ms, s.lcp_ms
        )?,
        None => writeln!(out, "\nRender-blocking requests")?,
    }
    for r in &ins.render_blocking {
        let wasted = savings
            .and_then(|s| s.requests.iter().find(|w| w.request_id == r.request_id))
            .map_or(String::new(), |w| format!("{} ms", w.wasted_ms));
        match savings {
            Some(_) => writeln!(out, "  {:>10}  {:>9}  {}", fmt_ms(r.dur_ms), wasted, r.url)?,
            None => writeln!(out, "  {:>10}  {}", fmt_ms(r.dur_ms), r.url)?,
        }
    }
    Ok(())
}

/// Each file's insights document, named by its file name: the runs of a page load (`insights
/// DIR`, `diff --base A/ --target B/`). One run at a time: only its small document is kept.
/// Each run's insights document, and with `weights` its main thread's function weights (what
/// a comparison of runs tests per function; `insights DIR` does without).
pub(crate) fn load_runs(
    files: &[std::path::PathBuf],
    weights: bool,
) -> Result<crate::cmd::diff::Runs> {
    use anyhow::Context;
    let mut runs = crate::cmd::diff::Runs::default();
    for file in files {
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let loaded = crate::load::load_cpu(file, &jsprof_document::load::Pipeline::default())
            .with_context(|| format!("run {name}"))?;
        let report = jsprof_document::page::insights_report(&loaded)
            .with_context(|| format!("run {name}"))?;
        if weights {
            let w = jsprof_document::page_diff::run_weights(&loaded)
                .with_context(|| format!("run {name}"))?;
            runs.weights.push(w);
        }
        output::warn(&loaded.name, loaded.warnings());
        runs.reports.push((name, report));
    }
    Ok(runs)
}

/// `jsprof insights DIR`: the traces in DIR (its regular files, by name, but `manifest.json`)
/// as runs of one page load: each metric's distribution, each insight's share of failing runs.
fn runs(args: &Args) -> Result<ExitCode> {
    let files = crate::input::files_in(&args.file)?;
    if files.is_empty() {
        anyhow::bail!(
            "{}: no traces in this folder (a run of a page load per file, e.g. from `jsprof record --url … --trace`)",
            args.file.display()
        );
    }
    let runs = load_runs(&files, false)?;
    let report = jsprof_document::page_runs::runs_report(&runs.reports);
    output::emit(args.json, &report, |out| {
        for w in &report.warnings {
            eprintln!("{}: {w}", args.file.display());
        }
        writeln!(
            out,
            "{} runs of {}{}",
            report.runs.len(),
            report
                .url
                .as_deref()
                .unwrap_or("a trace without a navigation"),
            report
                .median_run
                .map(|i| format!(" (median run: {})", report.runs[i].file))
                .unwrap_or_default()
        )?;
        use jsprof_document::page_runs::metric_text;
        columns(&report.metrics)
            .left("metric", |m| output::metric_name(m.metric))
            .right("median", |m| metric_text(m.metric, m.median))
            .right("p75", |m| metric_text(m.metric, m.p75))
            .right("min", |m| metric_text(m.metric, m.min))
            .right("max", |m| metric_text(m.metric, m.max))
            .right("IQR", |m| metric_text(m.metric, m.iqr))
            .right("runs", |m| m.runs.to_string())
            .write(out)?;
        let failing: Vec<_> = report.insights.iter().filter(|i| i.failing > 0).collect();
        if !failing.is_empty() {
            writeln!(out)?;
            let mut table = Table::new(&[
                ("insight", Align::Left),
                ("fails in", Align::Right),
                ("median savings", Align::Left),
            ]);
            for i in failing {
                let saved: Vec<String> = i
                    .median_savings
                    .iter()
                    .map(|(what, v)| match what.as_str() {
                        "wasted_bytes" => output::fmt_bytes(*v),
                        "ms" => fmt_ms(*v),
                        other => format!(
                            "{} {}",
                            other.trim_end_matches("_ms").to_uppercase(),
                            fmt_ms(*v)
                        ),
                    })
                    .collect();
                table.row(vec![
                    i.insight.replace('_', " "),
                    format!("{} of {} ({:.0} %)", i.failing, i.runs, i.share * 100.0),
                    saved.join(", "),
                ]);
            }
            table.write(out)?;
        }
        Ok(())
    })
}
