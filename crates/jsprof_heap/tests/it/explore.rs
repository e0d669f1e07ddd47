//! Exploration analyses against DevTools' own answers (`fixtures/heap/explore-goldens.sh` runs the
//! heap oracle's DevTools build): duplicated strings, retaining paths, allocation functions.

use std::collections::HashMap;

use jsprof_heap::{
    duplicate_strings, edge_source, retaining_paths, AllocationProfile, NodeOrdinal, PathOptions,
    RetainerIndex,
};
use serde_json::Value;

use crate::fixture::{devtools_result, load};

const SNAPSHOTS: &[&str] = &[
    "node-small.heapsnapshot",
    "leak-3-final.heapsnapshot",
    "detached.heapsnapshot",
];

#[test]
fn duplicate_strings_match_devtools() {
    for name in SNAPSHOTS {
        let (s, a) = load(name);
        let ours: HashMap<(String, bool), (u64, u64, u64)> = duplicate_strings(&s, &a)
            .into_iter()
            .map(|g| {
                (
                    (g.value, g.truncated),
                    (g.count, g.total_size, g.retained_size),
                )
            })
            .collect();
        let theirs = devtools_result(&format!("{name}.strings"));
        let theirs = theirs.as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}: number of values");
        for g in theirs {
            let key = (
                g["value"].as_str().unwrap().to_string(),
                g["truncated"].as_bool().unwrap(),
            );
            let expected = (
                g["count"].as_u64().unwrap(),
                g["total_size"].as_u64().unwrap(),
                g["retained_size"].as_u64().unwrap(),
            );
            assert_eq!(ours.get(&key), Some(&expected), "{name}: {key:?}");
        }
    }
}

/// DevTools' `getRetainingPaths` follows retainers by distance and stops at distance 2; our first
/// path must run through the same retainers (and may go on to a node the root holds).
#[test]
fn first_retaining_path_follows_devtools() {
    for name in SNAPSHOTS {
        let (s, a) = load(name);
        let index = RetainerIndex::new(&s);
        let ordinal: HashMap<u32, NodeOrdinal> = s.nodes.ids().map(|(n, id)| (id, n)).collect();
        let options = PathOptions {
            max_paths: 1,
            ..PathOptions::default()
        };
        let theirs = devtools_result(&format!("{name}.paths"));
        let mut checked = 0;
        for (id, first) in theirs.as_object().unwrap() {
            let first: Vec<u64> = first
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            if first.is_empty() {
                continue; // DevTools found no path within its limits (e.g. only GC roots hold it)
            }
            let n = ordinal[&id.parse::<u32>().unwrap()];
            let paths = retaining_paths(&s, &a, &index, n, options);
            assert!(
                !paths.is_empty(),
                "{name} @{id}: no path; DevTools {first:?}, distance {}",
                a.distances[n.index()]
            );
            let ours: Vec<u64> = paths[0]
                .edges
                .iter()
                .map(|&e| s.nodes.id(edge_source(&s, e)) as u64)
                .collect();
            assert!(
                ours.len() >= first.len(),
                "{name} @{id}: {ours:?} vs {first:?}"
            );
            assert_eq!(ours[..first.len()], first[..], "{name} @{id}");
            checked += 1;
        }
        assert!(checked > 0, "{name}: no path checked");
    }
}

#[test]
fn allocation_functions_match_devtools() {
    for name in ["alloc-known.heaptimeline", "node-alloc.heaptimeline"] {
        let (s, _) = load(name);
        let profile = AllocationProfile::new(&s).expect("a timeline");
        let ours: Vec<Value> = profile
            .bottom_up()
            .iter()
            .map(|t| {
                let f = &s.trace_function_infos[t.function as usize];
                serde_json::json!({
                    "name": s.strings.get(f.name),
                    "url": s.strings.get(f.script_name),
                    "line": f.line,
                    "column": f.column,
                    "count": t.count,
                    "size": t.size,
                    "live_count": t.live_count,
                    "live_size": t.live_size,
                })
            })
            .collect();
        let theirs = devtools_result(&format!("{name}.tops"));
        assert_eq!(ours, *theirs.as_array().unwrap(), "{name}");
    }
}
