//! `heapgen OUT.heapsnapshot (--mb N | --clusters K [--mids F] [--leaves G]) [--expected OUT.json]
//! [--every N]`
//!
//! Writes a synthetic heap snapshot (see `gen.rs` for why its DevTools numbers are known) and, with
//! `--expected`, those numbers in the heap oracle's JSON shape.

mod gen;

use std::io::BufWriter;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("heapgen: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut out = None;
    let mut expected = None;
    let mut shape = gen::Shape::of_megabytes(100);
    let mut every = 997;
    let number = |v: Option<String>, flag: &str| -> Result<u64, String> {
        v.and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} needs a number"))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mb" => shape = gen::Shape::of_megabytes(number(args.next(), "--mb")?),
            "--clusters" => shape.clusters = number(args.next(), "--clusters")?.max(1),
            "--mids" => shape.mids = number(args.next(), "--mids")?.max(2),
            "--leaves" => shape.leaves = number(args.next(), "--leaves")?.max(1),
            "--expected" => expected = Some(args.next().ok_or("--expected needs a path")?),
            "--every" => every = number(args.next(), "--every")?,
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => return Err(format!("unexpected argument {a:?}")),
        }
    }
    let out = out.ok_or(
        "usage: heapgen OUT.heapsnapshot (--mb N | --clusters K) [--expected OUT.json] [--every N]",
    )?;
    let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let truth = shape.write(&mut w).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "heapgen: {out}: {} nodes, {} edges, total size {}",
        truth.node_count, truth.edge_count, truth.total_size
    );
    if let Some(path) = expected {
        std::fs::write(&path, truth.to_json(&shape, every)).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}
