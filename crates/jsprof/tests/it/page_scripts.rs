//! The script insights of `jsprof insights` — legacy JavaScript and duplicated JavaScript —
//! against DevTools' trace engine: on the recorded page loads (their goldens; both pass there)
//! and on the recorded page load with core-js polyfills and Babel transforms written into its
//! scripts' sources (the live oracle, `insights-oracle.mjs`), with and without its navigation.

use serde_json::{json, Value};

use crate::support::{fixtures, golden, jsprof, jsprof_json, run_oracle, temp_file};

const PAGE_LOADS: &[&str] = &[
    "trace/pageload.trace",
    "trace/pageload-shifts.trace",
    "trace/pageload-bgimage.trace",
    "trace/pageload-anim.trace",
];

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
        let related = |insight: &str| -> usize {
            ours["related_events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["navigation"] == id && e["insight"] == insight)
                .count()
        };

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
        // Nothing is duplicated without source maps, there as here.
        assert_eq!(wd["duplication"], json!([]), "{at}");
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
        let file = fixtures().join(format!("{name}.json.gz"));
        let ours = jsprof_json(&["insights", &file.to_string_lossy(), "--json"]);
        let want = golden(&fixtures().join(format!("{name}.insights.json.gz")));
        assert_script_insights(&ours, &want, name);
        // The pages' own scripts are listed (the goldens count them).
        let scripts = &ours["navigations"][0]["insights"]["duplicated_javascript"]["scripts"];
        assert!(scripts.as_u64().unwrap() > 0, "{name}: {scripts}");
    }
}

/// The recorded page load with legacy JavaScript in three scripts: `app.js` gets a vendor
/// bundle (a core-js module by name, core-js's export of `includes`, a `defineProperty` of
/// `startsWith`, an assignment across a line end, Babel's classes and regenerator; a `\r\n`
/// and characters outside the BMP before some, to count lines and UTF-16 columns) and is
/// served gzipped (its compression ratio is no longer 1); `slow.js`, the render-blocking
/// script, two polyfills; a script without a url, one.
fn legacy_page_load() -> String {
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(file).unwrap()),
        &mut text,
    )
    .unwrap();
    let mut trace: Value = serde_json::from_str(&text).unwrap();
    let pad = format!("// padding {}\n", "x".repeat(80));
    let bundle = format!(
        "// vendor bundle éé 😀\r\n\
         var $=require(\"core-js/modules/es.array.flat-map.js\");\n\
         $({{target:\"Array\",proto:!0}},{{includes:function(e){{return n(this,e)}}}});\n\
         /* é */ Object.defineProperty(String.prototype, 'startsWith', {{value: s}});\n\
         function _classCallCheck(a,n){{if(!(a instanceof n))throw new TypeError(\"Cannot call a class as a function\")}}\n\
         {classes}\
         var f=regeneratorRuntime.mark(function g(){{return regeneratorRuntime.wrap(function(c){{}},g)}});\n\
         Promise.any =\nfunction(){{}};\n{pad}",
        classes = "var A=function(){function A(){_classCallCheck(this,A)}return A}();\n".repeat(3),
        pad = pad.repeat(70),
    );
    let slow = format!(
        "String.prototype.padStart=0;Reflect.construct=1;Object.fromEntries=2;{}",
        pad.repeat(60)
    );
    let mut edited = 0;
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        let sources = e["cat"] == "disabled-by-default-devtools.v8-source-rundown-sources";
        let response = e["name"] == "ResourceReceiveResponse";
        let data = &mut e["args"]["data"];
        let prefix = match data["scriptId"].as_u64() {
            Some(4) if sources => bundle.as_str(),
            Some(5) if sources => slow.as_str(),
            Some(7) if sources => "Math.trunc=function(){};",
            _ => {
                // app.js's request.
                if response && data["requestId"] == "22250.6" {
                    let gzip = json!({"name": "content-encoding", "value": "gzip"});
                    data["headers"].as_array_mut().unwrap().push(gzip);
                }
                continue;
            }
        };
        let source = data["sourceText"].as_str().unwrap();
        data["sourceText"] = format!("{prefix}{source}").into();
        edited += 1;
    }
    assert_eq!(edited, 3, "the fixture's scripts moved");
    trace.to_string()
}

#[test]
fn script_insights_fail_as_the_trace_engine_fails_them() {
    let text = legacy_page_load();
    let path = temp_file("legacy-javascript.trace.json", text.as_bytes());
    let ours = jsprof_json(&["insights", path.to_str().unwrap(), "--json"]);
    let legacy = &ours["navigations"][0]["insights"]["legacy_javascript"];
    assert_eq!(legacy["state"], "fail", "{legacy}");
    let urls: Vec<&str> = legacy["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "http://127.0.0.1:8790/app.js",
            "http://127.0.0.1:8790/slow.js",
            ""
        ]
    );
    // app.js's gzipped request: its savings are the source's estimate times 1941 / 1760.
    assert_eq!(legacy["scripts"][0]["request"]["request_id"], "22250.6");
    assert!(legacy["scripts"][2]["request"].is_null());
    // The text lists each script with what was found where (1-based).
    let out = jsprof(&["insights", path.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&out.stdout);
    for line in [
        "  legacy JS          fail         3 scripts with polyfills or transforms",
        "http://127.0.0.1:8790/slow.js",
        "                Array.prototype.includes  4:3",
        "(a script without a url)",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
    let summary = jsprof_json(&["summary", path.to_str().unwrap(), "--json"]);
    let failing = &summary["page"]["failing_insights"];
    assert!(
        failing
            .as_array()
            .unwrap()
            .contains(&json!("legacy_javascript")),
        "summary: {failing}"
    );
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_script_insights(&ours, &want, "legacy page load"), 3);

    // Without its navigation: one NO_NAVIGATION stretch, no Lantern, no metric savings.
    let text = text.replace("\"navigationStart\"", "\"edited-out\"");
    let path = temp_file(
        "legacy-javascript-no-navigation.trace.json",
        text.as_bytes(),
    );
    let ours = jsprof_json(&["insights", path.to_str().unwrap(), "--json"]);
    assert_eq!(ours["navigations"][0]["id"], "NO_NAVIGATION");
    let want = run_oracle("insights-oracle", &path).unwrap();
    assert_eq!(assert_script_insights(&ours, &want, "no navigation"), 3);
}
