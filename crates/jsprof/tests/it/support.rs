//! Helpers shared by the CLI tests.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Runs the built `jsprof` binary with `args`.
pub fn jsprof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .output()
        .expect("run jsprof")
}

/// Runs `jsprof` and parses its stdout as JSON, panicking with stderr when it fails.
pub fn jsprof_json(args: &[&str]) -> serde_json::Value {
    let out = jsprof(args);
    assert!(
        out.status.success(),
        "jsprof {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Reads a `.json.gz` golden.
pub fn golden(path: &std::path::Path) -> serde_json::Value {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("golden is JSON")
}

/// Writes `bytes` to a fresh file under the target directory's temp area and returns its path.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}
