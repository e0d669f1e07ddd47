//! The heap snapshot hot paths on a generated ~50 MB `.heapsnapshot`: the streaming tokenizer and
//! reader (text → columns), and DevTools' analysis pipeline over what they produce.
//!
//! `cargo bench -p jsprof_heap --bench reader`. The input is built in memory each run (never
//! committed); its shape — a chain keeping every node reachable, plus pseudo-random property,
//! element, internal and weak edges — is fixed by a seed, so runs compare.

use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

const NODE_TYPES: &str = r#"["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"]"#;
const EDGE_TYPES: &str =
    r#"["context","element","property","internal","hidden","shortcut","weak"]"#;
const NODE_FIELDS: usize = 7;
/// Enough nodes (three edges each) for about 50 MB of text.
const NODES: usize = 810_000;
const STRINGS: usize = 5_000;

fn snapshot_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use std::fmt::Write;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut text = String::with_capacity(56 << 20);
        write!(
            text,
            r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[{NODE_TYPES},"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[{EDGE_TYPES},"string_or_number","node"],"location_fields":["object_index","script_id","line","column"]}},"node_count":{NODES},"edge_count":{},"trace_function_count":0}},"nodes":["#,
            NODES * 3
        )
        .unwrap();
        for i in 0..NODES {
            let kind = if i == 0 { 9 } else { [3, 3, 3, 1, 2, 5, 4, 8][(next() % 8) as usize] };
            let name = next() % STRINGS as u64;
            let size = next() % 512;
            let sep = if i == 0 { "" } else { "," };
            write!(text, "{sep}{kind},{name},{},{size},3,0,0", i * 2 + 1).unwrap();
        }
        text.push_str("],\n\"edges\":[");
        for i in 0..NODES {
            // The chain edge keeps everything reachable; the others give the dominator tree
            // and the retained sizes real work.
            let chain = (i + 1) % NODES;
            let far = (next() % NODES as u64) as usize;
            let back = (next() % (i as u64 + 1)) as usize;
            let (weak_or_internal, name) = if next() % 4 == 0 { (6, 1) } else { (3, 2) };
            let sep = if i == 0 { "" } else { "," };
            write!(
                text,
                "{sep}2,{},{},1,{},{},{weak_or_internal},{name},{}",
                next() % STRINGS as u64,
                chain * NODE_FIELDS,
                next() % 100,
                far * NODE_FIELDS,
                back * NODE_FIELDS
            )
            .unwrap();
        }
        text.push_str("],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],\n\"strings\":[");
        for s in 0..STRINGS {
            let sep = if s == 0 { "" } else { "," };
            write!(text, "{sep}\"Class{s} \\u00e9\\n\"").unwrap();
        }
        text.push_str("]}");
        text
    })
}

/// Tokenizer + reader: text to the node/edge/string columns.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn read_snapshot(bencher: Bencher) {
    let text = snapshot_text();
    bencher.counter(BytesCount::of_str(text)).bench(|| {
        jsprof_heap::read_snapshot(black_box(text.as_bytes())).expect("generated snapshot")
    });
}

/// DevTools' pipeline on the read snapshot: distances, dominators, retained sizes, classes.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn analyze(bencher: Bencher) {
    let text = snapshot_text();
    bencher
        .with_inputs(|| jsprof_heap::read_snapshot(text.as_bytes()).expect("generated snapshot"))
        .bench_local_values(|mut snapshot| jsprof_heap::analyze(&mut snapshot));
}
