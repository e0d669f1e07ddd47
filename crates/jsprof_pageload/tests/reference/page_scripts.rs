//! The script insights of `jsprof insights` — legacy JavaScript and duplicated JavaScript —
//! against DevTools' trace engine: on the recorded page loads (their goldens; both pass there)
//! and on the recorded page load with core-js polyfills and Babel transforms written into its
//! scripts' sources and source maps (`data:` URLs) that bundle the same modules into two of them
//! (the live oracle, `insights-oracle.mjs`, which resolves source maps as the Performance panel
//! does), with and without its navigation, and with one of its maps an index map.

use serde_json::{json, Value};

use crate::page_loads::{data_url, duplicated_page_load, source_map, PAGE_LOADS};
use crate::support::{document, page_load_insights, pluck_str, run_oracle, temp_file};

/// The engine's metric savings (`{FCP, LCP}` in whole ms, or `null`) against ours.
#[track_caller]
fn same_savings(ours: &Value, want: &Value, at: &str) {
    let w = &want["metric_savings"];
    assert_eq!(
        ours["fcp_savings_ms"].as_f64(),
        w["FCP"].as_f64(),
        "{at} FCP"
    );
    assert_eq!(
        ours["lcp_savings_ms"].as_f64(),
        w["LCP"].as_f64(),
        "{at} LCP"
    );
}

/// Our script insights of every navigation of `ours` against the oracle's `want`; returns how
/// many scripts with legacy JavaScript were compared.
fn assert_script_insights(ours: &Value, want: &Value, name: &str) -> usize {
    let mut compared = 0;
    for n in ours["navigations"].as_array().unwrap() {
        let id = n["id"].as_str().unwrap();
        let (i, wi) = (&n["insights"], &want["insights"][id]);
        let at = format!("{name} {id}");
        let related = |insight: &str| crate::page_loads::related_events(ours, id, insight);

        let (l, wl) = (&i["legacy_javascript"], &wi["LegacyJavaScript"]);
        assert_eq!(l["state"], wl["state"], "{at} legacy state");
        assert_eq!(
            l["wasted_bytes"].as_f64(),
            wl["wasted_bytes"].as_f64(),
            "{at}"
        );
        same_savings(l, wl, &format!("{at} legacy"));
        assert_eq!(json!(related("legacy_javascript")), wl["related_events"]);
        let scripts = l["scripts"].as_array().unwrap();
        let wscripts = wl["scripts"].as_array().unwrap();
        // Where each match is, the engine keeps in its results (`details`).
        // (An empty map the oracle writes as `{}`.)
        let wdetails = match &wl["details"]["legacyJavaScriptResults"] {
            Value::Array(a) => a.clone(),
            empty => {
                assert_eq!(empty, &json!({}), "{at}");
                Vec::new()
            }
        };
        assert_eq!(scripts.len(), wscripts.len(), "{at} legacy scripts");
        assert_eq!(scripts.len(), wdetails.len(), "{at} legacy results");
        for ((s, ws), wd) in scripts.iter().zip(wscripts).zip(&wdetails) {
            assert_eq!(s["url"], ws["url"], "{at} legacy script");
            assert_eq!(s["url"], wd["key"]["url"], "{at} legacy script");
            let url = ws["url"].as_str().unwrap_or("");
            assert_eq!(
                s["estimated_byte_savings"].as_f64(),
                ws["estimated_byte_savings"].as_f64(),
                "{at} {url} savings"
            );
            let found: Vec<Value> = s["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| json!({"name": m["name"], "line": m["line"], "column": m["column"]}))
                .collect();
            assert_eq!(json!(found), wd["value"]["matches"], "{at} {url} matches");
            assert_eq!(
                s["request"]["url"].as_str().is_some(),
                !url.is_empty(),
                "{at} {url} request"
            );
            compared += 1;
        }

        let (d, wd) = (&i["duplicated_javascript"], &wi["DuplicatedJavaScript"]);
        assert_eq!(d["state"], wd["state"], "{at} duplicated state");
        assert_eq!(d["scripts"], wd["scripts"], "{at} duplicated scripts");
        assert_eq!(d["wasted_bytes"].as_f64(), wd["wasted_bytes"].as_f64());
        same_savings(d, wd, &format!("{at} duplicated"));
        // Sources, copies and sizes; the engine's numbers are integers, ours floats.
        // Ours lists a source's `copies`, the engine its `duplicates`.
        let list_of = |copies_key: &'static str| {
            move |list: &Value| -> Vec<Value> {
                let list = list.as_array().unwrap().iter();
                list.map(|d| {
                    let copies = d[copies_key].as_array().unwrap().iter();
                    let copies: Vec<Value> = copies
                        .map(|c| json!([c["url"], c["attributed_size"].as_f64()]))
                        .collect();
                    json!([d["source"], d["estimated_duplicate_bytes"].as_f64(), copies])
                })
                .collect()
            }
        };
        let (ours_list, engine_list) = (list_of("copies"), list_of("duplicates"));
        assert_eq!(
            ours_list(&d["duplication"]),
            engine_list(&wd["duplication"]),
            "{at} duplication"
        );
        // By package: the engine's `duplicationGroupedByNodeModules` (in `details`: an object
        // keyed by package, its copies naming their script).
        let grouped: Vec<Value> = match &wd["details"]["duplicationGroupedByNodeModules"] {
            Value::Object(m) => m
                .iter()
                .map(|(source, g)| {
                    let copies = g["duplicates"].as_array().unwrap().iter();
                    let copies: Vec<Value> = copies
                        .map(|c| json!([c["script"]["url"], c["attributedSize"].as_f64()]))
                        .collect();
                    json!([source, g["estimatedDuplicateBytes"].as_f64(), copies])
                })
                .collect(),
            _ => Vec::new(),
        };
        // (Compared by package: a JSON object's keys may not keep their order here.)
        let by_source = |mut v: Vec<Value>| {
            v.sort_by_key(|d| d[0].to_string());
            v
        };
        assert_eq!(
            by_source(ours_list(&d["duplication_by_package"])),
            by_source(grouped),
            "{at} duplication by package"
        );
        assert_eq!(
            d["scripts_with_duplication"], wd["scripts_with_duplication"],
            "{at} scripts with duplication"
        );
        assert_eq!(
            json!(related("duplicated_javascript")),
            wd["related_events"]
        );
    }
    compared
}

