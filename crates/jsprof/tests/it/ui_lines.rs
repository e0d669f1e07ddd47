//! The UI's source panel (`tests/node/ui-lines.mjs`): opened from a function's right-click menu,
//! its lines and times are `jsprof lines --json`'s; the server reads the text only under the
//! opened file's folder.

use std::path::{Path, PathBuf};

use crate::support::{fresh_dir, jsprof_json, node_cpu_profile};
use crate::ui::{available, node_case, view};

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
    let expected = jsprof_json(&[
        "lines",
        profile.to_str().unwrap(),
        "--function",
        function,
        "--json",
    ]);
    let f = &expected["functions"][0];
    assert!(f["ticks"].as_u64().unwrap() > 0, "{f}");
    let v = view(&[profile.to_path_buf()]);
    node_case("ui-lines.mjs", case, &v.url, f);
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

/// The program outside the opened file's folder: the server does not read it (the times come
/// without the text, and the panel says why).
#[test]
fn source_panel_reads_only_under_the_opened_files_folder() {
    if !available() {
        return;
    }
    let dir = scratch("outside");
    let profile = profiled(&dir.join("src"), &dir.join("profiles"));
    panel("outside", &profile);
    std::fs::remove_dir_all(&dir).ok();
}

/// A Chromium trace: the panel shows the CLI's per-line times from the trace's per-sample
/// lines (its scripts were served over HTTP, so no text, and the note says why).
#[test]
fn source_panel_on_a_trace_shows_the_clis_lines() {
    if !available() {
        return;
    }
    panel_of(
        "trace",
        &crate::support::fixtures().join("trace/primes.trace.json.gz"),
        "^sortBig$",
    );
}
