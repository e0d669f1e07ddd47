//! Loading a CPU input for the commands: open once and sniff (`jsprof_document::input`), then
//! the one pipeline (`jsprof_document::load::read_cpu`, shared with the service, the report and
//! the UI).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::load::{CpuInput, Pipeline};
use jsprof_profile::Format;

use crate::input;
use crate::output::TextOut;
use crate::progress::Spinner;

/// Reads a CPU profile, self-profiling trace, Chrome trace or heap profile through `pipeline`.
/// Heap snapshots are refused with a pointer to `jsprof heap`.
pub fn load_cpu(path: &Path, pipeline: &Pipeline) -> Result<CpuInput> {
    // The whole text in memory parses several times faster than a byte-by-byte stream; it is
    // released before the analyses run.
    let (name, text) = input::read_all(path)?;
    let spinner = Spinner::start(format!("reading {name} ({} MB)", text.len() >> 20));
    let loaded = jsprof_document::load::read_cpu(name, text, pipeline)?;
    drop(spinner);
    Ok(loaded)
}

/// The arguments of the commands that print one whole-input document (`threads`, `insights`,
/// `network`, `timings`).
#[derive(clap::Args)]
pub struct DocumentArgs {
    /// A Chrome trace (`insights`, `network` and `timings` read a page load's; `jsprof record
    /// --url … --trace`), .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Those commands whole but for what each makes and shows: the file through the default
/// pipeline, `make`'s document of it, then the document as JSON with `--json`, else `text`
/// (given the input, for its name and warnings) writes it for people.
pub fn document<D: serde::Serialize>(
    args: &DocumentArgs,
    make: impl FnOnce(&CpuInput) -> jsprof_document::Result<D>,
    text: impl FnOnce(&CpuInput, &D, &mut TextOut) -> std::io::Result<()>,
) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &Pipeline::default())?;
    let report = make(&loaded)?;
    crate::output::emit(args.json, &report, |out| text(&loaded, &report, out))
}

/// Detects the format of `path` without reading it all, for commands that open the input again
/// to read it. Only a regular file can be opened twice: for stdin, a FIFO or `<(…)` this is
/// `None` without reading a byte, and the command reads the input once as a CPU input (which
/// names `jsprof heap` if it turns out to be a heap snapshot).
pub fn detect_format(path: &Path) -> Result<Option<Format>> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    Ok(Some(input::open_sniffed(path)?.1))
}
