//! A time-ordered flame chart (DevTools' Performance-panel view) of one timeline as a standalone
//! SVG: every event a bar at its real start and duration, nested by depth, gaps left empty, a
//! time axis on top, a tooltip per bar with name, location, self and total.
//!
//! Each bar is `<rect>` with `data-id`, `data-parent`, `data-start-ms`, `data-end-ms` (the
//! event's own times) so that tools and tests can read the chart back.

use std::io::{self, Write};

use jsprof_analysis::{EventData, EventType, Timeline};
use jsprof_profile::display::{display_name, fmt_location};
use jsprof_profile::{ns_to_ms, Profile, NS_PER_MS};

use crate::xml::escape;

/// Drawing options.
#[derive(Clone, Debug)]
pub struct FlameChartOptions {
    /// Width of the whole picture in pixels.
    pub width: u32,
    /// Height of one row.
    pub row_height: u32,
    /// The window to draw, ns relative to the timeline's origin; `None` = the events' extent.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// Bars narrower than this (px) are left out (their time still shows in the parent).
    pub min_width: f64,
    pub title: String,
}

impl Default for FlameChartOptions {
    fn default() -> Self {
        FlameChartOptions {
            width: 1400,
            row_height: 17,
            start: None,
            end: None,
            min_width: 0.1,
            title: "Flame chart".to_string(),
        }
    }
}

/// Left/right margin and the height of the title + axis band.
pub const MARGIN: f64 = 10.0;
pub const HEADER: f64 = 46.0;

fn color(kind: EventType, name: &str) -> &'static str {
    match kind {
        EventType::JsCall => {
            // A few yellows/oranges so neighbours differ, stable per name.
            const JS: [&str; 4] = ["#f2c744", "#f5d26b", "#e9b949", "#f7dc85"];
            let h = name
                .bytes()
                .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
            JS[(h % 4) as usize]
        }
        EventType::Gc => "#c9a0dc",
        EventType::ScriptCompilation | EventType::ScriptThreadEvaluation => "#f0a04b",
        EventType::DocumentParsing | EventType::CssParsing => "#6fa8dc",
        EventType::Reflow | EventType::StyleRecalculation | EventType::CssSelectorMatching => {
            "#b48ee0"
        }
        EventType::Layout => "#9b72cf",
        EventType::Paint => "#7bc47f",
        EventType::Generic => "#c8c8c8",
    }
}

