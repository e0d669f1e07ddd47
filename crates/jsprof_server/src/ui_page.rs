//! The UI's one HTML page, the same for `jsprof serve`, `jsprof view` and the `file://` report
//! of `jsprof report`.
//!
//! The sources in `ui/` are real ES modules, carried unmodified: an import map names each by a
//! stable bare specifier (`jsprof/format.js`, …) and maps it to a `data:` URL of the file, and one
//! module script imports `jsprof/app.js`. The browser's own module loader links them, so any
//! `import`/`export` syntax works and nothing is rewritten. `data:` URLs (not `/ui/*.js` routes)
//! because the report must open from disk with no request, and one page for every front door
//! means one code path; a `data:` URL has no hierarchical base, which is why the sources import
//! each other by the bare specifiers and never by `./file.js`.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::Serialize;

/// The UI's modules: the bare specifier each is imported by, and its source.
const MODULES: &[(&str, &str)] = &[
    ("jsprof/format.js", include_str!("../ui/format.js")),
    ("jsprof/source.js", include_str!("../ui/source.js")),
    ("jsprof/table.js", include_str!("../ui/table.js")),
    ("jsprof/flamechart.js", include_str!("../ui/flamechart.js")),
    ("jsprof/tracks.js", include_str!("../ui/tracks.js")),
    ("jsprof/insights.js", include_str!("../ui/insights.js")),
    ("jsprof/flamegraph.js", include_str!("../ui/flamegraph.js")),
    ("jsprof/calltree.js", include_str!("../ui/calltree.js")),
    ("jsprof/sandwich.js", include_str!("../ui/sandwich.js")),
    ("jsprof/diff.js", include_str!("../ui/diff.js")),
    ("jsprof/heapviews.js", include_str!("../ui/heapviews.js")),
    ("jsprof/heap.js", include_str!("../ui/heap.js")),
    ("jsprof/sourceview.js", include_str!("../ui/sourceview.js")),
    ("jsprof/pagediff.js", include_str!("../ui/pagediff.js")),
    ("jsprof/details.js", include_str!("../ui/details.js")),
    ("jsprof/app.js", include_str!("../ui/app.js")),
];
const STYLE: &str = include_str!("../ui/style.css");
const TEMPLATE: &str = include_str!("../ui/index.html");

/// The template's holes, in the order they appear in `index.html`.
const HOLES: [&str; 5] = [
    "{{TITLE}}",
    "/*{{STYLE}}*/",
    "{{DATA}}",
    "{{BLOBS}}",
    "{{IMPORTMAP}}",
];

/// JSON safe inside a `<script>` data block: `<` never starts a tag (`</script>`, `<!--`), and
/// it only ever occurs inside JSON strings, where `\u003c` means the same.
fn script_json(value: &impl Serialize) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".to_string())
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `{"imports": {"jsprof/format.js": "data:text/javascript;base64,…", …}}`.
fn import_map() -> String {
    let imports: serde_json::Map<String, serde_json::Value> = MODULES
        .iter()
        .map(|(name, source)| {
            let url = format!(
                "data:text/javascript;charset=utf-8;base64,{}",
                BASE64.encode(source)
            );
            (name.to_string(), url.into())
        })
        .collect();
    script_json(&serde_json::json!({ "imports": imports }))
}

fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The UI page with `data` embedded (`{"mode": "server"}` for the service, the report's views for
/// `jsprof report`).
pub fn page(title: &str, data: &impl Serialize) -> String {
    page_with_blobs(title, data, &[])
}

/// `<script type="text/plain" id="jsprof-blob-NAME">BASE64</script>` per blob: big base64
/// payloads (a report's screenshots) kept out of the data JSON, so that the page parses none of
/// them at start and reads one when it is shown (`document.getElementById(…).textContent`).
/// Only base64 (`A-Z a-z 0-9 + / =`) can close no tag; a blob with anything else is left out.
fn blob_scripts(blobs: &[(String, &str)]) -> String {
    let mut out = String::new();
    for (name, body) in blobs {
        let base64 = body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=');
        let named = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if base64 && named {
            out.push_str(&format!(
                "<script type=\"text/plain\" id=\"jsprof-blob-{name}\">{body}</script>\n"
            ));
        }
    }
    out
}

/// [`page`] with base64 blobs carried beside the data (see [`blob_scripts`]).
pub fn page_with_blobs(title: &str, data: &impl Serialize, blobs: &[(String, &str)]) -> String {
    let fills = [
        html_text(title),
        STYLE.to_string(),
        script_json(data),
        blob_scripts(blobs),
        import_map(),
    ];
    // One pass over the template, so that a hole's text inside a fill (a function named
    // `{{DATA}}`, a file named `{{IMPORTMAP}}.cpuprofile`) is never filled in turn.
    let mut out =
        String::with_capacity(TEMPLATE.len() + fills.iter().map(String::len).sum::<usize>());
    let mut rest = TEMPLATE;
    for (hole, fill) in HOLES.iter().zip(&fills) {
        let at = rest
            .find(hole)
            .unwrap_or_else(|| panic!("ui/index.html has no {hole} after the previous hole"));
        out.push_str(&rest[..at]);
        out.push_str(fill);
        rest = &rest[at + hole.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's import map and entry, as a browser would read them.
    fn import_map_of(page: &str) -> serde_json::Value {
        let start = page.find(r#"<script type="importmap">"#).unwrap();
        let body = &page[start + r#"<script type="importmap">"#.len()..];
        serde_json::from_str(&body[..body.find("</script>").unwrap()]).unwrap()
    }

    #[test]
    fn every_module_is_carried_byte_for_byte() {
        let page = page("t", &serde_json::json!({"mode": "server"}));
        let map = import_map_of(&page);
        let imports = map["imports"].as_object().unwrap();
        assert_eq!(imports.len(), MODULES.len());
        for &(name, source) in MODULES {
            let url = imports[name].as_str().unwrap();
            let b64 = url
                .strip_prefix("data:text/javascript;charset=utf-8;base64,")
                .unwrap();
            assert_eq!(BASE64.decode(b64).unwrap(), source.as_bytes(), "{name}");
        }
        assert!(page.contains(r#"<script type="module">import 'jsprof/app.js';</script>"#));
    }

    /// Every import in the sources names a module of the map: a relative one (`./format.js`)
    /// cannot be resolved against a `data:` URL, and an unknown one fails in the browser only.
    #[test]
    fn the_sources_import_only_mapped_specifiers() {
        let names: Vec<&str> = MODULES.iter().map(|m| m.0).collect();
        for (name, source) in MODULES {
            for (at, _) in source.match_indices(" from '") {
                let spec = &source[at + 7..];
                let spec = &spec[..spec.find('\'').unwrap()];
                assert!(names.contains(&spec), "{name} imports {spec:?}");
            }
            assert!(!source.contains("from \""), "{name}: use single quotes");
        }
    }

    #[test]
    fn blobs_are_base64_or_left_out() {
        let ok = "iVBORw0K+/==".to_string();
        let page = page_with_blobs(
            "t",
            &serde_json::json!({}),
            &[
                ("shot-0".to_string(), ok.as_str()),
                ("shot-1".to_string(), "</script><script>alert(1)"),
                ("x\"y".to_string(), "AAAA"),
            ],
        );
        assert!(page.contains(
            r#"<script type="text/plain" id="jsprof-blob-shot-0">iVBORw0K+/==</script>"#
        ));
        assert!(!page.contains("jsprof-blob-shot-1"));
        assert!(!page.contains("alert(1)"));
        assert!(!page.contains("x\"y"));
    }

    #[test]
    fn holes_in_the_data_are_left_alone() {
        let page = page(
            "{{DATA}} <b>",
            &serde_json::json!({"name": "{{IMPORTMAP}} /*{{STYLE}}*/ </script>"}),
        );
        assert!(page.contains("<title>{{DATA}} &lt;b&gt;</title>"));
        assert!(page.contains(r#"{"name":"{{IMPORTMAP}} /*{{STYLE}}*/ \u003c/script>"}"#));
        assert_eq!(
            page.matches(r#"<script type="importmap">{"imports""#)
                .count(),
            1
        );
    }
}
