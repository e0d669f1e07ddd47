//! The text form of the tools' answers: a title line, a row per item, and the units people read
//! (bytes as the CLI writes them, 1 KB = 1,024 B).

use jsprof_document::diff::DiffFunctionJson;
use jsprof_document::events::EventJson;
use jsprof_document::heap::ObjectJson;
use jsprof_document::top::FunctionJson;
use jsprof_document::tree::NodeJson;
use jsprof_document::WeightsJson;
use serde_json::Value;

pub(super) fn list_len(doc: &Value, path: &[&str]) -> usize {
    let mut at = doc;
    for key in path {
        at = &at[*key];
    }
    at.as_array().map_or(0, Vec::len)
}

/// Milliseconds as the CLI writes them (`jsprof_document::units`); `?` for none.
pub(super) fn ms(v: Option<f64>) -> String {
    v.map_or("?".into(), jsprof_document::units::fmt_ms)
}

/// Bytes as the CLI writes them (1 KB = 1,024 B: `jsprof_document::units`); `?` for none.
pub(super) fn bytes(v: Option<f64>) -> String {
    v.map_or("?".into(), jsprof_document::units::fmt_bytes)
}

/// A size in bytes, as [`bytes`] writes it.
pub(super) fn size(v: u64) -> String {
    bytes(Some(v as f64))
}

/// A function's name, `(anonymous)` for the empty one.
pub(super) fn name(n: &str) -> &str {
    if n.is_empty() {
        "(anonymous)"
    } else {
        n
    }
}

/// `url:line:column`, or the URL alone when the line is unknown.
pub(super) fn place(url: &str, line: Option<u32>, column: Option<u32>) -> String {
    match line {
        Some(line) => format!("{url}:{line}:{}", column.unwrap_or(0)),
        None => url.into(),
    }
}

/// Self and total of a row of `top` or `tree`, in its unit, with their percentages.
pub(super) fn weights(w: &WeightsJson) -> String {
    let (s, t) = if w.self_ms.is_some() {
        (ms(w.self_ms), ms(w.total_ms))
    } else {
        let b = |v: Option<i64>| bytes(v.map(|b| b as f64));
        (b(w.self_bytes), b(w.total_bytes))
    };
    format!(
        "self {s} ({:.1}%), total {t} ({:.1}%)",
        w.self_percent, w.total_percent
    )
}

/// Self and total of a sandwich's function or node, in its unit.
pub(super) fn self_total(w: &WeightsJson) -> String {
    let (s, t) = if w.total_bytes.is_some() {
        let b = |v: Option<i64>| bytes(v.map(|b| b as f64));
        (b(w.self_bytes), b(w.total_bytes))
    } else {
        (ms(w.self_ms), ms(w.total_ms))
    };
    format!("self {s}, total {t}")
}

/// A function of `cpu_diff`: its change of self and total.
pub(super) fn diff_row(f: &DiffFunctionJson) -> String {
    if f.delta_self_ms.is_some() {
        format!(
            "{} Δself {} Δtotal {} ({:+.1}%)",
            name(&f.name),
            ms(f.delta_self_ms),
            ms(f.delta_total_ms),
            f.delta_total_percent.unwrap_or(0.0)
        )
    } else {
        let b = |v: Option<i64>| bytes(v.map(|b| b as f64));
        format!(
            "{} Δself {} Δtotal {}",
            name(&f.name),
            b(f.delta_self_bytes),
            b(f.delta_total_bytes)
        )
    }
}

/// A row of `top`.
pub(super) fn function_row(f: &FunctionJson) -> String {
    format!(
        "{} {} — {}",
        name(&f.name),
        weights(&f.weights),
        place(&f.url, f.line, f.column)
    )
}

/// A node of `tree`, indented by its depth.
pub(super) fn node_row(n: &&NodeJson) -> String {
    format!(
        "{}[{}] {} {}",
        "  ".repeat(n.depth as usize),
        n.id,
        name(&n.function.name),
        weights(&n.function.weights)
    )
}

/// An object's distance as the CLI's text writes it (`−` when only the GC roots or nothing
/// reach it; JSON's `null`).
use jsprof_document::heap::distance_text as distance;

/// A heap object: id, name, class, sizes and distance.
pub(super) fn object_row(o: &ObjectJson) -> String {
    let ObjectJson {
        id, name, class, ..
    } = o;
    let mut row = object_head(*id, name, class, o.self_size, o.retained_size, o.distance);
    // Where its function is, and the source map's original (as heap_summary's classes).
    if let Some(at) = &o.location {
        row.push_str(&format!(", at {at}"));
    }
    row.push_str(&in_source(&o.original));
    row
}

/// `; in the source: NAME at url:line:column` where a source map placed a class, an object or a
/// function; empty where none did.
pub(super) fn in_source(o: &jsprof_document::heap::InSource) -> String {
    match (&o.source_name, &o.source_location) {
        (Some(name), Some(at)) => format!("; in the source: {name} at {at}"),
        (None, Some(at)) => format!("; in the source: at {at}"),
        _ => String::new(),
    }
}

/// The line that opens every heap object's description: `@id name (what): sizes, distance`.
pub(super) fn object_head(
    id: u32,
    name: &str,
    what: &str,
    self_size: u64,
    retained: u64,
    d: i32,
) -> String {
    format!(
        "@{id} {name} ({what}): self {}, retained {}, distance {}",
        size(self_size),
        size(retained),
        distance(d)
    )
}

/// An event of `events` or `flame_chart`.
pub(super) fn event_row(e: &EventJson) -> String {
    format!(
        "{} {} {}..{} self {} total {}{}",
        e.kind,
        name(&e.name),
        ms(e.start_ms),
        ms(e.end_ms),
        ms(Some(e.self_ms)),
        ms(Some(e.total_ms)),
        e.id.map_or(String::new(), |id| format!(" (id {id})"))
    )
}
