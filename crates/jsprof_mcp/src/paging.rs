//! Pages of a document's list under an item count and a byte budget.
//!
//! A tool computes its `jsprof_document` document (the one `--json` prints, usually with every
//! row) and hands it here with the name of its list. The answer is the document with the list cut
//! to one page, and a `page` object: `total` items, the `offset` and count `returned`, and
//! `next_cursor` with a sentence saying how to get the rest. The budget is in bytes of JSON
//! because that is what fills a model's context: rows are added while they fit, so the first
//! answer about a 450 MB snapshot is as small as one about a toy file.
//!
//! A cursor is opaque to the agent; inside, it is the offset and a fingerprint of the tool and
//! its other arguments, so a cursor given to another question is refused rather than silently
//! paging a different list.

use serde_json::{Map, Value};

use crate::error::{ToolError, ToolResult};
use crate::{Config, DEFAULT_ANSWER_BYTES, DEFAULT_ITEMS};

/// The paging arguments every listing tool takes.
#[derive(Clone, Debug, Default)]
pub struct PageArgs {
    pub cursor: Option<String>,
    pub max_items: Option<usize>,
    pub max_bytes: Option<usize>,
}

/// Names of the paging arguments, with their schemas, for the tools' input schemas.
pub fn schema_properties() -> Map<String, Value> {
    let mut p = Map::new();
    p.insert(
        "cursor".into(),
        serde_json::json!({"type": "string", "description": "`page.next_cursor` of the previous answer, to get the next page (same other arguments)"}),
    );
    p.insert(
        "max_items".into(),
        serde_json::json!({"type": "integer", "minimum": 1, "description": format!("Most items in this page (default {DEFAULT_ITEMS})")}),
    );
    p.insert(
        "max_bytes".into(),
        serde_json::json!({"type": "integer", "minimum": 1024, "description": format!("Most bytes of JSON in this answer (default {DEFAULT_ANSWER_BYTES})")}),
    );
    p
}

fn number(args: &mut Map<String, Value>, name: &str) -> ToolResult<Option<usize>> {
    match args.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&n| n > 0)
            .map(|n| Some(n as usize))
            .ok_or_else(|| {
                ToolError::BadRequest(format!("`{name}` must be a positive integer, not {v}"))
            }),
    }
}

/// Takes the paging arguments out of a call's arguments (the rest is the tool's own), checked
/// against the server's caps.
pub fn take(args: &mut Map<String, Value>, config: &Config) -> ToolResult<PageArgs> {
    let cursor = match args.remove("cursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(v) => {
            return Err(ToolError::BadRequest(format!(
                "`cursor` must be a string (a page's `next_cursor`), not {v}"
            )))
        }
    };
    let page = PageArgs {
        cursor,
        max_items: number(args, "max_items")?,
        max_bytes: number(args, "max_bytes")?,
    };
    if let Some(n) = page.max_items.filter(|&n| n > config.max_items) {
        return Err(ToolError::TooLarge(format!(
            "max_items {n} is over this server's cap of {}; page with `cursor` instead",
            config.max_items
        )));
    }
    if let Some(n) = page.max_bytes.filter(|&n| n > config.max_answer_bytes) {
        return Err(ToolError::TooLarge(format!(
            "max_bytes {n} is over this server's cap of {} bytes per answer; page with `cursor` instead",
            config.max_answer_bytes
        )));
    }
    Ok(page)
}

/// FNV-1a: a fingerprint of a question, stable across runs (cursors outlive nothing but the
/// server, yet a test may compare them).
pub fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// JSON text with object keys sorted at every level: the same question gives the same key.
pub fn canonical(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sort(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

/// The offset a cursor names for the question `question` (tool and arguments).
pub fn offset(page: &PageArgs, question: &str) -> ToolResult<usize> {
    let Some(cursor) = &page.cursor else {
        return Ok(0);
    };
    let bad = || {
        ToolError::BadRequest(format!(
            "bad cursor `{}`: pass a `next_cursor` from an answer to the same tool with the same arguments",
            cursor.escape_debug()
        ))
    };
    let (offset, print) = cursor
        .strip_prefix('c')
        .and_then(|c| c.split_once('.'))
        .ok_or_else(bad)?;
    let offset: usize = offset.parse().map_err(|_| bad())?;
    let print = u64::from_str_radix(print, 16).map_err(|_| bad())?;
    if print != fingerprint(question) {
        return Err(bad());
    }
    Ok(offset)
}

fn cursor(offset: usize, question: &str) -> String {
    format!("c{offset}.{:016x}", fingerprint(question))
}

/// Where the list lies in the document and which part of the whole it holds.
pub struct List<'a> {
    /// Keys from the document's root to the list.
    pub path: &'a [&'a str],
    /// Position of the list's first element among all items (0 when the list is whole).
    pub first: usize,
    /// Items in all.
    pub total: usize,
}

