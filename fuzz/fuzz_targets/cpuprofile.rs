#![no_main]
//! Arbitrary bytes into the cpuprofile reader, then the DevTools timing and the function table.
//! The text is read twice: as a stream (serde's reader) and from memory (the hand scanner for
//! the form V8 writes, else serde); where both read a profile, the two must be the same. (One
//! may refuse what the other reads: from memory, a profile that opens with `nodes` keeps
//! serde_json's nesting limit.)
#[path = "../common/sampled.rs"]
mod sampled;

use jsprof_profile::{read_format_from, Format, Source};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let streamed = jsprof_profile::read_cpuprofile(data);
    let in_memory = read_format_from(Format::CpuProfile, Source::<&[u8]>::Slice(data));
    if let (Ok(a), Ok(b)) = (&streamed, &in_memory) {
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    sampled::check(|d: &[u8]| jsprof_profile::read_cpuprofile(d), data)
});
