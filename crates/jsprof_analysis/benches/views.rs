//! The analysis hot paths on a large generated profile (50 k stacks up to 80 deep, 2 M samples,
//! recursion, GC and `(program)` samples): DevTools' timing, the function table and both call trees.
//!
//! `cargo bench -p jsprof_analysis --bench views`. The profile is generated as `.cpuprofile`
//! text in memory and read once per run; nothing is committed.

use std::sync::OnceLock;

use divan::{black_box, Bencher};
use jsprof_profile::Profile;

fn main() {
    divan::main();
}

const NODES: usize = 50_000;
const SAMPLES: usize = 2_000_000;
const MAX_DEPTH: u32 = 80;

/// Read but not yet timed (the timing bench needs it raw).
fn raw_profile() -> &'static Profile {
    static PROFILE: OnceLock<Profile> = OnceLock::new();
    PROFILE.get_or_init(|| {
        use std::fmt::Write;
        let mut x: u64 = 0x853c_49e6_748f_ea9b;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut children = vec![Vec::new(); NODES];
        let mut depth = vec![0u32; NODES];
        // Node 2 is (program), 3 is (garbage collector), both under the root as V8 puts them.
        children[0].extend([2, 3]);
        for i in 3..NODES {
            // Mostly a child of a recent node (long call chains), but no deeper than real JS
            // stacks usually go: the bottom-up tree grows with depth squared.
            let mut parent = if i < 8 { 0 } else { i - 1 - (next() % 6) as usize };
            while depth[parent] >= MAX_DEPTH {
                parent = 8 + (next() % (i as u64 - 8)) as usize;
            }
            depth[i] = depth[parent] + 1;
            children[parent].push(i + 1);
        }
        let mut text = String::with_capacity(40 << 20);
        text.push_str(r#"{"nodes":["#);
        for (i, kids) in children.iter().enumerate() {
            let name = match i {
                0 => "(root)".to_string(),
                1 => "(program)".to_string(),
                2 => "(garbage collector)".to_string(),
                // Few functions over many nodes: deep recursion and many merged siblings.
                _ => format!("fn{}", next() % 300),
            };
            let sep = if i == 0 { "" } else { "," };
            write!(
                text,
                r#"{sep}{{"id":{},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"file:///app.js","lineNumber":{},"columnNumber":0}},"children":{kids:?}}}"#,
                i + 1,
                if i < 3 { -1 } else { 1 },
            )
            .unwrap();
        }
        text.push_str(r#"],"startTime":0,"endTime":0,"samples":["#);
        for s in 0..SAMPLES {
            let node = match next() % 20 {
                0 => 2,
                1 => 3,
                _ => next() % NODES as u64 + 1,
            };
            let sep = if s == 0 { "" } else { "," };
            write!(text, "{sep}{node}").unwrap();
        }
        text.push_str(r#"],"timeDeltas":["#);
        for s in 0..SAMPLES {
            let sep = if s == 0 { "" } else { "," };
            write!(text, "{sep}{}", 100 + next() % 50).unwrap();
        }
        text.push_str("]}");
        jsprof_profile::read_cpuprofile(text.as_bytes()).expect("generated profile")
    })
}

fn timed_profile() -> &'static Profile {
    static PROFILE: OnceLock<Profile> = OnceLock::new();
    PROFILE.get_or_init(|| {
        let mut p = raw_profile().clone();
        jsprof_analysis::apply_devtools_timing(&mut p);
        p
    })
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn devtools_timing(bencher: Bencher) {
    bencher
        .with_inputs(|| raw_profile().clone())
        .bench_local_values(|mut p| {
            jsprof_analysis::apply_devtools_timing(&mut p);
            p
        });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn function_table(bencher: Bencher) {
    let p = timed_profile();
    bencher.bench(|| jsprof_analysis::function_table(black_box(p), &p.threads[0]));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn top_down(bencher: Bencher) {
    let p = timed_profile();
    bencher.bench(|| jsprof_analysis::top_down(black_box(p), &p.threads[0]));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn bottom_up(bencher: Bencher) {
    let p = timed_profile();
    bencher.bench(|| jsprof_analysis::bottom_up(black_box(p), &p.threads[0]));
}
