//! An aggregated flame graph as a standalone SVG: the top-down call tree drawn root at the
//! bottom, siblings heaviest first, each frame as wide as its total. The file carries its own
//! script: click a frame to zoom into it, search (Ctrl-F or the button) highlights matching frames
//! and tells their share, and every frame's tooltip gives self and total with percentages.
//!
//! Layout contract (tests parse it): every frame is a `<g class="f">` holding a `<title>`, a
//! `<rect>` and a `<text>`; `data-x`/`data-w` are its start and width as fractions of the whole,
//! `data-d` its depth (0 = the `all` frame), `data-total`/`data-self` its weights in the thread's
//! unit (ns or bytes). A frame narrower than [`FlameGraphOptions::min_width_px`] is left out with
//! everything above it.

use std::io::{self, Write};

use jsprof_profile::{FrameKind, Profile, Thread, WeightUnit};

use crate::call_tree::{top_down, CallTree};
use crate::diff::{before_totals_on_after_tree, DiffKey};

/// How to draw. `Default` gives a 1200 px wide graph of 16 px frames.
#[derive(Clone, Debug)]
pub struct FlameGraphOptions {
    pub title: String,
    /// A second line under the title (the input's name, the range).
    pub subtitle: Option<String>,
    pub width: u32,
    pub frame_height: u32,
    pub font_size: f64,
    /// Frames narrower than this many pixels are not drawn (nor anything above them).
    pub min_width_px: f64,
}

impl Default for FlameGraphOptions {
    fn default() -> Self {
        FlameGraphOptions {
            title: "Flame Graph".to_string(),
            subtitle: None,
            width: 1200,
            frame_height: 16,
            font_size: 12.0,
            min_width_px: 0.1,
        }
    }
}

/// Horizontal padding on each side of the frames, in pixels.
pub const PAD: f64 = 10.0;
const TOP: f64 = 54.0;
const BOTTOM: f64 = 26.0;

struct Placed {
    node: Option<u32>,
    x: f64,
    w: f64,
    depth: u32,
}

/// Writes the flame graph of `thread` as SVG.
pub fn write_flame_graph_svg(
    out: impl Write,
    profile: &Profile,
    thread: &Thread,
    options: &FlameGraphOptions,
) -> io::Result<()> {
    let tree = top_down(profile, thread);
    write_tree_svg(out, profile, &tree, thread.weight_unit(), options, None)
}

/// A differential flame graph (Brendan Gregg's): AFTER's flame graph, each frame coloured by how
/// its total changed since BEFORE at the same call path (frames matched by `key`) — red grew,
/// blue shrank, white unchanged, saturated at the largest change. With `normalize`, BEFORE is
/// scaled to AFTER's total first. Each frame also carries `data-before` (BEFORE's total there,
/// scaled) for tools and the tooltip.
pub fn write_diff_flame_graph_svg(
    out: impl Write,
    before: (&Profile, &Thread),
    after: (&Profile, &Thread),
    key: DiffKey,
    normalize: bool,
    options: &FlameGraphOptions,
) -> io::Result<()> {
    let tree = top_down(after.0, after.1);
    let mut before_totals = before_totals_on_after_tree(before, after, key);
    if normalize {
        let busy = |t: &CallTree| t.total_weight - t.root_weight;
        let b = busy(&top_down(before.0, before.1));
        if b > 0 {
            let scale = busy(&tree) as f64 / b as f64;
            for w in &mut before_totals {
                *w = (*w as f64 * scale).round() as i64;
            }
        }
    }
    write_tree_svg(
        out,
        after.0,
        &tree,
        after.1.weight_unit(),
        options,
        Some(&before_totals),
    )
}