impl<'a> List<'a> {
    /// A list the document holds whole: `total` items at `path`.
    pub fn whole(path: &'a [&'a str], total: usize) -> List<'a> {
        List {
            path,
            first: 0,
            total,
        }
    }
}

fn list_mut<'v>(doc: &'v mut Value, path: &[&str]) -> Option<&'v mut Vec<Value>> {
    let mut at = doc;
    for key in path {
        at = at.get_mut(*key)?;
    }
    at.as_array_mut()
}

/// Warnings kept in an answer: the first few say what is wrong; the count says how much.
const WARNINGS_SHOWN: usize = 5;

/// Bytes of an answer besides its document and its text: the JSON-RPC envelope
/// (`{"jsonrpc":"2.0","id":…,"result":{"content":[{"type":"text","text":…}],"structuredContent":…,"isError":false}}`),
/// with room to spare.
pub const ENVELOPE_BYTES: usize = 192;

/// Rows of a page the text reads out; the rest of the page is in the structured content only.
pub const TEXT_ROWS: usize = 5;

/// The text block that goes with a page (the answer's `content`), counted in the same byte
/// budget as the JSON: a title line, a line for each of the page's first [`TEXT_ROWS`] rows, how
/// many more the page holds, how to get more, then `epilogue`. A summary of the document, not a
/// second copy of it.
pub struct Text<'a> {
    pub title: &'a str,
    /// The line of the list's item `i` (its index in the document's list).
    pub row: &'a mut dyn FnMut(usize, &Value) -> String,
    pub epilogue: &'a str,
}

/// A page: the document with its list cut, and its text.
pub struct Page {
    pub json: Value,
    pub text: String,
}

/// Bytes `text` takes inside a JSON string.
fn escaped_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(text.len(), |s| s.len() - 2)
}

