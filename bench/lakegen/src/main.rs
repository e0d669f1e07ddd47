//! `lakegen OUT --profiles N [--seed S] [--versions 20] [--pages 50] [--samples 250]
//! [--interval-ms 10] [--jitter 0.1] [--regress isPrime] [--regress-version 14] [--points 3]
//! [--cpuprofile] [--source FILE]…`
//!
//! Derives N realistic JS Self-Profiling traces (or `.cpuprofile`s) from the recorded ones in
//! `fixtures/` (see `gen.rs` for the model) and writes them as
//! `OUT/version=V/page=P/NNNNNNN.json`, one directory per label set, because `jsprof lake add`
//! takes its labels per invocation: add each directory with the labels its path names. Also
//! writes `OUT/manifest.tsv` (one line per file: path, version, page, regressed, samples) and
//! `OUT/truth.json` (the parameters and the planted regression: which function, from which
//! version, by how many points). The same seed gives the same files on every machine.

#[path = "../../genargs.rs"]
mod args;
mod gen;
mod rng;
mod source;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    args::main("lakegen", run)
}

const USAGE: &str = "usage: lakegen OUT --profiles N [--seed S] [--versions 20] [--pages 50] \
    [--samples 250] [--interval-ms 10] [--jitter 0.1] [--regress NAME] [--regress-version 14] \
    [--points 3] [--cpuprofile] [--source FILE]...";

fn run() -> Result<(), String> {
    let mut args = args::Args::new();
    let mut out = None;
    let mut profiles = None;
    let mut sources: Vec<PathBuf> = Vec::new();
    let mut o = gen::Options {
        seed: 1,
        versions: 20,
        pages: 50,
        median_samples: 250.0,
        interval_ms: 10.0,
        jitter: 0.1,
        regress_function: "isPrime".into(),
        regress_version: 14,
        points: 3.0,
        cpuprofile: false,
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--profiles" => profiles = Some(args.number::<u64>(&a)?),
            "--seed" => o.seed = args.number(&a)?,
            "--versions" => o.versions = args.number::<usize>(&a)?.max(1),
            "--pages" => o.pages = args.number::<usize>(&a)?.max(1),
            "--samples" => o.median_samples = args.number::<f64>(&a)?.max(1.0),
            "--interval-ms" => o.interval_ms = args.number::<f64>(&a)?.max(0.1),
            "--jitter" => o.jitter = args.number::<f64>(&a)?.clamp(0.0, 1.0),
            "--regress" => o.regress_function = args.text(&a, "name")?,
            "--regress-version" => o.regress_version = args.number(&a)?,
            "--points" => o.points = args.number::<f64>(&a)?.clamp(0.0, 50.0),
            "--cpuprofile" => o.cpuprofile = true,
            "--source" => sources.push(args.text(&a, "path")?.into()),
            _ if out.is_none() && !a.starts_with('-') => out = Some(PathBuf::from(a)),
            _ => return Err(format!("unexpected argument {a:?}\n{USAGE}")),
        }
    }
    let (Some(out), Some(profiles)) = (out, profiles) else {
        return Err(USAGE.into());
    };
    if sources.is_empty() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        sources = [
            "selfprofile/primes.jsprofile.json",
            "selfprofile/mdn-example.jsprofile.json",
            "cpu/tsc.cpuprofile.gz",
            "cpu/node-mix.cpuprofile.gz",
        ]
        .iter()
        .map(|s| fixtures.join(s))
        .collect();
    }
    if std::fs::read_dir(&out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!(
            "{}: not empty (the manifest must describe exactly the files there)",
            out.display()
        ));
    }
    let mut pool = source::Pool::default();
    for s in &sources {
        pool.load(s)?;
    }
    let model = gen::Model::new(&pool, &o)?;
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    std::fs::create_dir_all(&out).map_err(|e| io(&out, e))?;
    let manifest_path = out.join("manifest.tsv");
    let mut manifest =
        BufWriter::new(std::fs::File::create(&manifest_path).map_err(|e| io(&manifest_path, e))?);
    let ext = if o.cpuprofile { "cpuprofile" } else { "json" };
    let mut bytes = 0u64;
    let mut buf = Vec::new();
    for i in 0..profiles {
        let p = model.profile(&o, i);
        let dir = format!(
            "version={}/page={}",
            gen::version_name(p.version),
            gen::page_name(p.page)
        );
        let rel = format!("{dir}/{i:07}.{ext}");
        buf.clear();
        if o.cpuprofile {
            model.write_cpuprofile(&pool, &p, &mut buf)
        } else {
            model.write_selfprofile(&pool, &p, &mut buf)
        }
        .expect("writing to memory");
        let path = out.join(&rel);
        if let Err(e) = std::fs::write(&path, &buf) {
            std::fs::create_dir_all(out.join(&dir)).map_err(|e| io(&out.join(&dir), e))?;
            std::fs::write(&path, &buf).map_err(|_| io(&path, e))?;
        }
        bytes += buf.len() as u64;
        writeln!(
            manifest,
            "{rel}\t{}\t{}\t{}\t{}",
            gen::version_name(p.version),
            gen::page_name(p.page),
            p.regressed as u8,
            p.samples.len()
        )
        .map_err(|e| io(&manifest_path, e))?;
    }
    manifest.flush().map_err(|e| io(&manifest_path, e))?;
    let f = &pool.funcs[model.regress as usize];
    let truth = serde_json::json!({
        "profiles": profiles,
        "bytes": bytes,
        "seed": o.seed,
        "versions": (0..o.versions).map(gen::version_name).collect::<Vec<_>>(),
        "pages": (0..o.pages).map(gen::page_name).collect::<Vec<_>>(),
        "format": if o.cpuprofile { "cpuprofile" } else { "selfprofile" },
        "regression": {
            "function": {"name": f.name, "url": f.url, "line": f.line, "column": f.column},
            "from_version": gen::version_name(o.regress_version),
            "points": o.points,
        },
        "sources": sources.iter().map(|s| s.display().to_string()).collect::<Vec<_>>(),
    });
    let truth_path = out.join("truth.json");
    std::fs::write(&truth_path, format!("{truth:#}\n")).map_err(|e| io(&truth_path, e))?;
    eprintln!(
        "lakegen: {profiles} profiles, {:.1} MB, in {}",
        bytes as f64 / 1e6,
        out.display()
    );
    Ok(())
}
