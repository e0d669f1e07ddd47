//! Helpers of the reference tests: the fixtures, the goldens, the live oracle, and the page
//! documents built by the libraries (`jsprof_document` over this crate), as `jsprof insights`,
//! `network` and `timings` print them with `--json`, without the binary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use jsprof_document::input::{self, Limits};
use jsprof_document::load::{read_cpu, Pipeline};
use jsprof_document::page;

pub use jsprof_testkit::{fixture_text, fixtures, golden, run_oracle};

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

/// Our insights document of the recorded page load `name` (a [`crate::page_loads::PAGE_LOADS`]
/// entry) and the trace engine's golden answer for it.
pub fn page_load_insights(name: &str) -> (Value, Value) {
    let ours = document("insights", &crate::page_loads::input(name));
    (ours, crate::page_loads::oracle(name))
}

/// The field `key` of each element of the array `list`.
pub fn pluck<'a>(list: &'a Value, key: &str) -> Vec<&'a Value> {
    list.as_array().unwrap().iter().map(|x| &x[key]).collect()
}

/// The string field `key` of each element of the array `list`.
pub fn pluck_str<'a>(list: &'a Value, key: &str) -> Vec<&'a str> {
    pluck(list, key)
        .into_iter()
        .map(|x| x.as_str().unwrap())
        .collect()
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