/// Cuts `doc`'s list to the page starting at `offset`, within the budget: the answer on the
/// wire — the JSON document, its text, the envelope — holds `max_bytes` at most. `question`
/// identifies the tool and its arguments (for the cursor), `tool` names it in the hint.
pub fn paginate(
    mut doc: Value,
    list: List,
    page: &PageArgs,
    offset: usize,
    question: &str,
    tool: &str,
    text: Text,
) -> ToolResult<Page> {
    if offset > list.total {
        return Err(ToolError::BadRequest(format!(
            "the cursor points past the end ({offset} of {} items)",
            list.total
        )));
    }
    let max_items = page.max_items.unwrap_or(DEFAULT_ITEMS);
    let max_bytes = page.max_bytes.unwrap_or(DEFAULT_ANSWER_BYTES);
    let items: Vec<Value> = match list_mut(&mut doc, list.path) {
        Some(v) => std::mem::take(v),
        None => {
            return Err(ToolError::Internal(format!(
                "the document has no list at {}",
                list.path.join(".")
            )))
        }
    };
    let from = offset - list.first.min(offset);
    let available = items.len().saturating_sub(from);
    if let Some(warnings) = doc.get_mut("warnings").and_then(Value::as_array_mut) {
        if warnings.len() > WARNINGS_SHOWN {
            let omitted = warnings.len() - WARNINGS_SHOWN;
            warnings.truncate(WARNINGS_SHOWN);
            doc["warnings_omitted"] = omitted.into();
        }
    }
    // The answer without rows, with the longest page object it can have.
    let page_json = |returned: usize| -> Value {
        let end = offset + returned;
        let next = (end < list.total).then(|| cursor(end, question));
        let more = match &next {
            Some(c) => format!(
                "{} more: call {tool} again with the same arguments and cursor \"{c}\", or raise max_items / max_bytes",
                list.total - end
            ),
            None => "this is the last page".to_string(),
        };
        serde_json::json!({
            "list": list.path.join("."),
            "total": list.total,
            "offset": offset,
            "returned": returned,
            "next_cursor": next,
            "more": more,
        })
    };
    doc["page"] = page_json(0);
    // The title line's numbers take at most 3 × 20 digits; the line counting the rows the text
    // leaves out, 60 bytes with its number.
    let fixed_text = escaped_len(text.title)
        + 140
        + escaped_len(doc["page"]["more"].as_str().unwrap_or(""))
        + escaped_len(text.epilogue);
    let fixed = doc.to_string().len() + fixed_text + ENVELOPE_BYTES;
    let mut size = fixed;
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut skipped_first = Value::Null;
    for (i, item) in items
        .into_iter()
        .enumerate()
        .skip(from)
        .take(max_items.min(available))
    {
        let line = (lines.len() < TEXT_ROWS).then(|| (text.row)(i, &item));
        // The row in the list, its comma; its line, indented, with its escaped newline.
        let len = item.to_string().len() + 1 + line.as_deref().map_or(0, |l| escaped_len(l) + 4);
        if size + len > max_bytes {
            if rows.is_empty() {
                skipped_first = item;
            }
            break;
        }
        size += len;
        rows.push(item);
        lines.extend(line);
    }
    let mut cuts = Vec::new();
    if rows.is_empty() && available > 0 {
        // One item larger than the whole budget: it comes with its longest lists cut (and said
        // so), rather than as an error an agent cannot get past without guessing a budget.
        let mut item = std::mem::take(&mut skipped_first);
        let line = (text.row)(from, &item);
        let room = max_bytes.saturating_sub(fixed + escaped_len(&line) + 4 + 1);
        cuts = cut_to_fit(&mut item, room);
        if item.to_string().len() + cut_note_bytes(&cuts) > room {
            return Err(ToolError::TooLarge(format!(
                "the next item does not fit in max_bytes {max_bytes} even with its lists cut (the answer without rows is {fixed} bytes); ask again with a larger max_bytes"
            )));
        }
        rows.push(item);
        lines.push(line);
    }
    let returned = rows.len();
    *list_mut(&mut doc, list.path).expect("the list was found above") = rows;
    doc["page"] = page_json(returned);
    if !cuts.is_empty() {
        doc["page"]["cut"] = Value::Array(cuts);
    }
    let text = page_text(&doc["page"], text.title, lines, text.epilogue);
    Ok(Page { json: doc, text })
}

/// The notes of the lists cut in `item`: each path, the items it keeps and how many it had.
fn cut_notes(item: &Value, totals: &[(String, usize)]) -> Vec<Value> {
    totals
        .iter()
        .map(|(path, total)| {
            let kept = item
                .pointer(path)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            serde_json::json!({"path": path, "kept": kept, "total": total})
        })
        .collect()
}

/// Bytes the notes take in the answer: `page.cut` in the JSON and their line in the text.
fn cut_note_bytes(cuts: &[Value]) -> usize {
    if cuts.is_empty() {
        return 0;
    }
    ",\"cut\":".len() + Value::Array(cuts.to_vec()).to_string().len() + escaped_len(&cut_text(cuts))
}

/// The text line saying which lists of an item were cut to fit.
fn cut_text(cuts: &[Value]) -> String {
    let said: Vec<String> = cuts
        .iter()
        .map(|c| {
            let path = c["path"].as_str().unwrap_or("");
            format!("{path} {} of {}", c["kept"], c["total"])
        })
        .collect();
    format!(
        "  (cut to fit max_bytes: {}; a larger max_bytes gives it whole)\n",
        said.join(", ")
    )
}

/// Cuts the longest lists inside `item` (halving the one with the most bytes, again and again)
/// until it and the notes saying so take at most `room` bytes, or nothing is left to cut;
/// returns the notes ([`cut_notes`]).
fn cut_to_fit(item: &mut Value, room: usize) -> Vec<Value> {
    let mut totals: Vec<(String, usize)> = Vec::new();
    while item.to_string().len() + cut_note_bytes(&cut_notes(item, &totals)) > room {
        let Some((path, len)) = longest_list(item, String::new()) else {
            break;
        };
        if !totals.iter().any(|(p, _)| *p == path) {
            totals.push((path.clone(), len));
        }
        if let Some(Value::Array(a)) = item.pointer_mut(&path) {
            a.truncate(len / 2);
        }
    }
    cut_notes(item, &totals)
}

