//! Load client for `bench/serve-load.sh` (not a test): N concurrent clients query the events of
//! one session of a running `jsprof serve` for a while, then print latency percentiles per query
//! kind, the error count, and the server's RSS over time (read from /proc).
//!
//!     serve_load ADDR TOKEN SESSION TIMELINE DURATION_MS PID [CLIENTS] [SPAN_MS]
//!
//! Plain std networking (HTTP/1.1, one connection per request), no client library.

// An example program: it prints its answer and exits with its status.
#![allow(clippy::print_stdout, clippy::exit)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The queries, in turn: whole-profile reductions, top-level events, and windows of `mode=all`.
fn query(i: u64, span_ms: f64) -> (&'static str, String) {
    match i % 6 {
        0 => ("unique-types", "mode=unique-types".to_string()),
        1 => ("unique-events", "mode=unique-events".to_string()),
        2 => ("reduce-all", "mode=reduce-all".to_string()),
        3 => ("all depth 1", "mode=all&max_depth=1".to_string()),
        4 => (
            "JS_CALL types",
            "mode=unique-events&types=JS_CALL".to_string(),
        ),
        _ => {
            // A pseudo-random 200 ms window of everything (what a flame chart asks for).
            let x = (i.wrapping_mul(2_654_435_761) % 10_000) as f64 / 10_000.0;
            let start = x * (span_ms - 200.0).max(0.0);
            (
                "all 200 ms window",
                format!("mode=all&range={start:.3}..{:.3}", start + 200.0),
            )
        }
    }
}

fn get(addr: &str, token: &str, path: &str) -> Result<usize, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut body = Vec::new();
    s.read_to_end(&mut body).map_err(|e| e.to_string())?;
    let head_end = body
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no HTTP header")?;
    let head = String::from_utf8_lossy(&body[..head_end]);
    if !head.starts_with("HTTP/1.1 200") {
        return Err(head.lines().next().unwrap_or("").to_string());
    }
    let trimmed = String::from_utf8_lossy(&body[body.len().saturating_sub(4)..]).to_string();
    if !trimmed.contains('}') {
        return Err("truncated body".to_string());
    }
    Ok(body.len() - head_end - 4)
}

fn rss_mb(pid: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 7 {
        eprintln!(
            "usage: serve_load ADDR TOKEN SESSION TIMELINE DURATION_MS PID [CLIENTS] [SPAN_MS]"
        );
        std::process::exit(2);
    }
    let (addr, token, session, timeline) = (&args[1], &args[2], &args[3], &args[4]);
    let duration = Duration::from_millis(args[5].parse().expect("DURATION_MS"));
    let pid = args[6].clone();
    let clients: usize = args.get(7).map_or(32, |c| c.parse().expect("CLIENTS"));
    let span_ms: f64 = args
        .get(8)
        .map_or(60_000.0, |s| s.parse().expect("SPAN_MS"));
    let path = format!("/api/sessions/{session}/timelines/{timeline}/events");

    type Sample = (&'static str, f64, usize);
    let samples: Arc<Mutex<Vec<Sample>>> = Arc::new(Mutex::new(Vec::new()));
    let errors: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let rss = {
        let (done, pid) = (done.clone(), pid.clone());
        std::thread::spawn(move || {
            let mut series = Vec::new();
            while !done.load(Ordering::Relaxed) {
                series.push((
                    start.elapsed().as_secs_f64(),
                    rss_mb(&pid).unwrap_or(f64::NAN),
                ));
                std::thread::sleep(Duration::from_secs(1));
            }
            series.push((
                start.elapsed().as_secs_f64(),
                rss_mb(&pid).unwrap_or(f64::NAN),
            ));
            series
        })
    };
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (samples, errors) = (samples.clone(), errors.clone());
            let (addr, token, path) = (addr.clone(), token.clone(), path.clone());
            std::thread::spawn(move || {
                let mut i = c as u64;
                while start.elapsed() < duration {
                    let (kind, q) = query(i, span_ms);
                    let t = Instant::now();
                    match get(&addr, &token, &format!("{path}?{q}")) {
                        Ok(bytes) => samples.lock().unwrap().push((
                            kind,
                            t.elapsed().as_secs_f64() * 1000.0,
                            bytes,
                        )),
                        Err(e) => errors.lock().unwrap().push(format!("{kind}: {e}")),
                    }
                    i += clients as u64;
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let wall = start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let series = rss.join().unwrap();

    let samples = samples.lock().unwrap();
    let errors = errors.lock().unwrap();
    println!(
        "{clients} clients, {wall:.1} s: {} requests ({:.1}/s), {} errors",
        samples.len(),
        samples.len() as f64 / wall,
        errors.len()
    );
    for e in errors.iter().take(5) {
        println!("  error: {e}");
    }
    println!(
        "{:<20} {:>7} {:>9} {:>9} {:>9} {:>9} {:>11}",
        "query", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", "avg bytes"
    );
    let mut kinds: Vec<&str> = samples.iter().map(|s| s.0).collect();
    kinds.sort();
    kinds.dedup();
    kinds.push("(all)");
    for kind in kinds {
        let mut ms: Vec<f64> = samples
            .iter()
            .filter(|s| kind == "(all)" || s.0 == kind)
            .map(|s| s.1)
            .collect();
        let bytes: usize = samples
            .iter()
            .filter(|s| kind == "(all)" || s.0 == kind)
            .map(|s| s.2)
            .sum();
        ms.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{:<20} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>11}",
            kind,
            ms.len(),
            percentile(&ms, 0.5),
            percentile(&ms, 0.9),
            percentile(&ms, 0.99),
            ms.last().copied().unwrap_or(f64::NAN),
            bytes / ms.len().max(1)
        );
    }
    println!("server RSS (MB) over time:");
    for (t, mb) in series.iter().step_by(5) {
        println!("  t={t:>5.1} s  {mb:>8.1}");
    }
    if let Some((t, mb)) = series.last() {
        println!("  t={t:>5.1} s  {mb:>8.1} (end)");
    }
    let peak = series.iter().map(|s| s.1).fold(0.0, f64::max);
    println!("peak RSS {peak:.1} MB");
    if !errors.is_empty() {
        std::process::exit(1);
    }
}
