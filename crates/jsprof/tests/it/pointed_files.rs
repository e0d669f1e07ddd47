//! The files a profile points at (issue 33, finding 4): a profile names a script, and the
//! script's `sourceMappingURL` comment names a map. Both are chosen by whoever wrote the profile,
//! so a FIFO, `/dev/zero` or `/dev/stdin` there must be refused at once, never read.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A one-function `.cpuprofile` whose script is `script` (a `file://` URL), with 10 samples.
fn profile_of(script: &Path) -> String {
    let url = format!("file://{}", script.display());
    format!(
        r#"{{"nodes":[{{"id":1,"callFrame":{{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},"children":[2]}},
{{"id":2,"callFrame":{{"functionName":"work","scriptId":"1","url":"{url}","lineNumber":0,"columnNumber":0}}}}],
"startTime":0,"endTime":10000,"samples":[2,2,2,2,2,2,2,2,2,2],"timeDeltas":[1000,1000,1000,1000,1000,1000,1000,1000,1000,1000]}}"#
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pointed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `jsprof ARGS`, killed after `limit`: (stdout, stderr), or a panic naming what hung.
fn run_within(args: &[&str], limit: Duration) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .stdin(Stdio::piped()) // held open: a read of /dev/stdin would wait for ever
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (mut out, mut err) = (String::new(), String::new());
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            assert!(status.success(), "jsprof {args:?}: {status}\n{err}");
            return (out, err);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("jsprof {args:?} did not answer within {limit:?}: it read what the profile pointed at");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_source_map_that_is_a_fifo_a_device_or_stdin_is_refused_at_once() {
    let dir = scratch("special");
    let fifo = dir.join("fifo.map");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    for (name, map) in [
        ("fifo", fifo.to_str().unwrap()),
        ("zero", "/dev/zero"),
        ("stdin", "/dev/stdin"),
    ] {
        let script = dir.join(format!("{name}.js"));
        std::fs::write(
            &script,
            format!("function work() {{}}\n//# sourceMappingURL={map}\n"),
        )
        .unwrap();
        let profile = dir.join(format!("{name}.cpuprofile"));
        std::fs::write(&profile, profile_of(&script)).unwrap();
        let (out, _) = run_within(
            &["top", "--json", profile.to_str().unwrap()],
            Duration::from_secs(20),
        );
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let warnings = doc["warnings"].to_string();
        assert!(
            warnings.contains("source map missing") && warnings.contains("not a regular file"),
            "{name}: the refusal is said: {warnings}"
        );
        assert_eq!(
            doc["functions"][0]["name"], "work",
            "{name}: the profile still loads"
        );
    }
}

#[test]
fn a_profile_whose_script_is_a_fifo_still_loads_at_once() {
    let dir = scratch("script");
    let fifo = dir.join("script.js");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let profile = dir.join("p.cpuprofile");
    std::fs::write(&profile, profile_of(&fifo)).unwrap();
    let (out, _) = run_within(
        &["top", "--json", profile.to_str().unwrap()],
        Duration::from_secs(20),
    );
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["functions"][0]["name"], "work");
    let (out, _) = run_within(
        &[
            "lines",
            "--json",
            "--function",
            "work",
            profile.to_str().unwrap(),
        ],
        Duration::from_secs(20),
    );
    assert!(
        out.contains("not a regular file"),
        "lines says why it shows no source: {out}"
    );
}
