//! The service's entry points into [`crate::input`], the one reader of whole inputs (kept under
//! their old names so its call sites stay as they are).

use std::io;
use std::path::Path;

pub use crate::input::Text;
use crate::input::{InputError, Limits};

/// Reads all of the file at `path` under the default limits (or those of the environment):
/// mapped when plain, decompressed when gzip, refused early when not JSON.
pub fn read_file(path: &Path) -> io::Result<Text> {
    let limits = Limits::from_env().map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    crate::input::read_file_with(path, &limits).map_err(to_io)
}

/// Opens `path` as a reader over its decompressed bytes (for the streaming heap reader).
pub fn open_reader(path: &Path) -> io::Result<Box<dyn io::BufRead + Send>> {
    let limits = Limits::from_env().map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    Ok(crate::input::open_streaming(path, &limits)
        .map_err(to_io)?
        .into_reader())
}

/// The error without the file's name: the service names its files itself (a server path means
/// nothing to the client).
fn to_io(e: InputError) -> io::Error {
    match e.kind {
        crate::input::InputErrorKind::Open(e) | crate::input::InputErrorKind::Read(e) => e,
        kind => io::Error::new(io::ErrorKind::InvalidData, kind.to_string()),
    }
}
