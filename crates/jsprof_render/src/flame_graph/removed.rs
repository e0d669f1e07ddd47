//! The frames a differential flame graph would otherwise lose: BEFORE's call paths that AFTER
//! never took. The graph is AFTER's, so a path AFTER dropped has no frame to colour blue; it is
//! drawn instead where it was, on its parent's frame after the parent's AFTER children (the
//! parent's self time, where the time moved to), at its BEFORE width, with its whole BEFORE
//! subtree above it. The SVG hatches and outlines these frames, half transparent, so they read as
//! "was here", not as time AFTER spent: where the time went elsewhere (the parent's self time did
//! not grow by as much) they lie over AFTER's frames beside them, which show through.

use std::collections::HashMap;

use jsprof_analysis::{CallTree, DiffKey, FunctionKey};
use jsprof_profile::Profile;

use super::layout::{frac, Placed};

/// A frame of BEFORE's tree with no counterpart in AFTER, placed on AFTER's graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Removed {
    /// The node of BEFORE's top-down tree.
    pub node: u32,
    /// Left edge and width as fractions of AFTER's whole, like [`Placed`].
    pub x: f64,
    pub w: f64,
    /// Row from the bottom, as [`Placed::depth`].
    pub depth: u32,
    /// BEFORE's total there, scaled as the graph's `data-before` values are.
    pub before: i64,
}

/// How the two profiles' functions are compared (`jsprof_analysis::diff`'s matching): by text,
/// since the two profiles intern their strings apart.
type Key = (String, String, Option<u32>, Option<u32>);

fn key(profile: &Profile, f: FunctionKey, by: DiffKey) -> Key {
    let (line, column) = match by {
        DiffKey::NameUrl => (None, None),
        DiffKey::Function => (f.line, f.column),
    };
    (
        profile.strings.get(f.name).to_string(),
        profile.strings.get(f.url).to_string(),
        line,
        column,
    )
}

