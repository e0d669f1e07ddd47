//! Where each frame of a flame graph goes, before any SVG: inferno's `frames()` for a call tree.

use jsprof_analysis::CallTree;

use super::{FlameGraphOptions, PAD};

/// One frame of the graph, placed. Positions are fractions of the whole graph so that the
/// picture's script can zoom without the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// The call-tree node drawn; `None` for the `all` frame at the bottom.
    pub node: Option<u32>,
    /// Left edge, 0 to 1.
    pub x: f64,
    /// Width, 0 to 1: the node's total over the tree's total.
    pub w: f64,
    /// Row from the bottom: 0 for `all`, a node's depth + 1.
    pub depth: u32,
}

/// Places `tree`: the `all` frame first, then every node at least
/// [`FlameGraphOptions::min_width_px`] wide in depth-first order, parents before children,
/// children left to right in the tree's order (heaviest first) starting at their parent's left
/// edge. A node too narrow is left out with its whole subtree; so are nodes of zero weight.
pub fn layout(tree: &CallTree, options: &FlameGraphOptions) -> Vec<Placed> {
    let total = tree.total_weight.max(0);
    let inner = options.width as f64 - 2.0 * PAD;
    let min_frac = if inner > 0.0 {
        options.min_width_px / inner
    } else {
        1.0
    };
    let mut placed = vec![Placed {
        node: None,
        x: 0.0,
        w: if total > 0 { 1.0 } else { 0.0 },
        depth: 0,
    }];
    // A stack of (node, left edge) still to place; children are pushed in reverse so that the
    // leftmost is placed first.
    let mut todo: Vec<(u32, f64)> = Vec::new();
    let push_children = |children: &[u32], x0: f64, todo: &mut Vec<(u32, f64)>| {
        let start = todo.len();
        let mut x = x0;
        for &c in children {
            todo.push((c, x));
            x += frac(tree.nodes[c as usize].total_weight, total);
        }
        todo[start..].reverse();
    };
    push_children(&tree.roots, 0.0, &mut todo);
    while let Some((n, x)) = todo.pop() {
        let node = &tree.nodes[n as usize];
        let w = frac(node.total_weight, total);
        if w < min_frac || w <= 0.0 {
            continue;
        }
        placed.push(Placed {
            node: Some(n),
            x,
            w,
            depth: node.depth + 1,
        });
        push_children(&node.children, x, &mut todo);
    }
    placed
}

