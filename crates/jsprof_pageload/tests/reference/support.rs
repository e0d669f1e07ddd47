//! Helpers of the reference tests: the fixtures, the goldens, the live oracle, and the page
//! documents built by the libraries (`jsprof_document` over this crate), as `jsprof insights`,
//! `network` and `timings` print them with `--json`, without the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use jsprof_document::input::{self, Limits};
use jsprof_document::load::{read_cpu, Pipeline};
use jsprof_document::page;

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The document `view` (`insights`, `network` or `timings`) of the trace at `path`, as JSON:
/// what `jsprof VIEW PATH --json` prints, read through the same pipeline.
pub fn document(view: &str, path: &str) -> Value {
    let opened =
        input::open(Path::new(path), &Limits::default()).unwrap_or_else(|e| panic!("{path}: {e}"));
    let name = opened.name().to_string();
    let text = opened.read_all().unwrap_or_else(|e| panic!("{path}: {e}"));
    let loaded = read_cpu(name, text, &Pipeline::default()).unwrap_or_else(|e| panic!("{e}"));
    let json = match view {
        "insights" => page::insights_report(&loaded).map(serde_json::to_value),
        "network" => page::network_report(&loaded).map(serde_json::to_value),
        "timings" => page::timings_report(&loaded).map(serde_json::to_value),
        _ => panic!("no page document {view}"),
    };
    json.unwrap_or_else(|e| panic!("{view} of {path}: {e}"))
        .expect("the document is JSON")
}

/// Reads a `.json.gz` golden.
pub fn golden(path: &Path) -> Value {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("golden is JSON")
}

/// A gzipped text fixture (`trace/pageload.trace.json.gz`), as text: for tests that edit a
/// recording (rename its URLs, break a part) before reading it.
pub fn fixture_text(rel: &str) -> String {
    let path = fixtures().join(rel);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// Writes `bytes` to a fresh file under the target directory's temp area and returns its path.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("reference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// DevTools' own code run over a file (`target/oracle/NAME.mjs`), its JSON answer; `None` when
/// the oracles are not built: one line on the real stderr says what was skipped, and with `CI`
/// set that is a failure, never a skip.
pub fn run_oracle(name: &str, file: &Path) -> Option<Value> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/oracle/{name}.mjs"));
    if !script.exists() {
        let test = std::thread::current()
            .name()
            .unwrap_or("a test")
            .to_string();
        let how = "bash tools/oracle/build.sh target/oracle";
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: {test} needs the oracle {}: {how}",
            script.display()
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: the oracle {} is missing ({how}); with CI set this fails",
            script.display()
        );
        return None;
    }
    let out = Command::new("node")
        .arg("--max-old-space-size=8000")
        .arg(&script)
        .arg(file)
        .output()
        .expect("run node");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{name} on {}: its answer is not JSON ({e}): {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success() && v.get("error").is_none(),
        "{name} failed on {}: {v} {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(v)
}
