//! Errors of the importers.

use thiserror::Error;

/// Why an input could not be loaded at all. Recoverable problems are [`crate::Warning`]s instead.
#[derive(Debug, Error)]
pub enum ReadError {
    /// Not JSON, truncated JSON, or JSON of the wrong shape. `at` names the JSON path when known;
    /// `message` carries serde_json's line and column (for one-line files the column is the byte
    /// offset + 1).
    #[error("{}{message}", if at.is_empty() { String::new() } else { format!("at {at}: ") })]
    Json { at: String, message: String },
    /// Valid JSON that lacks something every profile of its kind needs.
    #[error("at {at}: {message}")]
    Invalid { at: String, message: String },
    /// The content is not a format jsprof reads.
    #[error("{0}")]
    UnknownFormat(String),
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
}

impl ReadError {
    pub(crate) fn invalid(at: impl Into<String>, message: impl Into<String>) -> ReadError {
        ReadError::Invalid {
            at: at.into(),
            message: message.into(),
        }
    }

    pub(crate) fn json(at: &str, err: serde_json::Error) -> ReadError {
        if err.is_io() {
            return ReadError::Io(err.into());
        }
        let message = match err.classify() {
            serde_json::error::Category::Eof => {
                format!("truncated input: {err} (the file ends before the JSON does)")
            }
            _ => err.to_string(),
        };
        ReadError::Json {
            at: at.to_string(),
            message,
        }
    }
}
