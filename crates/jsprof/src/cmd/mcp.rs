//! `jsprof mcp`: the Model Context Protocol server over stdin/stdout, for editors and agent CLIs
//! to launch (`jsprof_mcp`; the same server is at `/mcp` under `jsprof serve`). Standard output
//! is the protocol channel, so nothing else may print there; messages go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
#[command(after_help = "Register it with an MCP client (see docs/mcp.md):
  {\"mcpServers\": {\"jsprof\": {\"command\": \"jsprof\", \"args\": [\"mcp\", \"--root\", \"/path/to/profiles\"]}}}")]
pub struct Args {
    /// A directory whose files the agent may open (repeatable; default: the working directory).
    /// Nothing outside the roots is read.
    #[arg(long, value_name = "DIR")]
    pub root: Vec<PathBuf>,
    /// Offer the `record` tool: the agent may run commands as you (any command it chooses, with
    /// your rights; an empty standard input, in a directory under the roots), or drive a
    /// Chromium page on this machine.
    #[arg(long)]
    pub allow_record: bool,
    /// Where `record` writes its files (default: the first root); must lie under a root.
    #[arg(long, value_name = "DIR", requires = "allow_record")]
    pub record_dir: Option<PathBuf>,
    /// Seconds a tool call may take before it answers with an error (a file being read goes on
    /// loading, and the next call finds it). Keep it under the client's own request timeout
    /// (60 s for most).
    #[arg(long, value_name = "S", default_value_t = 50.0)]
    pub timeout: f64,
    /// The largest answer a call may ask for with `max_bytes` (bytes).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max_answer_bytes: usize,
    /// `tools/list` gives every tool's whole input schema, each argument documented (about
    /// 34 KB), instead of the compact one (names, types and values, under 8 KB) whose arguments
    /// the server's instructions explain once.
    #[arg(long)]
    pub full_schemas: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let roots = if args.root.is_empty() {
        vec![std::env::current_dir().context("the working directory")?]
    } else {
        args.root
    };
    let mut config = jsprof_mcp::Config {
        roots,
        allow_record: args.allow_record,
        call_timeout: Duration::from_secs_f64(args.timeout),
        max_answer_bytes: args.max_answer_bytes.max(jsprof_mcp::DEFAULT_ANSWER_BYTES),
        full_schemas: args.full_schemas,
        ..Default::default()
    }
    .checked()?;
    if let Some(dir) = args.record_dir {
        let dir = std::fs::canonicalize(&dir)
            .with_context(|| format!("--record-dir {}", dir.display()))?;
        if !config.roots.iter().any(|r| dir.starts_with(r)) {
            bail!(
                "--record-dir {} is not under a --root, so its recordings could not be opened",
                dir.display()
            );
        }
        config.record_dir = Some(dir);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(jsprof_mcp::serve_stdio(config))?;
    Ok(ExitCode::SUCCESS)
}
