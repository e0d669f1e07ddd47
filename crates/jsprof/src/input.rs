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
