#![no_main]
//! Arbitrary bytes into the heapprofile reader, then the DevTools timing and the function table.
#[path = "../common/sampled.rs"]
mod sampled;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sampled::check(|d: &[u8]| jsprof_profile::read_heapprofile(d), data)
});
