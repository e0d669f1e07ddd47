//! What a post to the ingest endpoints (`jsprof serve --lake`) carries, checked as the endpoint
//! checks it but without HTTP: its query string (labels), its user agent, its declared length and
//! its body. Two endpoints share every check and differ only by the table of [`Endpoint`]: which
//! query parameters they take and which kinds of body.
//!
//! - `POST /ingest/v1/selfprofile`: a browser's JS Self-Profiling trace, with `page`, `release`.
//! - `POST /ingest/v1/profile`: a `.cpuprofile` or `.heapprofile` window from a running process
//!   (the Node agent), with `service`, `version`, `host`, `pid`, `thread`, the stall labels, the
//!   memory at the window's end and its wall-clock start.
//!
//! The server (`jsprof_server`'s `ingest.rs`) calls these in this order around its own checks
//! (origin, key, reading the body within a deadline); the fuzz target `ingest_body` calls them on
//! arbitrary bytes. Nothing here needs the query engine, so that target builds without
//! DataFusion.
//!
//! ```
//! use jsprof_lake::ingest::{self, Endpoint};
//! let query = ingest::query_pairs("key=K&page=%2Fcart&release=1.4&label.tenant=acme").unwrap();
//! let post = ingest::post(Endpoint::SelfProfile, &query, "Mozilla/5.0 … Chrome/131.0.0.0", None)
//!     .unwrap();
//! assert_eq!(post.labels["page"], "/cart");
//! assert_eq!(post.labels["browser"], "chrome");
//! let query = ingest::query_pairs("service=shop&thread=worker-2&start_ms=1764374400000").unwrap();
//! let post = ingest::post(Endpoint::Profile, &query, "node", None).unwrap();
//! assert_eq!(post.thread.as_deref(), Some("worker-2"));
//! assert_eq!(post.start_us, Some(1_764_374_400_000_000));
//! assert_eq!(
//!     ingest::check_length(Some("2048"), 1024),
//!     Err(ingest::Refusal::TooLarge(1024))
//! );
//! ```

use std::collections::BTreeMap;

use jsprof_document::source_maps::SourceMaps;
use serde::{Deserialize, Serialize};

use crate::prepare::{PrepareOptions, Prepared};
use crate::LakeError;

/// Labels a post may carry at most (its parameters and `label.K=V`), and the longest name or
/// value: what one post adds to the lake's label map stays bounded.
pub const MAX_LABELS: usize = 32;
pub const MAX_LABEL_LEN: usize = 256;

/// The largest `start_ms`: the first millisecond of the year 10000, past any clock's reading and
/// within what the lake's timestamps hold.
const MAX_EPOCH_MS: f64 = 253_402_300_800_000.0;

/// Which endpoint a post came in by: the query parameters it takes and the bodies it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Endpoint {
    /// `POST /ingest/v1/selfprofile`: a browser's JS Self-Profiling trace. The default, so that a
    /// spool record written before there were two endpoints reads as what it is.
    #[default]
    SelfProfile,
    /// `POST /ingest/v1/profile`: a `.cpuprofile` or `.heapprofile` window of a running process.
    Profile,
}

/// How a query parameter's value is checked, and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// Any text: a label.
    Text,
    /// A whole number (a pid, bytes): a label.
    Count,
    /// Milliseconds from the profile's start, not negative, fractions allowed: a label.
    Millis,
    /// `1`: a label that marks the post (`stall=1`).
    One,
    /// `main` or `worker-N`: the profile's `thread` column, which `--where thread=…` reads.
    Thread,
    /// Milliseconds since the epoch: the profile's start time (`--since`, `lake trend --by day`).
    EpochMillis,
}

/// A query parameter an endpoint takes besides `key` and `label.NAME`.
struct Param {
    name: &'static str,
    value: Value,
    required: bool,
}

const fn param(name: &'static str, value: Value) -> Param {
    Param {
        name,
        value,
        required: false,
    }
}

const fn required(name: &'static str) -> Param {
    Param {
        name,
        value: Value::Text,
        required: true,
    }
}

const SELFPROFILE_PARAMS: &[Param] = &[required("page"), required("release")];

