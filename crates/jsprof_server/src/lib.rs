//! The profiling service behind `jsprof serve`: the classic browser profiler service
//! (StartProfiler, StopProfiler, GetEvents, ReleaseSession) over HTTP/JSON, rebuilt over the CDP
//! recorder and the timeline engine. Sessions are recorded from a Node inspector, a Node process
//! by pid or a Chromium page, or imported from a file; they live in a SQLite catalogue plus
//! artifact files, so a restart loses nothing. Every answer is the JSON of the matching CLI
//! command (`jsprof_document`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), jsprof_server::ServeError> {
//! let config = jsprof_server::Config {
//!     addr: "127.0.0.1:0".parse().unwrap(),
//!     data_dir: "/tmp/jsprof-data".into(),
//!     ..Default::default()
//! };
//! let server = jsprof_server::Server::bind(config).await?;
//! println!("{}", server.url());
//! server.run(async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

#![recursion_limit = "512"]

mod api;
mod cache;
mod catalogue;
mod clock;
mod error;
mod ids;
mod openapi;
mod params;
mod recording;
mod security;
mod state;
mod ui;
pub mod ui_page;
mod upload;
mod work;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use thiserror::Error;

pub use state::Config;

use crate::state::AppState;

/// The port `jsprof serve` listens on without `--addr`.
pub const DEFAULT_PORT: u16 = 9400;

/// Why the service cannot start or run.
#[derive(Debug, Error)]
pub enum ServeError {
    /// A configuration that would be unsafe or cannot work (the CLI exits 2).
    #[error("{0}")]
    Config(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("the catalogue {path}: {source}")]
    Catalogue {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> ServeError {
    let context = context.into();
    move |source| ServeError::Io { context, source }
}

/// Holds an exclusive lock on the data directory for as long as the server lives: a second
/// server on the same directory would take the first one's recordings for crashed ones.
struct DirLock(#[allow(dead_code)] std::fs::File);

fn lock_dir(dir: &Path) -> Result<DirLock, ServeError> {
    let path = dir.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io(format!("cannot open {}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor we own; released when the file is closed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(ServeError::Config(format!(
                "{} is in use by another `jsprof serve`; give another --data-dir",
                dir.display()
            )));
        }
    }
    Ok(DirLock(file))
}

/// A bound server, ready to run.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    _lock: DirLock,
}

impl Server {
    /// Checks the configuration, opens the data directory (marking recordings a crash cut
    /// short as failed) and binds the address.
    pub async fn bind(config: Config) -> Result<Server, ServeError> {
        if !config.addr.ip().is_loopback() && config.token.is_none() {
            return Err(ServeError::Config(format!(
                "refusing to listen on {} without --token: other machines could reach the \
                 service, and a CDP connection runs code in the target; give --token to choose \
                 the token (or bind 127.0.0.1)",
                config.addr
            )));
        }
        if let Some(t) = &config.token {
            if t.len() < 8 || !t.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ServeError::Config(
                    "--token must be at least 8 visible ASCII characters".to_string(),
                ));
            }
        }
        let dir = &config.data_dir;
        std::fs::create_dir_all(dir.join("sessions"))
            .map_err(io(format!("cannot create {}", dir.display())))?;
        let lock = lock_dir(dir)?;
        let db_path = dir.join("catalogue.sqlite");
        let catalogue =
            catalogue::Catalogue::open(&db_path).map_err(|source| ServeError::Catalogue {
                path: db_path.clone(),
                source,
            })?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(io(format!("cannot listen on {}", config.addr)))?;
        let local_addr = listener
            .local_addr()
            .map_err(io("cannot read the bound address"))?;
        let token = config.token.clone().unwrap_or_else(|| ids::random_hex(16));
        let state = Arc::new(AppState {
            cache: cache::Cache::new(config.cache_entries),
            config,
            token,
            local_addr,
            catalogue,
            active: Mutex::new(Default::default()),
        });
        state::recover(&state)
            .await
            .map_err(|e| ServeError::Config(format!("recovering the catalogue: {}", e.message)))?;
        Ok(Server {
            listener,
            state,
            _lock: lock,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> std::net::SocketAddr {
        self.state.local_addr
    }

    /// The token requests must carry.
    pub fn token(&self) -> &str {
        &self.state.token
    }

    /// `http://ADDR/?token=TOKEN`: what to open in a browser.
    pub fn url(&self) -> String {
        let addr = self.state.local_addr;
        let host = if addr.ip().is_unspecified() {
            format!("127.0.0.1:{}", addr.port())
        } else {
            addr.to_string()
        };
        format!("http://{host}/?token={}", self.state.token)
    }

    /// Serves until `shutdown` resolves; recordings in progress are then stopped and saved.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let state = self.state.clone();
        let app = api::router(self.state.clone());
        axum::serve(self.listener, app)
            .with_graceful_shutdown(async move {
                shutdown.await;
                eprintln!("jsprof serve: shutting down");
                recording::stop_all(state, Duration::from_secs(120)).await;
            })
            .await
            .map_err(io("serving"))
    }
}
