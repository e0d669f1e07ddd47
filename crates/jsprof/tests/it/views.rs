//! `tree` and `flamegraph` against `top` (itself checked against DevTools' numbers), a
//! hand-checked tree of the documentation's example, `--range` clipping and the SVG's geometry.

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{fixture_arg, fixtures, json_array, jsprof, jsprof_json, jsprof_ok};

/// Every input kind the engine reads, with the fixtures that have DevTools goldens.
pub const SAMPLED_FIXTURES: &[&str] = &[
    "cpu/tsc.cpuprofile.gz",
    "third-party/speedscope/Chrome-65-sucrase.cpuprofile.gz",
    "third-party/speedscope/node-10.11.0-example.cpuprofile.gz",
    "selfprofile/primes.jsprofile.json",
    "selfprofile/mdn-example.jsprofile.json",
    "trace/primes.trace.json.gz",
    "third-party/speedscope/Chrome-70-worker.json.gz",
    "heapprofile/tsc.heapprofile",
    "third-party/speedscope/Chrome-69-Heap-20181005T144546.heapprofile",
];

pub type Key = (String, String, Option<u64>, Option<u64>);

pub fn key(f: &Value) -> Key {
    (
        f["name"].as_str().unwrap().to_string(),
        f["url"].as_str().unwrap().to_string(),
        f["line"].as_u64(),
        f["column"].as_u64(),
    )
}

/// (self, total) of a `top`/`tree` entry in its unit (ms or bytes).
pub fn weights(f: &Value) -> (f64, f64) {
    if f.get("self_ms").is_some() {
        (
            f["self_ms"].as_f64().unwrap(),
            f["total_ms"].as_f64().unwrap(),
        )
    } else {
        (
            f["self_bytes"].as_f64().unwrap(),
            f["total_bytes"].as_f64().unwrap(),
        )
    }
}

pub fn top_by_key(path: &str) -> HashMap<Key, (f64, f64)> {
    top_by_key_with(path, &[])
}

/// As [`top_by_key`], with more flags (`--samples`).
pub fn top_by_key_with(path: &str, extra: &[&str]) -> HashMap<Key, (f64, f64)> {
    let mut args = vec!["top", "--json", "--limit", "0", path];
    args.extend_from_slice(extra);
    let top = jsprof_json(&args);
    json_array(&top["functions"])
        .iter()
        .map(|f| (key(f), weights(f)))
        .collect()
}

fn nodes(tree: &Value) -> &Vec<Value> {
    json_array(&tree["nodes"])
}

