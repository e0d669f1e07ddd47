//! `jsprof filmstrip TRACE`: a trace's screenshots in time order (the Performance panel's
//! filmstrip), and with `--out DIR` each image written as a file, named by its index and time.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use base64::Engine;

use crate::load::load_cpu;
use crate::output::{self, fmt_ms, Align, Table};
use jsprof_document::load::Pipeline;

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace recorded with screenshots (Performance panel, `jsprof record --url …
    /// --trace`); `-` for stdin.
    pub file: PathBuf,
    /// Write each screenshot to DIR as `frame-INDEX-TIMEms.jpg` (or `.png`); DIR is created if
    /// missing, and an existing file is never overwritten.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &Pipeline::default())?;
    let doc = jsprof_document::filmstrip::filmstrip(&loaded)?;
    let mut written = Vec::new();
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
        let width = doc.frames.len().max(1).to_string().len().max(3);
        for frame in doc.frames.iter().filter(|f| f.image) {
            let shot = jsprof_document::filmstrip::screenshot(&loaded, frame.index)?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(shot.data.as_bytes())
                .with_context(|| {
                    format!("{}: screenshot {} is not base64", loaded.name, frame.index)
                })?;
            let ext = if shot.mime == "image/png" {
                "png"
            } else {
                "jpg"
            };
            let path = dir.join(format!(
                "frame-{:0width$}-{:.1}ms.{ext}",
                frame.index, frame.ts_ms
            ));
            // `create_new`: a file already there (an earlier run, the user's own) stays as it is.
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .with_context(|| {
                    format!(
                        "cannot write {} (an existing file is never overwritten)",
                        path.display()
                    )
                })?;
            file.write_all(&bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            written.push((frame.index, path));
        }
    }
    if args.json {
        output::print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    output::warn(&loaded.name, loaded.warnings());
    if doc.frames.is_empty() {
        eprintln!(
            "note: {}: no screenshots (record with the Screenshots box ticked, or `jsprof record \
             --url … --trace`)",
            loaded.name
        );
    }
    let mut table = Table::new(&[
        ("#", Align::Right),
        ("time", Align::Right),
        ("image", Align::Left),
    ]);
    for f in &doc.frames {
        let image = match written.iter().find(|(i, _)| *i == f.index) {
            Some((_, path)) => path.display().to_string(),
            None if f.image => String::new(),
            None => "(unreadable: broken base64)".to_string(),
        };
        table.row(vec![f.index.to_string(), fmt_ms(f.ts_ms), image]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
