//! Loading a sampled profile for the CPU commands: open once, sniff, read, apply DevTools' timing
//! (`jsprof_document::load::profile`, shared with the service).

use std::path::Path;

use anyhow::Result;
use jsprof_profile::{Format, Profile};

use crate::input;
use crate::progress::Spinner;

/// A loaded, timed profile and the name of its input.
pub struct Loaded {
    pub name: String,
    pub profile: Profile,
}

/// Reads any sampled format (CPU profile, self-profiling trace, heap profile) and applies the
/// DevTools timing rules. Heap snapshots are refused with a pointer to `jsprof heap`.
pub fn load_profile(path: &Path) -> Result<Loaded> {
    // The whole text in memory parses several times faster than a byte-by-byte stream; it is
    // released before the analyses run.
    let (name, text) = input::read_all(path)?;
    let spinner = Spinner::start(format!("reading {name} ({} MB)", text.len() >> 20));
    let profile = jsprof_document::load::profile(&name, text)?;
    drop(spinner);
    Ok(Loaded { name, profile })
}

/// Detects the format of `path` without reading it all. It opens the file: a FIFO given here
/// cannot be read again.
pub fn detect_format(path: &Path) -> Result<Format> {
    Ok(input::open_sniffed(path)?.1)
}
