#![no_main]
//! Arbitrary bytes into the source-map parser, a few lookups, then the map applied to a small
//! fixed profile whose frames sit at the edges (line 1 column 1, far past the map's end). Errors are
//! fine; panics, hangs and runaway allocation are not.
use std::sync::OnceLock;

use jsprof_analysis::ScriptMap;
use jsprof_profile::{Profile, SourceMap};
use libfuzzer_sys::fuzz_target;

/// Frames of one script at the start, in the middle and far beyond any plausible map.
const PROFILE: &str = r#"{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
 {"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":0},"children":[4]},
 {"id":3,"callFrame":{"functionName":"b","scriptId":"1","url":"file:///a.js","lineNumber":3,"columnNumber":17}},
 {"id":4,"callFrame":{"functionName":"c","scriptId":"1","url":"file:///a.js","lineNumber":4000000000,"columnNumber":4294967294}}],
 "startTime":0,"endTime":40,"samples":[2,3,4,3],"timeDeltas":[0,10,10,10]}"#;

fn profile() -> &'static Profile {
    static P: OnceLock<Profile> = OnceLock::new();
    P.get_or_init(|| {
        let mut p = jsprof_profile::read_cpuprofile(PROFILE.as_bytes()).expect("fixed profile");
        jsprof_analysis::apply_devtools_timing(&mut p);
        p
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(map) = SourceMap::from_json(data) else {
        return;
    };
    for (line, column) in [(0, 0), (0, 7), (1, 0), (3, 17), (u32::MAX, u32::MAX)] {
        if let Some(m) = map.lookup(line, column) {
            let _ = (map.source(m.source), m.name.map(|n| map.name(n)));
        }
        let _ = map.name_at(line, column);
    }
    let sources = map.sources().to_vec();
    let script = ScriptMap { map, sources };
    let (mapped, _) = jsprof_analysis::apply_source_maps(profile(), |_| Some(&script));
    for thread in &mapped.threads {
        let _ = jsprof_analysis::function_table(&mapped, thread);
    }
});
