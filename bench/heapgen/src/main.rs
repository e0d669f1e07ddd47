//! `heapgen OUT.heapsnapshot (--mb N | --clusters K [--mids F] [--leaves G]) [--expected OUT.json]
//! [--every N]`
//! `heapgen OUT.heapsnapshot --replicate IN.heapsnapshot --times K [--id-stride S]`
//! `heapgen OUTDIR --times K --series IN1 --series IN2 …` (a series, one id numbering)
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
    let mut series: Vec<String> = Vec::new();
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
            "--series" => series.push(args.text(&a, "path")?),
            _ if out.is_none() && !a.starts_with('-') => out = Some(a),
            _ => return Err(format!("unexpected argument {a:?}")),
        }
    }
    if !series.is_empty() {
        let dir = out.ok_or("--series needs the output directory")?;
        return replicate_series(&series, times, &dir);
    }
    let out = out.ok_or(
        "usage: heapgen OUT.heapsnapshot (--mb N | --clusters K) [--expected OUT.json] [--every N]",
    )?;
    let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    if let Some(input) = replicate_from {
        let text = std::fs::read(&input).map_err(|e| format!("{input}: {e}"))?;
        let plan = stride.map_or(replicate::IdPlan::Auto, replicate::IdPlan::Stride);
        let made = replicate::replicate(&text, times, plan, &mut w)
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

/// `heapgen OUTDIR --replicate-series --times K --series IN1 --series IN2 …`: K copies of each
/// snapshot of a series, its ids renumbered by rank among the whole series' ids, so that an
/// object keeps its ids (and their order) from one snapshot to the next; each copy is written
/// to OUTDIR under its input's name.
fn replicate_series(inputs: &[String], times: u64, dir: &str) -> Result<(), String> {
    let mut union = Vec::new();
    for input in inputs {
        let text = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        union.extend(replicate::node_ids(&text).map_err(|e| format!("{input}: {e}"))?);
    }
    union.sort_unstable();
    union.dedup();
    for input in inputs {
        let text = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        let name = std::path::Path::new(input)
            .file_name()
            .ok_or(format!("{input}: not a file"))?;
        let out = std::path::Path::new(dir).join(name);
        let file = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let made = replicate::replicate(&text, times, replicate::IdPlan::Ranks(&union), &mut w)
            .map_err(|e| format!("{input}: {e}"))?;
        std::io::Write::flush(&mut w).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!(
            "heapgen: {}: {times} copies of {input}: {} nodes, {} edges",
            out.display(),
            made.nodes,
            made.edges
        );
    }
    Ok(())
}
