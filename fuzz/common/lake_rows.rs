//! The invariants of the rows one input adds to the lake (`jsprof_lake::prepare`), checked by
//! the `lake_rows` and `ingest_body` targets: what the writer would store must be a consistent
//! prefix tree and dictionary whatever the input.

use std::collections::{HashMap, HashSet};

use jsprof_lake::prepare::{self, StackRow};

pub fn check(p: &jsprof_lake::Prepared) {
    let mut functions = HashSet::new();
    for f in &p.functions {
        assert!(
            functions.insert(f.function_id),
            "function {:x} twice",
            f.function_id
        );
    }
    let stacks: HashMap<u64, &StackRow> = p.stacks.iter().map(|s| (s.stack_id, s)).collect();
    assert_eq!(stacks.len(), p.stacks.len(), "a stack id twice");
    for s in &p.stacks {
        assert!(
            functions.contains(&s.function_id),
            "stack {:x}: no function",
            s.stack_id
        );
        assert_eq!(s.stack_id, prepare::stack_id(s.parent_id, s.function_id));
        match s.parent_id {
            None => assert_eq!(s.depth, 0),
            Some(parent) => {
                let parent = stacks
                    .get(&parent)
                    .unwrap_or_else(|| panic!("stack {:x}: its parent is missing", s.stack_id));
                assert_eq!(s.depth, parent.depth.saturating_add(1));
            }
        }
    }
    let mut ids = HashSet::new();
    for profile in &p.profiles {
        assert!(ids.insert(profile.profile_id.clone()), "profile id twice");
        assert!(matches!(profile.weight_unit, "ns" | "bytes"));
        let mut count = 0i64;
        for &(stack, _, samples) in &profile.samples {
            assert!(
                stack == 0 || stacks.contains_key(&stack),
                "sample on a missing stack"
            );
            assert!(samples > 0);
            count += samples;
        }
        assert_eq!(count, profile.sample_count);
        let weights = prepare::function_weights(&profile.samples, &stacks)
            .unwrap_or_else(|e| panic!("function weights: {e}"));
        for w in &weights {
            assert!(functions.contains(&w.function_id));
            assert!(w.self_samples <= w.total_samples && w.total_samples <= count);
        }
        // A partition by any label: a thread's name (text the input chose) as its value.
        partition(profile.thread.as_deref());
    }
    for v in p.labels.values() {
        partition(Some(v));
    }
}

/// The partition directory of a value: a name within the file system's limit, or refused.
fn partition(value: Option<&str>) {
    match jsprof_lake::layout::partition_dir("run", value) {
        Ok(name) => {
            assert!(name.len() <= jsprof_lake::layout::MAX_NAME_BYTES);
            assert!(name.starts_with("run="));
            assert!(!name.contains('/') && !name.contains('\0'));
        }
        Err(e) => assert!(e.contains("255 bytes"), "{e}"),
    }
}
