//! `tracegen RECORDED.trace.json OUT.trace.json (--copies N | --mb M)`
//!
//! Writes a big Chromium trace: the recording's events `N` times over, each copy as processes of
//! its own (see `gen.rs`), or as many copies as make the file at least `M` MB (10^6 bytes).

#[path = "../../genargs.rs"]
mod args;
mod gen;

use std::io::BufWriter;
use std::process::ExitCode;

fn main() -> ExitCode {
    args::main("tracegen", run)
}

fn run() -> Result<(), String> {
    let mut args = args::Args::new();
    let mut paths = Vec::new();
    let mut copies: Option<u64> = None;
    let mut mb: Option<u64> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--copies" => copies = Some(args.number(&a)?),
            "--mb" => mb = Some(args.number(&a)?),
            _ if !a.starts_with('-') => paths.push(a),
            _ => return Err(format!("unexpected argument {a:?}")),
        }
    }
    let [src, out] = <[String; 2]>::try_from(paths)
        .map_err(|_| "usage: tracegen RECORDED.trace.json OUT.trace.json (--copies N | --mb M)")?;
    let text = std::fs::read(&src).map_err(|e| format!("{src}: {e}"))?;
    let layout = gen::layout(&text).map_err(|e| format!("{src}: {e}"))?;
    let copies = match (copies, mb) {
        (Some(n), _) => n.max(1),
        (None, Some(mb)) => {
            let want = mb * 1_000_000;
            let fixed = (layout.head.len() + layout.tail.len()) as u64;
            let each = layout.events.len() as u64 + 2;
            want.saturating_sub(fixed).div_ceil(each.max(1)).max(1)
        }
        (None, None) => return Err("give --copies N or --mb M".into()),
    };
    let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    gen::repeat(&layout, copies, &mut w).map_err(|e| format!("{out}: {e}"))?;
    std::io::Write::flush(&mut w).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "tracegen: {out}: {copies} copies of {} bytes of events",
        layout.events.len()
    );
    Ok(())
}
