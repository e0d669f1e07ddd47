//! The ingest endpoint's configuration (`serve --lake … --ingest-…`): kept apart from the
//! endpoint itself (`ingest.rs`), which needs the profile lake, so that a jsprof built without
//! the `lake` feature still parses and checks the flags and says what it lacks.

use std::path::PathBuf;
use std::time::Duration;

/// The path browsers post JS Self-Profiling traces to.
pub const SELFPROFILE_PATH: &str = "/ingest/v1/selfprofile";
/// The path processes (the Node agent) post `.cpuprofile` and `.heapprofile` windows to.
pub const PROFILE_PATH: &str = "/ingest/v1/profile";

/// Whether a request goes to an ingest endpoint: the accept loop (`listen.rs`) counts those
/// connections apart.
pub fn is_ingest_path(path: &str) -> bool {
    path == SELFPROFILE_PATH || path == PROFILE_PATH
}

/// How the ingest endpoint is configured (`serve --lake … --ingest-…`).
#[derive(Clone, Debug)]
pub struct IngestConfig {
    /// The lake traces go to (created when missing).
    pub lake: PathBuf,
    /// Keys a post must carry (`?key=` or `Authorization: Bearer`); none of them is the admin
    /// token.
    pub keys: Vec<String>,
    /// Origins (`scheme://host[:port]`) whose pages may post; any other `Origin` is refused.
    pub origins: Vec<String>,
    /// The largest trace accepted, in bytes (the body as sent, and after gunzip).
    pub max_bytes: u64,
    /// Spooled traces are written to the lake every this many traces…
    pub batch_traces: usize,
    /// …or after this long, whichever comes first.
    pub batch_interval: Duration,
    /// Connections posting traces at once, a budget apart from the service's own
    /// (`--max-connections`): slow posts never take the admin API's or MCP's connections. A
    /// post past it gets 503.
    pub max_connections: usize,
    /// The time a post has to send its whole body; a slower one gets 408 and its connection is
    /// closed.
    pub body_deadline: Duration,
}

impl Default for IngestConfig {
    fn default() -> Self {
        IngestConfig {
            lake: PathBuf::from("lake"),
            keys: Vec::new(),
            origins: Vec::new(),
            max_bytes: 1 << 20,
            batch_traces: 1000,
            batch_interval: Duration::from_secs(1),
            max_connections: 64,
            body_deadline: Duration::from_secs(30),
        }
    }
}

impl IngestConfig {
    /// Checks the keys and origins; the message says which one is wrong.
    pub fn check(&self) -> Result<(), String> {
        if self.keys.is_empty() {
            return Err("--ingest-key-file: no key in the file (one key per line)".into());
        }
        for key in &self.keys {
            if key.len() < 16 || !key.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(
                    "--ingest-key-file: every key must be at least 16 visible ASCII characters"
                        .into(),
                );
            }
        }
        for origin in &self.origins {
            let rest = origin
                .strip_prefix("https://")
                .or_else(|| origin.strip_prefix("http://"));
            let ok = rest.is_some_and(|r| !r.is_empty() && !r.contains('/'));
            if !ok || origin.bytes().any(|b| b.is_ascii_uppercase()) {
                return Err(format!(
                    "--ingest-origin `{origin}`: expected a lowercase origin such as \
                     https://example.com or http://127.0.0.1:8080 (no path)"
                ));
            }
        }
        if self.max_bytes == 0 || self.batch_traces == 0 || self.max_connections == 0 {
            return Err(
                "--ingest-max-bytes, --ingest-batch and --ingest-max-connections must be positive"
                    .into(),
            );
        }
        if self.body_deadline.is_zero() {
            return Err("--ingest-body-timeout needs a positive number of seconds".into());
        }
        Ok(())
    }

    /// Refuses an ingest key equal to the admin token (`--token`, `--token-file`,
    /// `JSPROF_TOKEN`). The ingest key is public — pages carry it — so a key that is also the
    /// admin token would hand every visitor the admin API (recording any CDP target runs code
    /// in it); and the ingest endpoint must never take the admin token as a key.
    pub fn check_admin_token(&self, token: &str) -> Result<(), String> {
        let mut same = false;
        for key in &self.keys {
            same |= crate::ids::same_token(key, token);
        }
        if same {
            return Err(
                "--ingest-key-file: a key is the admin token (--token, --token-file or \
                        JSPROF_TOKEN); ingest keys are public (pages carry them), the admin token \
                        must stay secret: give the ingest another key"
                    .into(),
            );
        }
        Ok(())
    }
}

/// Reads `--ingest-key-file`: one key per line; blank lines and `#` comments are skipped.
pub fn read_keys(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}
