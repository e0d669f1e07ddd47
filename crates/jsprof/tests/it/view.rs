//! `jsprof view FILE`: the file is opened where it is — linked into the throwaway session, never
//! copied or read into memory whole, so no upload limit applies (a 10 GB snapshot opens) and a
//! heap snapshot is answered from the same heap index as the CLI's commands on it.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::heap_cache::{padded, poison};
use crate::serve::Serve;
use crate::support::{assert_ok, fresh_dir, jsprof_env, KillOnDrop};

/// The one artifact of a `jsprof view` session: its listing and its API path
/// (`/api/sessions/S/artifacts/A`).
pub(crate) struct Viewed {
    pub info: serde_json::Value,
    pub path: String,
}

/// `jsprof view --no-open FILE` (with `env`), served, and the file's artifact, which must have
/// opened without an error.
pub(crate) fn viewing(file: &Path, env: &[(&str, &str)], dir: &Path) -> (Serve, Viewed) {
    let child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args(["view", "--no-open"])
            .arg(file)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "jsprof view",
    );
    let view = crate::serve::serving(child, dir);
    let sessions = view.get("/api/sessions").json();
    let session = &sessions["sessions"][0];
    assert_eq!(session["error"], serde_json::Value::Null, "{sessions}");
    let info = session["artifacts"][0].clone();
    let path = format!(
        "/api/sessions/{}/artifacts/{}",
        session["session_id"].as_str().unwrap(),
        info["artifact_id"]
    );
    (view, Viewed { info, path })
}

impl Viewed {
    /// The artifact's path under the UI's API (`/api/ui/sessions/S/artifacts/A`).
    pub fn ui_path(&self) -> String {
        self.path.replacen("/api/", "/api/ui/", 1)
    }
}

/// The CLI indexes a snapshot; its text is then spoiled with its key kept (size, mtime, first and
/// last MiB): `jsprof view` still shows the CLI's Summary, which only the index can give, writes
/// no index of its own, and leaves the file as it was.
#[test]
fn view_opens_the_file_in_place_through_the_clis_heap_index() {
    let dir = fresh_dir("view-in-place");
    let cache = dir.join("cache");
    let env = [
        ("JSPROF_CACHE_DIR", cache.to_str().unwrap()),
        ("JSPROF_CACHE_MIN_BYTES", "0"),
    ];
    let file = padded(&dir, "detached.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    let cli = jsprof_env(&["heap", "summary", f, "--json", "--limit", "0"], &env);
    assert_ok(&cli, "");
    let expected: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    poison(&file, &cache);
    let before = std::fs::metadata(&file).unwrap();
    let bytes_before = std::fs::read(&file).unwrap();

    let (view, artifact) = viewing(&file, &env, &dir);
    assert_eq!(artifact.info["bytes"].as_u64(), Some(before.len()));
    let summary = view
        .get(&format!("{}/heap/summary?limit=0", artifact.path))
        .expect(200, "");
    assert_eq!(summary.json(), expected, "view's Summary is not the CLI's");
    drop(view);

    let indexes = std::fs::read_dir(&cache).unwrap().count();
    assert_eq!(indexes, 1, "view wrote an index of its own");
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert!(
        std::fs::read(&file).unwrap() == bytes_before,
        "the file changed"
    );
}
