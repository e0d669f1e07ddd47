//! Times the trace reader alone, without the CLI around it (loading, timelines, output): the
//! file is read into memory first, untimed.
//!
//!     cargo build --release -p jsprof_profile --example read_trace
//!     target/release/examples/read_trace TRACE.json
//!
//! A release build of this crate alone takes seconds, the `jsprof` binary's many minutes: the
//! quick way to compare two versions of the reader (`bench/trace.sh` times the whole command).

// An example program: it prints its answer and exits with its status.
#![allow(clippy::print_stdout, clippy::exit)]
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: read_trace TRACE.json");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let t = std::time::Instant::now();
    match jsprof_profile::read_trace_slice(&bytes, &mut |_| {}) {
        Ok(trace) => eprintln!(
            "read {:.3} s: {} threads, {} events",
            t.elapsed().as_secs_f64(),
            trace.threads.len(),
            trace.threads.iter().map(|t| t.events.len()).sum::<usize>()
        ),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
