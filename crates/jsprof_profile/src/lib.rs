//! The sampled-profile model of jsprof and the importers that lower every sampled format into it.
//!
//! ```no_run
//! let file = std::fs::File::open("app.cpuprofile")?;
//! let profile = jsprof_profile::read(std::io::BufReader::new(file))?;
//! println!("{} samples", profile.threads[0].samples().len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Importers never fail on damage they can work around: they load what can be loaded and list
//! what they skipped in [`Profile::warnings`]. Times are integer nanoseconds on the input's own
//! clock; the DevTools timing rules live in `jsprof_analysis`.

mod call_frame;
mod cpuprofile;
pub mod detect;
pub mod display;
mod error;
pub mod export;
mod heapprofile;
mod json;
pub mod model;
mod node_tree;
pub mod page_events;
pub mod page_scripts;
mod selfprofile;
pub mod source_map;
mod trace;
pub mod trace_events;
mod trace_segments;

use std::io::{BufRead, Read};

pub use cpuprofile::read_cpuprofile;
pub use detect::{detect, Format};
pub use error::ReadError;
pub use heapprofile::read_heapprofile;
pub use json::Source;
pub use model::*;
pub use selfprofile::read_selfprofile;
pub use source_map::{Mapping, SourceMap, SourceMapError};
pub use trace::{read_trace, read_trace_from, read_trace_slice};
pub use trace_events::{TraceEvent, TraceFile, TraceThread};

/// Reads any sampled format from decompressed text, detecting which from the content.
pub fn read<R: BufRead>(mut reader: R) -> Result<Profile, ReadError> {
    let prefix = sniff(&mut reader)?;
    let format = detect(&prefix).map_err(ReadError::UnknownFormat)?;
    read_format(format, std::io::Cursor::new(prefix).chain(reader))
}

/// Reads the first [`detect::SNIFF_LEN`] bytes (fewer at the end of input).
pub fn sniff<R: Read>(reader: &mut R) -> Result<Vec<u8>, ReadError> {
    let mut prefix = Vec::with_capacity(detect::SNIFF_LEN);
    reader
        .take(detect::SNIFF_LEN as u64)
        .read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// Reads a sampled format already detected. Heap snapshots are not sampled profiles.
pub fn read_format<R: Read>(format: Format, reader: R) -> Result<Profile, ReadError> {
    read_format_from(format, Source::Reader(reader))
}

/// Reads a sampled format already detected from a reader or from text in memory.
pub fn read_format_from<R: Read>(
    format: Format,
    source: Source<'_, R>,
) -> Result<Profile, ReadError> {
    match format {
        Format::CpuProfile => cpuprofile::read_cpuprofile_from(source),
        Format::SelfProfile => selfprofile::read_selfprofile_from(source),
        Format::HeapProfile => heapprofile::read_heapprofile_from(source),
        Format::Trace => trace::read_trace_from(source).map(|t| t.profile),
        Format::HeapSnapshot => Err(ReadError::UnknownFormat(
            "a heap snapshot is not a sampled profile (use `jsprof heap …`)".to_string(),
        )),
    }
}
