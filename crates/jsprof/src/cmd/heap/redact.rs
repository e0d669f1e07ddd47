//! `jsprof heap redact FILE -o OUT`: a copy of a snapshot safe to share (string values replaced by
//! same-length placeholders, the graph kept).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use jsprof_document::heap_redact::RedactReport;
use jsprof_heap::{redact_with, RedactError, RedactOptions};

use super::{progress_bar, require_snapshot};
use crate::input;
use crate::output;
use crate::output_file::create_output;

#[derive(clap::Args)]
pub struct RedactArgs {
    /// The snapshot: a `.heapsnapshot` or `.heaptimeline` (gzip too). It is read twice, so it must
    /// be a file (not stdin); it is never written.
    pub file: PathBuf,
    /// Where to write the redacted snapshot (gzip when the name ends in `.gz`; `-` for stdout). It
    /// appears whole once written (a temporary file beside it is renamed), and may not be FILE.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Also zero number values: every digit of the numbers V8 wrote (with
    /// `exposeNumericValues`) becomes 0.
    #[arg(long)]
    pub numbers: bool,
    /// Print what was replaced as JSON instead of a line of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: RedactArgs) -> Result<ExitCode> {
    if args.file == Path::new("-") {
        bail!("heap redact reads its input twice: give a file, not stdin");
    }
    require_snapshot(&args.file)?;
    if same_file(&args.file, &args.output) {
        bail!(
            "{}: refusing to write the redacted snapshot over its own input; choose another -o",
            args.output.display()
        );
    }
    let name = input::display_name(&args.file);
    let first = input::open(&args.file)?;
    let second = input::open(&args.file)?;
    let mut out = create_output(&args.output)?;
    let options = RedactOptions {
        numbers: args.numbers,
    };
    let gzip = args.output.extension().is_some_and(|e| e == "gz");
    // One bar a pass: each reads the whole input.
    let (size, gzipped) = (first.file_size, first.gzipped);
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut pass = 0;
    let mut progress = |at: u8, bytes: u64| {
        if at != pass {
            pass = at;
            if let Some(done) = bar.take() {
                done.finish_and_clear();
            }
            bar = progress_bar(size, gzipped);
            if let Some(b) = &bar {
                b.set_message(format!("(pass {at} of 2)"));
            }
        }
        if let Some(b) = &bar {
            b.set_position(bytes);
        }
    };
    let result = if gzip {
        let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::default());
        let stats = redact_with(
            first.reader,
            second.reader,
            &mut gz,
            &options,
            &mut progress,
        );
        stats.and_then(|s| gz.finish().map(|_| s).map_err(RedactError::Output))
    } else {
        redact_with(
            first.reader,
            second.reader,
            &mut out,
            &options,
            &mut progress,
        )
    };
    if let Some(done) = bar.take() {
        done.finish_and_clear();
    }
    let stats = result.map_err(|e| match e {
        RedactError::Input(e) => anyhow!("{name}: {e}"),
        RedactError::Output(e) => anyhow!("{}: {e}", args.output.display()),
    })?;
    out.flush()
        .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    let report = RedactReport::new(&stats, args.numbers);
    if args.json {
        output::print_json(&report)?;
    } else {
        eprintln!(
            "jsprof: {} of {} strings replaced ({} nodes{}), {} entries added; wrote {}",
            report.strings_redacted,
            report.strings,
            report.nodes_redacted,
            if args.numbers {
                format!(", {} numbers zeroed", report.numbers_zeroed)
            } else {
                String::new()
            },
            report.strings_appended,
            args.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `a` and `b` name the same existing file (through links too).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            x.dev() == y.dev() && x.ino() == y.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
        _ => false,
    }
}
