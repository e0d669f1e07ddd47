//! Dominators against a slow reference on random graphs.
//!
//! The reference states DevTools' unreachable-node phases as a graph change: every node other than
//! the root with no essential retainer hangs off the root (phase 2); nodes still unreachable (cycles
//! held only by each other, phase 3) are dominated by the root. On that graph it computes dominators
//! by the textbook fixpoint over dominator sets.

use jsprof_heap::internals::dominators_of;
use proptest::prelude::*;

/// `(idom, retained)` by the slow definition.
#[allow(clippy::needless_range_loop)] // the textbook form reads best with indexes
fn reference(edges: &[Vec<(u32, bool)>], root: u32, sizes: &[u32]) -> (Vec<u32>, Vec<u64>) {
    let n = edges.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut has_pred = vec![false; n];
    for (from, out) in edges.iter().enumerate() {
        for &(to, essential) in out {
            if essential {
                succ[from].push(to as usize);
                has_pred[to as usize] = true;
            }
        }
    }
    let r = root as usize;
    for v in 0..n {
        if v != r && !has_pred[v] {
            succ[r].push(v);
        }
    }
    let mut reachable = vec![false; n];
    let mut stack = vec![r];
    reachable[r] = true;
    while let Some(v) = stack.pop() {
        for &w in &succ[v] {
            if !reachable[w] {
                reachable[w] = true;
                stack.push(w);
            }
        }
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 0..n {
        for &w in &succ[v] {
            if reachable[v] {
                preds[w].push(v);
            }
        }
    }
    // dom[v] as a bit set over nodes (n is small).
    let full: Vec<bool> = vec![true; n];
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|v| {
            if v == r {
                (0..n).map(|x| x == r).collect()
            } else {
                full.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            if v == r || !reachable[v] {
                continue;
            }
            let mut new = full.clone();
            for &p in &preds[v] {
                for x in 0..n {
                    new[x] &= dom[p][x];
                }
            }
            new[v] = true;
            if new != dom[v] {
                dom[v] = new;
                changed = true;
            }
        }
    }
    let mut idom = vec![root; n];
    for v in 0..n {
        if v == r || !reachable[v] {
            continue;
        }
        let strict: Vec<usize> = (0..n).filter(|&x| x != v && dom[v][x]).collect();
        // The immediate dominator is the strict dominator dominated by all the others.
        idom[v] = *strict
            .iter()
            .find(|&&d| strict.iter().all(|&o| dom[d][o]))
            .unwrap() as u32;
    }
    let mut retained: Vec<u64> = sizes.iter().map(|&s| s as u64).collect();
    for v in 0..n {
        if v == r {
            continue;
        }
        let mut d = idom[v] as usize;
        loop {
            retained[d] += sizes[v] as u64;
            if d == r {
                break;
            }
            d = idom[d] as usize;
        }
    }
    (idom, retained)
}

/// Out-edges per node as `(target, essential)`.
type Edges = Vec<Vec<(u32, bool)>>;

fn graphs() -> impl Strategy<Value = (Edges, u32, Vec<u32>)> {
    (1usize..24).prop_flat_map(|n| {
        let edges = prop::collection::vec(
            prop::collection::vec((0..n as u32, prop::bool::weighted(0.8)), 0..4),
            n,
        );
        let root = prop_oneof![Just(0u32), Just(n as u32 - 1)];
        let sizes = prop::collection::vec(0u32..1000, n);
        (edges, root, sizes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn lengauer_tarjan_equals_the_reference((edges, root, sizes) in graphs()) {
        let fast = dominators_of(&edges, root, &sizes);
        let (idom, retained) = reference(&edges, root, &sizes);
        let fast_idom: Vec<u32> = fast.idom.iter().map(|d| d.raw()).collect();
        prop_assert_eq!(&fast_idom, &idom);
        prop_assert_eq!(&fast.retained, &retained);
        let total: u64 = sizes.iter().map(|&s| s as u64).sum();
        prop_assert_eq!(fast.retained[root as usize], total);
    }
}
