//! jsprof as a [Model Context Protocol](https://modelcontextprotocol.io) server, so that a coding
//! agent can ask "why is this slow?" or "what leaks?" of a profile, trace or heap snapshot and get
//! DevTools' numbers back in small answers.
//!
//! The analysis runs here and only a page of each answer goes back: a 450 MB snapshot's first
//! answer is a few KB, with the totals and a cursor saying what the agent has not seen yet. Every
//! number comes from a `jsprof_document` document — the one the CLI's `--json`, the service and
//! the UI serialize — sliced into pages ([`page`]); nothing is computed a second time for MCP.
//!
//! - [`tools`]: the tool table (open, top, tree, events, flame chart calls, CPU diff, heap
//!   summary/class/object/retainers/dominators/statistics/strings/detached/diff/leaks, source,
//!   and — with [`Config::allow_record`] — record);
//! - [`store`]: opened artifacts behind handles, each loaded once and shared between calls;
//! - [`resources`] and [`prompts`]: the opened artifacts, and the two usual investigations.
//!
//! Two transports: stdio ([`serve_stdio`], what `jsprof mcp` runs) and MCP's streamable HTTP
//! ([`http_service`], mounted at `/mcp` by `jsprof serve` behind its own token, Host and Origin
//! checks).
//!
//! ```no_run
//! # async fn demo() -> Result<(), jsprof_mcp::McpServeError> {
//! let config = jsprof_mcp::Config { roots: vec![std::env::current_dir().unwrap()], ..Default::default() };
//! jsprof_mcp::serve_stdio(config).await
//! # }
//! ```

pub mod error;
pub mod paging;
pub mod prompts;
pub mod record;
pub mod resources;
pub mod server;
pub mod sessions;
pub mod source;
pub mod store;
pub mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use thiserror::Error;

pub use error::ToolError;
pub use server::JsprofMcp;

/// How the server protects its host; `Default` is what `jsprof mcp` starts with.
#[derive(Clone, Debug)]
pub struct Config {
    /// Directories whose files may be opened (canonicalized at start); nothing outside them is
    /// read, a symbolic link included.
    pub roots: Vec<PathBuf>,
    /// Offer the `record` tool (it runs a command or drives a browser page).
    pub allow_record: bool,
    /// Longest a call may take before it answers with an error (a load goes on in the
    /// background and the next call finds it done). Below the 60 s most clients wait for an
    /// answer, so that the agent hears "call again" rather than a client-side timeout.
    pub call_timeout: Duration,
    /// Largest answer a call may ask for with `max_bytes`.
    pub max_answer_bytes: usize,
    /// Most items a call may ask for with `max_items`.
    pub max_items: usize,
    /// Where `record` writes its files (inside a root, so they can be opened after).
    pub record_dir: Option<PathBuf>,
    /// How long an HTTP session may go without a request before it ends (its client starts a
    /// new one); a call still running keeps its session.
    pub session_idle: Duration,
    /// HTTP sessions live at once; a new one past it ends the one asked least recently.
    pub max_sessions: usize,
    /// `tools/list` gives each tool's derived input schema whole, with every argument's
    /// documentation, instead of the compact one ([`tools::schema`]).
    pub full_schemas: bool,
}

/// What an answer holds when the call names no `max_bytes`: small enough for any model's
/// context, with a cursor for the rest.
pub const DEFAULT_ANSWER_BYTES: usize = 8000;
/// Items per page without `max_items`.
pub const DEFAULT_ITEMS: usize = 20;
/// An HTTP session's idle expiry without `--mcp-session-idle`.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// HTTP sessions live at once without `--mcp-max-sessions`.
pub const DEFAULT_MAX_SESSIONS: usize = 64;

impl Default for Config {
    fn default() -> Self {
        Config {
            roots: Vec::new(),
            allow_record: false,
            call_timeout: Duration::from_secs(50),
            max_answer_bytes: 1 << 20,
            max_items: 10_000,
            record_dir: None,
            session_idle: DEFAULT_SESSION_IDLE,
            max_sessions: DEFAULT_MAX_SESSIONS,
            full_schemas: false,
        }
    }
}

/// Why the server cannot start or stopped with an error.
#[derive(Debug, Error)]
pub enum McpServeError {
    #[error("--root {path}: {source}")]
    Root {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--root {0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("the MCP session failed: {0}")]
    Session(String),
}

impl Config {
    /// The roots made absolute and canonical (so that a prefix check is a containment check),
    /// or the error naming the one that cannot be used.
    pub fn checked(mut self) -> Result<Config, McpServeError> {
        let mut roots = Vec::new();
        for root in &self.roots {
            let canon = std::fs::canonicalize(root).map_err(|source| McpServeError::Root {
                path: root.clone(),
                source,
            })?;
            if !canon.is_dir() {
                return Err(McpServeError::NotADirectory(root.clone()));
            }
            roots.push(canon);
        }
        self.roots = roots;
        Ok(self)
    }
}

/// Serves one MCP session over stdin/stdout until the client closes it.
pub async fn serve_stdio(config: Config) -> Result<(), McpServeError> {
    let server = JsprofMcp::new(Arc::new(store::Store::new(config.checked()?)));
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpServeError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpServeError::Session(e.to_string()))?;
    Ok(())
}

/// The streamable HTTP transport as a tower service, for a host server to mount (at `/mcp`)
/// behind its own token, Host and Origin checks (rmcp's own Host check is off: the host server's
/// is the one policy). `config` must be [`Config::checked`]. Every HTTP session shares one store
/// of opened artifacts; sessions expire and are capped ([`sessions`]).
pub fn http_service(
    config: Config,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<JsprofMcp, sessions::Sessions> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let sessions = Arc::new(sessions::Sessions::new(&config));
    let store = Arc::new(store::Store::new(config));
    let http = StreamableHttpServerConfig::default().disable_allowed_hosts();
    StreamableHttpService::new(move || Ok(JsprofMcp::new(store.clone())), sessions, http)
}