#[test]
fn trees_agree_with_top_on_every_fixture() {
    for input in SAMPLED_FIXTURES {
        let path = &fixture_arg(input);
        let top = top_by_key(path);

        // Bottom-up roots are exactly the function table.
        let bu = jsprof_json(&["tree", "--bottom-up", "--json", path]);
        assert_eq!(bu["view"], "bottom-up");
        let roots: Vec<&Value> = nodes(&bu).iter().filter(|n| n["depth"] == 0).collect();
        assert_eq!(roots.len(), top.len(), "{input}: bottom-up roots");
        for r in &roots {
            assert_eq!(top[&key(r)], weights(r), "{input}: bottom-up root {r}");
        }

        // Top-down: summed per function (total at the outermost node of each path) it is the
        // function table again; its root children add up to the profile minus gaps.
        let td = jsprof_json(&["tree", "--json", path]);
        assert_eq!(td["view"], "top-down");
        let mut per_fn: HashMap<Key, (f64, f64)> = HashMap::new();
        let mut path_keys: Vec<Key> = Vec::new();
        let mut root_sum = 0.0;
        for n in nodes(&td) {
            let depth = n["depth"].as_u64().unwrap() as usize;
            path_keys.truncate(depth);
            let k = key(n);
            let (s, t) = weights(n);
            let e = per_fn.entry(k.clone()).or_default();
            e.0 += s;
            if !path_keys.contains(&k) {
                e.1 += t;
            }
            if depth == 0 {
                root_sum += t;
            }
            path_keys.push(k);
        }
        assert_eq!(per_fn.len(), top.len(), "{input}: top-down functions");
        for (k, (s, t)) in &per_fn {
            let (ts, tt) = top[k];
            let tol = 1e-6 * tt.abs().max(1.0);
            assert!(
                (s - ts).abs() <= tol && (t - tt).abs() <= tol,
                "{input}: {k:?} top-down ({s}, {t}) vs top ({ts}, {tt})"
            );
        }
        let whole = td["duration_ms"]
            .as_f64()
            .or(td["total_bytes"].as_f64())
            .unwrap();
        assert!(
            root_sum <= whole * (1.0 + 1e-9),
            "{input}: {root_sum} > {whole}"
        );
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// (depth, name, self_ms, total_ms) in pre-order.
fn rows(tree: &Value) -> Vec<(u64, String, f64, f64)> {
    nodes(tree)
        .iter()
        .map(|n| {
            let (s, t) = weights(n);
            (
                n["depth"].as_u64().unwrap(),
                n["name"].as_str().unwrap().to_string(),
                s,
                t,
            )
        })
        .collect()
}

fn assert_rows(got: &[(u64, String, f64, f64)], want: &[(u64, &str, f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            g.0 == w.0 && g.1 == w.1 && close(g.2, w.2) && close(g.3, w.3),
            "got {g:?}, want {w:?}"
        );
    }
}

/// The MDN example by hand (sample times and durations in `cpu.rs`'s `mdn_example_by_hand`):
/// Profiler 0.755 ms, isPrime 7 samples = 6.540 ms, genPrimes 2 samples = 0.625 + 0.880 ms,
/// all under handleClick.
#[test]
fn mdn_example_trees_by_hand() {
    let path = &fixture_arg("selfprofile/mdn-example.jsprofile.json");
    let td = jsprof_json(&["tree", "--json", path]);
    assert_rows(
        &rows(&td),
        &[
            (0, "handleClick", 0.0, 8.800),
            (1, "genPrimes", 1.505, 8.045),
            (2, "isPrime", 6.540, 6.540),
            (1, "Profiler", 0.755, 0.755),
        ],
    );
    let parents: Vec<Value> = nodes(&td).iter().map(|n| n["parent"].clone()).collect();
    assert_eq!(parents, vec![Value::Null, 0.into(), 1.into(), 0.into()]);
    assert!(close(
        nodes(&td)[1]["total_percent"].as_f64().unwrap(),
        8.045 / 8.8 * 100.0
    ));

    let bu = jsprof_json(&["tree", "--bottom-up", "--json", path]);
    assert_rows(
        &rows(&bu),
        &[
            (0, "handleClick", 0.0, 8.800),
            (0, "genPrimes", 1.505, 8.045),
            (1, "handleClick", 1.505, 8.045),
            (0, "isPrime", 6.540, 6.540),
            (1, "genPrimes", 6.540, 6.540),
            (2, "handleClick", 6.540, 6.540),
            (0, "Profiler", 0.755, 0.755),
            (1, "handleClick", 0.755, 0.755),
        ],
    );

    // Filters: one level; nodes of at least 50 %.
    let one = jsprof_json(&["tree", "--bottom-up", "--json", "--max-depth", "1", path]);
    assert_eq!(nodes(&one).len(), 4);
    let big = jsprof_json(&["tree", "--json", "--min-percent", "50", path]);
    assert_eq!(
        rows(&big).iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
        ["handleClick", "genPrimes", "isPrime"]
    );

    let text = jsprof(&["tree", path]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.lines().next().unwrap().contains("Total %"), "{text}");
    assert!(text.contains("      isPrime"), "{text}");
}

/// `--range` clips: the profile starts at 2972.735 ms, so 1..5 is [2973.735, 2977.735], all
/// inside the isPrime run (2973.490–2980.030); 7.. is [2979.735, end 2981.535]: 0.295 ms of
/// isPrime, then genPrimes' two samples (0.625 + 0.880).
#[test]
fn range_clips_samples_at_the_edges() {
    let path = &fixture_arg("selfprofile/mdn-example.jsprofile.json");
    let a = jsprof_json(&["tree", "--json", "--range", "1..5", path]);
    assert!(close(a["duration_ms"].as_f64().unwrap(), 4.0));
    assert_rows(
        &rows(&a),
        &[
            (0, "handleClick", 0.0, 4.0),
            (1, "genPrimes", 0.0, 4.0),
            (2, "isPrime", 4.0, 4.0),
        ],
    );
    let b = jsprof_json(&["tree", "--json", "--bottom-up", "--range", "7..", path]);
    assert!(close(b["duration_ms"].as_f64().unwrap(), 1.8));
    let roots: Vec<(u64, String, f64, f64)> = rows(&b).into_iter().filter(|r| r.0 == 0).collect();
    assert_rows(
        &roots,
        &[
            (0, "genPrimes", 1.505, 1.8),
            (0, "handleClick", 0.0, 1.8),
            (0, "isPrime", 0.295, 0.295),
        ],
    );
    // The same window through export: folded µs add up to the clipped time.
    let folded = jsprof(&["export", path, "-f", "folded", "--range", "7..", "-o", "-"]);
    let sum: i64 = String::from_utf8(folded.stdout)
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
        .sum();
    assert_eq!(sum, 1800);

    // Bad ranges and ranges over bytes are usage errors.
    let bad = jsprof(&["tree", "--range", "5..1", path]);
    assert_eq!(bad.status.code(), Some(2));
    let heap = fixtures().join("heapprofile/tsc.heapprofile");
    let heap = jsprof(&["tree", "--range", "1..2", heap.to_str().unwrap()]);
    assert_eq!(heap.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&heap.stderr).contains("bytes"));
}

/// Parses the SVG: frames nest (each above one that spans it), widths are total/whole of the
/// drawable width within a pixel, and the first row is the tree's roots.
fn check_svg(input: &str) {
    let path = &fixture_arg(input);
    let out = crate::support::temp_file(&format!("{}.svg", input.replace('/', "_")), b"");
    jsprof_ok(&["flamegraph", path, "-o", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    let svg = doc.root_element();
    let width: f64 = svg.attribute("width").unwrap().parse().unwrap();
    let pad: f64 = svg.attribute("data-pad").unwrap().parse().unwrap();
    let whole: f64 = svg.attribute("data-total").unwrap().parse().unwrap();
    let inner = width - 2.0 * pad;
    assert!(svg.descendants().any(|n| n.has_tag_name("script")));
    struct F {
        x: f64,
        w: f64,
        d: u64,
        name: String,
        total: f64,
    }
    let mut frames = Vec::new();
    for g in svg
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("f"))
    {
        let rect = g.children().find(|c| c.has_tag_name("rect")).unwrap();
        let title = g.children().find(|c| c.has_tag_name("title")).unwrap();
        let tip = title.text().unwrap();
        assert!(
            tip.contains("total ") && tip.contains("self ") && tip.contains('%'),
            "{tip}"
        );
        let x: f64 = rect.attribute("x").unwrap().parse().unwrap();
        let w: f64 = rect.attribute("width").unwrap().parse().unwrap();
        let total: f64 = g.attribute("data-total").unwrap().parse().unwrap();
        assert!(
            (w - total / whole * inner).abs() <= 1.0,
            "{input}: width {w} for total {total} of {whole}"
        );
        frames.push(F {
            x,
            w,
            d: g.attribute("data-d").unwrap().parse().unwrap(),
            name: g.attribute("data-n").unwrap().to_string(),
            total,
        });
    }
    assert!(frames.len() > 1);
    assert_eq!(frames.iter().filter(|f| f.d == 0).count(), 1);
    for f in frames.iter().filter(|f| f.d > 0) {
        assert!(
            frames
                .iter()
                .any(|p| p.d + 1 == f.d && p.x <= f.x + 0.02 && f.x + f.w <= p.x + p.w + 0.02),
            "{input}: frame {} at depth {} is not above its parent",
            f.name,
            f.d
        );
    }
    // Row 1 = the tree's roots (those wide enough to draw), heaviest first, left to right.
    let tree = jsprof_json(&["tree", "--json", "--max-depth", "1", path]);
    let unit = if tree.get("duration_ms").is_some() {
        1e6
    } else {
        1.0
    };
    let mut row: Vec<&F> = frames.iter().filter(|f| f.d == 1).collect();
    row.sort_by(|a, b| a.x.total_cmp(&b.x));
    let roots: Vec<(String, f64)> = nodes(&tree)
        .iter()
        .map(|n| {
            let name = n["name"].as_str().unwrap();
            let name = if name.is_empty() { "(anonymous)" } else { name };
            (name.to_string(), weights(n).1 * unit)
        })
        .filter(|(_, t)| t / whole * inner >= 0.1)
        .collect();
    assert_eq!(row.len(), roots.len(), "{input}");
    for (f, (name, total)) in row.iter().zip(&roots) {
        assert_eq!(&f.name, name);
        assert!(
            (f.total - total).abs() <= 1e-3 * total.abs().max(1.0),
            "{name}"
        );
    }
}

#[test]
fn flamegraph_svg_nests_and_scales() {
    check_svg("cpu/tsc.cpuprofile.gz");
    check_svg("selfprofile/mdn-example.jsprofile.json");
    check_svg("heapprofile/tsc.heapprofile");
}
