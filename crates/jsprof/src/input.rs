//! Opening inputs: a path or `-` for stdin, gzip detected by its magic bytes.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flate2::bufread::MultiGzDecoder;

/// An opened input: a buffered reader over the decompressed bytes, and how to name it to people.
#[allow(dead_code)] // size and compression are for progress bars and messages
pub struct Input {
    pub name: String,
    pub reader: Box<dyn BufRead + Send>,
    /// Compressed size on disk when known (for progress bars); `None` for stdin.
    pub file_size: Option<u64>,
    pub gzipped: bool,
}

const BUF_SIZE: usize = 256 * 1024;

/// Opens `path` (`-` = stdin) and transparently decompresses gzip.
pub fn open(path: &Path) -> Result<Input> {
    let (name, raw, file_size): (String, Box<dyn Read + Send>, Option<u64>) = if path
        == Path::new("-")
    {
        ("<stdin>".to_string(), Box::new(io::stdin()), None)
    } else {
        let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        let size = file.metadata().ok().map(|m| m.len());
        (path.display().to_string(), Box::new(file), size)
    };
    let mut buffered = BufReader::with_capacity(BUF_SIZE, raw);
    let head = buffered
        .fill_buf()
        .with_context(|| format!("{name}: cannot read"))?;
    let gzipped = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    let reader: Box<dyn BufRead + Send> = if gzipped {
        Box::new(BufReader::with_capacity(
            BUF_SIZE,
            MultiGzDecoder::new(buffered),
        ))
    } else {
        Box::new(buffered)
    };
    Ok(Input {
        name,
        reader,
        file_size,
        gzipped,
    })
}

/// The display name for a path argument, as `open` would name it.
#[allow(dead_code)]
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        PathBuf::from(path).display().to_string()
    }
}

pub use jsprof_document::text::Text;

/// Reads all of `path` (`-` = stdin), decompressing gzip. Plain files are memory-mapped: the
/// parser then reads the page cache directly instead of a private copy of the file.
pub fn read_all(path: &Path) -> Result<(String, Text)> {
    if path != Path::new("-") {
        let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        let mut magic = [0u8; 2];
        let is_gzip = {
            use std::io::Read as _;
            let mut f = &file;
            f.read(&mut magic)
                .map(|n| n == 2 && magic == [0x1f, 0x8b])
                .unwrap_or(false)
        };
        let is_plain_file = file
            .metadata()
            .map(|m| m.is_file() && m.len() > 0)
            .unwrap_or(false);
        if !is_gzip && is_plain_file {
            // SAFETY: the map is read-only and private to this process; if another process
            // truncates the file while we read it we may get SIGBUS, the same trade-off ripgrep
            // makes. Nothing here writes through it.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return Ok((path.display().to_string(), Text::Mapped(map)));
            }
        }
    }
    let mut input = open(path)?;
    let mut text = Vec::new();
    if let Some(size) = input.file_size.filter(|_| !input.gzipped) {
        text.reserve_exact(size as usize);
    }
    input
        .reader
        .read_to_end(&mut text)
        .with_context(|| format!("{}: cannot read", input.name))?;
    Ok((input.name, Text::Owned(text)))
}
