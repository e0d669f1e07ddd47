//! The UI's source panel (`tests/node/ui-lines.mjs`): opened from a function's right-click menu,
//! its lines and times are `jsprof lines --json`'s; `view` reads the scripts the opened profile
//! names, and a served script found at its path under a `--source-dir` folder.

use std::path::{Path, PathBuf};

use crate::support::{argv, fresh_dir, jsprof_json, node_cpu_profile};
use crate::ui::{available, node_case, view_with};

const PROGRAM: &str = "// A busy loop and a cold helper: the loop's line is the hottest.\n\
function cold(n) {\n\
\x20 return (n * 31 + 7) % 1000003;\n\
}\n\
\n\
function spin(ms) {\n\
\x20 const end = Date.now() + ms;\n\
\x20 let x = 1;\n\
\x20 while (Date.now() < end) {\n\
\x20   x = cold(x);\n\
\x20   if (x % 3 === 0) x += 1;\n\
\x20 }\n\
\x20 return x;\n\
}\n\
\n\
console.log(spin(400));\n";

/// Writes the program into `src`, profiles it into `out`, and returns the profile's path.
fn profiled(src: &Path, out: &Path) -> PathBuf {
    std::fs::create_dir_all(src).unwrap();
    std::fs::create_dir_all(out).unwrap();
    let program = src.join("spin.js");
    std::fs::write(&program, PROGRAM).unwrap();
    node_cpu_profile(&program, &[], 200, out, "spin.cpuprofile")
}

fn panel(case: &str, profile: &Path) {
    panel_of(case, profile, "^spin$");
}

fn panel_of(case: &str, profile: &Path, function: &str) {
    panel_with(case, profile, function, &[], None);
}

/// A trace's function `f` of `jsprof lines --json` as the source panel weighs it, beside the
/// Functions table: the function's numbers `jsprof top --json`'s (the trace's entries), its
/// self time shared over the lines by their sampled time (so the lines sum to the table's self).
fn in_table_weights(profile: &Path, mut f: serde_json::Value) -> serde_json::Value {
    let top = jsprof_json(&argv("top {} --limit 0 --json", &[&profile]));
    let row = top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            ["name", "url", "line", "column"]
                .iter()
                .all(|k| r[k] == f[k])
        })
        .unwrap_or_else(|| panic!("no row of {} in `jsprof top`", f["name"]))
        .clone();
    let self_ms = row["self_ms"].as_f64().unwrap();
    let scale = self_ms / f["lines_self_ms"].as_f64().unwrap();
    for l in f["lines"].as_array_mut().unwrap() {
        l["self_ms"] = (l["self_ms"].as_f64().unwrap() * scale).into();
    }
    f["lines_self_ms"] = self_ms.into();
    f["self_ms"] = row["self_ms"].clone();
    f["total_ms"] = row["total_ms"].clone();
    f
}

/// The panel of `function` in `view PROFILE FLAGS…`; `source`: the text of the script it is in
/// when the CLI cannot read it (served over HTTP).
fn panel_with(case: &str, profile: &Path, function: &str, flags: &[&str], source: Option<&str>) {
    let expected = jsprof_json(&argv(
        "lines {} --function {} --json",
        &[&profile, &function],
    ));
    let mut f = expected["functions"][0].clone();
    assert!(f["ticks"].as_u64().unwrap() > 0, "{f}");
    if expected["line_source"] == "sample_lines" {
        f = in_table_weights(profile, f);
    }
    if let Some(text) = source {
        // Split as the document splits a file: on `\n`, the empty line after the last one too.
        f["source_lines"] = text.split('\n').collect::<Vec<_>>().into();
    }
    let Some(v) = view_with(&[profile.to_path_buf()], flags) else {
        return;
    };
    node_case("ui-lines.mjs", case, &v.url, &f);
}

fn scratch(name: &str) -> PathBuf {
    fresh_dir(&format!("ui-lines-{name}"))
}

/// The program beside its profile: the panel shows its text, the CLI's times in the gutter and
/// the hottest line on screen.
#[test]
fn source_panel_shows_the_clis_lines() {
    if !available() {
        return;
    }
    let dir = scratch("text");
    let profile = profiled(&dir, &dir);
    panel("text", &profile);
    std::fs::remove_dir_all(&dir).ok();
}

/// The program outside the opened file's folder (`./profiles` beside `./src`): `view` reads the
/// script the profile names, as `jsprof lines` does (an upload keeps the roots' rule:
/// `ui_lines.rs`'s unit tests).
#[test]
fn source_panel_reads_the_scripts_the_profile_names() {
    if !available() {
        return;
    }
    let dir = scratch("named");
    let profile = profiled(&dir.join("src"), &dir.join("profiles"));
    panel("named", &profile);
    std::fs::remove_dir_all(&dir).ok();
}

/// A Chromium trace: the panel shows the CLI's per-line times from the trace's per-sample
/// lines. Its scripts were served over HTTP: no text, and the note names `--source-dir`; with
/// `view --source-dir DIR` holding the served script (the recording server's own text of
/// `/generate.js`), each line shows the file's text beside the CLI's times.
#[test]
fn source_panel_on_a_trace_shows_the_clis_lines_and_source_dir_text() {
    if !available() {
        return;
    }
    let trace = crate::support::fixtures().join("trace/primes.trace.json.gz");
    panel_of("trace", &trace, "^sortBig$");
    let server = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gen/chromium-page-server.js"),
    )
    .unwrap();
    let start = server.find("const gen = `").unwrap() + "const gen = `".len();
    let generate = &server[start..start + server[start..].find("`;").unwrap()];
    let dir = scratch("served");
    std::fs::write(dir.join("generate.js"), generate).unwrap();
    panel_with(
        "served",
        &trace,
        "^sortBig$",
        &["--source-dir", dir.to_str().unwrap()],
        Some(generate),
    );
    std::fs::remove_dir_all(&dir).ok();
}