/// `w` as a fraction of `total` (0 when there is no total).
pub(super) fn frac(w: i64, total: i64) -> f64 {
    if total > 0 {
        w as f64 / total as f64
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_analysis::{top_down, CallTreeKind, CallTreeNode, FunctionKey};
    use jsprof_profile::{FrameId, Profile, ProfileKind, StringTable, Thread, WeightUnit};

    /// A tree from `(parent, self weight)` rows, children in row order; totals summed here.
    fn tree(rows: &[(Option<u32>, i64)], root_weight: i64) -> CallTree {
        // Functions named after their row, minted by a profile's tables.
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let frames: Vec<FrameId> = (0..rows.len())
            .map(|i| p.intern_frame(&format!("f{i}"), "", None, None, ""))
            .collect();
        let mut nodes: Vec<CallTreeNode> = rows
            .iter()
            .enumerate()
            .map(|(i, &(parent, self_weight))| CallTreeNode {
                function: FunctionKey {
                    name: p.frames.get(frames[i]).name,
                    url: StringTable::EMPTY,
                    line: None,
                    column: None,
                },
                frame: frames[i],
                parent,
                depth: 0,
                self_weight,
                total_weight: self_weight,
                samples: 1,
                children: Vec::new(),
            })
            .collect();
        for i in 0..nodes.len() {
            if let Some(p) = nodes[i].parent {
                nodes[i].depth = nodes[p as usize].depth + 1;
                nodes[p as usize].children.push(i as u32);
            }
        }
        // Parents come before children in `rows`, so one reverse pass sums subtrees.
        for i in (0..nodes.len()).rev() {
            if let Some(p) = nodes[i].parent {
                nodes[p as usize].total_weight += nodes[i].total_weight;
            }
        }
        let roots: Vec<u32> = (0..nodes.len() as u32)
            .filter(|&i| nodes[i as usize].parent.is_none())
            .collect();
        let total_weight = roots
            .iter()
            .map(|&r| nodes[r as usize].total_weight)
            .sum::<i64>()
            + root_weight;
        CallTree {
            kind: CallTreeKind::TopDown,
            nodes,
            roots,
            total_weight,
            root_weight,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn widths_are_weights_rows_are_depths_and_siblings_abut() {
        //        0 (self 10)           5 (self 20)
        //     1 (self 30)  2 (self 20)
        //  3 (self 10) 4 (self 5)
        let t = tree(
            &[
                (None, 10),
                (Some(0), 30),
                (Some(0), 20),
                (Some(1), 10),
                (Some(1), 5),
                (None, 20),
            ],
            5,
        );
        assert_eq!(t.total_weight, 100);
        let placed = layout(&t, &FlameGraphOptions::default());
        assert_eq!(placed.len(), t.nodes.len() + 1);
        assert_eq!(
            placed[0],
            Placed {
                node: None,
                x: 0.0,
                w: 1.0,
                depth: 0
            }
        );
        for p in &placed[1..] {
            let node = &t.nodes[p.node.unwrap() as usize];
            assert!(close(p.w, node.total_weight as f64 / 100.0), "{p:?}");
            assert_eq!(p.depth, node.depth + 1);
        }
        let at = |n: u32| *placed.iter().find(|p| p.node == Some(n)).unwrap();
        // Children start at their parent's left edge and follow each other without gaps.
        for parent in [None, Some(0), Some(1)] {
            let (children, mut x) = match parent {
                None => (&t.roots, 0.0),
                Some(p) => (&t.nodes[p as usize].children, at(p).x),
            };
            for &c in children {
                assert!(
                    close(at(c).x, x),
                    "node {c}: {:?} should start at {x}",
                    at(c)
                );
                x += at(c).w;
            }
        }
        // Parents before children, depth first, left to right.
        let order: Vec<Option<u32>> = placed.iter().map(|p| p.node).collect();
        assert_eq!(
            order,
            [None, Some(0), Some(1), Some(3), Some(4), Some(2), Some(5)]
        );
    }

    #[test]
    fn narrow_frames_go_with_everything_above_them() {
        // 1180 px of frames: node 1 is 0.118 px wide, under the 0.5 px asked for; its child
        // node 2 goes with it although nothing else would hide it.
        let t = tree(&[(None, 999_900), (Some(0), 0), (Some(1), 100)], 0);
        let options = FlameGraphOptions {
            min_width_px: 0.5,
            ..Default::default()
        };
        assert_eq!(t.nodes[1].total_weight, 100);
        let shown: Vec<Option<u32>> = layout(&t, &options).iter().map(|p| p.node).collect();
        assert_eq!(shown, [None, Some(0)]);
        let all: Vec<Option<u32>> = layout(&t, &FlameGraphOptions::default())
            .iter()
            .map(|p| p.node)
            .collect();
        assert_eq!(all, [None, Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn an_empty_tree_is_one_empty_frame() {
        let t = tree(&[(None, 0)], 0);
        assert_eq!(
            layout(&t, &FlameGraphOptions::default()),
            [Placed {
                node: None,
                x: 0.0,
                w: 0.0,
                depth: 0
            }]
        );
    }

    #[test]
    fn lays_out_a_profile_by_its_weights() {
        // Samples a, a>b, a>b, c, (gap) at 10 ns each: a total 30, b 20, c 10, gap 10.
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let a = p.intern_frame("a", "x.js", Some(1), Some(1), "1");
        let b = p.intern_frame("b", "x.js", Some(2), Some(1), "1");
        let c = p.intern_frame("c", "x.js", Some(3), Some(1), "1");
        let sa = p.stacks.push(None, a, 1);
        let sb = p.stacks.push(Some(sa), b, 2);
        let sc = p.stacks.push(None, c, 3);
        let mut th = Thread::new(WeightUnit::Nanoseconds);
        th.set_samples_end(Some(50));
        for (i, s) in [Some(sa), Some(sb), Some(sb), Some(sc), None]
            .into_iter()
            .enumerate()
        {
            th.samples_mut().push(i as i64 * 10, s);
        }
        let t = top_down(&p, &th);
        let placed = layout(&t, &FlameGraphOptions::default());
        let name = |q: &Placed| {
            p.strings
                .get(t.nodes[q.node.unwrap() as usize].function.name)
        };
        let got: Vec<(&str, f64, f64, u32)> = placed[1..]
            .iter()
            .map(|q| (name(q), q.x, q.w, q.depth))
            .collect();
        assert_eq!(
            got,
            [("a", 0.0, 0.6, 1), ("b", 0.0, 0.4, 2), ("c", 0.6, 0.2, 1)]
        );
    }
}