#[test]
fn script_insights_match_the_trace_engine_on_recorded_page_loads() {
    for name in PAGE_LOADS {
        let (ours, want) = page_load_insights(name);
        assert_script_insights(&ours, &want, name);
        // The pages' own scripts are listed (the goldens count them).
        let scripts = &ours["navigations"][0]["insights"]["duplicated_javascript"]["scripts"];
        assert!(scripts.as_u64().unwrap() > 0, "{name}: {scripts}");
    }
}

#[test]
fn script_insights_fail_as_the_trace_engine_fails_them() {
    let text = duplicated_page_load();
    let path = temp_file("script-insights.trace.json", text.as_bytes());
    let ours = document("insights", path.to_str().unwrap());
    let legacy = &ours["navigations"][0]["insights"]["legacy_javascript"];
    assert_eq!(legacy["state"], "fail", "{legacy}");
    let urls = pluck_str(&legacy["scripts"], "url");
    assert_eq!(
        urls,
        [
            "http://127.0.0.1:8790/app.js",
            "http://127.0.0.1:8790/slow.js",
            ""
        ]
    );
    // Lodash and util.js in app.js and widget.js; the scoped package's two files only as a
    // package (x.js alone is under 512 bytes in app.js); slow.js's map is out of bounds.
    let dup = &ours["navigations"][0]["insights"]["duplicated_javascript"];
    assert_eq!(dup["state"], "fail", "{dup}");
    let sources = |key: &str| -> Vec<String> {
        let list = dup[key].as_array().unwrap().iter();
        list.map(|d| d["source"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        sources("duplication"),
        [
            "node_modules/lodash/lodash.js",
            "webpack://shop/src/util.js"
        ]
    );
    assert_eq!(
        sources("duplication_by_package"),
        [
            "node_modules/lodash",
            "node_modules/@scope/pkg",
            "webpack://shop/src/util.js"
        ]
    );
    // Two of app.js's polyfills only its map names, found where their first mapping is.
    let found: Vec<Value> = legacy["scripts"][0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == "Object.assign" || m["name"] == "focus-visible")
        .map(|m| json!([m["name"], m["line"], m["column"]]))
        .collect();
    assert_eq!(
        found,
        [
            json!(["Object.assign", 82, 2]),
            json!(["focus-visible", 85, 0])
        ]
    );
    // app.js's gzipped request: its savings are the source's estimate times 1941 / 1760.
    assert_eq!(legacy["scripts"][0]["request"]["request_id"], "22250.6");
    assert!(legacy["scripts"][2]["request"].is_null());
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_script_insights(&ours, &want, "legacy page load"), 3);

    // Without its navigation: one NO_NAVIGATION stretch, no Lantern, no metric savings.
    // (Its metadata first: the reader's one pass, not its segments, reads it.)
    let text = text.replace("\"navigationStart\"", "\"edited-out\"");
    let text = serde_json::from_str::<Value>(&text).unwrap().to_string();
    assert!(text.starts_with(r#"{"metadata""#));
    let path = temp_file(
        "legacy-javascript-no-navigation.trace.json",
        text.as_bytes(),
    );
    let ours = document("insights", path.to_str().unwrap());
    assert_eq!(ours["navigations"][0]["id"], "NO_NAVIGATION");
    let want = run_oracle("insights-oracle", &path).unwrap();
    assert_eq!(assert_script_insights(&ours, &want, "no navigation"), 3);
}

/// The duplicated page load with `widget.js`'s map (in the trace's metadata) rewritten as an
/// index map, as bundlers that concatenate write them: lodash's section, a section with only a
/// `url` (DevTools skips it), and a section of the scoped package and `util.js` whose offset
/// starts at column 3 of line 20, so that the first three bytes of that line belong to no
/// source. The engine, through DevTools' own `SourceMap`, reads it; so do we.
#[test]
fn index_source_maps_are_read_as_the_panel_reads_them() {
    let mut trace: Value = serde_json::from_str(&duplicated_page_load()).unwrap();
    let lines = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["cat"] == "disabled-by-default-devtools.v8-source-rundown-sources"
                && e["args"]["data"]["scriptId"] == 6
        })
        .and_then(|e| e["args"]["data"]["sourceText"].as_str())
        .expect("widget.js's source")
        .split('\n')
        .count();
    let lodash = source_map(
        "webpack://shop/",
        &["node_modules/lodash/lodash.js"],
        20,
        |_| vec![(0, Some((0, false)))],
    );
    let rest = source_map(
        "webpack://shop/",
        &[
            "https://cdn.test/node_modules/@scope/pkg/x.js",
            "src/util.js",
        ],
        lines - 20,
        |l| match l {
            0..=7 => vec![(0, Some((0, false)))],
            _ => vec![(0, Some((1, false)))],
        },
    );
    let maps = trace["metadata"]["sourceMaps"].as_array_mut().unwrap();
    assert_eq!(maps[0]["url"], "http://localhost:8791/widget.js");
    maps[0]["sourceMap"] = json!({"version": 3, "sections": [
        {"offset": {"line": 0, "column": 0}, "map": lodash},
        {"offset": {"line": 20, "column": 0}, "url": "https://cdn.test/x.js.map"},
        {"offset": {"line": 20, "column": 3}, "map": rest},
    ]});
    let path = temp_file("index-source-map.trace.json", trace.to_string().as_bytes());
    let ours = document("insights", path.to_str().unwrap());
    let dup = &ours["navigations"][0]["insights"]["duplicated_javascript"];
    // widget.js still shares lodash and util.js with app.js: the index map was read.
    let widget_copies = |source: &str| -> Vec<f64> {
        let list = dup["duplication"].as_array().unwrap();
        let d = list.iter().find(|d| d["source"] == source).expect(source);
        let copies = d["copies"].as_array().unwrap().iter();
        copies
            .filter(|c| c["url"] == "http://localhost:8791/widget.js")
            .map(|c| c["attributed_size"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(widget_copies("node_modules/lodash/lodash.js").len(), 1);
    assert_eq!(widget_copies("webpack://shop/src/util.js").len(), 1);
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_script_insights(&ours, &want, "index map"), 3);
}

/// A bundle of `modules` (indices into a shared list of 5,000 modules, 8 to 16 lines each: most
/// in one of 400 packages, every tenth in the app's own `src/`) and its source map: two
/// segments a line, the second naming a name, every source listed once.
fn bundle(modules: std::ops::Range<usize>) -> (String, Value) {
    let source = |m: usize| match m % 10 {
        0 => format!("webpack://shop/src/m{m}.js"),
        _ => format!("webpack://shop/node_modules/pkg{}/lib/m{m}.js", m % 400),
    };
    let mut text = String::new();
    let mut line_module = Vec::new();
    for (k, m) in modules.clone().enumerate() {
        for l in 0..8 + m % 9 {
            text += &format!("function f{m}_{l}(a) {{ return a * {l} + {m}; }} // m{m}\n");
            line_module.push(k as i64);
        }
    }
    let sources: Vec<String> = modules.map(source).collect();
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    let lines = text.split('\n').count();
    let map = source_map("", &sources, lines, |l| match line_module.get(l) {
        Some(&k) => vec![(0, Some((k, false))), (17, Some((k, true)))],
        None => vec![],
    });
    (text, map)
}

/// The duplicated page load at a bundle's scale: `app.js` becomes a 2.2 MB bundle of 3,500
/// modules (42,000 lines, two segments each: 84,000 mappings over 3,500 sources), `widget.js`
/// a 0.96 MB bundle of 1,500 of them (its map in the trace's metadata). Thousands of sources
/// and a hundred thousand mappings a script are what a real application's bundle has; every
/// duplicate, its package and its size must still be the engine's.
#[test]
fn script_insights_match_the_engine_on_large_bundles() {
    let mut trace: Value = serde_json::from_str(&duplicated_page_load()).unwrap();
    let (app, app_map) = bundle(0..3500);
    let (widget, widget_map) = bundle(2000..3500);
    assert!(app.len() > 2_000_000, "{}", app.len());
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        let cat = e["cat"].as_str().unwrap_or("").to_string();
        let data = &mut e["args"]["data"];
        match (cat.as_str(), data["scriptId"].as_u64()) {
            ("disabled-by-default-devtools.v8-source-rundown-sources", Some(4)) => {
                data["sourceText"] = app.clone().into();
                data["length"] = app.len().into();
            }
            ("disabled-by-default-devtools.v8-source-rundown-sources", Some(6)) => {
                data["sourceText"] = widget.clone().into();
                data["length"] = widget.len().into();
            }
            ("disabled-by-default-devtools.v8-source-rundown", Some(4)) => {
                data["sourceMapUrl"] = data_url(&app_map).into();
            }
            _ => {}
        }
    }
    let maps = trace["metadata"]["sourceMaps"].as_array_mut().unwrap();
    assert_eq!(maps[0]["url"], "http://localhost:8791/widget.js");
    maps[0]["sourceMap"] = widget_map;
    let path = temp_file("large-bundles.trace.json", trace.to_string().as_bytes());
    let ours = document("insights", path.to_str().unwrap());
    let dup = &ours["navigations"][0]["insights"]["duplicated_javascript"];
    assert_eq!(dup["state"], "fail", "{dup}");
    // The 1,500 shared modules: those over 512 bytes one by one, all 400 packages by package.
    let listed = |key: &str| dup[key].as_array().unwrap().len();
    assert!(listed("duplication") > 1000, "{}", listed("duplication"));
    assert!(listed("duplication_by_package") >= 400);
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_script_insights(&ours, &want, "large bundles"), 2);
}
