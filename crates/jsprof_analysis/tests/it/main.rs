//! Invariants of the readers and the timing rules, over generated profiles.

mod properties;
mod transforms;

mod roundtrip;
