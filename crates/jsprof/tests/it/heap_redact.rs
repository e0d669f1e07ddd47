//! `heap redact`: a snapshot recorded now from a Node app holding a planted secret (a flat string,
//! a concatenation's part, a sliced string's parent, an object's property value) is redacted; the
//! copy loads in DevTools' heap worker (the oracle) with every class's count, self and retained
//! size, the Statistics and sampled nodes' sizes, distances and dominators equal to the original's,
//! and the secret appears nowhere in its bytes.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::heap_advisors::Graph;
use crate::heap_scale::oracle;
use crate::support::{argv, assert_ok, fresh_dir, json_array, jsprof, jsprof_json};

/// The secret is assembled at run time, so the script's source holds only its pieces.
const APP: &str = r#"
const v8 = require('v8');
const secret = ['SEC', 'RET', '-', 'hun', 'ter', '42', '-', 'Zq9'].join('');
class Holder { constructor(token) { this.token = token; } }
globalThis.planted = {
  flat: secret,
  cons: 'cons-prefix-long-enough:' + secret,
  sliced: ('sliced-prefix-long-enough:' + secret + ':and-a-tail-to-cut').slice(7, -4),
  holder: new Holder(secret.toLowerCase()),
  Holder: 'Holder',
  pi: 3.14159,
};
v8.writeHeapSnapshot(process.argv[2], { exposeNumericValues: true });
"#;

/// Texts of the plant that must not survive, lower-cased (the output is searched case-blind).
const SECRETS: &[&str] = &[
    "secret-hunter42-zq9",
    "hunter42",
    "cons-prefix-long-enough",
    "sliced-prefix-long-enough",
    "and-a-tail-to-cut",
];

const STRING_TYPES: &[&str] = &["string", "concatenated string", "sliced string", "regexp"];

/// Runs `app` (a script that writes a snapshot to its first argument) in `dir`; the snapshot.
pub(crate) fn record(dir: &Path, app: &str) -> PathBuf {
    let script = dir.join("app.js");
    std::fs::write(&script, app).unwrap();
    let snapshot = dir.join("app.heapsnapshot");
    let out = Command::new("node")
        .arg(&script)
        .arg(&snapshot)
        .output()
        .expect("node");
    assert_ok(&out, "node app.js");
    snapshot
}

/// Where the plant sits in the original, so that the test cannot pass on a snapshot without it.
fn assert_planted(r: &Graph) {
    let holds = |n: usize| r.nodes[n].0 == "string" && r.nodes[n].1.contains("SECRET-hunter42");
    let via = |kind: &str, edge: &str| {
        (0..r.nodes.len()).any(|n| {
            r.nodes[n].0 == kind
                && r.edges[n]
                    .iter()
                    .any(|(_, name, to)| name == edge && holds(*to))
        })
    };
    assert!(
        r.nodes
            .iter()
            .any(|(k, name)| k == "string" && name == "SECRET-hunter42-Zq9"),
        "the flat secret"
    );
    assert!(
        via("concatenated string", "second"),
        "a concatenation's part"
    );
    assert!(via("sliced string", "parent"), "a sliced string's parent");
    assert!(
        (0..r.nodes.len()).any(|n| r.nodes[n].1 == "Holder"
            && r.edges[n]
                .iter()
                .any(|(_, name, to)| name == "token" && r.nodes[*to].1 == "secret-hunter42-zq9")),
        "a property value"
    );
}

fn decompressed(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if bytes.starts_with(&[0x1F, 0x8B]) {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut text)
            .unwrap();
        text
    } else {
        bytes
    }
}

fn assert_no_secret(bytes: &[u8], what: &str) {
    let lower = bytes.to_ascii_lowercase();
    for secret in SECRETS {
        assert!(
            !lower.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{what}: {secret:?} survived"
        );
    }
}

/// The oracle's Summary rows by class key.
fn classes(v: &Value) -> HashMap<String, &Value> {
    json_array(&v["classes"])
        .iter()
        .map(|c| (c["key"].as_str().unwrap().to_string(), c))
        .collect()
}

