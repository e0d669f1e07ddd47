//! Every model transform — range clip, focus, exclude, collapse, hide-idle — over random
//! profiles whose threads carry every stack-keyed side table: afterwards each stack a thread
//! names exists, and totals are the sum of the sample weights.

use jsprof_analysis::{clip, filter, function_table, time_origin, Filters, TimeRange};
use jsprof_profile::{
    AllocationSample, MappedStack, Profile, ProfileKind, StackId, Thread, WeightUnit,
};
use proptest::prelude::*;
use regex::Regex;

/// Frames to draw from: plain functions (recursion happens), two frames of one package, and
/// `(idle)`.
const FRAMES: [(&str, &str); 6] = [
    ("a", "file:///app/a.js"),
    ("b", "file:///app/b.js"),
    ("c", "file:///app/a.js"),
    ("parse", "file:///app/node_modules/acorn/acorn.js"),
    ("next", "file:///app/node_modules/acorn/acorn.js"),
    ("(idle)", ""),
];

#[derive(Clone, Debug)]
struct Shape {
    /// Per stack: parent (an index below its own, or none) and frame.
    stacks: Vec<(Option<prop::sample::Index>, usize)>,
    /// Per sample: gap to the next sample (ns) and stack (`None` = on the bare root).
    samples: Vec<(i64, Option<prop::sample::Index>)>,
    /// Side tables, by stack: line ticks, deopt reasons, allocations, trace ids.
    ticks: Vec<(prop::sample::Index, u32, u32)>,
    deopts: Vec<prop::sample::Index>,
    allocations: Vec<(prop::sample::Index, u64)>,
    trace_ids: Vec<(u64, Option<prop::sample::Index>)>,
}

fn shape() -> impl Strategy<Value = Shape> {
    let index = any::<prop::sample::Index>;
    (
        proptest::collection::vec((proptest::option::of(index()), 0..FRAMES.len()), 1..30),
        proptest::collection::vec(
            (0i64..1000, proptest::option::weighted(0.9, index())),
            0..60,
        ),
        proptest::collection::vec((index(), 1u32..50, 1u32..9), 0..10),
        proptest::collection::vec(index(), 0..5),
        proptest::collection::vec((index(), 1u64..4096), 0..10),
        proptest::collection::vec((any::<u64>(), proptest::option::of(index())), 0..10),
    )
        .prop_map(
            |(stacks, samples, ticks, deopts, allocations, trace_ids)| Shape {
                stacks,
                samples,
                ticks,
                deopts,
                allocations,
                trace_ids,
            },
        )
}

fn build(shape: &Shape) -> Profile {
    let mut p = Profile::new(ProfileKind::CpuProfile);
    let mut ids: Vec<StackId> = Vec::new();
    for (i, &(parent, frame)) in shape.stacks.iter().enumerate() {
        let (name, url) = FRAMES[frame];
        let line = (!url.is_empty()).then_some(frame as u32 + 1);
        let f = p.intern_frame(name, url, line, line, "1");
        // Parents come first: a parent is one of the stacks already made.
        let parent = parent.filter(|_| i > 0).map(|x| ids[x.index(i)]);
        ids.push(p.stacks.push(parent, f, i as u64 + 2));
    }
    let pick = |x: &prop::sample::Index| ids[x.index(ids.len())];
    let mut t = Thread::new(WeightUnit::Nanoseconds);
    let mut time = 1_000;
    for (gap, stack) in &shape.samples {
        t.samples_mut().push(time, stack.as_ref().map(pick));
        time += gap;
    }
    t.set_samples_end(Some(time));
    for (s, line, n) in &shape.ticks {
        t.push_position_tick(pick(s), *line, *n);
    }
    let reason = p.strings.intern("not a Smi");
    for s in &shape.deopts {
        t.push_deopt_reason(pick(s), reason);
    }
    for (k, (s, size)) in shape.allocations.iter().enumerate() {
        t.push_allocation_sample(AllocationSample {
            stack: pick(s),
            size: *size,
            ordinal: k as u64,
        });
    }
    for (id, s) in &shape.trace_ids {
        t.insert_trace_id(*id, s.as_ref().map(pick));
    }
    p.threads.push(t);
    p
}

/// Every stack a thread names exists, parents come first, and a stack has one deopt reason.
fn check_consistent(p: &Profile) -> Result<(), TestCaseError> {
    let n = p.stacks.len();
    for s in p.stacks.ids() {
        if let Some(parent) = p.stacks.parent(s) {
            prop_assert!(parent.index() < s.index());
        }
    }
    let exists = |s: StackId| s.index() < n;
    for t in &p.threads {
        let samples = t.samples();
        prop_assert_eq!(samples.time().len(), samples.len());
        if let Some(w) = samples.explicit_weights() {
            prop_assert_eq!(w.len(), samples.len());
        }
        prop_assert!(samples.stack().iter().flatten().all(|&s| exists(s)));
        prop_assert!(t.position_ticks().iter().all(|&(s, _, _)| exists(s)));
        prop_assert!(t.deopt_reasons().iter().all(|&(s, _)| exists(s)));
        prop_assert!(t.allocation_samples().iter().all(|a| exists(a.stack)));
        prop_assert!(t.trace_id_stacks().values().flatten().all(|&s| exists(s)));
        let mut deopt: Vec<usize> = t.deopt_reasons().iter().map(|(s, _)| s.index()).collect();
        deopt.sort_unstable();
        deopt.dedup();
        prop_assert_eq!(deopt.len(), t.deopt_reasons().len());
    }
    Ok(())
}

