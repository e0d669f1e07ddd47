//! The files a profile points at (issue 33, finding 4): a profile names a script, and the
//! script's `sourceMappingURL` comment names a map. Both are chosen by whoever wrote the profile,
//! so a FIFO, `/dev/zero` or `/dev/stdin` there must be refused at once, never read.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{output_within, KillOnDrop};

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
    let child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args(args)
            .stdin(Stdio::piped()) // held open: a read of /dev/stdin would wait for ever
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "jsprof",
    );
    let what = format!("jsprof {args:?} (reading what the profile pointed at)");
    let out = output_within(child, limit, &what);
    let status = out.status;
    let (out, err) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(status.success(), "jsprof {args:?}: {status}\n{err}");
    (out, err)
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
