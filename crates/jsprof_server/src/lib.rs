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
mod heap_process;
mod heap_redact;
mod heap_route;
mod ids;
#[cfg(feature = "lake")]
mod ingest;
mod ingest_config;
mod listen;
mod openapi;
mod params;
mod recording;
mod security;
#[cfg(feature = "lake")]
mod spool_record;
mod state;
mod ui;
mod ui_heap;
mod ui_lines;
pub mod ui_page;
mod ui_page_load;
mod upload;
mod work;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use thiserror::Error;

pub use ingest_config::{read_keys, IngestConfig};
pub use state::{Config, DEFAULT_SESSION_QUOTA};

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
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options
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

/// Names a data directory may hold before its catalogue exists: what a start cut short leaves.
fn is_own_leftover(entry: &std::fs::DirEntry) -> bool {
    let name = entry.file_name();
    let empty_dir = || std::fs::read_dir(entry.path()).is_ok_and(|mut d| d.next().is_none());
    name == "lock" || ((name == "sessions" || name == "uploads") && empty_dir())
}

/// Creates the data directory (owner only), or checks that an existing one is a data directory:
/// the server sweeps what it does not know under `sessions/` and `uploads/`, so it never starts
/// in a directory of someone else's files.
fn open_data_dir(dir: &Path) -> Result<(), ServeError> {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            if !dir.join("catalogue.sqlite").is_file() {
                let foreign: Vec<String> = entries
                    .flatten()
                    .filter(|e| !is_own_leftover(e))
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .take(4)
                    .collect();
                if !foreign.is_empty() {
                    return Err(ServeError::Config(format!(
                        "{} is not empty and has no catalogue.sqlite, so it is not a `jsprof serve` \
                         data directory (it holds {}); give a new or empty directory with --data-dir",
                        dir.display(),
                        foreign.join(", ")
                    )));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => state::create_private_dir(dir)
            .map_err(io(format!("cannot create {}", dir.display())))?,
        Err(e) => return Err(io(format!("cannot read {}", dir.display()))(e)),
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io(
            format!("cannot restrict {} to its owner", dir.display()),
        ))?;
    }
    Ok(())
}

/// What a jsprof built without the `lake` feature says when asked for the lake.
pub const WITHOUT_LAKE: &str = "this jsprof was built without the profile lake (the cargo feature \
    `lake`, which links DataFusion): install it with `cargo install --locked --path crates/jsprof \
    --features lake`, or use the npm package (`npx jsprof`), whose binaries include it";

/// A bound server, ready to run.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    #[cfg(feature = "lake")]
    ingest: Option<Arc<ingest::Ingest>>,
    _lock: DirLock,
    _ingest_lock: Option<DirLock>,
}

impl Server {
    /// Checks the configuration, opens the data directory (marking recordings a crash cut
    /// short as failed) and binds the address.
    pub async fn bind(config: Config) -> Result<Server, ServeError> {
        if !config.addr.ip().is_loopback() && config.token.is_none() {
            return Err(ServeError::Config(format!(
                "refusing to listen on {} without --token (or --token-file, JSPROF_TOKEN): other machines could reach the \
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
        open_data_dir(dir)?;
        let lock = lock_dir(dir)?;
        state::create_private_dir(&dir.join("sessions")).map_err(io(format!(
            "cannot create {}",
            dir.join("sessions").display()
        )))?;
        let db_path = dir.join("catalogue.sqlite");
        // Created before SQLite opens it, so the database (and the -wal/-shm files SQLite
        // gives the same mode) is never readable by others, whatever the umask.
        match state::create_private_file(&db_path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(format!("cannot create {}", db_path.display()))(e)),
        }
        let catalogue =
            catalogue::Catalogue::open(&db_path).map_err(|source| ServeError::Catalogue {
                path: db_path.clone(),
                source,
            })?;
        // Before listening: the spool a previous run left is in the lake before anything new
        // is accepted. The spool is locked like the data directory, so two servers never
        // replay (and delete) the same segments.
        #[cfg(feature = "lake")]
        let (ingest, ingest_lock) = match &config.ingest {
            Some(ic) => {
                ic.check().map_err(ServeError::Config)?;
                if let Some(token) = &config.token {
                    ic.check_admin_token(token).map_err(ServeError::Config)?;
                }
                let spool = ic.lake.join(".ingest-spool");
                jsprof_lake::private::create_dir_all(&spool)
                    .map_err(io(format!("cannot create {}", spool.display())))?;
                let lock = lock_dir(&spool)?;
                let ic = ic.clone();
                let ingest = tokio::task::spawn_blocking(move || ingest::Ingest::start(ic))
                    .await
                    .map_err(|e| ServeError::Config(e.to_string()))?
                    .map_err(|e| ServeError::Config(e.to_string()))?;
                (Some(ingest), Some(lock))
            }
            None => (None, None),
        };
        #[cfg(not(feature = "lake"))]
        let ingest_lock = match &config.ingest {
            Some(_) => return Err(ServeError::Config(WITHOUT_LAKE.to_string())),
            None => None,
        };
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
            throttle: Default::default(),
        });
        state::recover(&state)
            .await
            .map_err(|e| ServeError::Config(format!("recovering the catalogue: {}", e.message)))?;
        Ok(Server {
            listener,
            state,
            #[cfg(feature = "lake")]
            ingest,
            _lock: lock,
            _ingest_lock: ingest_lock,
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
        #[allow(unused_mut)]
        let mut app = api::router(self.state.clone());
        #[cfg(feature = "lake")]
        if let Some(ingest) = &self.ingest {
            // Outside the service's own checks: other origins post here, with ingest keys.
            app = ingest::routes(ingest.clone()).merge(app);
        }
        let config = &self.state.config;
        #[cfg(feature = "lake")]
        let ingest_connections = self.ingest.as_ref().map_or(0, |i| i.max_connections());
        #[cfg(not(feature = "lake"))]
        let ingest_connections = 0;
        let limits = listen::Limits {
            header_timeout: config.header_timeout,
            body_timeout: config.body_timeout,
            max_connections: config.max_connections,
            ingest_connections,
        };
        listen::serve(
            self.listener,
            app,
            limits,
            shutdown,
            recording::stop_all(state, Duration::from_secs(120)),
            Duration::from_secs(10),
        )
        .await;
        Ok(())
    }
}
