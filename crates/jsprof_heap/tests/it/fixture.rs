//! The fixtures and DevTools' goldens beside them (`fixtures/heap/`), as every module reads them.

use std::path::{Path, PathBuf};

use jsprof_heap::{analyze, read_snapshot, Analysis, HeapSnapshot};
use serde_json::Value;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/heap")
}

/// `fixtures/heap/FILE.gz`, read and analysed.
pub fn load(file: &str) -> (HeapSnapshot, Analysis) {
    let file = std::fs::File::open(fixtures().join(format!("{file}.gz"))).unwrap();
    let mut s =
        read_snapshot(std::io::BufReader::new(flate2::read::GzDecoder::new(file))).expect("loads");
    let a = analyze(&mut s);
    (s, a)
}

/// A gzipped JSON golden.
pub fn golden(path: &Path) -> Value {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("golden is JSON")
}

/// The `result` of DevTools' answer in `fixtures/heap/STEM.devtools.json.gz`.
pub fn devtools_result(stem: &str) -> Value {
    golden(&fixtures().join(format!("{stem}.devtools.json.gz")))["result"].clone()
}