const PROFILE_PARAMS: &[Param] = &[
    required("service"),
    param("version", Value::Text),
    param("host", Value::Text),
    param("pid", Value::Count),
    param("thread", Value::Thread),
    param("stall", Value::One),
    param("stall_start_ms", Value::Millis),
    param("stall_end_ms", Value::Millis),
    param("stall_ms", Value::Millis),
    param("heap_used", Value::Count),
    param("heap_total", Value::Count),
    param("rss", Value::Count),
    param("external", Value::Count),
    param("start_ms", Value::EpochMillis),
];

impl Endpoint {
    fn params(self) -> &'static [Param] {
        match self {
            Endpoint::SelfProfile => SELFPROFILE_PARAMS,
            Endpoint::Profile => PROFILE_PARAMS,
        }
    }

    /// Labels the server sets, which a post cannot.
    fn server_labels(self) -> &'static [&'static str] {
        match self {
            Endpoint::SelfProfile => &["source", "browser", "device"],
            Endpoint::Profile => &["source"],
        }
    }

    /// The lake kinds (`Prepared` profiles' `kind`) the body may be.
    fn kinds(self) -> &'static [&'static str] {
        match self {
            Endpoint::SelfProfile => &["selfprofile"],
            Endpoint::Profile => &["cpuprofile", "heapprofile"],
        }
    }

    /// What the body must be, for messages.
    pub fn expected(self) -> &'static str {
        match self {
            Endpoint::SelfProfile => {
                "a JS Self-Profiling trace (the object `profiler.stop()` resolves to)"
            }
            Endpoint::Profile => "a .cpuprofile or a .heapprofile (sampling heap profile) JSON",
        }
    }
}

/// What a post says besides its body: the endpoint, its labels (the server's included), and for
/// a profile window its thread and wall-clock start. The spool keeps it with the body, so replay
/// prepares exactly what was accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Post {
    #[serde(default)]
    pub endpoint: Endpoint,
    pub labels: BTreeMap<String, String>,
    /// `main` or `worker-N`: the profile's `thread` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The profile's wall-clock start, µs since the epoch; else the post's arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_us: Option<i64>,
}

/// Why a post is refused: the endpoint answers 400 or 413 with the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The query string, the labels or the body are wrong (400); the message says how.
    BadRequest(String),
    /// The body (as sent, or after gunzip) is larger than this many bytes (413).
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

/// Milliseconds: a finite number, not negative.
fn millis(v: &str) -> Option<f64> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
}

/// Checks a parameter's value against its kind; the message says what was expected.
fn check_value(name: &str, value: Value, v: &str) -> Result<(), Refusal> {
    let expected = match value {
        Value::Text => return Ok(()),
        Value::Count if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            match v.parse::<u64>() {
                Ok(_) => return Ok(()),
                Err(_) => "a whole number below 2^64",
            }
        }
        Value::Count => "a whole number",
        Value::Millis if millis(v).is_some() => return Ok(()),
        Value::Millis => "milliseconds from the profile's start (a number, not negative)",
        Value::One if v == "1" => return Ok(()),
        Value::One => "`1`",
        Value::Thread => {
            let worker = v
                .strip_prefix("worker-")
                .is_some_and(|n| !n.is_empty() && n.parse::<u32>().is_ok());
            if v == "main" || worker {
                return Ok(());
            }
            "`main` or `worker-N` (N the worker's threadId)"
        }
        Value::EpochMillis if millis(v).is_some_and(|ms| ms < MAX_EPOCH_MS) => return Ok(()),
        Value::EpochMillis => "the window's wall-clock start in milliseconds since the epoch",
    };
    Err(bad(format!(
        "query parameter `{name}`: expected {expected}, got `{}`",
        printable(v)
    )))
}

