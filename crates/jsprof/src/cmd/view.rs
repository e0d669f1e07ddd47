//! `jsprof view FILE...`: the browser UI on the given files — a `jsprof serve` on a free loopback
//! port with a throwaway data directory, each file imported as a session. Prints the URL (with
//! its token) and opens a browser unless `--no-open`; Ctrl-C stops it and removes the directory.
//! `jsprof view --base A/ --target B/` imports every run of both folders the same way and opens
//! the page-load comparison (`jsprof diff --base A/ --target B/`'s, drawn as two distributions).

use std::io::Write;
use std::path::{Path, PathBuf};
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
  jsprof view app.cpuprofile --source-dir ./src --source-dir ./node_modules
  jsprof view --base runs/main/ --target runs/branch/   # two builds' page loads compared")]
pub struct Args {
    /// Profiles, traces or heap snapshots (gzip too).
    #[arg(required_unless_present = "base", conflicts_with_all = ["base", "target"])]
    pub files: Vec<PathBuf>,
    /// Page loads of the base build: a folder of runs (`jsprof record --url URL --runs N`; every
    /// file but `manifest.json`) or trace files (repeatable). With --target, the page opens on
    /// the comparison, as `jsprof diff --base A/ --target B/` compares them.
    #[arg(long, value_name = "DIR|FILE", requires = "target")]
    pub base: Vec<PathBuf>,
    /// Page loads of the target build (a folder of runs or trace files; repeatable).
    #[arg(long, value_name = "DIR|FILE", requires = "base")]
    pub target: Vec<PathBuf>,
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

    /// What `view` imports: the files, or every run of `--base` then of `--target`, and how
    /// many runs `--base` has.
    fn inputs(&self) -> Result<(Vec<PathBuf>, usize)> {
        if self.base.is_empty() {
            return Ok((self.files.clone(), 0));
        }
        let base = runs(&self.base, "--base")?;
        let n = base.len();
        Ok(([base, runs(&self.target, "--target")?].concat(), n))
    }
}

/// The runs `paths` name: a folder's as `jsprof diff --base DIR` reads them
/// (`page_runs::run_files`), a file as it is.
fn runs(paths: &[PathBuf], flag: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let files = jsprof_document::page_runs::run_files(p)
                .with_context(|| format!("{flag} {}: cannot list it", p.display()))?;
            if files.is_empty() {
                bail!(
                    "{flag} {}: no traces in this folder (a run of a page load per file, e.g. from `jsprof record --url URL --runs N`)",
                    p.display()
                );
            }
            out.extend(files);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            bail!("{flag} {}: no such file or folder", p.display());
        }
    }
    Ok(out)
}

/// The page's address for a page-load comparison: each side's runs as `SESSION/ARTIFACT`
/// (what `GET /api/ui/page-diff` takes), `#base=S/A,…&target=S/A,…`.
fn comparison_fragment(imported: &[(String, u64)], base_runs: usize) -> String {
    let list = |runs: &[(String, u64)]| -> String {
        let items: Vec<String> = runs.iter().map(|(s, a)| format!("{s}/{a}")).collect();
        items.join(",")
    };
    let (base, target) = imported.split_at(base_runs);
    format!("#base={}&target={}", list(base), list(target))
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (files, base_runs) = args.inputs()?;
    for f in &files {
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
        source_roots: source_roots(&files, &args.sourcemap, &args.source_dir),
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
        let mut imported = Vec::new();
        for f in &files {
            match server.import_file(f).await {
                Ok(session) if base_runs > 0 => imported.push(page_load_run(&session, f)?),
                Ok(_) => {}
                Err(message) => bail!("{message}"),
            }
        }
        let fragment = match base_runs {
            0 => args.fragment(),
            n => comparison_fragment(&imported, n),
        };
        let url = format!("{}{fragment}", server.url());
        eprintln!(
            "jsprof view: {} file{} on http://{}; Ctrl-C stops it",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
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

/// The session and artifact a run of a page-load comparison was imported as: a trace.
fn page_load_run(session: &serde_json::Value, file: &Path) -> Result<(String, u64)> {
    let artifact = &session["artifacts"][0];
    let (Some(id), Some(artifact_id)) = (
        session["session_id"].as_str(),
        artifact["artifact_id"].as_u64(),
    ) else {
        bail!("{}: the service's answer names no artifact", file.display());
    };
    if artifact["kind"] != "trace" {
        bail!(
            "{}: a {}, not a trace: --base and --target take page loads (Chrome traces)",
            file.display(),
            artifact["format"].as_str().unwrap_or("file")
        );
    }
    Ok((id.to_string(), artifact_id))
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
