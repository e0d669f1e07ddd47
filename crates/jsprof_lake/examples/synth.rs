//! A synthetic lake for timing queries: N profiles derived from recorded ones (their stacks,
//! weights jittered ±10 %, labels over 20 versions and 50 pages), written through the lake's own
//! writer in batches of 10,000.
//!
//! `cargo run -p jsprof_lake --example synth -- LAKE N FILE…`

// An example program: it prints its answer and exits with its status.
#![allow(clippy::print_stdout, clippy::exit)]

use std::collections::BTreeMap;

use jsprof_lake::{prepare, Lake, PrepareOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [lake, n, files @ ..] = args.as_slice() else {
        return Err("usage: synth LAKE N FILE…".into());
    };
    let n: usize = n.parse()?;
    let lake = Lake::init(std::path::Path::new(lake), None)?;
    let mut templates = Vec::new();
    for f in files {
        let bytes = std::fs::read(f)?;
        templates.push(prepare(
            f,
            bytes,
            &BTreeMap::new(),
            "synth",
            &PrepareOptions::default(),
        )?);
    }
    let mut writer = lake.writer();
    let mut state = 0x9e3779b97f4a7c15u64;
    let mut next = move || {
        // xorshift64*: deterministic jitter without a dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545f4914f6cdd1d)
    };
    let start = std::time::Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(10_000) {
        let mut batch = Vec::new();
        for &i in chunk {
            let mut p = templates[i % templates.len()].clone();
            p.source_hash = format!("{:064x}", i as u128 + 1);
            p.labels.insert("version".into(), format!("1.{}", i % 20));
            p.labels.insert("page".into(), format!("/page/{}", i % 50));
            for (t, profile) in p.profiles.iter_mut().enumerate() {
                profile.profile_id = format!("{:016x}-{t}", i + 1);
                for s in &mut profile.samples {
                    s.1 = s.1 * (90 + (next() % 21) as i64) / 100;
                }
            }
            batch.push(p);
        }
        writer.append(batch)?;
    }
    eprintln!("{n} profiles in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