fn fmt_ms(ms: f64) -> String {
    if ms.abs() >= 100.0 {
        format!("{ms:.1} ms")
    } else if ms.abs() >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

/// A "nice" tick step (1, 2, 5 × 10^k ms) giving about `target` ticks over `span_ms`.
fn tick_step(span_ms: f64, target: f64) -> f64 {
    let raw = (span_ms / target).max(1e-6);
    let pow = 10f64.powf(raw.log10().floor());
    let m = raw / pow;
    let nice = if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * pow
}

/// Writes the flame chart of `timeline` as SVG.
pub fn write_flame_chart_svg(
    profile: &Profile,
    timeline: &Timeline,
    options: &FlameChartOptions,
    out: &mut impl Write,
) -> io::Result<()> {
    let origin = timeline.origin;
    let events = &timeline.events;
    let (lo, hi) = events.iter().fold((i64::MAX, i64::MIN), |(a, b), e| {
        (a.min(e.start - origin), b.max(e.end - origin))
    });
    let t0 = options.start.unwrap_or(if lo == i64::MAX { 0 } else { lo });
    let t1 = options
        .end
        .unwrap_or(if hi == i64::MIN { t0 + 1 } else { hi })
        .max(t0 + 1);
    let width = options.width as f64;
    let chart = width - 2.0 * MARGIN;
    let scale = chart / (t1 - t0) as f64; // px per ns
    let x_of = |t: i64| MARGIN + (t - t0) as f64 * scale;
    let row = options.row_height as f64;

    // Visible bars: overlapping the window, clipped to it and to their parent's bar.
    struct Bar {
        index: usize,
        x: f64,
        w: f64,
        depth: u32,
    }
    let mut bars: Vec<Bar> = Vec::new();
    let mut clip_end: Vec<f64> = vec![f64::INFINITY; events.len()];
    let mut max_depth = 0;
    for (i, e) in events.iter().enumerate() {
        let (s, t) = (e.start - origin, e.end - origin);
        if t < t0 || s > t1 {
            continue;
        }
        let parent_end = e.parent.map_or(f64::INFINITY, |p| clip_end[p as usize]);
        let x = x_of(s.max(t0));
        let x_end = x_of(t.min(t1)).min(parent_end);
        clip_end[i] = x_end;
        let w = x_end - x;
        if w < options.min_width {
            continue;
        }
        max_depth = max_depth.max(e.depth);
        bars.push(Bar {
            index: i,
            x,
            w,
            depth: e.depth,
        });
    }
    let height = HEADER + (max_depth as f64 + 1.0) * row + MARGIN;

    writeln!(
        out,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Verdana, sans-serif" font-size="11" data-t0-ms="{t0ms}" data-t1-ms="{t1ms}" data-left="{MARGIN}" data-chart-width="{chart}" data-row-height="{row}" data-top="{HEADER}">
<style>rect.e:hover {{ stroke: #000; stroke-width: 0.6; }} text.l {{ pointer-events: none; }}</style>
<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>
<text x="{MARGIN}" y="16" font-size="13">{title}</text>"##,
        w = width,
        h = height,
        t0ms = ns_to_ms(t0),
        t1ms = ns_to_ms(t1),
        title = escape(&options.title),
    )?;

    // Time axis.
    let span_ms = ns_to_ms(t1 - t0);
    let step = tick_step(span_ms, (chart / 110.0).max(2.0));
    let first = (ns_to_ms(t0) / step).ceil() * step;
    let mut tick = first;
    writeln!(out, r##"<g class="axis" fill="#555" stroke="#ddd">"##)?;
    while tick <= ns_to_ms(t1) + 1e-9 {
        let x = MARGIN + (tick - ns_to_ms(t0)) * NS_PER_MS * scale;
        writeln!(
            out,
            r##"<line x1="{x:.2}" y1="{y0}" x2="{x:.2}" y2="{h}"/><text x="{tx:.2}" y="{ty}" stroke="none">{label}</text>"##,
            y0 = HEADER - 12.0,
            h = height - MARGIN,
            tx = x + 2.0,
            ty = HEADER - 15.0,
            label = fmt_ms(tick),
        )?;
        tick += step;
    }
    writeln!(out, "</g>")?;

    for bar in &bars {
        let e = &events[bar.index];
        let name = profile.strings.get(e.name);
        let shown = display_name(name);
        let location = match e.data {
            EventData::Frame(f) => {
                let fr = profile.frames.get(f);
                fmt_location(profile.strings.get(fr.url), fr.line, fr.column)
            }
            EventData::Detail(d) => profile.strings.get(d).to_string(),
            EventData::None => String::new(),
        };
        let y = HEADER + e.depth as f64 * row;
        // The tooltip's lines are escaped one by one and joined by a literal newline, which a
        // `<title>` shows as a line break (the escaper writes newlines inside text as `&#10;`).
        let tooltip = format!(
            "{}{}{}\n{} · self {} · total {} · at {}",
            escape(shown),
            if location.is_empty() { "" } else { "\n" },
            escape(&location),
            e.kind.as_str(),
            fmt_ms(ns_to_ms(e.self_time)),
            fmt_ms(ns_to_ms(e.duration())),
            fmt_ms(ns_to_ms(e.start - origin)),
        );
        write!(
            out,
            r##"<g><title>{tip}</title><rect class="e" x="{x:.3}" y="{y}" width="{w:.3}" height="{h}" fill="{fill}" data-id="{id}" data-parent="{parent}" data-depth="{depth}" data-start-ms="{s}" data-end-ms="{t}"/>"##,
            tip = tooltip,
            x = bar.x,
            w = bar.w,
            h = row - 1.0,
            fill = color(e.kind, name),
            id = bar.index + 1,
            parent = e.parent.map_or(0, |p| p + 1),
            depth = bar.depth,
            s = ns_to_ms(e.start - origin),
            t = ns_to_ms(e.end - origin),
        )?;
        // A label when it fits (about 6.5 px per character).
        let chars = ((bar.w - 4.0) / 6.5).floor();
        if chars >= 3.0 {
            let chars = chars as usize;
            let label: String = if shown.chars().count() > chars {
                let mut s: String = shown.chars().take(chars.saturating_sub(1)).collect();
                s.push('…');
                s
            } else {
                shown.to_string()
            };
            write!(
                out,
                r##"<text class="l" x="{:.2}" y="{:.2}">{}</text>"##,
                bar.x + 2.0,
                y + row - 5.0,
                escape(&label)
            )?;
        }
        writeln!(out, "</g>")?;
    }
    writeln!(out, "</svg>")
}
