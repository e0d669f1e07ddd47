//! The checks every request passes before any handler runs: the Host header names this server
//! (no DNS rebinding), a browser's `Origin` is this server's own, and the per-server token is
//! there (`Authorization: Bearer …` or `?token=…`). Loopback is no exemption: any web page can
//! send a request to localhost.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::ids;
use crate::state::AppState;

/// The Host values this server answers to.
pub fn allowed_hosts(state: &AppState) -> Option<Vec<String>> {
    let addr = state.local_addr;
    let port = addr.port();
    if addr.ip().is_unspecified() {
        // Listening on every interface (only with an explicit token): any name may reach us.
        return None;
    }
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    hosts.push(match addr {
        std::net::SocketAddr::V4(a) => format!("{}:{port}", a.ip()),
        std::net::SocketAddr::V6(a) => format!("[{}]:{port}", a.ip()),
    });
    for h in &state.config.allowed_hosts {
        hosts.push(
            if h.contains(':') && !h.starts_with('[') && h.matches(':').count() == 1 {
                h.to_ascii_lowercase()
            } else {
                format!("{}:{port}", h.to_ascii_lowercase())
            },
        );
    }
    Some(hosts)
}

fn query_token(query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

fn check(state: &AppState, req: &Request) -> Result<(), ApiError> {
    let headers = req.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.to_ascii_lowercase());
    let allowed = allowed_hosts(state);
    if let Some(allowed) = &allowed {
        match &host {
            Some(h) if allowed.iter().any(|a| a == h) => {}
            Some(h) => {
                return Err(ApiError::forbidden(format!(
                    "Host `{}` is not this server's address (expected {})",
                    ids::printable(h),
                    allowed[0]
                )))
            }
            None => return Err(ApiError::forbidden("the Host header is missing")),
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
        let own = match (&allowed, &host) {
            (Some(allowed), _) => allowed.iter().any(|a| origin == format!("http://{a}")),
            (None, Some(h)) => origin == format!("http://{h}"),
            (None, None) => false,
        };
        if !own {
            return Err(ApiError::forbidden(format!(
                "cross-origin request from `{}` refused",
                ids::printable(&origin)
            )));
        }
    }
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string());
    let token = bearer.or_else(|| query_token(req.uri().query()));
    match token {
        Some(t) if ids::same_token(&t, &state.token) => Ok(()),
        Some(_) => Err(ApiError::unauthorized("wrong token")),
        None => Err(ApiError::unauthorized(
            "a token is required: `Authorization: Bearer TOKEN` or `?token=TOKEN` (printed by `jsprof serve` at start)",
        )),
    }
}

/// The middleware.
pub async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    match check(&state, &req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}
