//! A whole input in memory: memory-mapped when it is a plain file on disk, decompressed otherwise
//! (gzip is recognised by its magic bytes).

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

/// The bytes of an input, mapped or owned.
pub enum Text {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Text::Mapped(m) => m,
            Text::Owned(v) => v,
        }
    }
}

/// Reads all of the file at `path`, decompressing gzip. Plain files are memory-mapped: the
/// parser then reads the page cache directly instead of a private copy of the file.
pub fn read_file(path: &Path) -> io::Result<Text> {
    let file = File::open(path)?;
    let mut magic = [0u8; 2];
    let is_gzip = (&file)
        .read(&mut magic)
        .map(|n| n == 2 && magic == [0x1f, 0x8b])
        .unwrap_or(false);
    let len = file.metadata()?.len();
    if !is_gzip && len > 0 {
        // SAFETY: the map is read-only and private to this process; files mapped here are only
        // ever replaced by rename, never truncated in place, so the mapping stays valid.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Text::Mapped(map));
        }
    }
    let mut file = file;
    use std::io::Seek;
    file.seek(io::SeekFrom::Start(0))?;
    let mut text = Vec::new();
    if is_gzip {
        MultiGzDecoder::new(BufReader::with_capacity(256 * 1024, file)).read_to_end(&mut text)?;
    } else {
        file.read_to_end(&mut text)?;
    }
    Ok(Text::Owned(text))
}

/// Opens `path` as a reader over its decompressed bytes (for the streaming heap reader).
pub fn open_reader(path: &Path) -> io::Result<Box<dyn io::BufRead + Send>> {
    use std::io::BufRead;
    let file = File::open(path)?;
    let mut buffered = BufReader::with_capacity(256 * 1024, file);
    let head = buffered.fill_buf()?;
    let gzipped = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    Ok(if gzipped {
        Box::new(BufReader::with_capacity(
            256 * 1024,
            MultiGzDecoder::new(buffered),
        ))
    } else {
        Box::new(buffered)
    })
}
