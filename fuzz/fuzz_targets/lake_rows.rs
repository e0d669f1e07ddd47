#![no_main]
//! Arbitrary bytes read as `lake add` reads a file (any format jsprof reads, gzip too; source
//! maps off, as for a posted trace) into the rows the lake's writer stores: never a panic, and
//! the rows a consistent dictionary and prefix tree (`common/lake_rows.rs`). Builds without
//! DataFusion (`jsprof_lake` without its `engine` feature).
#[path = "../common/lake_rows.rs"]
mod lake_rows;

use std::collections::BTreeMap;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let options = jsprof_lake::PrepareOptions {
        source_maps: jsprof_document::source_maps::SourceMaps::off(),
        start_time_us: None,
        max_bytes: 16 << 20,
    };
    let labels = BTreeMap::from([("run".to_string(), "fuzz".to_string())]);
    if let Ok(prepared) =
        jsprof_lake::prepare("input.json", data.to_vec(), &labels, "cli", &options)
    {
        assert_eq!(prepared.labels["source"], "cli");
        lake_rows::check(&prepared);
    }
});
