//! Errors of the heap reader. Every variant names the byte offset (in the decompressed text) where the
//! problem was found, so that a person can look at the file.

use std::io;

/// Why a snapshot could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum HeapError {
    #[error("read error at byte {offset}: {source}")]
    Io {
        offset: u64,
        #[source]
        source: io::Error,
    },
    #[error("unexpected end of input at byte {offset} (truncated?) while reading {context}")]
    Truncated { offset: u64, context: &'static str },
    #[error("malformed JSON at byte {offset}: {message}")]
    Syntax { offset: u64, message: String },
    #[error("invalid heap snapshot at byte {offset}: {message}")]
    Invalid { offset: u64, message: String },
}

impl HeapError {
    /// The byte offset the error refers to.
    pub fn offset(&self) -> u64 {
        match self {
            HeapError::Io { offset, .. }
            | HeapError::Truncated { offset, .. }
            | HeapError::Syntax { offset, .. }
            | HeapError::Invalid { offset, .. } => *offset,
        }
    }
}

pub type Result<T, E = HeapError> = std::result::Result<T, E>;
