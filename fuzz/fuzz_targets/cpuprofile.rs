#![no_main]
//! Arbitrary bytes into the cpuprofile reader, then the DevTools timing and the function table: errors
//! are fine, panics and hangs are not.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut profile) = jsprof_profile::read_cpuprofile(data) {
        jsprof_analysis::apply_devtools_timing(&mut profile);
        for thread in &profile.threads {
            let _ = jsprof_analysis::function_table(&profile, thread);
        }
    }
});