fn assert_same_views(original: &Value, redacted: &Value, what: &str) {
    for key in ["node_count", "total_size", "statistics"] {
        assert_eq!(original[key], redacted[key], "{what}: {key}");
    }
    let (before, after) = (classes(original), classes(redacted));
    assert_eq!(before.len(), after.len(), "{what}: number of classes");
    for (key, c) in &before {
        let r = after
            .get(key)
            .unwrap_or_else(|| panic!("{what}: class {key:?} missing"));
        for field in ["name", "count", "self", "retained", "distance"] {
            assert_eq!(c[field], r[field], "{what}: class {key:?} {field}");
        }
    }
    let (before, after) = (
        json_array(&original["sampled_nodes"]),
        json_array(&redacted["sampled_nodes"]),
    );
    assert_eq!(before.len(), after.len(), "{what}: sampled nodes");
    for (b, a) in before.iter().zip(after) {
        for field in [
            "ordinal",
            "id",
            "type",
            "self",
            "retained",
            "distance",
            "dominator_id",
        ] {
            assert_eq!(b[field], a[field], "{what}: node @{} {field}", b["id"]);
        }
        if !STRING_TYPES.contains(&b["type"].as_str().unwrap()) {
            assert_eq!(b["name"], a["name"], "{what}: node @{} name", b["id"]);
        }
    }
}

#[test]
fn redacted_snapshot_shows_devtools_the_same_heap_without_the_secret() {
    let dir = fresh_dir("heap-redact");
    let snapshot = record(&dir, APP);
    let original_text = std::fs::read(&snapshot).unwrap();
    let original = Graph::parse(&original_text);
    assert_planted(&original);
    assert!(
        original.nodes.iter().any(|(_, n)| n == "3.14159"),
        "the number's value is exposed"
    );

    let plain = dir.join("shared.heapsnapshot");
    let v = jsprof_json(&argv("heap redact {} -o {} --json", &[&snapshot, &plain]));
    assert!(v["strings_redacted"].as_u64().unwrap() > 100, "{v}");
    // The string value 'Holder' is also the class name: the name stays, the value is redacted.
    assert!(v["strings_appended"].as_u64().unwrap() >= 1, "{v}");
    let zeroed = dir.join("shared-numbers.heapsnapshot.gz");
    let z = jsprof_json(&argv(
        "heap redact {} -o {} --numbers --json",
        &[&snapshot, &zeroed],
    ));
    assert!(z["numbers_zeroed"].as_u64().unwrap() > 0, "{z}");

    let plain_text = decompressed(&plain);
    let zeroed_text = decompressed(&zeroed);
    assert!(std::fs::read(&zeroed).unwrap().starts_with(&[0x1F, 0x8B]));
    assert_no_secret(&plain_text, "redact");
    assert_no_secret(&zeroed_text, "redact --numbers");
    assert_no_secret(&std::fs::read(&zeroed).unwrap(), "the gzip bytes");

    // Every node keeps its type; string values keep their length in UTF-16 units; other names stay.
    let redacted = Graph::parse(&plain_text);
    assert_eq!(redacted.nodes.len(), original.nodes.len());
    for (n, ((kind, name), (kind2, name2))) in
        original.nodes.iter().zip(&redacted.nodes).enumerate()
    {
        assert_eq!(kind, kind2, "node {n}");
        if STRING_TYPES.contains(&kind.as_str()) {
            assert_eq!(
                name.encode_utf16().count(),
                name2.encode_utf16().count(),
                "node {n}: {name:?} became {name2:?}"
            );
        } else {
            assert_eq!(name, name2, "node {n}");
        }
        assert_eq!(original.edges[n], redacted.edges[n], "node {n}'s edges");
    }
    // Numbers stay unless --numbers.
    assert!(redacted.nodes.iter().any(|(_, n)| n == "3.14159"));
    let zeroed_raw = Graph::parse(&zeroed_text);
    assert!(zeroed_raw.nodes.iter().any(|(_, n)| n == "0.00000"));
    assert!(!zeroed_raw.nodes.iter().any(|(_, n)| n.contains("3.14159")));

    // DevTools' own analysis sees the same heap.
    if let Some(before) = oracle(&snapshot, 13) {
        let after = oracle(&plain, 13).unwrap();
        assert_same_views(&before, &after, "redact");
        let after = oracle(&zeroed, 13).unwrap();
        assert_same_views(&before, &after, "redact --numbers");
    }

    // Never over its own input; the input is untouched.
    let out = jsprof(&argv("heap redact {} -o {}", &[&snapshot, &snapshot]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("its own input"));
    assert_eq!(std::fs::read(&snapshot).unwrap(), original_text);

    // A damaged input: exit 2 naming the offset, and no output left behind.
    let cut = dir.join("cut.heapsnapshot");
    std::fs::write(&cut, &original_text[..original_text.len() / 2]).unwrap();
    let target = dir.join("never.heapsnapshot");
    let out = jsprof(&argv("heap redact {} -o {}", &[&cut, &target]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at byte"));
    assert!(!target.exists());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("jsprof-tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
