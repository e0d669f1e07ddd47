//! The CLI's door to `jsprof_document::input`, the one reader of inputs (shared with the
//! service): limits from the environment, errors as `anyhow`.

use std::io::BufRead;
use std::path::Path;

use anyhow::{anyhow, Result};
use jsprof_document::input::{self as shared, Limits};
use jsprof_profile::Format;

pub use jsprof_document::input::Text;

/// An opened input as a stream (for the streaming heap reader); `display_name` names it.
pub struct Input {
    pub reader: Box<dyn BufRead + Send>,
    /// Size on disk (compressed when gzipped) when known, for progress bars; `None` for stdin.
    pub file_size: Option<u64>,
    pub gzipped: bool,
}

fn limits() -> Result<Limits> {
    Limits::from_env().map_err(|e| anyhow!(e))
}

/// Opens `path` (`-` = stdin) once, sniffing its head: gzip, byte-order marks, and the format.
pub fn open_sniffed(path: &Path) -> Result<(shared::Input, Format)> {
    let input = shared::open(path, &limits()?)?;
    let format = input.format()?;
    Ok((input, format))
}

/// Opens `path` (`-` = stdin) as a stream over its decompressed text (read, never mapped).
pub fn open(path: &Path) -> Result<Input> {
    let input = shared::open_streaming(path, &limits()?)?;
    Ok(Input {
        file_size: input.file_size(),
        gzipped: input.gzipped(),
        reader: input.into_reader(),
    })
}

/// The display name for a path argument, as `open` would name it.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads all of `path` (`-` = stdin) after checking from its head that it is a format jsprof
/// reads (so `/dev/zero` is refused at once). Plain files are memory-mapped.
pub fn read_all(path: &Path) -> Result<(String, Text)> {
    let (input, _) = open_sniffed(path)?;
    let name = input.name().to_string();
    Ok((name, input.read_all()?))
}

/// The inputs in folder `dir`, by name: its regular files but hidden ones and a run folder's
/// `manifest.json` (what `record` writes beside the recordings). `diff --base DIR` and
/// `insights DIR` read a folder this one way.
pub fn files_in(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    jsprof_document::page_runs::run_files(dir)
        .map_err(|e| anyhow!("cannot list {}: {e}", dir.display()))
}
