//! Issue 33: `export`, `flamegraph`, `flamechart` and `report -o` opened the output path with
//! `File::create`, so a symbolic link there (planted in a shared `/tmp`) had its target
//! overwritten. Every command that writes a file now writes a new file beside it and renames it
//! over the path: a link is replaced, never followed.

use crate::support::{argv, assert_ok, file_names, fixture_arg, fresh_dir, jsprof};

/// Each command that writes a file, with `OUT` where its output path goes, and how its output
/// starts.
fn writers(profile: &str) -> Vec<(Vec<&str>, &'static str)> {
    vec![
        (
            vec!["export", profile, "--format", "folded", "-o", "OUT"],
            "",
        ),
        (
            vec!["export", profile, "--format", "chrome-trace", "-o", "OUT"],
            "{",
        ),
        (vec!["flamegraph", profile, "-o", "OUT"], "<?xml"),
        (vec!["flamechart", profile, "-o", "OUT"], "<?xml"),
        (vec!["report", profile, "-o", "OUT"], "<!doctype html>"),
        (
            vec![
                "diff",
                "--base",
                profile,
                "--base",
                profile,
                "--target",
                profile,
                "--target",
                profile,
                "--min-profiles",
                "1",
                "--flamegraph",
                "OUT",
            ],
            "<?xml",
        ),
    ]
}

#[cfg(unix)]
#[test]
fn a_symlink_at_the_output_path_is_replaced_never_followed() {
    let profile = fixture_arg("cpu/node-mix.cpuprofile.gz");
    let dir = fresh_dir("output-symlink");
    for (i, (args, starts)) in writers(&profile).into_iter().enumerate() {
        let victim = dir.join(format!("victim-{i}"));
        std::fs::write(&victim, b"precious").unwrap();
        let out = dir.join(format!("out-{i}"));
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == "OUT" {
                    out.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let run = jsprof(&args);
        assert_ok(&run, &format!("{args:?}"));
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious", "{args:?}");
        let meta = std::fs::symlink_metadata(&out).unwrap();
        assert!(meta.is_file(), "{args:?}: {out:?} is a regular file now");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.len() > 100 && text.to_lowercase().starts_with(starts),
            "{args:?}: {:.80}",
            text
        );
    }
    // No temporary file is left beside the outputs.
    let left = file_names(&dir);
    assert!(left.iter().all(|n| !n.starts_with('.')), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_mode_and_a_failed_write_leaves_it_whole() {
    use std::os::unix::fs::PermissionsExt;
    let profile = fixture_arg("cpu/node-mix.cpuprofile.gz");
    let dir = fresh_dir("output-mode");
    let out = dir.join("flame.svg");
    std::fs::write(&out, b"an earlier graph").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_ok(
        &jsprof(&["flamegraph", &profile, "-o", out.to_str().unwrap()]),
        "flamegraph",
    );
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<?xml"));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "a private file stays private");

    // A new file gets what the umask gives (not 0600, not a mode of jsprof's own).
    let new = dir.join("new.svg");
    assert_ok(
        &jsprof(&["flamegraph", &profile, "-o", new.to_str().unwrap()]),
        "flamegraph",
    );
    assert!(new.is_file());

    // An input that fails to load: the existing output is untouched, nothing is left beside it.
    let before = std::fs::read(&out).unwrap();
    let bad = dir.join("bad.cpuprofile");
    std::fs::write(&bad, b"{\"nodes\": [").unwrap();
    let failed = jsprof(&argv("flamegraph {} -o {}", &[&bad, &out]));
    assert_eq!(failed.status.code(), Some(2));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    assert_eq!(file_names(&dir), ["bad.cpuprofile", "flame.svg", "new.svg"]);
    let _ = std::fs::remove_dir_all(&dir);
}
