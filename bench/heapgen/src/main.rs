//! `heapgen OUT.heapsnapshot (--mb N | --clusters K [--mids F] [--leaves G]) [--expected OUT.json]
//! [--every N]`
//! `heapgen OUT.heapsnapshot --replicate IN.heapsnapshot --times K [--id-stride S]`
//!
//! Writes a synthetic heap snapshot (see `gen.rs` for why its DevTools numbers are known) and, with
//! `--expected`, those numbers in the heap oracle's JSON shape; or K copies of a recorded snapshot
//! under one root (`replicate.rs`), whose numbers follow from the original's.

#[path = "../../genargs.rs"]
mod args;
mod gen;
mod replicate;

use std::io::BufWriter;
use std::process::ExitCode;

fn main() -> ExitCode {
    args::main("heapgen", run)
}

fn run() -> Result<(), String> {
    let mut args = args::Args::new();
    let mut out = None;
    let mut expected = None;
    let mut shape = gen::Shape::of_megabytes(100);
    let mut every = 997;
    let mut replicate_from = None;
    let mut times = 2u64;
    let mut stride = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mb" => shape = gen::Shape::of_megabytes(args.number(&a)?),
            "--clusters" => shape.clusters = args.number::<u64>(&a)?.max(1),
            "--mids" => shape.mids = args.number::<u64>(&a)?.max(2),
            "--leaves" => shape.leaves = args.number::<u64>(&a)?.max(1),
            "--expected" => expected = Some(args.text(&a, "path")?),
            "--every" => every = args.number(&a)?,
            "--replicate" => replicate_from = Some(args.text(&a, "path")?),
            "--times" => times = args.number(&a)?,
            "--id-stride" => stride = Some(args.number(&a)?),
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => return Err(format!("unexpected argument {a:?}")),
        }
    }
    let out = out.ok_or(
        "usage: heapgen OUT.heapsnapshot (--mb N | --clusters K) [--expected OUT.json] [--every N]",
    )?;
    let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    if let Some(input) = replicate_from {
        let text = std::fs::read(&input).map_err(|e| format!("{input}: {e}"))?;
        let made = replicate::replicate(&text, times, stride, &mut w)
            .map_err(|e| format!("{input}: {e}"))?;
        std::io::Write::flush(&mut w).map_err(|e| format!("{out}: {e}"))?;
        eprintln!(
            "heapgen: {out}: {times} copies of {input}: {} nodes, {} edges",
            made.nodes, made.edges
        );
        return Ok(());
    }
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
