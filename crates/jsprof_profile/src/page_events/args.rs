//! Reading fields out of an event's parsed `args`: the paths DevTools' handlers follow, with its
//! leniency (a missing or mistyped field reads as none).

use serde_json::Value;

use super::CallFrame;

pub(super) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

pub(super) fn f64_at(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

pub(super) fn bool_at(v: &Value, path: &[&str]) -> bool {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The string at `path` as an owned string, when there is one.
pub(super) fn owned_at(v: &Value, path: &[&str]) -> Option<String> {
    str_at(v, path).map(str::to_string)
}

/// The string or empty.
pub(super) fn string(v: Option<&str>) -> String {
    v.unwrap_or_default().to_string()
}

/// A JavaScript call frame as the args write it; `None` without a url, line or column.
pub(super) fn call_frame(v: &Value) -> Option<CallFrame> {
    let n = |k: &str| v.get(k).and_then(Value::as_i64);
    Some(CallFrame {
        function: string(str_at(v, &["functionName"])),
        url: str_at(v, &["url"])?.to_string(),
        script_id: match v.get("scriptId") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        },
        line: n("lineNumber")?,
        column: n("columnNumber")?,
    })
}

/// The URLs of `v.stackTrace`'s frames.
pub(super) fn stack_urls(v: &Value) -> Vec<String> {
    v.get("stackTrace")
        .and_then(Value::as_array)
        .map(|s| s.iter().map(|f| string(str_at(f, &["url"]))).collect())
        .unwrap_or_default()
}

/// The frame an event names: `frame`, else `data.frame`, else `data.page`.
pub(super) fn frame_of(args: &Value) -> String {
    string(
        str_at(args, &["frame"])
            .or(str_at(args, &["data", "frame"]))
            .or(str_at(args, &["data", "page"])),
    )
}