/// The JSON pointer and length of the non-empty array under `v` (at pointer `at`) whose JSON
/// is longest.
fn longest_list(v: &Value, at: String) -> Option<(String, usize)> {
    longest(v, at).map(|(_, path, len)| (path, len))
}

/// [`longest_list`] with the array's JSON length first. The JSON length of a value is its
/// serialized length, computed once per array here (a parent list is always at least as long
/// as any list inside it, so the outermost lists are cut first).
fn longest(v: &Value, at: String) -> Option<(usize, String, usize)> {
    let better = |a: Option<(usize, String, usize)>, b: Option<(usize, String, usize)>| match (a, b)
    {
        (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
        (a, b) => a.or(b),
    };
    match v {
        // A list of one is emptied only when nothing inside its item can be cut.
        Value::Array(a) if a.len() == 1 => {
            let inner = longest(&a[0], format!("{at}/0"));
            inner.or_else(|| Some((v.to_string().len(), at, 1)))
        }
        Value::Array(a) if !a.is_empty() => Some((v.to_string().len(), at, a.len())),
        Value::Object(m) => m.iter().fold(None, |best, (k, x)| {
            let key = k.replace('~', "~0").replace('/', "~1");
            better(best, longest(x, format!("{at}/{key}")))
        }),
        _ => None,
    }
}

/// The text of a page (its `page` object `p`): a title line, a line per row, how to get more,
/// and the epilogue.
fn page_text(p: &Value, title: &str, rows: Vec<String>, epilogue: &str) -> String {
    let offset = p["offset"].as_u64().unwrap_or(0);
    let returned = p["returned"].as_u64().unwrap_or(0);
    let mut text = format!(
        "{title}: items {}–{} of {}\n",
        offset + u64::from(returned > 0),
        offset + returned,
        p["total"]
    );
    let read_out = rows.len() as u64;
    for row in rows {
        text.push_str("  ");
        text.push_str(&row);
        text.push('\n');
    }
    if returned > read_out {
        text.push_str(&format!(
            "  … {} more on this page (structured content)\n",
            returned - read_out
        ));
    }
    if let Some(cuts) = p.get("cut").and_then(Value::as_array) {
        text.push_str(&cut_text(cuts));
    }
    if let Some(more) = p["more"].as_str() {
        text.push_str(more);
    }
    text.push_str(epilogue);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_item_over_the_budget_has_its_longest_lists_cut_and_says_so() {
        let rows: Vec<Value> = (0..400)
            .map(|i| json!({"url": format!("https://a.test/{i}")}))
            .collect();
        let mut item = json!({
            "id": "NAVIGATION_0",
            "lcp_ms": 897.65,
            "insights": {"requests": rows, "shifts": [1, 2, 3]},
            "one": [{"inner": (0..300).collect::<Vec<u32>>()}],
        });
        let cuts = cut_to_fit(&mut item, 1_200);
        // The notes saying what was cut count in the room too.
        let taken = item.to_string().len() + cut_note_bytes(&cuts);
        assert!(taken <= 1_200, "{taken}");
        // The numbers stay; the lists are cut, outermost and longest first, each cut said.
        assert_eq!(item["id"], "NAVIGATION_0");
        assert_eq!(item["lcp_ms"], 897.65);
        let requests = cuts
            .iter()
            .find(|c| c["path"] == "/insights/requests")
            .unwrap();
        assert_eq!(requests["total"], 400);
        assert_eq!(
            requests["kept"],
            item["insights"]["requests"].as_array().unwrap().len()
        );
        // A list of one is not emptied while its item has a list to cut.
        let inner = cuts
            .iter()
            .find(|c| c["path"] == "/one/0/inner")
            .unwrap_or_else(|| panic!("{cuts:?} {item}"));
        assert_eq!(inner["total"], 300);
        assert_eq!(item["one"].as_array().unwrap().len(), 1);
        // The short list was never the longest: untouched.
        assert_eq!(item["insights"]["shifts"], json!([1, 2, 3]));
        // Already within the budget: nothing cut.
        let mut small = json!({"a": [1, 2]});
        assert!(cut_to_fit(&mut small, 100).is_empty());
    }
}
