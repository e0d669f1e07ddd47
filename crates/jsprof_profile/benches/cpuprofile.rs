//! Reading a `.cpuprofile` on a generated profile (~12 MB: 20 k nodes, 1 M samples), from text in
//! memory as the CLI does for a memory-mapped file, and through a reader as for stdin.
//!
//! `cargo bench -p jsprof_profile --bench cpuprofile`. The input is built in memory each run.

use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use jsprof_profile::{Format, Source};

fn main() {
    divan::main();
}

const NODES: usize = 20_000;
const SAMPLES: usize = 1_000_000;

/// A tree where each node's parent is a recent one (deep, bushy stacks as real JS has), a few
/// hundred functions over a few scripts, and samples spread over every node.
fn profile_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use std::fmt::Write;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut children = vec![Vec::new(); NODES];
        for i in 1..NODES {
            let parent = i - 1 - (next() % (i as u64).min(8)) as usize;
            children[parent].push(i + 1);
        }
        let mut text = String::with_capacity(16 << 20);
        text.push_str(r#"{"nodes":["#);
        for (i, kids) in children.iter().enumerate() {
            let (name, url, line) = if i == 0 {
                ("(root)".to_string(), String::new(), -1)
            } else {
                let f = next() % 400;
                (format!("fn{f}"), format!("file:///app/src/m{}.js", f % 12), (f * 7) as i64)
            };
            let sep = if i == 0 { "" } else { "," };
            write!(
                text,
                r#"{sep}{{"id":{},"callFrame":{{"functionName":"{name}","scriptId":"{}","url":"{url}","lineNumber":{line},"columnNumber":4}},"hitCount":0,"children":{kids:?}}}"#,
                i + 1,
                line.max(0) % 12,
            )
            .unwrap();
        }
        write!(text, r#"],"startTime":0,"endTime":{},"samples":["#, SAMPLES * 125).unwrap();
        for s in 0..SAMPLES {
            let sep = if s == 0 { "" } else { "," };
            write!(text, "{sep}{}", next() % NODES as u64 + 1).unwrap();
        }
        text.push_str(r#"],"timeDeltas":["#);
        for s in 0..SAMPLES {
            let sep = if s == 0 { "" } else { "," };
            write!(text, "{sep}{}", 100 + next() % 50).unwrap();
        }
        text.push_str("]}");
        text
    })
}

/// From text in memory (`Source::Slice`): strings are borrowed, not copied.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn read_from_slice(bencher: Bencher) {
    let text = profile_text();
    bencher.counter(BytesCount::of_str(text)).bench(|| {
        jsprof_profile::read_format_from(
            Format::CpuProfile,
            Source::<std::io::Empty>::Slice(black_box(text.as_bytes())),
        )
        .expect("generated profile")
    });
}

/// Through `impl Read` (stdin, gzip): the reader reads the text whole first.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn read_from_reader(bencher: Bencher) {
    let text = profile_text();
    bencher.counter(BytesCount::of_str(text)).bench(|| {
        jsprof_profile::read_cpuprofile(black_box(text.as_bytes())).expect("generated profile")
    });
}
