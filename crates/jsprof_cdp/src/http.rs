//! The inspector's small HTTP side (`/json/list`, `/json/version`, `/json/new`): one GET over a
//! plain TCP connection, enough for these JSON answers and no HTTP crate.

use std::time::Duration;

use crate::endpoint::{addr_endpoint, connect, Reach};
use crate::error::{CdpError, Result};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The largest answer read: a `/json/list` of a browser with many tabs is tens of KB.
const MAX_BODY: usize = 16 << 20;

/// GETs `path` from `host:port` (on an address `reach` allows) and parses the body as JSON.
pub async fn get_json(
    addr: &str,
    path: &str,
    method: &str,
    timeout: Duration,
    reach: Reach,
) -> Result<Value> {
    let what = format!("http://{addr}{path}");
    let endpoint = addr_endpoint(addr)?;
    let work = async {
        let mut stream = connect(&endpoint, reach, timeout).await?;
        let request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: application/json\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| CdpError::io(what.clone(), e))?;
        // Read the head, then exactly Content-Length bytes: Node's inspector keeps the
        // connection open whatever `Connection: close` says.
        let mut response = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        let split = loop {
            if let Some(split) = response.windows(4).position(|w| w == b"\r\n\r\n") {
                break split;
            }
            let n = stream
                .read(&mut buf)
                .await
                .map_err(|e| CdpError::io(what.clone(), e))?;
            if n == 0 {
                return Err(CdpError::Target(format!("{what}: not an HTTP response")));
            }
            response.extend_from_slice(&buf[..n]);
            if response.len() > 64 * 1024 {
                return Err(CdpError::Target(format!(
                    "{what}: the HTTP head is too long"
                )));
            }
        };
        let head = String::from_utf8_lossy(&response[..split]).to_string();
        let status_ok = head
            .lines()
            .next()
            .is_some_and(|l| l.split_whitespace().nth(1) == Some("200"));
        let lower = head.to_ascii_lowercase();
        let length = lower
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok());
        let mut body = response[split + 4..].to_vec();
        let too_long = || CdpError::Target(format!("{what}: the answer is over {MAX_BODY} bytes"));
        match length {
            Some(len) if len > MAX_BODY => return Err(too_long()),
            Some(len) => {
                while body.len() < len {
                    let n = stream
                        .read(&mut buf)
                        .await
                        .map_err(|e| CdpError::io(what.clone(), e))?;
                    if n == 0 {
                        break;
                    }
                    body.extend_from_slice(&buf[..n]);
                }
                body.truncate(len);
            }
            None => {
                (&mut stream)
                    .take(MAX_BODY as u64 + 1)
                    .read_to_end(&mut body)
                    .await
                    .map_err(|e| CdpError::io(what.clone(), e))?;
                if body.len() > MAX_BODY {
                    return Err(too_long());
                }
                if lower.contains("transfer-encoding: chunked") {
                    body = dechunk(&body);
                }
            }
        }
        if !status_ok {
            return Err(CdpError::Target(format!(
                "{what}: {}",
                head.lines().next().unwrap_or("")
            )));
        }
        serde_json::from_slice(&body).map_err(|e| {
            CdpError::Target(format!(
                "{what}: the answer is not JSON ({e}); is this a DevTools endpoint?"
            ))
        })
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| CdpError::Timeout {
            what,
            after: timeout,
        })?
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&body[..line_end]).trim(), 16)
            .unwrap_or(0);
        body = &body[line_end + 2..];
        if size == 0 || size > body.len() {
            break;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[(size + 2).min(body.len())..];
    }
    out
}
