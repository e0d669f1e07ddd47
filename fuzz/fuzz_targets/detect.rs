#![no_main]
//! Arbitrary bytes into format detection, its JSON scan of the top-level keys included (issue
//! 33): never a panic, whatever the bytes, as callers give it (at most `SNIFF_LEN` of them).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let n = data.len().min(jsprof_profile::detect::SNIFF_LEN);
    let _ = jsprof_profile::detect(&data[..n]);
});