/// What a post to `endpoint` carries: its parameters (each checked as the endpoint's table says)
/// and `label.K=V`; plus the server's labels (the user agent's class for a browser's trace). The
/// value of the lake's partition label (`partition`) must make a directory name the file system
/// takes.
pub fn post(
    endpoint: Endpoint,
    query: &[(String, String)],
    user_agent: &str,
    partition: Option<&str>,
) -> Result<Post, Refusal> {
    let params = endpoint.params();
    let known = || {
        let names: Vec<&str> = params.iter().map(|p| p.name).collect();
        names.join(", ")
    };
    let mut out = Post {
        endpoint,
        ..Post::default()
    };
    for (k, v) in query {
        if k == "key" {
            continue;
        }
        if v.len() > MAX_LABEL_LEN {
            return Err(bad(format!(
                "query parameter `{}`: longer than {MAX_LABEL_LEN} bytes",
                printable(k)
            )));
        }
        let twice = || bad(format!("query parameter `{k}` given twice"));
        let value = match params.iter().find(|p| p.name == k) {
            Some(p) => {
                check_value(k, p.value, v)?;
                p.value
            }
            None => match k.strip_prefix("label.") {
                Some(name) if label_key_ok(name) => {
                    check_label_name(endpoint, name)?;
                    Value::Text
                }
                Some(_) => {
                    return Err(bad(format!(
                        "query parameter `{}`: a label name uses letters, digits, `_`, `-` and `.`",
                        printable(k)
                    )))
                }
                None => {
                    return Err(bad(format!(
                        "unknown query parameter `{}`: expected key, {} or label.NAME",
                        printable(k),
                        known()
                    )))
                }
            },
        };
        let name = k.strip_prefix("label.").unwrap_or(k);
        match value {
            Value::Thread if out.thread.replace(v.clone()).is_some() => return Err(twice()),
            Value::EpochMillis => {
                let us = millis(v).map(|ms| (ms * 1000.0).round() as i64);
                if out.start_us.replace(us.unwrap_or_default()).is_some() {
                    return Err(twice());
                }
            }
            Value::Thread => {}
            _ => {
                if out.labels.insert(name.to_string(), v.clone()).is_some() {
                    return Err(twice());
                }
            }
        }
    }
    for p in params.iter().filter(|p| p.required) {
        if out.labels.get(p.name).is_none_or(|v| v.trim().is_empty()) {
            return Err(bad(format!(
                "the `{0}` label is required: add `?{0}=…` to the URL",
                p.name
            )));
        }
    }
    if out.labels.len() > MAX_LABELS {
        return Err(bad(format!("at most {MAX_LABELS} labels per post")));
    }
    if endpoint == Endpoint::SelfProfile {
        let (browser, device) = user_agent_class(user_agent);
        out.labels.insert("browser".into(), browser.into());
        out.labels.insert("device".into(), device.into());
    }
    if let Some(label) = partition {
        crate::layout::partition_dir(label, out.labels.get(label).map(String::as_str))
            .map_err(|e| bad(format!("{e} (the lake is partitioned by it)")))?;
    }
    Ok(out)
}

/// A `label.NAME` must be a label `--where NAME=…` can find: not one the server sets, not a
/// parameter of the endpoint's own (checked there), not a column of the lake's profiles.
fn check_label_name(endpoint: Endpoint, name: &str) -> Result<(), Refusal> {
    if endpoint.server_labels().contains(&name) {
        return Err(bad(format!(
            "label `{name}` is set by the server and cannot be posted"
        )));
    }
    if endpoint.params().iter().any(|p| p.name == name) {
        return Err(bad(format!(
            "query parameter `label.{name}`: `{name}` is a parameter of its own: `?{name}=…`"
        )));
    }
    if crate::selection::COLUMNS.contains(&name) {
        return Err(bad(format!(
            "query parameter `label.{name}`: `{name}` names a column of the lake's profiles, \
             which `--where {name}=…` reads, so it cannot be a label"
        )));
    }
    Ok(())
}

/// Refuses a body whose `Content-Length` says it is larger than `limit` before it is read. A
/// length that does not parse is left to the bytes themselves (HTTP has refused it already).
pub fn check_length(content_length: Option<&str>, limit: u64) -> Result<(), Refusal> {
    match content_length.and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(len) if len > limit => Err(Refusal::TooLarge(limit)),
        _ => Ok(()),
    }
}

