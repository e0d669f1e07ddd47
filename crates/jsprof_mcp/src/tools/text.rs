//! The text form of the tools' answers: a title line, a row per item, and the units people read
//! (bytes as the CLI writes them, 1 KB = 1,024 B).

use serde_json::Value;

pub(super) fn list_len(doc: &Value, path: &[&str]) -> usize {
    let mut at = doc;
    for key in path {
        at = &at[*key];
    }
    at.as_array().map_or(0, Vec::len)
}

/// The text form of a page: a title line, a line per row, and how to get more.
pub(super) fn render(doc: &Value, path: &[&str], title: &str, row: fn(&Value) -> String) -> String {
    let mut at = doc;
    for key in path {
        at = &at[*key];
    }
    let p = &doc["page"];
    let mut text = format!(
        "{title}: items {}–{} of {}\n",
        p["offset"].as_u64().unwrap_or(0) + u64::from(p["returned"].as_u64().unwrap_or(0) > 0),
        p["offset"].as_u64().unwrap_or(0) + p["returned"].as_u64().unwrap_or(0),
        p["total"]
    );
    for item in at.as_array().into_iter().flatten() {
        text.push_str("  ");
        text.push_str(&row(item));
        text.push('\n');
    }
    if let Some(more) = p["more"].as_str() {
        text.push_str(more);
    }
    text
}

pub fn fmt_ms(v: &Value) -> String {
    v.as_f64().map_or("?".into(), |ms| format!("{ms:.2} ms"))
}

/// Bytes as the CLI writes them (1 KB = 1,024 B: `jsprof_document::units`).
pub fn fmt_bytes(v: &Value) -> String {
    v.as_f64()
        .map_or("?".into(), jsprof_document::units::fmt_bytes)
}

pub(super) fn name_of(v: &Value) -> String {
    match v["name"].as_str() {
        Some("") | None => "(anonymous)".into(),
        Some(n) => n.into(),
    }
}

pub(super) fn location(v: &Value) -> String {
    let url = v["url"].as_str().unwrap_or("");
    match v["line"].as_u64() {
        Some(line) => format!("{url}:{line}:{}", v["column"].as_u64().unwrap_or(0)),
        None => url.into(),
    }
}

pub(super) fn weight_row(v: &Value) -> String {
    let (s, t) = if v.get("self_ms").is_some() {
        (fmt_ms(&v["self_ms"]), fmt_ms(&v["total_ms"]))
    } else {
        (fmt_bytes(&v["self_bytes"]), fmt_bytes(&v["total_bytes"]))
    };
    format!(
        "self {s} ({:.1}%), total {t} ({:.1}%)",
        v["self_percent"].as_f64().unwrap_or(0.0),
        v["total_percent"].as_f64().unwrap_or(0.0)
    )
}

pub(super) fn object_row(o: &Value) -> String {
    format!(
        "@{} {} ({}): self {}, retained {}, distance {}",
        o["id"],
        o["name"].as_str().unwrap_or(""),
        o["class"].as_str().or(o["type"].as_str()).unwrap_or(""),
        fmt_bytes(&o["self_size"]),
        fmt_bytes(&o["retained_size"]),
        o["distance"]
    )
}

pub(super) fn event_row(e: &Value) -> String {
    format!(
        "{} {} {}..{} self {} total {}{}",
        e["type"].as_str().unwrap_or(""),
        name_of(e),
        fmt_ms(&e["start_ms"]),
        fmt_ms(&e["end_ms"]),
        fmt_ms(&e["self_ms"]),
        fmt_ms(&e["total_ms"]),
        e["id"]
            .as_u64()
            .map_or(String::new(), |id| format!(" (id {id})"))
    )
}
