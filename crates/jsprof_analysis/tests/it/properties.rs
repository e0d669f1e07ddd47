//! Property tests: any bytes load or fail cleanly; sample order does not change the numbers;
//! totals are the sum of sample weights.

use std::collections::HashMap;

use jsprof_analysis::{apply_devtools_timing, function_table, FunctionKey};
use jsprof_profile::Profile;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A random `.cpuprofile`: a tree of `n` nodes (each node's parent is an earlier node), a few
/// function names so recursion happens, meta nodes at the root, and samples at distinct times.
fn cpuprofile_strategy() -> impl Strategy<Value = (Value, Vec<(u64, i64)>)> {
    (2usize..40)
        .prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec(any::<prop::sample::Index>(), n),
                proptest::collection::vec(0usize..7, n),
                proptest::collection::vec((any::<prop::sample::Index>(), 1i64..5000), 1..120),
            )
        })
        .prop_map(|(n, parents, names, samples)| {
            const NAMES: [&str; 7] = ["(program)", "(garbage collector)", "(idle)", "a", "b", "c", "d"];
            let mut children: Vec<Vec<u64>> = vec![Vec::new(); n + 1];
            let mut nodes = Vec::new();
            for (i, p) in parents.iter().enumerate().skip(1) {
                let parent = p.index(i); // 0..i, 0 = the root
                children[parent].push(i as u64 + 1);
            }
            for i in 0..n {
                let (name, line) = if i == 0 {
                    ("(root)", -1)
                } else {
                    // Meta names only directly under the root; JS names anywhere.
                    let is_top = !children.iter().skip(1).any(|c| c.contains(&(i as u64 + 1)));
                    let k = if is_top { names[i] } else { 3 + names[i] % 4 };
                    (NAMES[k], if k < 3 { -1 } else { k as i64 })
                };
                let url = if line < 0 { "" } else { "file:///x.js" };
                nodes.push(json!({
                    "id": i + 1,
                    "callFrame": {"functionName": name, "scriptId": "1", "url": url, "lineNumber": line, "columnNumber": 0},
                    "children": children[i],
                }));
            }
            let mut t = 0;
            let timed: Vec<(u64, i64)> = samples
                .iter()
                .map(|(idx, gap)| {
                    t += gap;
                    (idx.index(n) as u64 + 1, t)
                })
                .collect();
            (json!({"nodes": nodes, "startTime": 0, "endTime": t}), timed)
        })
}

/// Writes the samples in the given order as `samples` + `timeDeltas` (deltas may go negative).
fn with_samples(mut profile: Value, samples: &[(u64, i64)]) -> Value {
    let mut prev = 0;
    let mut ids = Vec::new();
    let mut deltas = Vec::new();
    for &(id, t) in samples {
        ids.push(id);
        deltas.push(t - prev);
        prev = t;
    }
    profile["samples"] = json!(ids);
    profile["timeDeltas"] = json!(deltas);
    profile
}

fn load(profile: &Value) -> Profile {
    let mut p =
        jsprof_profile::read(profile.to_string().as_bytes()).expect("generated profile loads");
    apply_devtools_timing(&mut p);
    p
}

/// Function name → (self, total) in ns.
fn table(profile: &Profile) -> HashMap<(String, Option<u32>), (i64, i64)> {
    let t = function_table(profile, &profile.threads[0]);
    t.rows
        .iter()
        .map(|r| {
            let FunctionKey { name, line, .. } = r.key;
            (
                (profile.strings.get(name).to_string(), line),
                (r.self_weight, r.total_weight),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = jsprof_profile::read(&bytes[..]);
    }

    #[test]
    fn arbitrary_json_shaped_text_never_panics(
        text in r#"\{"(nodes|head|samples|timeDeltas|frames|stacks)":[\[\{\}\]0-9,":a-z-]{0,80}"#
    ) {
        if let Ok(mut p) = jsprof_profile::read(text.as_bytes()) {
            apply_devtools_timing(&mut p);
            if let Some(t) = p.threads.first() {
                let _ = function_table(&p, t);
            }
        }
    }

    #[test]
    fn sample_order_does_not_change_the_numbers((profile, samples) in cpuprofile_strategy(), seed in any::<u64>()) {
        let sorted = load(&with_samples(profile.clone(), &samples));
        let mut shuffled = samples.clone();
        // A deterministic shuffle from the seed: times stay, file order changes.
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let unsorted = load(&with_samples(profile, &shuffled));
        prop_assert_eq!(table(&sorted), table(&unsorted));
    }

    #[test]
    fn totals_equal_the_sum_of_sample_weights((profile, samples) in cpuprofile_strategy()) {
        let p = load(&with_samples(profile, &samples));
        let thread = &p.threads[0];
        let weights: i64 = thread.weights().sum();
        let t = function_table(&p, thread);
        prop_assert_eq!(t.total_weight, weights);
        prop_assert_eq!(weights, thread.end_time() - thread.start_time());
        let self_sum: i64 = t.rows.iter().map(|r| r.self_weight).sum();
        let root: i64 = thread.samples().stack().iter().zip(thread.weights()).filter(|(s, _)| s.is_none()).map(|(_, w)| w).sum();
        prop_assert_eq!(self_sum + root, weights);
        for r in &t.rows {
            prop_assert!(r.self_weight <= r.total_weight && r.total_weight <= weights);
        }
    }
}
