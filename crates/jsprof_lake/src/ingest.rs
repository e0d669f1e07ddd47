//! What a browser's post to the ingest endpoint (`jsprof serve --lake`,
//! `POST /ingest/v1/selfprofile`) carries, checked as the endpoint checks it but without HTTP:
//! its query string (labels), its user agent, its declared length and its trace. The endpoint
//! (`jsprof_server`'s `ingest.rs`) calls these in this order around its own checks (origin, key,
//! reading the body within a deadline); the fuzz target `ingest_body` calls them on arbitrary
//! bytes. Nothing here needs the query engine, so that target builds without DataFusion.
//!
//! ```
//! use jsprof_lake::ingest;
//! let query = ingest::query_pairs("key=K&page=%2Fcart&release=1.4&label.tenant=acme").unwrap();
//! let labels = ingest::labels(&query, "Mozilla/5.0 … Chrome/131.0.0.0", None).unwrap();
//! assert_eq!(labels["page"], "/cart");
//! assert_eq!(labels["browser"], "chrome");
//! assert_eq!(
//!     ingest::check_length(Some("2048"), 1024),
//!     Err(ingest::Refusal::TooLarge(1024))
//! );
//! ```

use std::collections::BTreeMap;

use jsprof_document::source_maps::SourceMaps;

use crate::prepare::{PrepareOptions, Prepared};
use crate::LakeError;

/// Labels a post may carry at most (`page`, `release`, `label.K=V`), and the longest name or
/// value: what one trace adds to the lake's label map stays bounded.
pub const MAX_LABELS: usize = 32;
pub const MAX_LABEL_LEN: usize = 256;

/// Why a post is refused: the endpoint answers 400 or 413 with the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The query string, the labels or the trace are wrong (400); the message says how.
    BadRequest(String),
    /// The trace (as sent, or after gunzip) is larger than this many bytes (413).
    TooLarge(u64),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::BadRequest(m) => f.write_str(m),
            Refusal::TooLarge(limit) => write!(
                f,
                "the trace is larger than the limit of {limit} bytes (serve --ingest-max-bytes)"
            ),
        }
    }
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal::BadRequest(message.into())
}

/// `s` with control characters escaped, at most 64 characters: safe to quote in a message.
fn printable(s: &str) -> String {
    let mut out: String = s.chars().take(64).flat_map(char::escape_debug).collect();
    if s.chars().count() > 64 {
        out.push('…');
    }
    out
}

/// The query string's `name=value` pairs, percent-decoded.
pub fn query_pairs(query: &str) -> Result<Vec<(String, String)>, Refusal> {
    serde_urlencoded::from_str(query).map_err(|e| bad(format!("the query string: {e}")))
}

/// The key a post carries: `Authorization: Bearer KEY`, else `?key=KEY`.
pub fn key_of<'a>(
    authorization: Option<&'a str>,
    query: &'a [(String, String)],
) -> Option<&'a str> {
    authorization
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .or_else(|| {
            query
                .iter()
                .find(|(k, _)| k == "key")
                .map(|(_, v)| v.as_str())
        })
}

/// The user agent's class: (`chrome` | `edge` | `other`, `desktop` | `mobile`).
pub fn user_agent_class(ua: &str) -> (&'static str, &'static str) {
    let browser = if ua.contains("Edg/") || ua.contains("EdgA/") || ua.contains("EdgiOS/") {
        "edge"
    } else if (ua.contains("Chrome/") || ua.contains("Chromium/") || ua.contains("CriOS/"))
        && !ua.contains("OPR/")
    {
        "chrome"
    } else {
        "other"
    };
    let device = if ua.contains("Mobile") || ua.contains("Android") {
        "mobile"
    } else {
        "desktop"
    };
    (browser, device)
}

fn label_key_ok(key: &str) -> bool {
    key.len() <= MAX_LABEL_LEN && crate::layout::is_label_name(key)
}

