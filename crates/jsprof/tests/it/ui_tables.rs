//! The page's Functions table and Bottom-up roots are `jsprof top --json --limit 0`'s rows, every
//! one of them, on the fixtures and on a generated profile of more than 15 MB whose function
//! table is far larger than the UI's node budget (`tests/node/ui-tables.mjs` reads the views in
//! Chromium): in `jsprof view`, after a range selection there, and in a `jsprof report` opened
//! from disk. The CLI's table is tied to DevTools' oracles by the other tests.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{argv, fixtures, json_array, jsprof_json};
use crate::ui::{available, node_dir, report, view};

/// `jsprof top --json --limit 0 [--range R]` of `file`, written where node can read it.
fn top(file: &Path, range: Option<&str>, name: &str) -> PathBuf {
    let mut args = vec!["top", file.to_str().unwrap(), "--json", "--limit", "0"];
    if let Some(r) = range {
        args.extend(["--range", r]);
    }
    let doc = jsprof_json(&args);
    assert!(
        !json_array(&doc["functions"]).is_empty(),
        "{name}: top is empty"
    );
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-tables-{name}.json"));
    std::fs::write(&out, doc.to_string()).unwrap();
    out
}

fn tables(
    url: &str,
    top: &Path,
    range: Option<(&str, &Path)>,
    children: Option<&Path>,
    offline: bool,
) {
    let mut cmd = Command::new("node");
    cmd.current_dir(node_dir())
        .arg("ui-tables.mjs")
        .arg(url)
        .arg(top);
    if let Some((r, t)) = range {
        cmd.arg("--range").arg(r).arg(t);
    }
    if let Some(tree) = children {
        cmd.arg("--children").arg(tree);
    }
    if offline {
        cmd.arg("--offline");
    }
    let out = cmd.output().expect("run node");
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "ui-tables {url}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// View (whole, then a range) and report (whole) of one file against the CLI; with
/// `children`, a Bottom-up root's held-back callers are fetched and compared too.
fn check(file: &Path, name: &str, children: bool) {
    let duration = jsprof_json(&["top", file.to_str().unwrap(), "--json", "--limit", "1"])
        ["duration_ms"]
        .as_f64()
        .unwrap();
    // µs-exact edges that cut through calls.
    let range = format!("{:.3}..{:.3}", duration * 0.21, duration * 0.64);
    let all = top(file, None, name);
    let ranged = top(file, Some(&range), &format!("{name}-range"));
    let tree = children.then(|| {
        let doc = jsprof_json(&argv(
            "tree {} --bottom-up --max-depth 6 --min-percent 0.01 --json",
            &[&file],
        ));
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-tree-{name}.json"));
        std::fs::write(&out, doc.to_string()).unwrap();
        out
    });
    let Some(v) = view(&[file.to_path_buf()]) else {
        return;
    };
    tables(
        &v.url,
        &all,
        Some((&range, &ranged)),
        tree.as_deref(),
        false,
    );
    drop(v);
    tables(
        &report(file, &format!("tables-{name}")),
        &all,
        None,
        None,
        true,
    );
}

#[test]
fn functions_and_bottom_up_are_top_on_the_fixtures() {
    if !available() {
        return;
    }
    let f = fixtures();
    for (file, name) in [
        ("cpu/node-mix.cpuprofile.gz", "node-mix"),
        ("cpu/tsc.cpuprofile.gz", "tsc"),
        ("selfprofile/primes.jsprofile.json", "primes-selfprofile"),
        ("trace/primes.trace.json.gz", "primes-trace"),
        ("trace/page.trace.json.gz", "page-trace"),
    ] {
        check(&f.join(file), name, false);
    }
}

/// A deterministic pseudo-random sequence (64-bit LCG, Knuth's constants).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A `.cpuprofile` of more than 15 MB: 90 000 nodes over 6 000 functions in 60 scripts, stacks
/// up to 150 deep, 300 000 samples of which a tenth are `(garbage collector)`. Its function
/// table alone outgrows a depth-first budget spent on the first roots' callers.
fn large_profile() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-large.cpuprofile");
    if path.exists() {
        return path;
    }
    const NODES: usize = 90_000;
    const FUNCTIONS: u64 = 6_000;
    const SAMPLES: usize = 300_000;
    let mut rng = Lcg(0x5eed);
    let mut parent = vec![0usize; NODES];
    let mut depth = vec![0u32; NODES];
    let mut function = vec![0u64; NODES];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); NODES];
    // Nodes 1..=3 are the meta nodes under the root; JS starts at node 4.
    for n in 4..NODES {
        // Mostly extend a recent node (deep stacks), sometimes branch anywhere.
        let p = if n > 4 && rng.below(10) < 7 {
            n - 1 - rng.below(((n - 4) as u64).min(8)) as usize
        } else if n > 4 {
            4 + rng.below((n - 4) as u64) as usize
        } else {
            0
        };
        let p = if depth[p] >= 150 { 0 } else { p };
        parent[n] = p;
        depth[n] = depth[p] + 1;
        // Skewed: a few functions are hot, most are rare.
        let r = rng.below(FUNCTIONS);
        function[n] = (r * r) / FUNCTIONS;
        children[p].push(n);
    }
    children[0].splice(0..0, [1, 2, 3]);
    let mut out = String::with_capacity(20 << 20);
    out.push_str("{\"nodes\":[");
    for n in 0..NODES {
        let (name, url, line) = match n {
            0 => ("(root)".to_string(), String::new(), -1),
            1 => ("(program)".to_string(), String::new(), -1),
            2 => ("(idle)".to_string(), String::new(), -1),
            3 => ("(garbage collector)".to_string(), String::new(), -1),
            _ => (
                format!("fn_{}", function[n]),
                format!("file:///work/app/src/module_{}.js", function[n] % 60),
                (function[n] * 7 % 5000) as i64,
            ),
        };
        if n > 0 {
            out.push(',');
        }
        let kids: Vec<String> = children[n].iter().map(|c| (c + 1).to_string()).collect();
        out.push_str(&format!(
            "{{\"id\":{},\"callFrame\":{{\"functionName\":\"{name}\",\"scriptId\":\"{}\",\"url\":\"{url}\",\"lineNumber\":{line},\"columnNumber\":{}}},\"hitCount\":0,\"children\":[{}]}}",
            n + 1,
            if url.is_empty() { 0 } else { 10 + function[n] % 60 },
            if line < 0 { -1 } else { (function[n] % 80) as i64 },
            kids.join(",")
        ));
    }
    out.push_str("],\"startTime\":1000000,\"endTime\":");
    let mut samples = String::new();
    let mut deltas = String::new();
    let mut t: u64 = 1_000_000;
    for i in 0..SAMPLES {
        let node = match rng.below(20) {
            0 | 1 => 3,
            2 => 1,
            3 => 2,
            _ => 4 + rng.below((NODES - 4) as u64) as usize,
        };
        let dt = 50 + rng.below(100);
        t += dt;
        if i > 0 {
            samples.push(',');
            deltas.push(',');
        }
        samples.push_str(&(node + 1).to_string());
        deltas.push_str(&dt.to_string());
    }
    out.push_str(&format!(
        "{},\"samples\":[{samples}],\"timeDeltas\":[{deltas}]}}",
        t + 100
    ));
    assert!(
        out.len() >= 15 << 20,
        "the generated profile is {} bytes",
        out.len()
    );
    let tmp = path.with_extension("partial");
    std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(out.as_bytes()))
        .unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}

#[test]
fn functions_and_bottom_up_are_top_on_a_large_profile() {
    if !available() {
        return;
    }
    let file = large_profile();
    check(&file, "large", true);
}