fn write_tree_svg(
    mut out: impl Write,
    profile: &Profile,
    tree: &CallTree,
    unit: WeightUnit,
    options: &FlameGraphOptions,
    before: Option<&[i64]>,
) -> io::Result<()> {
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
    let min_frac = if inner > 0.0 {
        options.min_width_px / inner
    } else {
        1.0
    };

    // Place frames: the `all` frame, then every node wide enough, parents before children.
    let mut placed = vec![Placed {
        node: None,
        x: 0.0,
        w: if total > 0 { 1.0 } else { 0.0 },
        depth: 0,
    }];
    let mut todo: Vec<(u32, f64)> = Vec::new();
    let push_children = |children: &[u32], x0: f64, todo: &mut Vec<(u32, f64)>| {
        let mut x = x0;
        let mut row = Vec::with_capacity(children.len());
        for &c in children {
            row.push((c, x));
            x += frac(tree.nodes[c as usize].total_weight, total);
        }
        todo.extend(row.into_iter().rev());
    };
    push_children(&tree.roots, 0.0, &mut todo);
    let mut max_depth = 0;
    while let Some((n, x)) = todo.pop() {
        let node = &tree.nodes[n as usize];
        let w = frac(node.total_weight, total);
        if w < min_frac || w <= 0.0 {
            continue;
        }
        let depth = node.depth + 1;
        max_depth = max_depth.max(depth);
        placed.push(Placed {
            node: Some(n),
            x,
            w,
            depth,
        });
        push_children(&node.children, x, &mut todo);
    }

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
        "<style>text{{font-family:Menlo,Consolas,\"DejaVu Sans Mono\",monospace;font-size:{fs}px;fill:#000}} g.f rect{{stroke:#fff;stroke-width:0.5;rx:2}} g.f:hover rect{{stroke:#000;stroke-width:1}} g.f{{cursor:pointer}} g.f text{{pointer-events:none}} g.a rect{{opacity:0.5}} g.m rect{{fill:#e040fb !important}} .h{{font-size:{h}px}} .btn{{cursor:pointer;fill:#1a5fb4}}</style>",
        fs = options.font_size,
        h = options.font_size + 5.0,
    )?;
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

    for p in &placed {
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
                let name = profile.strings.get(f.name);
                let name = if name.is_empty() { "(anonymous)" } else { name };
                let url = profile.strings.get(f.url);
                let mut location = url.to_string();
                if let Some(line) = f.line {
                    location.push_str(&format!(":{line}"));
                    if let Some(col) = f.column {
                        location.push_str(&format!(":{col}"));
                    }
                }
                (
                    name.to_string(),
                    location,
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
            r#"<g class="f" data-x="{:.9}" data-w="{:.9}" data-d="{}" data-total="{total_w}" data-self="{self_w}"{extra} data-n="{}" data-u="{}"><title>{}</title><rect x="{px:.2}" y="{y:.1}" width="{pw:.2}" height="{:.1}" fill="{}"/><text x="{:.2}" y="{:.1}">{}</text></g>"#,
            p.x,
            p.w,
            p.depth,
            escape(&label),
            escape(&location),
            escape(&tooltip),
            fh - 1.0,
            fill,
            px + 3.0,
            y + fh - 4.5,
            escape(&fit(&label, pw, char_width)),
        )?;
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

fn frac(w: i64, total: i64) -> f64 {
    if total > 0 {
        w as f64 / total as f64
    } else {
        0.0
    }
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

/// Warm colours for JavaScript, cooler for native code, grey for DevTools' pseudo-frames; the
/// shade is a hash of the name so a function keeps its colour across the graph.
fn color(name: &str, kind: FrameKind, all: bool) -> String {
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
    format!(
        "rgb({:.0},{:.0},{:.0})",
        r.min(255.0),
        g.min(255.0),
        b.min(255.0)
    )
}

/// Red for growth, blue for shrinkage, saturated at the largest change; near-white for none.
fn diff_color(delta: i64, max_delta: i64) -> String {
    let ratio = if max_delta > 0 {
        (delta.unsigned_abs() as f64 / max_delta as f64).min(1.0)
    } else {
        0.0
    };
    let fade = (235.0 * (1.0 - ratio)).round();
    if delta > 0 {
        format!("rgb(255,{fade:.0},{fade:.0})")
    } else if delta < 0 {
        format!("rgb({fade:.0},{fade:.0},255)")
    } else {
        "rgb(245,245,245)".to_string()
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
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
    if (re.test(g.dataset.n) || re.test(g.dataset.u)) { g.classList.add('m'); hits.push([+g.dataset.x, +g.dataset.w]); }
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
    use jsprof_profile::ProfileKind;

    #[test]
    fn writes_nested_frames() {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let a = p.intern_frame("a<&>", "x.js", Some(1), Some(1), "1");
        let b = p.intern_frame("b", "x.js", Some(2), Some(1), "1");
        let sa = p.stacks.push(None, a, 2);
        let sb = p.stacks.push(Some(sa), b, 3);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        t.set_samples_end(Some(40));
        t.samples_mut().push(0, Some(sa));
        t.samples_mut().push(10, Some(sb));
        p.threads.push(t);
        let mut svg = Vec::new();
        write_flame_graph_svg(&mut svg, &p, &p.threads[0], &Default::default()).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert_eq!(svg.matches(r#"<g class="f""#).count(), 3);
        assert!(svg.contains("a&lt;&amp;&gt;"));
        assert!(svg.contains(r#"data-total="30" data-self="30""#));
        assert_eq!(top_down(&p, &p.threads[0]).total_weight, 40);
    }

    #[test]
    fn fits_labels() {
        assert_eq!(fit("abcdef", 100.0, 7.2), "abcdef");
        assert_eq!(fit("abcdefghijklmnop", 50.0, 7.2), "abcd..");
        assert_eq!(fit("abc", 10.0, 7.2), "");
    }
}