/// Reads one posted body for the lake (`name` is the spool's name for it, `received_us` its
/// arrival, the profile's start unless the post gives one): it must be what `post.endpoint`
/// takes, of at most `max_bytes` (gunzipped). The same call at accept time and at the spool's
/// replay, so what replay writes is what was validated. A post never makes the server read a
/// file it names (source maps are off).
pub fn prepare_post(
    name: &str,
    received_us: i64,
    post: &Post,
    body: Vec<u8>,
    max_bytes: u64,
) -> Result<Prepared, Refusal> {
    let expected = post.endpoint.expected();
    if body.is_empty() {
        return Err(bad(format!("the body is empty: post {expected}")));
    }
    let options = PrepareOptions {
        source_maps: SourceMaps::off(),
        start_time_us: Some(post.start_us.unwrap_or(received_us)),
        max_bytes,
    };
    let mut prepared =
        crate::prepare(name, body, &post.labels, "ingest", &options).map_err(|e| match e {
            LakeError::TooLarge { limit, .. } => Refusal::TooLarge(limit),
            other => bad(format!("{other} (expected {expected})")),
        })?;
    match prepared.profiles.first().map(|p| p.kind) {
        Some(kind) if post.endpoint.kinds().contains(&kind) => {}
        Some(other) => return Err(bad(format!("{name}: expected {expected}, got a {other}"))),
        None => return Err(bad(format!("{name}: no profile in the body"))),
    }
    if let Some(thread) = &post.thread {
        for p in &mut prepared.profiles {
            p.thread = Some(thread.clone());
        }
    }
    Ok(prepared)
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
        let labels = |query: &[(String, String)], ua: &str, partition: Option<&str>| {
            post(Endpoint::SelfProfile, query, ua, partition).map(|p| p.labels)
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
        let post = Post::default();
        let empty = prepare_post("t.json", 0, &post, Vec::new(), 10).unwrap_err();
        assert!(empty.to_string().contains("empty"), "{empty}");
        let big = prepare_post("t.json", 0, &post, vec![b' '; 11], 10).unwrap_err();
        assert_eq!(big, Refusal::TooLarge(10));
        let junk = prepare_post("t.json", 0, &post, b"{\"frames\": [".to_vec(), 100);
        assert!(matches!(junk, Err(Refusal::BadRequest(_))), "{junk:?}");
    }

    /// Each row a profile window's query string and what it makes: the labels (the server's
    /// none but `source`, set by `prepare`), the thread column and the start, or the words of
    /// the refusal.
    #[test]
    fn profile_windows_take_their_parameters_by_the_table() {
        type Made = (
            &'static [(&'static str, &'static str)],
            Option<&'static str>,
            Option<i64>,
        );
        let ok = |labels, thread, start| Ok::<Made, &str>((labels, thread, start));
        let rows: &[(&str, Result<Made, &str>)] = &[
            ("key=k&service=shop", ok(&[("service", "shop")], None, None)),
            (
                "service=shop&version=1.4&host=web-1&pid=4242&thread=worker-3&label.region=eu",
                ok(
                    &[
                        ("host", "web-1"),
                        ("pid", "4242"),
                        ("region", "eu"),
                        ("service", "shop"),
                        ("version", "1.4"),
                    ],
                    Some("worker-3"),
                    None,
                ),
            ),
            (
                "service=s&thread=main&stall=1&stall_start_ms=812.5&stall_end_ms=1130&stall_ms=317.5",
                ok(
                    &[
                        ("service", "s"),
                        ("stall", "1"),
                        ("stall_end_ms", "1130"),
                        ("stall_ms", "317.5"),
                        ("stall_start_ms", "812.5"),
                    ],
                    Some("main"),
                    None,
                ),
            ),
            (
                "service=s&heap_used=1048576&heap_total=2097152&rss=52428800&external=0",
                ok(
                    &[
                        ("external", "0"),
                        ("heap_total", "2097152"),
                        ("heap_used", "1048576"),
                        ("rss", "52428800"),
                        ("service", "s"),
                    ],
                    None,
                    None,
                ),
            ),
            (
                "service=s&start_ms=1764374400123.4",
                ok(&[("service", "s")], None, Some(1_764_374_400_123_400)),
            ),
            ("version=1.4", Err("the `service` label is required")),
            ("service=%20", Err("the `service` label is required")),
            ("service=s&page=%2F", Err("unknown query parameter `page`: expected key, service,")),
            ("service=s&pid=-1", Err("`pid`: expected a whole number, got `-1`")),
            ("service=s&rss=1.5", Err("`rss`: expected a whole number")),
            ("service=s&heap_used=99999999999999999999", Err("below 2^64")),
            ("service=s&thread=worker", Err("`thread`: expected `main` or `worker-N`")),
            ("service=s&thread=worker-x", Err("`thread`: expected `main` or `worker-N`")),
            ("service=s&thread=main&thread=main", Err("`thread` given twice")),
            ("service=s&stall=yes", Err("`stall`: expected `1`")),
            ("service=s&stall_ms=-3", Err("`stall_ms`: expected milliseconds")),
            ("service=s&stall_start_ms=NaN", Err("`stall_start_ms`: expected milliseconds")),
            ("service=s&start_ms=inf", Err("`start_ms`: expected the window's wall-clock start")),
            ("service=s&start_ms=1e20", Err("`start_ms`: expected the window's wall-clock start")),
            ("service=s&start_ms=1&start_ms=2", Err("`start_ms` given twice")),
            ("service=s&service=t", Err("`service` given twice")),
            ("service=s&label.source=x", Err("label `source` is set by the server")),
            ("service=s&label.pid=x", Err("`pid` is a parameter of its own")),
            ("service=s&label.thread=x", Err("`thread` is a parameter of its own")),
            ("service=s&label.kind=x", Err("names a column of the lake's profiles")),
            ("service=s&label.a%2Fb=x", Err("a label name uses letters")),
        ];
        for (query, want) in rows {
            let pairs = query_pairs(query).unwrap();
            let got = post(Endpoint::Profile, &pairs, "node", None);
            match (want, got) {
                (Ok((labels, thread, start)), Ok(got)) => {
                    let labels: BTreeMap<String, String> = labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect();
                    assert_eq!(got.endpoint, Endpoint::Profile, "{query}");
                    assert_eq!(got.labels, labels, "{query}");
                    assert_eq!(got.thread.as_deref(), *thread, "{query}");
                    assert_eq!(got.start_us, *start, "{query}");
                }
                (Err(words), Err(Refusal::BadRequest(m))) => {
                    assert!(m.contains(words), "{query}: {m}")
                }
                (want, got) => panic!("{query}: wanted {want:?}, got {got:?}"),
            }
        }
        // Bounded as a browser's trace is: values and the number of labels.
        let long = format!("service={}", "x".repeat(MAX_LABEL_LEN + 1));
        let refused = post(Endpoint::Profile, &query_pairs(&long).unwrap(), "", None);
        assert!(refused
            .unwrap_err()
            .to_string()
            .contains("longer than 256 bytes"));
        let many: String = (0..MAX_LABELS).map(|i| format!("&label.l{i}=v")).collect();
        let refused = post(
            Endpoint::Profile,
            &query_pairs(&format!("service=s{many}")).unwrap(),
            "",
            None,
        );
        assert!(refused
            .unwrap_err()
            .to_string()
            .contains("at most 32 labels"));
        // The lake's partition label is checked as for a browser's trace.
        let poisoned = format!("service={}", "%2F".repeat(100));
        let refused = post(
            Endpoint::Profile,
            &query_pairs(&poisoned).unwrap(),
            "",
            Some("service"),
        );
        assert!(refused.unwrap_err().to_string().contains("255 bytes"));
    }

    const CPUPROFILE: &str = r#"{"nodes":[
        {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},
        {"id":2,"callFrame":{"functionName":"hot","scriptId":"1","url":"file:///app.js","lineNumber":3,"columnNumber":9},"hitCount":2}],
        "startTime":1000,"endTime":3000,"samples":[2,2],"timeDeltas":[0,1000]}"#;
    const HEAPPROFILE: &str = r#"{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[
        {"callFrame":{"functionName":"alloc","scriptId":"1","url":"file:///app.js","lineNumber":7,"columnNumber":2},"selfSize":4096,"id":2,"children":[]}]},
        "samples":[{"size":4096,"nodeId":2,"ordinal":1}]}"#;
    const SELFPROFILE: &str = r#"{"frames":[{"name":"f"}],"resources":[],"stacks":[{"frameId":0}],"samples":[{"timestamp":1,"stackId":0},{"timestamp":11}]}"#;

    /// Each endpoint reads its own kinds of body and names what it expected otherwise; a
    /// profile window gets its thread and start.
    #[test]
    fn each_endpoint_reads_its_own_bodies() {
        let window = post(
            Endpoint::Profile,
            &query_pairs("service=shop&thread=worker-1&start_ms=1764374400000").unwrap(),
            "",
            None,
        )
        .unwrap();
        let trace = Post::default();
        // (post, body, Ok((kind, weight unit)) or Err(words of the refusal))
        type Row<'a> = (&'a Post, &'a str, Result<(&'a str, &'a str), &'a str>);
        let rows: &[Row] = &[
            (&window, CPUPROFILE, Ok(("cpuprofile", "ns"))),
            (&window, HEAPPROFILE, Ok(("heapprofile", "bytes"))),
            (
                &window,
                SELFPROFILE,
                Err("a .heapprofile (sampling heap profile) JSON, got a selfprofile"),
            ),
            (
                &window,
                "{\"a\": 1}",
                Err("(expected a .cpuprofile or a .heapprofile"),
            ),
            (
                &window,
                "",
                Err("the body is empty: post a .cpuprofile or a .heapprofile"),
            ),
            (&trace, SELFPROFILE, Ok(("selfprofile", "ns"))),
            (
                &trace,
                CPUPROFILE,
                Err("`profiler.stop()` resolves to), got a cpuprofile"),
            ),
            (
                &trace,
                HEAPPROFILE,
                Err("expected a JS Self-Profiling trace"),
            ),
        ];
        for (i, (post, body, want)) in rows.iter().enumerate() {
            let got = prepare_post("w.json", 7, post, body.as_bytes().to_vec(), 1 << 20);
            match (want, got) {
                (Ok((kind, unit)), Ok(p)) => {
                    let profile = &p.profiles[0];
                    assert_eq!(
                        (profile.kind, profile.weight_unit),
                        (*kind, *unit),
                        "row {i}"
                    );
                    assert_eq!(p.labels["source"], "ingest", "row {i}");
                    assert_eq!(profile.thread, post.thread, "row {i}");
                    let start = post.start_us.unwrap_or(7);
                    assert_eq!(profile.start_time_us, Some(start), "row {i}");
                }
                (Err(words), Err(Refusal::BadRequest(m))) => {
                    assert!(m.contains(words), "row {i}: {m}")
                }
                (want, got) => panic!(
                    "row {i}: wanted {want:?}, got {:?}",
                    got.map(|p| p.profiles[0].kind)
                ),
            }
        }
        // A gzipped window reads as the plain one.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, CPUPROFILE.as_bytes()).unwrap();
        let zipped = prepare_post("w.json", 7, &window, gz.finish().unwrap(), 1 << 20).unwrap();
        let plain = prepare_post(
            "w.json",
            7,
            &window,
            CPUPROFILE.as_bytes().to_vec(),
            1 << 20,
        );
        assert_eq!(zipped.source_hash, plain.unwrap().source_hash);
    }

    /// A spool record written before there were two endpoints (no `endpoint` field) reads as a
    /// browser's trace.
    #[test]
    fn a_post_without_an_endpoint_is_a_browsers_trace() {
        let old: Post = serde_json::from_str(r#"{"labels": {"page": "/"}}"#).unwrap();
        assert_eq!(old.endpoint, Endpoint::SelfProfile);
        let window = Post {
            endpoint: Endpoint::Profile,
            labels: BTreeMap::from([("service".into(), "s".into())]),
            thread: Some("main".into()),
            start_us: Some(5),
        };
        let text = serde_json::to_string(&window).unwrap();
        assert!(text.contains(r#""endpoint":"profile""#), "{text}");
        assert_eq!(serde_json::from_str::<Post>(&text).unwrap(), window);
    }
}
