//! An aggregated flame graph as a standalone SVG: the top-down call tree drawn root at the
//! bottom, siblings heaviest first, each frame as wide as its total. The file carries its own
//! script: click a frame to zoom into it, search (Ctrl-F or the button) highlights matching frames
//! and tells their share, and every frame's tooltip gives self and total with percentages.
//!
//! Drawing is two steps, as in inferno: [`layout`] places the call tree's frames (pure
//! arithmetic, tested on its own), then `svg` writes the placed frames out.
//!
//! Layout contract (tests parse it): every frame is a `<g class="f">` holding a `<title>`, a
//! `<rect>` and a `<text>`; `data-x`/`data-w` are its start and width as fractions of the whole,
//! `data-d` its depth (0 = the `all` frame), `data-total`/`data-self` its weights in the thread's
//! unit (ns or bytes). A frame narrower than [`FlameGraphOptions::min_width_px`] is left out with
//! everything above it.

mod layout;
mod removed;
mod svg;

use std::io::{self, Write};

use jsprof_analysis::{before_totals_on_after_tree, top_down, CallTree, DiffKey};
use jsprof_profile::{Profile, Thread};

pub use layout::{layout, Placed};

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
pub(crate) const PAD: f64 = 10.0;

/// Writes the flame graph of `thread` as SVG.
pub fn write_flame_graph_svg(
    out: impl Write,
    profile: &Profile,
    thread: &Thread,
    options: &FlameGraphOptions,
) -> io::Result<()> {
    let tree = top_down(profile, thread);
    let placed = layout(&tree, options);
    svg::write(
        out,
        profile,
        &tree,
        &placed,
        thread.weight_unit(),
        options,
        None,
    )
}

/// A differential flame graph (Brendan Gregg's): AFTER's flame graph, each frame coloured by how
/// its total changed since BEFORE at the same call path (frames matched by `key`) — red grew,
/// blue shrank, white unchanged, saturated at the largest change; labels white where the fill is
/// dark. With `normalize`, BEFORE is scaled to AFTER's total first. Each frame also carries
/// `data-before` (BEFORE's total there, scaled) for tools and the tooltip.
///
/// Paths BEFORE took and AFTER did not are drawn too, hatched and outlined at their BEFORE width
/// on their parent (`<g class="f r">`, `data-total="0"`; see `removed.rs`): otherwise the code
/// that disappeared — often the point of the change — would not be on the picture at all.
pub fn write_diff_flame_graph_svg(
    out: impl Write,
    before: (&Profile, &Thread),
    after: (&Profile, &Thread),
    key: DiffKey,
    normalize: bool,
    options: &FlameGraphOptions,
) -> io::Result<()> {
    let tree = top_down(after.0, after.1);
    let before_tree = top_down(before.0, before.1);
    let mut before_totals = before_totals_on_after_tree(before, after, key);
    let mut scale = 1.0;
    if normalize {
        let busy = |t: &CallTree| t.total_weight - t.root_weight;
        let b = busy(&before_tree);
        if b > 0 {
            scale = busy(&tree) as f64 / b as f64;
            for w in &mut before_totals {
                *w = (*w as f64 * scale).round() as i64;
            }
        }
    }
    let placed = layout(&tree, options);
    let inner = options.width as f64 - 2.0 * PAD;
    let min_frac = if inner > 0.0 {
        options.min_width_px / inner
    } else {
        1.0
    };
    let removed = removed::removed_frames(
        (before.0, &before_tree),
        (after.0, &tree),
        &placed,
        key,
        scale,
        min_frac,
    );
    svg::write(
        out,
        after.0,
        &tree,
        &placed,
        after.1.weight_unit(),
        options,
        Some(svg::Diff {
            before_totals: &before_totals,
            removed: &removed,
            before_profile: before.0,
            before_tree: &before_tree,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::{ProfileKind, WeightUnit};

    #[test]
    fn writes_nested_frames() {
        let mut p = profile(&[&["a<&>"], &["a<&>", "b"]]);
        p.threads[0].set_samples_end(Some(40));
        let mut svg = Vec::new();
        write_flame_graph_svg(&mut svg, &p, &p.threads[0], &Default::default()).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert_eq!(svg.matches(r#"<g class="f""#).count(), 3);
        assert!(svg.contains("a&lt;&amp;&gt;"));
        assert!(svg.contains(r#"data-total="30" data-self="30""#));
        assert_eq!(top_down(&p, &p.threads[0]).total_weight, 40);
    }

    /// 10 ns samples on stacks of names, root first (one frame per name, all in `x.js`).
    pub(super) fn profile(stacks: &[&[&str]]) -> Profile {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        for (i, stack) in stacks.iter().enumerate() {
            let mut parent = None;
            for name in *stack {
                let f = p.intern_frame(name, "x.js", Some(1), Some(1), "1");
                parent = Some(p.stacks.push(parent, f, 0));
            }
            t.samples_mut().push(i as i64 * 10, parent);
        }
        t.set_samples_end(Some(stacks.len() as i64 * 10));
        p.threads.push(t);
        p
    }

    #[test]
    fn a_diff_draws_lost_paths_hatched_and_dark_frames_with_white_labels() {
        let before = profile(&[
            &["main", "old"],
            &["main", "old"],
            &["main", "kept"],
            &["main", "kept"],
        ]);
        let after = profile(&[&["main", "kept"], &["main"], &["main"], &["main"]]);
        let mut svg = Vec::new();
        write_diff_flame_graph_svg(
            &mut svg,
            (&before, &before.threads[0]),
            (&after, &after.threads[0]),
            DiffKey::NameUrl,
            false,
            &Default::default(),
        )
        .unwrap();
        let svg = String::from_utf8(svg).unwrap();
        // `old` (20 of BEFORE's 40 ns) is gone: one hatched frame, half the graph wide.
        let removed: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains(r#"<g class="f r""#))
            .collect();
        assert_eq!(removed.len(), 1, "{svg}");
        assert!(removed[0].contains(r#"data-n="old""#), "{}", removed[0]);
        assert!(
            removed[0].contains(r#"data-w="0.500000000""#),
            "{}",
            removed[0]
        );
        assert!(
            removed[0].contains(r#"data-total="0""#) && removed[0].contains(r#"data-before="20""#)
        );
        assert!(removed[0].contains(r#"fill="url(#removed)""#));
        assert!(svg.contains(r#"<pattern id="removed""#));
        // `kept` lost half its time, the most of any frame: saturated blue, white label.
        let kept = svg
            .lines()
            .find(|l| l.contains(r#"<g class="f""#) && l.contains(r#"data-n="kept""#))
            .unwrap();
        assert!(kept.contains(r#"fill="rgb(0,0,255)""#), "{kept}");
        assert!(kept.contains(r#"<text class="w""#), "{kept}");
        // `main`'s total did not change: near-white, black label.
        let main = svg
            .lines()
            .find(|l| l.contains(r#"data-n="main""#))
            .unwrap();
        assert!(main.contains(r#"fill="rgb(245,245,245)""#), "{main}");
        assert!(!main.contains(r#"class="w""#), "{main}");
    }
}
