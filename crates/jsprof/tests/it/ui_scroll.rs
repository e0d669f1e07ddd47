//! Issue 19's virtual scrolling, in the browser (`tests/node/ui-scroll.mjs`): a generated snapshot
//! with a class of a million objects (`bench/heapgen`'s `Leaf`, written at test time), opened in
//! `jsprof view`; the class expanded, the scrollbar dragged to the middle and to the end, in three
//! orders, and the keyboard walked on: the rows painted at each stop are `jsprof heap class
//! --sort --offset`'s at the offset the page scrolled to; the DOM holds a screenful of rows; each
//! stop asks for at most two pages. And `jsprof report`'s Summary says what it does not embed.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use crate::heap_scale::heapgen::Shape;
use crate::support::{fixtures, json_array, jsprof_json, output_ok};
use crate::ui::{available, node_dir, report, view};

/// Clusters of 2 mids of 500 leaves: 1,000,000 `Leaf` objects (78 MB of snapshot).
const SHAPE: Shape = Shape {
    clusters: 1000,
    mids: 2,
    leaves: 500,
};

fn tmp() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-scroll");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `ui-scroll.mjs CASE URL` with EXPECTED and returns what it wrote.
fn browser(case: &str, url: &str, expected: &Value) -> Value {
    let dir = tmp();
    let (input, output) = (
        dir.join(format!("{case}.expected.json")),
        dir.join(format!("{case}.out.json")),
    );
    std::fs::write(&input, expected.to_string()).unwrap();
    let shots = dir.join("shots");
    std::fs::create_dir_all(&shots).unwrap();
    output_ok(
        Command::new("node")
            .current_dir(node_dir())
            .arg("ui-scroll.mjs")
            .args([case, url])
            .args([&input, &output, &shots]),
        &format!("ui-scroll {case}"),
    );
    serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap()
}

/// `jsprof heap class FILE CLASS --sort S [--ascending] --offset O --limit N --json`.
fn class_page(file: &str, class: &str, order: &Value, offset: u64, limit: usize) -> Value {
    let (sort, offset, limit) = (
        order["sort"].as_str().unwrap().to_string(),
        offset.to_string(),
        limit.to_string(),
    );
    let mut args = vec!["heap", "class", file, class, "--json"];
    args.extend(["--sort", &sort, "--offset", &offset, "--limit", &limit]);
    if order["ascending"] == true {
        args.push("--ascending");
    }
    jsprof_json(&args)
}

