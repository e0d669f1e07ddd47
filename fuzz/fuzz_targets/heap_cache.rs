//! Forged heap indexes into the index reader (and, when one is taken, the analyses that trust its
//! tables): refusals are fine, panics are not. The first byte picks the input's shape: odd, the
//! rest are patches (a 4-byte position and a byte each) on a good index of a small snapshot, so
//! the fuzzer starts deep inside a valid file; even, the rest is an index of its own. Each shape
//! is read as it is and with its checksums recomputed, which lets forged content past them to the
//! decoders and the table checks.
#![no_main]
// Each target uses part of what the two share.
#[allow(dead_code)]
#[path = "../common/heap.rs"]
mod heap;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        heap::seed_index(include_bytes!("../seeds/heap_snapshot/tiny.heapsnapshot"))
    })
}

fuzz_target!(|data: &[u8]| heap::cache(data, seed()));