/// The labels a post carries: `page`, `release`, `label.K=V`; plus the user agent's class. The
/// value of the lake's partition label (`partition`) must make a directory name the file system
/// takes.
pub fn labels(
    query: &[(String, String)],
    user_agent: &str,
    partition: Option<&str>,
) -> Result<BTreeMap<String, String>, Refusal> {
    let mut labels = BTreeMap::new();
    for (k, v) in query {
        let key = match k.as_str() {
            "key" => continue,
            "page" | "release" => k.as_str(),
            other => match other.strip_prefix("label.") {
                Some(name) if label_key_ok(name) => name,
                Some(_) => {
                    return Err(bad(format!(
                        "query parameter `{}`: a label name uses letters, digits, `_`, `-` and `.`",
                        printable(other)
                    )))
                }
                None => {
                    return Err(bad(format!(
                        "unknown query parameter `{}`: expected key, page, release or label.NAME",
                        printable(other)
                    )))
                }
            },
        };
        if matches!(key, "source" | "browser" | "device") {
            return Err(bad(format!(
                "label `{key}` is set by the server and cannot be posted"
            )));
        }
        if v.len() > MAX_LABEL_LEN {
            return Err(bad(format!(
                "query parameter `{k}`: longer than {MAX_LABEL_LEN} bytes"
            )));
        }
        if labels.insert(key.to_string(), v.clone()).is_some() {
            return Err(bad(format!("query parameter `{k}` given twice")));
        }
    }
    for required in ["page", "release"] {
        if labels.get(required).is_none_or(|v| v.trim().is_empty()) {
            return Err(bad(format!(
                "the `{required}` label is required: add `?{required}=…` to the URL"
            )));
        }
    }
    if labels.len() > MAX_LABELS {
        return Err(bad(format!("at most {MAX_LABELS} labels per trace")));
    }
    let (browser, device) = user_agent_class(user_agent);
    labels.insert("browser".into(), browser.into());
    labels.insert("device".into(), device.into());
    if let Some(label) = partition {
        crate::layout::partition_dir(label, labels.get(label).map(String::as_str))
            .map_err(|e| bad(format!("{e} (the lake is partitioned by it)")))?;
    }
    Ok(labels)
}

/// Refuses a body whose `Content-Length` says it is larger than `limit` before it is read. A
/// length that does not parse is left to the bytes themselves (HTTP has refused it already).
pub fn check_length(content_length: Option<&str>, limit: u64) -> Result<(), Refusal> {
    match content_length.and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(len) if len > limit => Err(Refusal::TooLarge(limit)),
        _ => Ok(()),
    }
}

