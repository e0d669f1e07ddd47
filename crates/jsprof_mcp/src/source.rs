//! The `source` tool: where a function is and the code around it. Positions come from `top`'s
//! rows, which the load pipeline has already moved to the original source where a local source
//! map was found; the lines are read only from files under a `--root`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use jsprof_document::filters::FilterSpec;
use jsprof_document::load::ViewSpec;
use serde_json::{json, Value};

use crate::error::{ToolError, ToolResult};
use crate::tools::{Answer, Question, SourceArgs};

/// Bytes of a source file read at most: generated bundles can be huge, and only a few lines
/// near the function are wanted.
const MAX_SOURCE_BYTES: u64 = 64 << 20;
const MAX_CONTEXT: u32 = 50;
const MAX_LINE_CHARS: usize = 400;

/// The local file a profile's URL names: `file://` URLs, absolute paths, and paths relative to
/// the artifact's directory. Anything with another scheme (http, node:, webpack:) is not read.
fn local_path(url: &str, artifact: &Path) -> Option<PathBuf> {
    if let Some(rest) = url.strip_prefix("file://") {
        return Some(PathBuf::from(rest.replace("%20", " ")));
    }
    if url.is_empty() || url.contains("://") || url.starts_with("node:") {
        return None;
    }
    let p = Path::new(url);
    if p.is_absolute() {
        return Some(p.to_path_buf());
    }
    artifact.parent().map(|d| d.join(p))
}

/// Lines `line - context ..= line + context` (1-based) of `path`.
fn lines_around(path: &Path, line: u32, context: u32) -> std::io::Result<Vec<Value>> {
    let file = std::fs::File::open(path)?;
    let reader = BufReader::new(file.take(MAX_SOURCE_BYTES));
    let first = line.saturating_sub(context).max(1);
    let last = line.saturating_add(context);
    let mut out = Vec::new();
    for (i, text) in reader.split(b'\n').enumerate() {
        let n = i as u32 + 1;
        if n > last {
            break;
        }
        let text = text?;
        if n >= first {
            let text = String::from_utf8_lossy(&text);
            let text: String = text
                .trim_end_matches('\r')
                .chars()
                .take(MAX_LINE_CHARS)
                .collect();
            out.push(json!({"line": n, "text": text}));
        }
    }
    Ok(out)
}

pub async fn source(q: Question<'_>, args: SourceArgs) -> ToolResult<Answer> {
    let context = args.context.unwrap_or(5);
    if context > MAX_CONTEXT {
        return Err(ToolError::TooLarge(format!(
            "context {context} is over the cap of {MAX_CONTEXT} lines each side"
        )));
    }
    let entry = q.store.get(&args.handle)?;
    let input = q.store.cpu(&entry, &FilterSpec::default()).await?;
    // `top`'s own document (every row, by self), so the times are top's.
    let key = format!(
        "top {}",
        crate::page::canonical(&json!({"handle": args.handle}))
    );
    let doc = q
        .store
        .document(key, move || {
            let weighted = input.weighted(&ViewSpec::default())?;
            let view =
                jsprof_document::top::view(&weighted, jsprof_document::top::By::SelfWeight, 0);
            serde_json::to_value(jsprof_document::top::report(&weighted, &view))
                .map_err(|e| ToolError::Internal(e.to_string()))
        })
        .await?;
    let wanted = |f: &&Value| {
        f["name"].as_str() == Some(args.function.as_str())
            && args
                .url
                .as_deref()
                .is_none_or(|u| f["url"].as_str().is_some_and(|url| url.contains(u)))
    };
    let matches: Vec<Value> = doc["functions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(wanted)
        .cloned()
        .collect();
    if matches.is_empty() {
        return Err(ToolError::NotFound(format!(
            "{}: no function named `{}`{} in the profile (names are as `top` prints them)",
            entry.name,
            args.function.escape_debug(),
            args.url.as_deref().map_or(String::new(), |u| format!(
                " with `{}` in its URL",
                u.escape_debug()
            ))
        )));
    }
    let mut functions = Vec::new();
    for mut f in matches {
        let url = f["url"].as_str().unwrap_or("").to_string();
        let line = f["line"].as_u64().map(|l| l as u32);
        let file = local_path(&url, &entry.path);
        let (path, note) = match (&file, line) {
            (None, _) => (None, Some("the URL names no local file".to_string())),
            (Some(_), None) => (None, Some("the function's line is unknown".to_string())),
            (Some(p), Some(_)) => match q.store.confine(&p.display().to_string()) {
                Ok(p) => (Some(p), None),
                Err(e) => (None, Some(e.to_string())),
            },
        };
        f["file"] = path
            .as_ref()
            .map_or(Value::Null, |p| p.display().to_string().into());
        match (path, line) {
            (Some(p), Some(line)) => match lines_around(&p, line, context) {
                Ok(lines) => f["lines"] = lines.into(),
                Err(e) => f["lines_note"] = format!("cannot read {}: {e}", p.display()).into(),
            },
            _ => f["lines_note"] = note.unwrap_or_default().into(),
        }
        functions.push(f);
    }
    let doc = json!({
        "kind": doc["kind"],
        "warnings": doc["warnings"],
        "functions": functions,
    });
    let mut answer = q.paged(doc, &["functions"], "functions", |f| {
        let mut text = format!(
            "{} at {}:{}:{}",
            f["name"].as_str().unwrap_or(""),
            f["url"].as_str().unwrap_or(""),
            f["line"],
            f["column"]
        );
        for l in f["lines"].as_array().into_iter().flatten() {
            text.push_str(&format!(
                "\n    {:>5} | {}",
                l["line"],
                l["text"].as_str().unwrap_or("")
            ));
        }
        if let Some(note) = f["lines_note"].as_str() {
            text.push_str(&format!(" ({note})"));
        }
        text
    })?;
    answer.text = answer.text.trim_end().to_string();
    Ok(answer)
}
