//! Why a tool call fails. Each becomes a tool result with `isError: true` whose text is the
//! message (what MCP clients show the model, unlike a protocol error) and whose structured
//! content is `{"error": CODE, "message"}` with the service's error codes.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ToolError {
    /// The arguments are wrong: unknown or missing field, bad value, bad regex, bad cursor.
    #[error("{0}")]
    BadRequest(String),
    /// A path outside every `--root`.
    #[error("{0}")]
    Forbidden(String),
    /// An unknown handle, node id, event id, function, thread.
    #[error("{0}")]
    NotFound(String),
    /// The request asks for more than the server's caps allow.
    #[error("{0}")]
    TooLarge(String),
    /// The input cannot be read as what the tool needs.
    #[error("{0}")]
    Input(String),
    /// The call ran past the per-call time cap.
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Internal(String),
}

impl ToolError {
    /// The service's error code for the same failure (`jsprof_server::error`, HTTP).
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::BadRequest(_) | ToolError::Input(_) => "BAD_REQUEST",
            ToolError::Forbidden(_) => "FORBIDDEN",
            ToolError::NotFound(_) => "NOT_FOUND",
            ToolError::TooLarge(_) => "TOO_LARGE",
            ToolError::Timeout(_) => "TIMEOUT",
            ToolError::Internal(_) => "INTERNAL_ERROR",
        }
    }
}

impl From<jsprof_document::ReportError> for ToolError {
    fn from(e: jsprof_document::ReportError) -> Self {
        use jsprof_document::ReportError as R;
        match e {
            R::Input(m) => ToolError::Input(m),
            R::Usage(m) => ToolError::BadRequest(m),
            R::NotFound(m) => ToolError::NotFound(m),
        }
    }
}

pub type ToolResult<T> = Result<T, ToolError>;
