//! `jsprof serve`: the profiling service (`jsprof_server`) — sessions recorded over CDP or
//! imported, timelines and events over HTTP/JSON. Prints its URL (with the token) on stdout;
//! logs go to stderr.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use jsprof_server::{Config, ServeError, Server};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof serve                                   # http://127.0.0.1:9400/?token=…
  jsprof serve --addr 127.0.0.1:0 --data-dir /tmp/profiles
  curl -H \"Authorization: Bearer $TOKEN\" -d '{\"target\": \"127.0.0.1:9229\"}' http://127.0.0.1:9400/api/sessions
  curl -H \"Authorization: Bearer $TOKEN\" --data-binary @app.cpuprofile http://127.0.0.1:9400/api/sessions/import")]
pub struct Args {
    /// Where to listen. Anything but loopback needs --token.
    #[arg(long, value_name = "HOST:PORT", default_value_t = SocketAddr::from(([127, 0, 0, 1], jsprof_server::DEFAULT_PORT)))]
    pub addr: SocketAddr,
    /// The catalogue and the recorded files (default: $XDG_DATA_HOME/jsprof/serve, or
    /// ~/.local/share/jsprof/serve).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The token every request must carry (default: $JSPROF_TOKEN, else random per start,
    /// printed in the URL). On the command line it is visible to every user in `ps`: prefer
    /// --token-file or JSPROF_TOKEN.
    #[arg(long, value_name = "T", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Read the token from this file (its first line).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Open the URL in a browser.
    #[arg(long)]
    pub open: bool,
    /// The largest file `POST /api/sessions/import` accepts (bytes, or with K, M, G).
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = crate::size_arg::parse_size)]
    pub max_upload: u64,
    /// Allow CDP targets that are not on this machine's loopback interface.
    #[arg(long)]
    pub allow_remote_targets: bool,
    /// Another name the Host header may carry (for a non-loopback --addr); repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Source maps (a .map file or a folder of them) applied to every CPU artifact, matched to
    /// scripts by file name; repeatable. Recorded sessions also find the maps their local
    /// scripts name; uploaded files only get these. The UI's source panel reads scripts only
    /// under these folders.
    #[arg(long, value_name = "FILE|DIR")]
    pub sourcemap_dir: Vec<std::path::PathBuf>,
    /// Accept `pid:PID` targets: SIGUSR1 to a Node process of this user opens its inspector.
    #[arg(long)]
    pub allow_pid_targets: bool,
    /// Seconds a client has to send a request's headers (also the keep-alive idle limit).
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Connections served at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_connections: usize,
    /// Bytes a recorded session's files may reach before periodic heap snapshots stop
    /// (with K, M, G).
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = crate::size_arg::parse_size)]
    pub session_quota: u64,
    /// Serve MCP (for coding agents) at /mcp, over files under DIR (repeatable); see `jsprof mcp`.
    #[arg(long, value_name = "DIR")]
    pub mcp_root: Vec<PathBuf>,
    /// Seconds an MCP session at /mcp may go without a request before it ends (its client
    /// then starts a new one).
    #[arg(
        long,
        value_name = "S",
        default_value_t = 1800.0,
        requires = "mcp_root"
    )]
    pub mcp_session_idle: f64,
    /// MCP sessions at /mcp live at once; a new one past it ends the least recently used.
    #[arg(long, value_name = "N", default_value_t = jsprof_mcp::DEFAULT_MAX_SESSIONS, requires = "mcp_root")]
    pub mcp_max_sessions: usize,
    /// `tools/list` at /mcp gives every tool's whole input schema; see `jsprof mcp --full-schemas`.
    #[arg(long, requires = "mcp_root")]
    pub mcp_full_schemas: bool,
    /// Accept JS Self-Profiling traces from browsers at POST /ingest/v1/selfprofile, and
    /// .cpuprofile/.heapprofile windows from processes (the Node agent) at POST
    /// /ingest/v1/profile, into this lake (created when missing); needs --ingest-key-file. See
    /// docs/fleet.md.
    #[arg(long, value_name = "DIR", requires = "ingest_key_file")]
    pub lake: Option<PathBuf>,
    /// The keys browsers and agents post with (`?key=` or `Authorization: Bearer`), one per
    /// line; not the admin token.
    #[arg(long, value_name = "FILE", requires = "lake")]
    pub ingest_key_file: Option<PathBuf>,
    /// An origin whose pages may post traces (e.g. https://shop.example); repeatable. Posts
    /// from other origins are refused and get no CORS allowance.
    #[arg(long, value_name = "ORIGIN", requires = "lake")]
    pub ingest_origin: Vec<String>,
    /// The largest trace accepted (bytes, or with K, M, G).
    #[arg(long, value_name = "SIZE", default_value = "1M", value_parser = crate::size_arg::parse_size)]
    pub ingest_max_bytes: u64,
    /// Write spooled traces to the lake every N traces…
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub ingest_batch: usize,
    /// …or every MS milliseconds, whichever comes first.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub ingest_batch_ms: u64,
    /// Connections posting traces at once, apart from --max-connections (slow posts never take
    /// the admin API's or MCP's); a post past it gets 503.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub ingest_max_connections: usize,
    /// Seconds a post has to send its whole trace; a slower one gets 408 and is closed.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub ingest_body_timeout: f64,
}

