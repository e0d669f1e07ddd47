// Scratch timing aid (not committed): reads a trace and prints the time taken.
fn main() {
    let path = std::env::args().nth(1).expect("TRACE");
    let bytes = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let trace = jsprof_profile::read_trace_slice(&bytes, &mut |_| {}).unwrap();
    eprintln!(
        "read {:.3} s, {} threads",
        t.elapsed().as_secs_f64(),
        trace.profile.threads.len()
    );
}