/// Reads one posted trace for the lake (`name` is the spool's name for it, `received_us` its
/// arrival, the profile's start): it must be a JS Self-Profiling trace of at most `max_bytes`
/// (gunzipped). The same call at accept time and at the spool's replay, so what replay writes
/// is what was validated. A posted trace never makes the server read a file it names (source
/// maps are off).
pub fn prepare_trace(
    name: &str,
    received_us: i64,
    labels: &BTreeMap<String, String>,
    body: Vec<u8>,
    max_bytes: u64,
) -> Result<Prepared, Refusal> {
    if body.is_empty() {
        return Err(bad(
            "the body is empty: post the trace `profiler.stop()` resolved to, as JSON",
        ));
    }
    let options = PrepareOptions {
        source_maps: SourceMaps::off(),
        start_time_us: Some(received_us),
        max_bytes,
    };
    let prepared = crate::prepare(name, body, labels, "ingest", &options).map_err(|e| match e {
        LakeError::TooLarge { limit, .. } => Refusal::TooLarge(limit),
        other => bad(other.to_string()),
    })?;
    match prepared.profiles.first().map(|p| p.kind) {
        Some("selfprofile") => Ok(prepared),
        Some(other) => Err(bad(format!(
            "{name}: expected a JS Self-Profiling trace (the object `profiler.stop()` resolves \
             to), got a {other}"
        ))),
        None => Err(bad(format!("{name}: no profile in the body"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_classes() {
        let desktop_chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
        let headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36";
        let edge = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86";
        let android = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
        let opera = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0";
        assert_eq!(user_agent_class(desktop_chrome), ("chrome", "desktop"));
        assert_eq!(user_agent_class(headless), ("chrome", "desktop"));
        assert_eq!(user_agent_class(edge), ("edge", "desktop"));
        assert_eq!(user_agent_class(android), ("chrome", "mobile"));
        assert_eq!(user_agent_class(firefox), ("other", "desktop"));
        assert_eq!(user_agent_class(opera), ("other", "desktop"));
        assert_eq!(user_agent_class(""), ("other", "desktop"));
    }

    #[test]
    fn labels_need_page_and_release_and_refuse_unknown_parameters() {
        let q = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let message = |r: Result<BTreeMap<String, String>, Refusal>| r.unwrap_err().to_string();
        let ok = labels(
            &q(&[
                ("key", "x"),
                ("page", "/home"),
                ("release", "1.2"),
                ("label.ab", "b"),
            ]),
            "",
            None,
        )
        .unwrap();
        assert_eq!(ok["page"], "/home");
        assert_eq!(ok["ab"], "b");
        assert_eq!(ok["browser"], "other");
        assert!(!ok.contains_key("key"));
        let missing = message(labels(&q(&[("page", "/home")]), "", None));
        assert!(missing.contains("`release`"), "{missing}");
        let unknown = message(labels(
            &q(&[("page", "/"), ("release", "1"), ("x\u{1b}[2J", "1")]),
            "",
            None,
        ));
        assert!(
            unknown.contains("unknown query parameter `x\\u{1b}[2J`"),
            "{unknown}"
        );
        let reserved = message(labels(
            &q(&[("page", "/"), ("release", "1"), ("label.source", "cli")]),
            "",
            None,
        ));
        assert!(reserved.contains("set by the server"));
        // In a lake partitioned by `release`, a value whose directory name would pass 255
        // bytes is refused at the door; the same value is fine in a lake without partitions.
        let long = "/".repeat(100);
        let poisoned = q(&[("page", "/"), ("release", &long)]);
        let refused = message(labels(&poisoned, "", Some("release")));
        assert!(refused.contains("label `release`"), "{refused}");
        assert!(refused.contains("255 bytes"), "{refused}");
        assert!(labels(&poisoned, "", None).is_ok());
        assert!(labels(&q(&[("page", "/"), ("release", "1")]), "", Some("release")).is_ok());
    }

    #[test]
    fn keys_lengths_and_bodies() {
        let q = query_pairs("key=a%20b&page=x").unwrap();
        assert_eq!(key_of(None, &q), Some("a b"));
        assert_eq!(key_of(Some("Bearer  k "), &q), Some("k"));
        assert_eq!(key_of(Some("Basic k"), &q), Some("a b"));
        assert_eq!(check_length(Some("10"), 10), Ok(()));
        assert_eq!(check_length(Some("11"), 10), Err(Refusal::TooLarge(10)));
        assert_eq!(check_length(Some("x"), 10), Ok(()));
        let labels = BTreeMap::new();
        let empty = prepare_trace("t.json", 0, &labels, Vec::new(), 10).unwrap_err();
        assert!(empty.to_string().contains("empty"), "{empty}");
        let big = prepare_trace("t.json", 0, &labels, vec![b' '; 11], 10).unwrap_err();
        assert_eq!(big, Refusal::TooLarge(10));
        let junk = prepare_trace("t.json", 0, &labels, b"{\"frames\": [".to_vec(), 100);
        assert!(matches!(junk, Err(Refusal::BadRequest(_))), "{junk:?}");
    }
}
