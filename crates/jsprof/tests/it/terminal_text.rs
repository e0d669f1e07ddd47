//! Issue 33: function names, URLs and labels reached the terminal raw — an escape sequence in a
//! name cleared the screen, a line break in it printed a table row of its own. Every text output
//! shows them escaped; JSON keeps them exact.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{argv, assert_ok, fresh_dir, jsprof, jsprof_json};

/// A name that clears the screen, returns to the line's start, and forges a row after a break.
const NAME: &str =
    "evil\u{1b}[2J\r\n  999.0 ms  99.9 %  999.0 ms  99.9 %  forged\u{202e}\u{9b}31m\t.";
const URL: &str = "file:///app\u{1b}]0;pwned\u{7}.js";

/// A .cpuprofile whose hot function is [`NAME`] at [`URL`], under `main`.
fn hostile_profile(dir: &Path) -> PathBuf {
    let frame = |name: &str, url: &str, id: u32| {
        serde_json::json!({"functionName": name, "scriptId": id.to_string(), "url": url,
                           "lineNumber": 0, "columnNumber": 0})
    };
    let profile = serde_json::json!({
        "nodes": [
            {"id": 1, "callFrame": frame("(root)", "", 0), "hitCount": 0, "children": [2]},
            {"id": 2, "callFrame": frame("main", "file:///app.js", 1), "hitCount": 0,
             "children": [3]},
            {"id": 3, "callFrame": frame(NAME, URL, 2), "hitCount": 0},
        ],
        "startTime": 0,
        "endTime": 4000,
        "samples": [3, 3, 2, 3],
        "timeDeltas": [1000, 1000, 1000, 1000],
    });
    let path = dir.join("hostile.cpuprofile");
    std::fs::write(&path, serde_json::to_vec(&profile).unwrap()).unwrap();
    path
}

/// `out`'s stdout and stderr hold no character a terminal acts on (but line breaks), and the
/// forged row is on the line of the name it hides in (which holds `host`).
fn assert_shown_safely(out: &Output, what: &str, host: &str) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8(bytes.clone()).expect("UTF-8");
        let raw: Vec<char> = text
            .chars()
            .filter(|&c| c != '\n' && jsprof_render::terminal::is_unsafe(c))
            .collect();
        assert!(raw.is_empty(), "{what} {stream}: raw {raw:?} in:\n{text}");
        for line in text.lines().filter(|l| l.contains("forged")) {
            assert!(
                line.contains(host),
                "{what} {stream}: a row of its own: {line:?}\n{text}"
            );
        }
    }
}

#[test]
fn names_from_the_input_cannot_drive_the_terminal_or_forge_rows() {
    let dir = fresh_dir("terminal-text");
    let profile = hostile_profile(&dir);
    let p = profile.to_str().unwrap();
    for args in [
        vec!["top", p],
        vec!["top", p, "--wide"],
        vec!["tree", p],
        vec!["tree", p, "--bottom-up"],
        vec!["tree", p, "--sandwich", "evil"],
        vec!["summary", p],
    ] {
        let out = jsprof(&args);
        assert_ok(&out, &format!("{args:?}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("evil\\x1b[2J\\r\\n"), "{args:?}:\n{text}");
        assert_shown_safely(&out, &format!("{args:?}"), "evil");
    }
    let top = String::from_utf8(jsprof(&["top", p]).stdout).unwrap();
    assert!(top.contains("\\u{202e}\\u{9b}31m\\t."), "{top}");
    assert!(top.contains("file:///app\\x1b]0;pwned\\x07.js"), "{top}");
    // A narrow terminal cuts names; what is cut is still escaped, never half an escape.
    let narrow = crate::support::jsprof_env(&["top", p], &[("COLUMNS", "60")]);
    assert_shown_safely(&narrow, "top, 60 columns", "evil");

    // JSON keeps the name exact.
    let doc = jsprof_json(&["top", p, "--json"]);
    let names: Vec<&str> = doc["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(names.contains(&NAME), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "lake")]
#[test]
fn lake_ls_sql_and_top_show_names_and_labels_escaped() {
    let dir = fresh_dir("terminal-lake");
    let profile = hostile_profile(&dir);
    let lake = dir.join("lake");
    let l = lake.to_str().unwrap();
    let label = "team=a\u{1b}[31m\r\nforged row";
    let out = jsprof(&argv("lake add {} {} --label {}", &[&l, &profile, &label]));
    assert_ok(&out, "lake add");
    for args in [
        vec!["lake", "ls", l],
        vec!["lake", "top", l],
        vec![
            "lake",
            "sql",
            l,
            "SELECT name, url FROM functions ORDER BY name",
        ],
        vec![
            "lake",
            "sql",
            l,
            "SELECT labels['team'] AS team, 1 AS one FROM profiles",
        ],
    ] {
        let out = jsprof(&args);
        assert_ok(&out, &format!("{args:?}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("evil") || text.contains("a\\x1b[31m"),
            "{args:?}:\n{text}"
        );
        for line in text.lines().filter(|l| l.contains("forged")) {
            assert!(
                line.contains("evil") || line.contains("a\\x1b[31m\\r\\n"),
                "{args:?}: a row of its own: {line:?}\n{text}"
            );
        }
        let raw: Vec<char> = text
            .chars()
            .filter(|&c| c != '\n' && jsprof_render::terminal::is_unsafe(c))
            .collect();
        assert!(raw.is_empty(), "{args:?}: raw {raw:?}:\n{text}");
    }
    // `lake sql` is a table like the others': a header, then one line per row.
    let out = jsprof(&["lake", "sql", l, "SELECT 1 AS one, 'x' AS two"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one  two\n  1  x\n");
    let doc = jsprof_json(&["lake", "sql", l, "SELECT name FROM functions", "--json"]);
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["name"] == NAME), "{rows:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A heap snapshot's class names reach `heap summary`'s table as the CPU tables' names do.
#[test]
fn heap_class_names_are_shown_escaped() {
    let dir = fresh_dir("terminal-heap");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(
            std::fs::File::open(crate::support::fixtures().join("heap/detached.heapsnapshot.gz"))
                .unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    // The strings table holds each string once; `Map` names the class of four objects.
    assert_eq!(text.matches("\"Map\"").count(), 1);
    let text = text.replace(
        "\"Map\"",
        "\"Map\\u001b[2J\\r\\n4  5  100 B  0.0 %  308 KB  19.2 % forged\"",
    );
    let snapshot = dir.join("hostile.heapsnapshot");
    std::fs::write(&snapshot, text).unwrap();
    let s = snapshot.to_str().unwrap();
    let out = jsprof(&["heap", "summary", s, "--no-cache", "--limit", "10"]);
    assert_ok(&out, "heap summary");
    let shown = String::from_utf8_lossy(&out.stdout);
    // (The heap's class names already show a line break as a space.)
    assert!(shown.contains("Map\\x1b[2J"), "{shown}");
    let forged: Vec<&str> = shown.lines().filter(|l| l.contains("forged")).collect();
    assert_eq!(forged.len(), 1, "{shown}");
    assert!(forged[0].starts_with("Map\\x1b"), "{shown}");
    assert_shown_safely(&out, "heap summary", "Map");
    let _ = std::fs::remove_dir_all(&dir);
}
