//! The `source` tool: where a function is and the code around it. Positions come from `top`'s
//! rows, which the load pipeline has already moved to the original source where a local source
//! map was found; the lines are read only from files under a `--root`. Each function also gets
//! its per-line self time (`jsprof lines --json`'s numbers, DevTools' Sources gutter).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use jsprof_document::filters::FilterSpec;
use jsprof_document::lines::{NoSource, Select};
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

/// Lines `line - context ..= line + context` (1-based) of `file`.
fn lines_around(file: &std::fs::File, line: u32, context: u32) -> std::io::Result<Vec<Value>> {
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
    let lines_input = input.clone();
    // `top`'s own document (every row, by self), so the times are top's.
    let key = format!(
        "top {}",
        crate::paging::canonical(&json!({"handle": args.handle}))
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
    let costs = line_costs(lines_input, matches.clone()).await?;
    let mut functions = Vec::new();
    for (mut f, cost) in matches.into_iter().zip(costs) {
        let url = f["url"].as_str().unwrap_or("").to_string();
        let line = f["line"].as_u64().map(|l| l as u32);
        let file = local_path(&url, &entry.path);
        let (path, note) = match (&file, line) {
            (None, _) => (None, Some("the URL names no local file".to_string())),
            (Some(_), None) => (None, Some("the function's line is unknown".to_string())),
            // Opened once, inside the roots, and read through that handle.
            (Some(p), Some(_)) => match q.store.open_file(&p.display().to_string()) {
                Ok(checked) => (Some(checked), None),
                Err(e) => (None, Some(e.to_string())),
            },
        };
        f["file"] = path
            .as_ref()
            .map_or(Value::Null, |c| c.canonical.display().to_string().into());
        match (path, line) {
            (Some(c), Some(line)) => match lines_around(c.file(), line, context) {
                Ok(lines) => f["lines"] = lines.into(),
                Err(e) => {
                    f["lines_note"] = format!("cannot read {}: {e}", c.canonical.display()).into()
                }
            },
            _ => f["lines_note"] = note.unwrap_or_default().into(),
        }
        add_costs(&mut f, cost);
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
        if let Some(ms) = f["lines_self_ms"].as_f64() {
            // A trace's line costs are samples' intervals, a .cpuprofile's V8's line ticks.
            let what = if f["line_source"] == "sample_lines" {
                "samples with a line"
            } else {
                "line ticks"
            };
            text.push_str(&format!(
                " ({} {what} = {ms:.3} ms)",
                f["ticks"].as_u64().unwrap_or(0)
            ));
        }
        for l in f["lines"].as_array().into_iter().flatten() {
            let cost = l["self_ms"]
                .as_f64()
                .filter(|_| l["ticks"].as_u64().unwrap_or(0) > 0)
                .map_or(String::new(), |ms| format!("{ms:.3} ms"));
            text.push_str(&format!(
                "\n    {cost:>11} {:>5} | {}",
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

/// Per function, its lines' self time from `jsprof_document::lines` (the numbers alone: the text
/// is read above, under the roots), or why there is none.
async fn line_costs(
    input: std::sync::Arc<jsprof_document::load::CpuInput>,
    functions: Vec<Value>,
) -> ToolResult<Vec<Result<Costs, String>>> {
    tokio::task::spawn_blocking(move || {
        let weighted = input.weighted(&ViewSpec {
            samples: true,
            ..ViewSpec::default()
        });
        functions
            .iter()
            .map(|f| {
                let weighted = weighted.as_ref().map_err(|e| e.to_string())?;
                let select = Select::Exact {
                    name: f["name"].as_str().unwrap_or("").to_string(),
                    url: f["url"].as_str().unwrap_or("").to_string(),
                    line: f["line"].as_u64().map(|l| l as u32),
                    column: f["column"].as_u64().map(|c| c as u32),
                };
                let doc = jsprof_document::lines::report(weighted, &select, 0, &mut NoSource)
                    .map_err(|e| e.to_string())?;
                match doc.note {
                    Some(note) => Err(note),
                    None => doc
                        .functions
                        .into_iter()
                        .next()
                        .map(|lines| (lines, doc.line_source))
                        .ok_or_else(|| "no such function in the samples".to_string()),
                }
            })
            .collect()
    })
    .await
    .map_err(|e| ToolError::Internal(e.to_string()))
}

/// A function's line costs and where they come from (the document's `line_source`:
/// `position_ticks` or a trace's `sample_lines`).
type Costs = (jsprof_document::lines::FunctionLines, Option<&'static str>);

/// Puts a function's line costs beside its text: `line_source`, `ticks`, `lines_self_ms`,
/// `hottest_line`, `line_costs` (the ticked lines) and each shown line's `ticks`/`self_ms`.
fn add_costs(f: &mut Value, cost: Result<Costs, String>) {
    let cost = match cost {
        Ok((c, source)) => {
            f["line_source"] = source.into();
            c
        }
        Err(why) => {
            f["line_costs_note"] = why.into();
            return;
        }
    };
    f["ticks"] = cost.ticks.into();
    f["lines_self_ms"] = cost.lines_self_ms.into();
    f["hottest_line"] = cost.hottest_line.into();
    if let Some(lines) = f["lines"].as_array_mut() {
        for l in lines {
            let n = l["line"].as_u64();
            let c = cost.lines.iter().find(|c| Some(u64::from(c.line)) == n);
            l["ticks"] = c.map_or(0, |c| c.ticks).into();
            l["self_ms"] = c.map_or(0.0, |c| c.self_ms).into();
        }
    }
    f["line_costs"] = serde_json::to_value(&cost.lines).unwrap_or_default();
}