/// The function table's total is the sum of the weights, and self times plus the bare root's
/// add up to it.
fn check_totals(p: &Profile) -> Result<i64, TestCaseError> {
    let t = &p.threads[0];
    let weights: i64 = t.weights().sum();
    let table = function_table(p, t);
    prop_assert_eq!(table.total_weight, weights);
    let self_sum: i64 = table.rows.iter().map(|r| r.self_weight).sum();
    let root: i64 = t
        .samples()
        .stack()
        .iter()
        .zip(t.weights())
        .filter(|(s, _)| s.is_none())
        .map(|(_, w)| w)
        .sum();
    prop_assert_eq!(self_sum + root, weights);
    Ok(weights)
}

fn filters() -> impl Strategy<Value = Filters> {
    let pattern = proptest::option::of(prop::sample::select(vec!["^a$", "^b$", "acorn", "^c$"]));
    (
        pattern.clone(),
        pattern.clone(),
        pattern,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(focus, exclude, drop, hide_idle, packages, recursion)| Filters {
                focus: focus.map(|r| Regex::new(r).unwrap()).into_iter().collect(),
                exclude: exclude
                    .map(|r| Regex::new(r).unwrap())
                    .into_iter()
                    .collect(),
                drop: drop.map(|r| Regex::new(r).unwrap()).into_iter().collect(),
                hide_idle,
                collapse_packages: packages,
                collapse_recursion: recursion,
                ..Filters::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn filters_keep_side_tables_and_weights(shape in shape(), filters in filters()) {
        let p = build(&shape);
        check_consistent(&p)?;
        let before = check_totals(&p)?;
        let q = filter(&p, &filters);
        check_consistent(&q)?;
        // Filters never move a sample in time nor take weight from it.
        prop_assert_eq!(check_totals(&q)?, before);
        prop_assert_eq!(q.threads[0].samples().time(), p.threads[0].samples().time());
        // Trace ids are never lost, only sent to the bare root.
        prop_assert_eq!(q.threads[0].trace_id_stacks().len(), p.threads[0].trace_id_stacks().len());
    }

    #[test]
    fn clip_keeps_side_tables_and_the_window_s_weight(
        shape in shape(),
        start in proptest::option::of(-100i64..30_000),
        len in proptest::option::of(0i64..30_000),
    ) {
        let p = build(&shape);
        let range = TimeRange { start, end: len.map(|l| start.unwrap_or(0) + l) };
        let origin = time_origin(&p);
        let q = clip(&p, range, origin).expect("a timed profile clips");
        check_consistent(&q)?;
        let weight = check_totals(&q)?;
        // The clipped weight is the overlap of the sampled span with the window.
        let t = &p.threads[0];
        prop_assume!(!t.samples().is_empty());
        let lo = range.start.map_or(i64::MIN, |s| origin + s).max(t.start_time());
        let hi = range.end.map_or(i64::MAX, |e| origin + e).min(t.end_time());
        prop_assert_eq!(weight, (hi - lo).max(0));
    }
}

#[test]
fn map_stacks_moves_every_side_table() {
    let mut p = Profile::new(ProfileKind::CpuProfile);
    let fa = p.intern_frame("a", "a.js", Some(1), Some(1), "1");
    let fb = p.intern_frame("b", "a.js", Some(2), Some(1), "1");
    let a = p.stacks.push(None, fa, 2);
    let b = p.stacks.push(None, fb, 3);
    let mut t = Thread::new(WeightUnit::Nanoseconds);
    t.samples_mut().push(0, Some(a));
    t.set_samples_end(Some(10));
    t.push_position_tick(a, 3, 2);
    let reason = p.strings.intern("not a Smi");
    t.push_deopt_reason(a, reason);
    t.push_allocation_sample(AllocationSample {
        stack: a,
        size: 64,
        ordinal: 0,
    });
    t.insert_trace_id(7, Some(a));
    let same = t.map_stacks(|s| MappedStack::SameLeaf(if s == a { b } else { s }));
    assert_eq!(same.samples().stack(), [Some(b)]);
    assert_eq!(same.position_ticks(), [(b, 3, 2)]);
    assert_eq!(same.deopt_reasons()[0].0, b);
    assert_eq!(same.allocation_samples()[0].stack, b);
    assert_eq!(same.trace_id_stack(7), Some(Some(b)));
    // Another function on top: line-level records no longer apply.
    let other = t.map_stacks(|_| MappedStack::OtherLeaf(b));
    assert_eq!(other.samples().stack(), [Some(b)]);
    assert!(other.position_ticks().is_empty() && other.deopt_reasons().is_empty());
    assert_eq!(other.trace_id_stack(7), Some(Some(b)));
    let gone = t.map_stacks(|_| MappedStack::Gone);
    assert_eq!(gone.samples().stack(), [None]);
    assert!(gone.allocation_samples().is_empty());
    assert_eq!(gone.trace_id_stack(7), Some(None));
    assert_eq!(gone.weights().sum::<i64>(), t.weights().sum::<i64>());
}
