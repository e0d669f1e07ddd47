//! Errors of the CDP client and the recorder.

use std::time::Duration;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CdpError {
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("{method} failed: {message} (CDP error {code})")]
    Protocol {
        method: String,
        code: i64,
        message: String,
    },
    #[error("timed out after {:.1} s waiting for {what}", after.as_secs_f64())]
    Timeout { what: String, after: Duration },
    #[error("the target closed the connection{}", if detail.is_empty() { String::new() } else { format!(" ({detail})") })]
    Closed { detail: String },
    #[error("{0}")]
    Target(String),
    /// An address the caller's [`crate::Reach`] does not allow, or a process that may not be
    /// signalled: a refusal, not a missing target.
    #[error("{0}")]
    NotAllowed(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

impl CdpError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> CdpError {
        CdpError::Io {
            context: context.into(),
            source,
        }
    }
}

pub type Result<T, E = CdpError> = std::result::Result<T, E>;