/// The ingest endpoint's configuration, when --lake is given.
fn ingest_of(args: &Args) -> Result<Option<jsprof_server::IngestConfig>> {
    let (Some(lake), Some(key_file)) = (&args.lake, &args.ingest_key_file) else {
        return Ok(None);
    };
    if !(args.ingest_body_timeout.is_finite() && args.ingest_body_timeout > 0.0) {
        bail!("--ingest-body-timeout needs a positive number of seconds");
    }
    let text = std::fs::read_to_string(key_file)
        .with_context(|| format!("--ingest-key-file {}: cannot read", key_file.display()))?;
    let config = jsprof_server::IngestConfig {
        lake: lake.clone(),
        keys: jsprof_server::read_keys(&text),
        origins: args
            .ingest_origin
            .iter()
            .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
            .collect(),
        max_bytes: args.ingest_max_bytes,
        batch_traces: args.ingest_batch,
        batch_interval: std::time::Duration::from_millis(args.ingest_batch_ms),
        max_connections: args.ingest_max_connections,
        body_deadline: std::time::Duration::from_secs_f64(args.ingest_body_timeout),
    };
    config.check().map_err(|m| anyhow::anyhow!(m))?;
    Ok(Some(config))
}

/// The token from --token, --token-file or JSPROF_TOKEN, in that order.
fn token_of(args: &Args) -> Result<Option<String>> {
    if let Some(t) = &args.token {
        return Ok(Some(t.clone()));
    }
    if let Some(path) = &args.token_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--token-file {}: cannot read", path.display()))?;
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if token.is_empty() {
            bail!("--token-file {}: the file is empty", path.display());
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
                eprintln!(
                    "jsprof serve: warning: {} is readable by other users; `chmod 600` it",
                    path.display()
                );
            }
        }
        return Ok(Some(token));
    }
    Ok(std::env::var("JSPROF_TOKEN").ok().filter(|t| !t.is_empty()))
}

fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("jsprof/serve");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h).join(".local/share/jsprof/serve");
    }
    PathBuf::from("jsprof-data")
}

/// Opens `url` in the desktop's browser; says so on stderr (as `who`) when it cannot.
pub(crate) fn open_browser(who: &str, url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("{who}: cannot open a browser ({opener}: {e}); open {url}");
    }
}

/// Ctrl-C or SIGTERM.
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

pub fn run(args: Args) -> Result<ExitCode> {
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    if !(args.header_timeout.is_finite() && args.header_timeout > 0.0) {
        bail!("--header-timeout needs a positive number of seconds");
    }
    if args.max_connections == 0 {
        bail!("--max-connections needs at least 1");
    }
    if !(args.mcp_session_idle.is_finite() && args.mcp_session_idle > 0.0) {
        bail!("--mcp-session-idle needs a positive number of seconds");
    }
    if args.mcp_max_sessions == 0 {
        bail!("--mcp-max-sessions needs at least 1");
    }
    let config = Config {
        addr: args.addr,
        data_dir: data_dir.clone(),
        token: token_of(&args)?,
        max_upload: args.max_upload,
        allow_remote_targets: args.allow_remote_targets,
        allowed_hosts: args.allow_host.clone(),
        sourcemap_dirs: args.sourcemap_dir.clone(),
        // The UI's source panel reads only what the user pointed the server at.
        source_roots: args.sourcemap_dir.clone(),
        allow_pid_targets: args.allow_pid_targets,
        header_timeout: std::time::Duration::from_secs_f64(args.header_timeout),
        max_connections: args.max_connections,
        session_quota: args.session_quota,
        mcp: (!args.mcp_root.is_empty())
            .then(|| {
                jsprof_mcp::Config {
                    roots: args.mcp_root.clone(),
                    session_idle: std::time::Duration::from_secs_f64(args.mcp_session_idle),
                    max_sessions: args.mcp_max_sessions,
                    full_schemas: args.mcp_full_schemas,
                    ..Default::default()
                }
                .checked()
            })
            .transpose()?,
        ingest: ingest_of(&args)?,
        ..Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = match Server::bind(config).await {
            Ok(s) => s,
            Err(ServeError::Config(message)) => bail!("{message}"),
            Err(e) => return Err(e.into()),
        };
        let url = server.url();
        eprintln!(
            "jsprof serve: listening on http://{} (data in {}); Ctrl-C stops it",
            server.local_addr(),
            data_dir.display()
        );
        if let Some(lake) = &args.lake {
            eprintln!(
                "jsprof serve: accepting JS Self-Profiling traces at http://{0}/ingest/v1/selfprofile \
                 and .cpuprofile/.heapprofile windows at http://{0}/ingest/v1/profile into {1}",
                server.local_addr(),
                lake.display()
            );
        }
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "{url}");
        let _ = stdout.flush();
        if args.open {
            open_browser("jsprof serve", &url);
        }
        server.run(shutdown_signal()).await?;
        Ok(ExitCode::SUCCESS)
    })
}
