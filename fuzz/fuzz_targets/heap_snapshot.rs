//! Arbitrary bytes into the heap reader (and, when they load, the whole DevTools analysis): errors are
//! fine, panics are not.
#![no_main]
// Each target uses part of what the two share.
#[allow(dead_code)]
#[path = "../common/heap.rs"]
mod heap;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| heap::snapshot(data));