fn ids(page: &Value) -> Vec<u64> {
    (json_array(&page["objects"]).iter())
        .map(|o| o["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_class_of_a_million_objects_scrolls_to_the_rows_the_cli_lists() {
    let file = tmp().join("million.heapsnapshot");
    let mut text = Vec::new();
    SHAPE.write(&mut text).unwrap();
    std::fs::write(&file, &text).unwrap();
    drop(text);
    let f = file.to_str().unwrap();
    let first = class_page(f, "Leaf", &json!({"sort": "retained"}), 0, 1);
    let total = first["total"].as_u64().unwrap();
    assert_eq!(total, SHAPE.clusters * SHAPE.mids * SHAPE.leaves);
    assert_eq!(first["key"], ",Leaf");

    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    let got = browser("scroll", &v.url, &json!({"name": "Leaf", "total": total}));
    drop(v);

    eprintln!("expanded Leaf in {} ms", got["expandMs"]);
    let stops = json_array(&got["stops"]);
    assert_eq!(stops.len(), 6, "{got}");
    for stop in stops {
        let what = stop["what"].as_str().unwrap();
        let offset = stop["offset"].as_u64().unwrap();
        let shown: Vec<u64> = serde_json::from_value(stop["ids"].clone()).unwrap();
        let cli = class_page(f, "Leaf", stop, offset, shown.len());
        assert_eq!(shown, ids(&cli), "{what}: the rows at offset {offset}");
        let at = |fraction: f64| (total as f64 * fraction) as u64;
        match what {
            "top" => assert_eq!(offset, 0),
            w if w.ends_with("end") => {
                assert_eq!(offset + shown.len() as u64, total, "{what}: the last rows")
            }
            w if w.ends_with("middle") => {
                let want = if w.contains("ascending") { 0.37 } else { 0.5 };
                assert!(
                    offset.abs_diff(at(want)) < total / 100,
                    "{what}: offset {offset}, not near {}",
                    at(want)
                );
            }
            _ => unreachable!("{what}"),
        }
        // A screenful falls within two pages of 100: a jump asks for no more than those, and
        // one more when a busy machine lets the scrollbar rest once on its way (seen in CI: 3).
        assert!(
            stop["requests"].as_u64().unwrap() <= 3,
            "{what}: {} requests",
            stop["requests"]
        );
        eprintln!(
            "{what}: offset {offset}, {} rows, painted {:.0} ms after the scroll, {} requests",
            shown.len(),
            stop["ms"].as_f64().unwrap(),
            stop["requests"]
        );
    }
    let dom = got["domRowsMax"].as_u64().unwrap();
    assert!(dom <= 100, "{dom} rows in the DOM");

    let keyboard = &got["keyboard"];
    let cli = class_page(f, "Leaf", keyboard, keyboard["offset"].as_u64().unwrap(), 1);
    assert_eq!(
        keyboard["ids"],
        json!(ids(&cli)),
        "the row the keyboard selected"
    );
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn the_report_says_which_objects_it_does_not_embed() {
    if !available() {
        return;
    }
    let file = fixtures().join("heap/node-small.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    // The largest class with more objects than the report embeds (20 a class), named plainly
    // enough for the class filter's regular expression.
    let summary = jsprof_json(&["heap", "summary", f, "--json", "--limit", "60"]);
    let class = (json_array(&summary["classes"]).iter())
        .find(|c| {
            c["count"].as_u64().unwrap() > 20
                && (c["name"].as_str().unwrap().chars()).all(|ch| ch.is_ascii_alphanumeric())
        })
        .expect("a class of more than 20 objects");
    let name = class["name"].as_str().unwrap();
    let page = class_page(
        f,
        class["key"].as_str().unwrap(),
        &json!({"sort": "retained"}),
        0,
        20,
    );
    let url = report(&file, "scroll");
    browser(
        "report",
        &url,
        &json!({"name": name, "ids": ids(&page), "total": page["total"]}),
    );
}

/// `jsprof heap class`, which the browser tests hold the page to: its pages tile the class, each
/// order is total and sorted by its column, ascending is descending read backwards, and a class
/// is found by key or by name, or the error names the file.
#[test]
fn heap_class_pages_tile_the_class_in_each_order() {
    let file = fixtures().join("heap/node-small.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    let summary = jsprof_json(&["heap", "summary", f, "--json", "--limit", "0"]);
    let class = (json_array(&summary["classes"]).iter())
        .find(|c| c["name"] == "Object")
        .expect("an Object class");
    let (key, count) = (
        class["key"].as_str().unwrap(),
        class["count"].as_u64().unwrap(),
    );
    assert!(count > 50, "{count} Objects");
    for sort in ["retained", "self", "distance", "id"] {
        let order = json!({"sort": sort});
        let all = class_page(f, key, &order, 0, 0);
        assert_eq!(all["total"].as_u64(), Some(count), "{sort}");
        let objects = json_array(&all["objects"]);
        assert_eq!(objects.len() as u64, count, "{sort}");
        // Sorted by the column, largest first.
        let column = |o: &Value| match sort {
            "retained" => o["retained_size"].as_i64().unwrap(),
            "self" => o["self_size"].as_i64().unwrap(),
            "distance" => o["distance"].as_i64().unwrap_or(i64::MAX),
            _ => o["id"].as_i64().unwrap(),
        };
        assert!(
            objects.windows(2).all(|w| column(&w[0]) >= column(&w[1])),
            "{sort}: not largest first"
        );
        // Ascending is the same order backwards.
        let up = json!({"sort": sort, "ascending": true});
        let mut backwards = ids(&class_page(f, key, &up, 0, 0));
        backwards.reverse();
        assert_eq!(backwards, ids(&all), "{sort}: ascending");
        if sort != "retained" {
            continue;
        }
        // Three pages (the last one short) tile it, ascending ones backwards.
        let mut paged = Vec::new();
        let mut backwards = Vec::new();
        let size = count.div_ceil(3) as usize + 1;
        for offset in (0..count).step_by(size) {
            paged.extend(ids(&class_page(f, key, &order, offset, size)));
            backwards.extend(ids(&class_page(f, key, &up, offset, size)));
        }
        assert_eq!(paged, ids(&all), "{sort}: pages");
        backwards.reverse();
        assert_eq!(backwards, ids(&all), "{sort}: ascending pages");
    }
    // By name, when one class has it: the same class.
    let by_name = class_page(f, "Object", &json!({"sort": "retained"}), 0, 5);
    assert_eq!(by_name["key"], key);
    let out = crate::support::jsprof(&["heap", "class", f, "NoSuchClass"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("node-small") && err.contains("NoSuchClass"),
        "{err}"
    );
}
