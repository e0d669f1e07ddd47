//! `jsprof view FILE...`: the browser UI on the given files — a `jsprof serve` on a free loopback
//! port with a throwaway data directory, each file imported as a session. Prints the URL (with
//! its token) and opens a browser unless `--no-open`; Ctrl-C stops it and removes the directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use jsprof_server::{Config, ServeError, Server};

use super::serve::{open_browser, shutdown_signal};

mod owner;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof view app.cpuprofile
  jsprof view before.heapsnapshot after.heapsnapshot     # Comparison between the two
  jsprof view trace.json.gz --no-open --port 9500
  jsprof view app.cpuprofile --focus '^render$' --hide-idle   # opens with the filter bar set
  jsprof view app.cpuprofile --source-dir ./src --source-dir ./node_modules")]
pub struct Args {
    /// Profiles, traces or heap snapshots (gzip too).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Do not open a browser; just print the URL.
    #[arg(long)]
    pub no_open: bool,
    /// The loopback port (default: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The filter bar's settings the page opens with (the bar changes them later).
    #[command(flatten)]
    pub filters: jsprof_document::filters::FilterSpec,
    /// Source maps (a .map file or a folder of them) for scripts whose own sourceMappingURL
    /// comment does not lead to one; matched by file name (repeatable). Maps next to the
    /// profiled scripts are found without it.
    #[arg(long, value_name = "FILE|DIR")]
    pub sourcemap: Vec<PathBuf>,
    /// A folder whose scripts the source panel may show (repeatable), beside the folders of
    /// the files given and the scripts those files name themselves.
    #[arg(long, value_name = "DIR")]
    pub source_dir: Vec<PathBuf>,
}

impl Args {
    /// The filters as the page reads them from its address (`#focus=…&hide_idle=1`), or "".
    fn fragment(&self) -> String {
        match self.filters.to_query() {
            q if q.is_empty() => q,
            q => format!("#{q}"),
        }
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    for f in &args.files {
        if f.as_os_str() != "-" && !f.exists() {
            bail!("{}: no such file", f.display());
        }
    }
    for d in &args.source_dir {
        if !d.is_dir() {
            bail!("--source-dir {}: not a folder", d.display());
        }
    }
    let temp_root = std::env::temp_dir();
    owner::remove_stale_dirs(&temp_root);
    let (dir, data_dir) = owner::create_view_dir(&temp_root)
        .with_context(|| format!("{}: cannot create a directory there", temp_root.display()))?;
    let temp = TempDir(dir);
    let config = Config {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], args.port)),
        data_dir,
        // The files are the user's own: their scripts' source maps are found as the CLI finds them.
        discover_maps_for_imports: true,
        sourcemap_dirs: args.sourcemap.clone(),
        // The source panel reads scripts under the opened files' folders, the maps' folders and
        // the `--source-dir` folders, and any script an opened file names.
        source_roots: source_roots(&args.files, &args.sourcemap, &args.source_dir),
        read_named_sources: true,
        ..Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let code = runtime.block_on(async move {
        let server = match Server::bind(config).await {
            Ok(s) => s,
            Err(ServeError::Config(message)) => bail!("{message}"),
            Err(e) => return Err(e.into()),
        };
        for f in &args.files {
            if let Err(message) = server.import_file(f).await {
                bail!("{message}");
            }
        }
        let url = format!("{}{}", server.url(), args.fragment());
        eprintln!(
            "jsprof view: {} file{} on http://{}; Ctrl-C stops it",
            args.files.len(),
            if args.files.len() == 1 { "" } else { "s" },
            server.local_addr()
        );
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "{url}");
        let _ = stdout.flush();
        if !args.no_open {
            open_browser("jsprof view", &url);
        }
        server.run(shutdown_signal()).await?;
        Ok(ExitCode::SUCCESS)
    });
    drop(temp);
    code
}

/// The folders of the files `view` opens, of its `--sourcemap` maps and its `--source-dir`
/// folders (a folder given is a root itself); stdin has none.
fn source_roots(files: &[PathBuf], maps: &[PathBuf], dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for f in files
        .iter()
        .filter(|f| f.as_os_str() != "-")
        .chain(maps)
        .chain(dirs)
    {
        let dir = if f.is_dir() {
            Some(f.clone())
        } else {
            std::path::absolute(f)
                .ok()
                .and_then(|p| p.parent().map(PathBuf::from))
        };
        if let Some(dir) = dir.filter(|d| !roots.contains(d)) {
            roots.push(dir);
        }
    }
    roots
}
