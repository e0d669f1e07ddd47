//! Errors as the service answers them: `{"error": CODE, "message": "..."}` with the HTTP status
//! each code has (the table below; the OpenAPI document lists them per route).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use jsprof_document::ReportError;
use serde_json::json;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            code: "BAD_REQUEST",
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            code: "NOT_FOUND",
            message: message.into(),
        }
    }

    /// The classic service's refusal of a state change (start while recording, stop when not
    /// recording, release while recording): 409 with `BAD_REQUEST`.
    pub fn state(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::CONFLICT,
            code: "BAD_REQUEST",
            message: message.into(),
        }
    }

    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: "TOO_LARGE",
            message: message.into(),
        }
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            code: "UNAUTHORIZED",
            message: message.into(),
        }
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::FORBIDDEN,
            code: "FORBIDDEN",
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: "INTERNAL_ERROR",
            message: message.into(),
        }
    }
}

impl From<ReportError> for ApiError {
    fn from(e: ReportError) -> ApiError {
        match e {
            ReportError::NotFound(m) => ApiError::not_found(m),
            ReportError::Input(m) | ReportError::Usage(m) => ApiError::bad_request(m),
        }
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> ApiError {
        ApiError::internal(format!("catalogue: {e}"))
    }
}

impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> ApiError {
        ApiError::internal(format!("I/O: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.code, "message": self.message}).to_string();
        body.push('\n');
        (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
