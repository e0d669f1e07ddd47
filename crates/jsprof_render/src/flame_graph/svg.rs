//! The flame graph's SVG: header, frames as laid out by [`super::layout`], and the script that
//! zooms and searches (inferno's `svg.rs`).

use std::io::{self, Write};

use jsprof_analysis::CallTree;
use jsprof_profile::display::{display_name, fmt_location};
use jsprof_profile::{FrameKind, Profile, WeightUnit};

use super::layout::{frac, Placed};
use super::removed::Removed;
use super::{FlameGraphOptions, PAD};
use crate::xml::escape;

/// Room above the frames (title, subtitle, buttons) and below them (the details line).
const TOP: f64 = 54.0;
const BOTTOM: f64 = 26.0;

/// What a differential graph adds: BEFORE's total per node of `tree`, and BEFORE's frames that
/// AFTER lost (nodes of `before_tree`, of `before_profile`).
pub(super) struct Diff<'a> {
    pub before_totals: &'a [i64],
    pub removed: &'a [Removed],
    pub before_profile: &'a Profile,
    pub before_tree: &'a CallTree,
}

/// Writes `placed` (frames of `tree`) as a standalone SVG. With `diff`, frames are coloured by
/// their change since BEFORE instead of by name, and the frames AFTER lost are drawn hatched.
pub(super) fn write(
    mut out: impl Write,
    profile: &Profile,
    tree: &CallTree,
    placed: &[Placed],
    unit: WeightUnit,
    options: &FlameGraphOptions,
    diff: Option<Diff<'_>>,
) -> io::Result<()> {
    let before = diff.as_ref().map(|d| d.before_totals);
    let removed = diff.as_ref().map_or(&[][..], |d| d.removed);
    let total = tree.total_weight.max(0);
    let max_delta = before.map_or(0, |b| {
        tree.nodes
            .iter()
            .zip(b)
            .map(|(n, &w)| (n.total_weight - w).abs())
            .max()
            .unwrap_or(0)
    });
    let inner = options.width as f64 - 2.0 * PAD;
    let max_depth = placed
        .iter()
        .map(|p| p.depth)
        .chain(removed.iter().map(|r| r.depth))
        .max()
        .unwrap_or(0);
    let fh = options.frame_height as f64;
    let height = TOP + (max_depth as f64 + 1.0) * fh + BOTTOM;
    let width = options.width as f64;
    let char_width = options.font_size * 0.6;
    writeln!(out, r#"<?xml version="1.0" standalone="no"?>"#)?;
    writeln!(
        out,
        r#"<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" data-total="{total}" data-unit="{}" data-pad="{PAD}">"#,
        unit_name(unit)
    )?;
    writeln!(
        out,
        "<style>text{{font-family:Menlo,Consolas,\"DejaVu Sans Mono\",monospace;font-size:{fs}px;fill:#000}} g.f rect{{stroke:#fff;stroke-width:0.5;rx:2}} g.f:hover rect{{stroke:#000;stroke-width:1}} g.f{{cursor:pointer}} g.f text{{pointer-events:none}} g.a rect{{opacity:0.5}} g.f text.w{{fill:#fff}} g.r rect{{stroke:#1c3d9c;stroke-width:1;stroke-dasharray:3 2;fill-opacity:0.5}} g.r text{{fill:#1c3d9c;font-style:italic}} g.m rect{{fill:#e040fb !important}} .h{{font-size:{h}px}} .btn{{cursor:pointer;fill:#1a5fb4}}</style>",
        fs = options.font_size,
        h = options.font_size + 5.0,
    )?;
    if !removed.is_empty() {
        // Blue hatching on white: "was here", in the colour of what shrank.
        writeln!(
            out,
            r##"<defs><pattern id="removed" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f6ff"/><rect width="2" height="6" fill="#8aa2e8"/></pattern></defs>"##
        )?;
    }
    writeln!(
        out,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#fdfaf4"/>"##
    )?;
    writeln!(
        out,
        r#"<text class="h" x="{}" y="22" text-anchor="middle">{}</text>"#,
        width / 2.0,
        escape(&options.title)
    )?;
    if let Some(sub) = &options.subtitle {
        writeln!(
            out,
            r##"<text x="{}" y="40" text-anchor="middle" fill="#555">{}</text>"##,
            width / 2.0,
            escape(sub)
        )?;
    }
    writeln!(
        out,
        r#"<text id="reset" class="btn" x="{PAD}" y="22" style="opacity:0">Reset zoom</text>"#
    )?;
    writeln!(
        out,
        r#"<text id="search" class="btn" x="{}" y="22" text-anchor="end">Search</text>"#,
        width - PAD
    )?;
    writeln!(
        out,
        r#"<text id="matched" x="{}" y="40" text-anchor="end"></text>"#,
        width - PAD
    )?;
    writeln!(
        out,
        r#"<text id="details" x="{PAD}" y="{}"> </text>"#,
        height - 8.0
    )?;

    for p in placed {
        let before_w = match (before, p.node) {
            (Some(b), Some(n)) => Some(b[n as usize]),
            _ => None,
        };
        let (label, location, self_w, total_w, kind) = match p.node {
            None => (
                "all".to_string(),
                String::new(),
                tree.root_weight,
                total,
                FrameKind::Meta,
            ),
            Some(n) => {
                let node = &tree.nodes[n as usize];
                let f = node.function;
                (
                    display_name(profile.strings.get(f.name)).to_string(),
                    fmt_location(profile.strings.get(f.url), f.line, f.column),
                    node.self_weight,
                    node.total_weight,
                    profile.frames.get(node.frame).kind,
                )
            }
        };
        let px = PAD + p.x * inner;
        let pw = p.w * inner;
        let y = TOP + (max_depth - p.depth) as f64 * fh;
        let mut tooltip = format!(
            "{label}{}{}\ntotal {} ({:.2} %), self {} ({:.2} %)",
            if location.is_empty() { "" } else { " " },
            location,
            fmt_weight(total_w, unit),
            pct(total_w, total),
            fmt_weight(self_w, unit),
            pct(self_w, total),
        );
        let mut extra = String::new();
        let fill = match before_w {
            Some(b) => {
                let delta = total_w - b;
                tooltip.push_str(&format!(
                    "\nbefore {}, change {}{}{}",
                    fmt_weight(b, unit),
                    if delta > 0 { "+" } else { "" },
                    fmt_weight(delta, unit),
                    if b > 0 {
                        format!(" ({:+.1} %)", delta as f64 * 100.0 / b as f64)
                    } else {
                        " (new)".to_string()
                    }
                ));
                extra = format!(r#" data-before="{b}""#);
                diff_color(delta, max_delta)
            }
            None => color(&label, kind, p.node.is_none()),
        };
        writeln!(
            out,
            r#"<g class="f" data-x="{:.9}" data-w="{:.9}" data-d="{}" data-total="{total_w}" data-self="{self_w}"{extra} data-n="{}" data-u="{}"><title>{}</title><rect x="{px:.2}" y="{y:.1}" width="{pw:.2}" height="{:.1}" fill="{}"/><text{} x="{:.2}" y="{:.1}">{}</text></g>"#,
            p.x,
            p.w,
            p.depth,
            escape(&label),
            escape(&location),
            escape(&tooltip),
            fh - 1.0,
            rgb(fill),
            label_class(fill),
            px + 3.0,
            y + fh - 4.5,
            escape(&fit(&label, pw, char_width)),
        )?;
    }
    if let Some(d) = &diff {
        for r in removed {
            let node = &d.before_tree.nodes[r.node as usize];
            let f = node.function;
            let strings = &d.before_profile.strings;
            let label = display_name(strings.get(f.name)).to_string();
            let location = fmt_location(strings.get(f.url), f.line, f.column);
            let (px, pw) = (PAD + r.x * inner, r.w * inner);
            let y = TOP + (max_depth - r.depth) as f64 * fh;
            let tooltip = format!(
                "{label}{}{location}\nremoved: before {}, now 0 (drawn at its before width)",
                if location.is_empty() { "" } else { " " },
                fmt_weight(r.before, unit),
            );
            writeln!(
                out,
                r#"<g class="f r" data-x="{:.9}" data-w="{:.9}" data-d="{}" data-total="0" data-self="0" data-before="{}" data-n="{}" data-u="{}"><title>{}</title><rect x="{px:.2}" y="{y:.1}" width="{pw:.2}" height="{:.1}" fill="url(#removed)"/><text x="{:.2}" y="{:.1}">{}</text></g>"#,
                r.x,
                r.w,
                r.depth,
                r.before,
                escape(&label),
                escape(&location),
                escape(&tooltip),
                fh - 1.0,
                px + 3.0,
                y + fh - 4.5,
                escape(&fit(&label, pw, char_width)),
            )?;
        }
    }
    writeln!(out, "<script><![CDATA[")?;
    writeln!(
        out,
        "const W={width},PAD={PAD},CW={char_width},TOTAL={total};"
    )?;
    out.write_all(SCRIPT.as_bytes())?;
    writeln!(out, "]]></script>")?;
    writeln!(out, "</svg>")?;
    Ok(())
}

fn pct(w: i64, total: i64) -> f64 {
    frac(w, total) * 100.0
}

fn unit_name(unit: WeightUnit) -> &'static str {
    match unit {
        WeightUnit::Nanoseconds => "ns",
        WeightUnit::Samples => "samples",
        WeightUnit::Bytes => "bytes",
    }
}

fn fmt_weight(w: i64, unit: WeightUnit) -> String {
    match unit {
        WeightUnit::Nanoseconds => format!("{:.3} ms", jsprof_profile::ns_to_ms(w)),
        WeightUnit::Samples => format!("{w} samples"),
        WeightUnit::Bytes => {
            if w.abs() < 1024 {
                format!("{w} B")
            } else if w.abs() < 1024 * 1024 {
                format!("{:.1} KB", w as f64 / 1024.0)
            } else {
                format!("{:.2} MB", w as f64 / (1024.0 * 1024.0))
            }
        }
    }
}

/// The label cut to fit `width` pixels (`..` marks a cut), empty when not even 3 characters fit.
fn fit(label: &str, width: f64, char_width: f64) -> String {
    let room = ((width - 6.0) / char_width).floor();
    if room < 3.0 {
        return String::new();
    }
    let room = room as usize;
    if label.chars().count() <= room {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(room - 2).collect();
        s.push_str("..");
        s
    }
}

/// A fill as SVG writes it.
fn rgb([r, g, b]: [f64; 3]) -> String {
    format!(
        "rgb({:.0},{:.0},{:.0})",
        r.clamp(0.0, 255.0),
        g.clamp(0.0, 255.0),
        b.clamp(0.0, 255.0)
    )
}

/// ` class="w"` (white text) where black would not read on `fill`: WCAG's relative luminance,
/// below which white has the larger contrast ratio (0.179), e.g. the saturated blue of a frame
/// that shrank most.
fn label_class(fill: [f64; 3]) -> &'static str {
    let linear = |c: f64| {
        let c = c.clamp(0.0, 255.0) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let [r, g, b] = fill;
    let luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    if luminance < 0.179 {
        r#" class="w""#
    } else {
        ""
    }
}

/// Warm colours for JavaScript, cooler for native code, grey for DevTools' pseudo-frames; the
/// shade is a hash of the name so a function keeps its colour across the graph.
fn color(name: &str, kind: FrameKind, all: bool) -> [f64; 3] {
    let h = name
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    let v = (h % 1000) as f64 / 1000.0;
    let v2 = ((h / 1000) % 1000) as f64 / 1000.0;
    let (r, g, b) = if all {
        (200.0, 200.0, 200.0)
    } else {
        match kind {
            FrameKind::Js => (225.0 + 30.0 * v, 90.0 + 110.0 * v2, 40.0 + 30.0 * v),
            FrameKind::Native => (110.0 + 40.0 * v, 170.0 + 40.0 * v2, 210.0 + 40.0 * v),
            FrameKind::Meta => (170.0 + 30.0 * v, 170.0 + 30.0 * v, 170.0 + 30.0 * v),
        }
    };
    [r, g, b]
}

/// Red for growth, blue for shrinkage, saturated at the largest change; near-white for none.
fn diff_color(delta: i64, max_delta: i64) -> [f64; 3] {
    let ratio = if max_delta > 0 {
        (delta.unsigned_abs() as f64 / max_delta as f64).min(1.0)
    } else {
        0.0
    };
    let fade = (235.0 * (1.0 - ratio)).round();
    if delta > 0 {
        [255.0, fade, fade]
    } else if delta < 0 {
        [fade, fade, 255.0]
    } else {
        [245.0; 3]
    }
}

const SCRIPT: &str = r#"
const frames = Array.from(document.querySelectorAll('g.f'));
const details = document.getElementById('details');
const resetBtn = document.getElementById('reset');
const matched = document.getElementById('matched');
let searching = null;
function fit(g, w) {
  const t = g.querySelector('text'), n = g.dataset.n, m = Math.floor((w - 6) / CW);
  t.textContent = m < 3 ? '' : (n.length <= m ? n : n.slice(0, m - 2) + '..');
}
function place(g, x, w) {
  const r = g.querySelector('rect'), t = g.querySelector('text');
  const px = PAD + x * (W - 2 * PAD), pw = w * (W - 2 * PAD);
  r.setAttribute('x', px.toFixed(2)); r.setAttribute('width', pw.toFixed(2));
  t.setAttribute('x', (px + 3).toFixed(2)); fit(g, pw);
}
function zoom(z) {
  const x0 = +z.dataset.x, w0 = +z.dataset.w, d0 = +z.dataset.d, e = 1e-9;
  if (w0 <= 0) return;
  for (const g of frames) {
    const x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d;
    if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) {
      g.style.display = ''; g.classList.add('a'); place(g, 0, 1);
    } else if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e) {
      g.style.display = ''; g.classList.remove('a'); place(g, (x - x0) / w0, w / w0);
    } else {
      g.style.display = 'none';
    }
  }
  resetBtn.style.opacity = 1;
}
function reset() {
  for (const g of frames) { g.style.display = ''; g.classList.remove('a'); place(g, +g.dataset.x, +g.dataset.w); }
  resetBtn.style.opacity = 0;
}
function search(term) {
  for (const g of frames) g.classList.remove('m');
  matched.textContent = ''; searching = null;
  if (!term) return;
  let re;
  try { re = new RegExp(term); } catch (err) { matched.textContent = 'bad pattern'; return; }
  searching = term;
  const hits = [];
  for (const g of frames) {
    if (re.test(g.dataset.n) || re.test(g.dataset.u)) {
      g.classList.add('m');
      // A removed frame (g.r) is BEFORE's time: it counts in no share of AFTER's.
      if (!g.classList.contains('r')) hits.push([+g.dataset.x, +g.dataset.w]);
    }
  }
  hits.sort((a, b) => a[0] - b[0]);
  let share = 0, end = -1;
  for (const [x, w] of hits) {
    if (x + w <= end) continue;
    share += x + w - Math.max(x, end); end = x + w;
  }
  matched.textContent = 'Matched: ' + (share * 100).toFixed(1) + ' %';
}
function ask() {
  if (searching !== null) { search(null); return; }
  const term = prompt('Search (regular expression)', '');
  if (term) search(term);
}
for (const g of frames) {
  g.addEventListener('click', () => zoom(g));
  g.addEventListener('mouseover', () => { details.textContent = g.querySelector('title').textContent.replace('\n', ' — '); });
  g.addEventListener('mouseout', () => { details.textContent = ' '; });
}
resetBtn.addEventListener('click', reset);
document.getElementById('search').addEventListener('click', ask);
window.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }
  if (e.key === 'Escape') { search(null); reset(); }
});
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_labels() {
        assert_eq!(fit("abcdef", 100.0, 7.2), "abcdef");
        assert_eq!(fit("abcdefghijklmnop", 50.0, 7.2), "abcd..");
        assert_eq!(fit("abc", 10.0, 7.2), "");
    }

    #[test]
    fn labels_turn_white_on_dark_fills_only() {
        // The most-shrunk frame's saturated blue, and a dark grey, need white text.
        assert_eq!(label_class(diff_color(-100, 100)), r#" class="w""#);
        assert_eq!(label_class([60.0, 60.0, 60.0]), r#" class="w""#);
        // Saturated red, pale blue, unchanged white and the name colours keep black.
        assert_eq!(label_class(diff_color(100, 100)), "");
        assert_eq!(label_class(diff_color(-10, 100)), "");
        assert_eq!(label_class(diff_color(0, 100)), "");
        for kind in [FrameKind::Js, FrameKind::Native, FrameKind::Meta] {
            for name in ["a", "render", "(garbage collector)", "RegExp: x"] {
                assert_eq!(label_class(color(name, kind, false)), "", "{name}");
            }
        }
    }
}