/// BEFORE's frames whose call path AFTER lacks, placed on AFTER's layout `placed` (of
/// `after.1`). `scale` is applied to BEFORE's weights (1 unless the graph normalises); frames
/// narrower than `min_frac` of the whole are left out with what is above them, and so are those
/// whose parent AFTER did not draw.
pub(crate) fn removed_frames(
    before: (&Profile, &CallTree),
    after: (&Profile, &CallTree),
    placed: &[Placed],
    by: DiffKey,
    scale: f64,
    min_frac: f64,
) -> Vec<Removed> {
    let (bp, bt) = before;
    let (ap, at) = after;
    let total = at.total_weight.max(0);
    let width = |w: i64| frac((w as f64 * scale).round() as i64, total);
    // AFTER's call paths: (parent node, function) → node; `None` parents the roots.
    let mut children: HashMap<(Option<u32>, Key), u32> = HashMap::new();
    for (i, n) in at.nodes.iter().enumerate() {
        children.insert((n.parent, key(ap, n.function, by)), i as u32);
    }
    // Where the next removed frame on each drawn AFTER frame starts: after its AFTER children.
    let mut free: HashMap<Option<u32>, f64> = HashMap::new();
    for p in placed {
        let kids = match p.node {
            None => &at.roots,
            Some(n) => &at.nodes[n as usize].children,
        };
        let used: f64 = kids
            .iter()
            .map(|&c| frac(at.nodes[c as usize].total_weight, total))
            .sum();
        free.insert(p.node, p.x + used);
    }
    let mut out = Vec::new();
    // BEFORE's nodes still matched to AFTER, with the AFTER node they matched (None: root level).
    let mut todo: Vec<(u32, Option<u32>)> = bt.roots.iter().map(|&r| (r, None)).collect();
    while let Some((n, parent)) = todo.pop() {
        let node = &bt.nodes[n as usize];
        if let Some(&a) = children.get(&(parent, key(bp, node.function, by))) {
            todo.extend(node.children.iter().map(|&c| (c, Some(a))));
            continue;
        }
        let Some(x) = free.get_mut(&parent) else {
            continue; // AFTER did not draw the parent: too narrow, and so is all above it
        };
        let w = width(node.total_weight);
        if w < min_frac || w <= 0.0 {
            continue;
        }
        // Kept on the graph: past its right edge a frame would be drawn where no one sees it.
        let x0 = x.min(1.0 - w).max(0.0);
        *x += w;
        // The whole BEFORE subtree goes with it, laid out as `layout` lays out a tree.
        let mut subtree = vec![(n, x0)];
        while let Some((m, mx)) = subtree.pop() {
            let mnode = &bt.nodes[m as usize];
            let mw = width(mnode.total_weight);
            if mw < min_frac || mw <= 0.0 {
                continue;
            }
            out.push(Removed {
                node: m,
                x: mx,
                w: mw,
                depth: mnode.depth + 1,
                before: (mnode.total_weight as f64 * scale).round() as i64,
            });
            let mut cx = mx;
            for &c in &mnode.children {
                subtree.push((c, cx));
                cx += width(bt.nodes[c as usize].total_weight);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flame_graph::tests::profile;
    use crate::flame_graph::{layout, FlameGraphOptions};
    use jsprof_analysis::{top_down, CallTree};

    /// The frames BEFORE loses against AFTER, matched by name and URL, with BEFORE's tree.
    fn removed_by_name(before: &Profile, after: &Profile) -> (CallTree, Vec<Removed>) {
        let bt = top_down(before, &before.threads[0]);
        let at = top_down(after, &after.threads[0]);
        let placed = layout(&at, &FlameGraphOptions::default());
        let removed = removed_frames(
            (before, &bt),
            (after, &at),
            &placed,
            DiffKey::NameUrl,
            1.0,
            0.0,
        );
        (bt, removed)
    }

    #[test]
    fn a_path_after_dropped_is_placed_on_its_parent_at_its_before_width() {
        // BEFORE: main → {work ×2, gone ×2 → deep ×1}; AFTER: main → work ×2, main's own ×2.
        let before = profile(&[
            &["main", "work"],
            &["main", "work"],
            &["main", "gone", "deep"],
            &["main", "gone"],
        ]);
        let after = profile(&[&["main", "work"], &["main", "work"], &["main"], &["main"]]);
        let (bt, removed) = removed_by_name(&before, &after);
        let name = |r: &Removed| before.strings.get(bt.nodes[r.node as usize].function.name);
        let names: Vec<&str> = removed.iter().map(name).collect();
        assert_eq!(names, ["gone", "deep"], "{removed:?}");
        // `gone` took 2 of BEFORE's 4 samples: half of AFTER's 40 ns, on main (row 1) after
        // main's only AFTER child `work` (2 of 4 samples); `deep` above it, a quarter wide.
        assert_eq!(removed[0].depth, 2);
        assert!((removed[0].x - 0.5).abs() < 1e-9, "{removed:?}");
        assert!((removed[0].w - 0.5).abs() < 1e-9, "{removed:?}");
        assert_eq!(removed[0].before, 20);
        assert_eq!(removed[1].depth, 3);
        assert!((removed[1].x - 0.5).abs() < 1e-9 && (removed[1].w - 0.25).abs() < 1e-9);
    }

    #[test]
    fn a_removed_frame_wider_than_the_room_left_stays_on_the_graph() {
        let before = profile(&[&["main", "gone"], &["main", "gone"], &["main", "gone"]]);
        let after = profile(&[&["main", "work"], &["main", "work"], &["main"]]);
        let (_, removed) = removed_by_name(&before, &after);
        assert_eq!(removed.len(), 1);
        assert!(
            (removed[0].w - 1.0).abs() < 1e-9 && removed[0].x.abs() < 1e-9,
            "{removed:?}"
        );
    }

    #[test]
    fn nothing_is_removed_when_after_has_every_path() {
        let p = profile(&[&["main", "a"], &["main", "b"]]);
        let t = top_down(&p, &p.threads[0]);
        let placed = layout(&t, &FlameGraphOptions::default());
        assert!(
            removed_frames((&p, &t), (&p, &t), &placed, DiffKey::Function, 1.0, 0.0).is_empty()
        );
    }
}
