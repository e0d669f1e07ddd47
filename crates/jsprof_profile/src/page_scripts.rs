//! The scripts a page ran, as DevTools' trace engine gathers them (`ScriptsHandler`): V8's
//! source rundown names each script (`ScriptCatchup` in `…v8-source-rundown`: its url and
//! source map url) and writes its source text (`ScriptCatchup` in `…v8-source-rundown-sources`,
//! or `LargeScriptCatchup` pieces to append); the target rundown (`ScriptCompiled`) says which
//! frame compiled it; `FunctionCall`s tell the frame of an isolate for scripts that lack one.
//! Scripts are keyed by isolate and script id; a later event about the same script overwrites
//! what an earlier one said, as the engine's do.
//!
//! The source text is the one large thing kept (the legacy-JavaScript insight reads it): it is
//! decoded from the event's JSON string once and moved here, never copied again.

use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

use crate::page_events::Stamp;

const TARGET_RUNDOWN: &str = "disabled-by-default-devtools.target-rundown";
const SOURCE_RUNDOWN: &str = "disabled-by-default-devtools.v8-source-rundown";
const SOURCE_RUNDOWN_SOURCES: &str = "disabled-by-default-devtools.v8-source-rundown-sources";

/// One script, as the engine's `Script`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    /// The isolate, as its JSON text gives it (a string in Chrome's traces).
    pub isolate: String,
    pub script_id: String,
    /// The frame that compiled it; empty when the trace does not say.
    pub frame: String,
    /// The last rundown event about it (ns), or the first event's when there was none.
    pub ts: i64,
    pub url: Option<String>,
    /// `//# sourceURL=`.
    pub source_url: Option<String>,
    /// `//# sourceMappingURL=`, as written (not resolved against the script's url).
    pub source_map_url: Option<String>,
    /// Chrome left the source map url out (it keeps data: URLs out of traces).
    pub source_map_url_elided: bool,
    /// The source text; `None` when the trace has none (the sources category was off).
    pub content: Option<String>,
}

/// A source map DevTools saved with the trace (`metadata.sourceMaps`): for the script at `url`
/// (when Chrome elided its map's url) or for the map at `source_map_url`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataSourceMap {
    pub url: Option<String>,
    pub source_map_url: Option<String>,
    /// The map itself, as the trace holds it.
    pub source_map: Value,
}

#[derive(serde::Deserialize)]
struct MetadataIn {
    #[serde(rename = "sourceMaps")]
    source_maps: Option<Vec<Value>>,
}

/// The scripts of a trace, in the order the engine first saw them.
#[derive(Clone, Debug, Default)]
pub struct Scripts {
    pub list: Vec<Script>,
    /// The trace's `metadata.sourceMaps`, in order.
    pub metadata_maps: Vec<MetadataSourceMap>,
    by_key: HashMap<(String, String), usize>,
    frame_by_isolate: HashMap<String, String>,
}

/// Whether [`Scripts::push`] reads an event of this name and category.
pub fn wanted(name: &str, cat: &str) -> bool {
    cat == TARGET_RUNDOWN
        || ((name == "ScriptCatchup" || name == "LargeScriptCatchup")
            && (cat == SOURCE_RUNDOWN || cat == SOURCE_RUNDOWN_SOURCES))
}

/// A JSON value as JavaScript's `String(v)` writes a string or a number.
fn js_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(v) => v.to_string(),
        None => "undefined".to_string(),
    }
}

fn non_empty(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl Scripts {
    /// Keeps `metadata.sourceMaps` of the trace's `metadata` (its JSON text); metadata of
    /// another shape holds none.
    pub fn read_metadata(&mut self, metadata: &str) {
        let Ok(MetadataIn {
            source_maps: Some(maps),
        }) = serde_json::from_str(metadata)
        else {
            return;
        };
        self.metadata_maps = maps
            .into_iter()
            .map(|mut m| MetadataSourceMap {
                url: m.get("url").and_then(Value::as_str).map(str::to_string),
                source_map_url: m
                    .get("sourceMapUrl")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                source_map: m.get_mut("sourceMap").map(Value::take).unwrap_or_default(),
            })
            .collect();
    }

    fn script(&mut self, data: &Value, ts: i64) -> &mut Script {
        let isolate = js_string(data.get("isolate"));
        let script_id = js_string(data.get("scriptId"));
        let list = &mut self.list;
        let i = *self
            .by_key
            .entry((isolate.clone(), script_id.clone()))
            .or_insert_with(|| {
                list.push(Script {
                    isolate,
                    script_id,
                    ts,
                    ..Script::default()
                });
                list.len() - 1
            });
        &mut self.list[i]
    }

    /// Reads one event for which [`wanted`] (or, for `FunctionCall`, the page model) said yes;
    /// `args` is its parsed `args`, whose source text is taken out of it.
    pub fn push(&mut self, name: &str, cat: &str, ph: u8, at: &Stamp, args: &mut Value) {
        let Some(data) = args.get_mut("data").filter(|d| d.is_object()) else {
            return;
        };
        if cat == TARGET_RUNDOWN {
            let frame = data.get("frame").and_then(Value::as_str).unwrap_or("");
            let frame = frame.to_string();
            let script = self.script(data, at.ts);
            script.frame = frame;
            script.ts = at.ts;
        } else if cat == SOURCE_RUNDOWN && name == "ScriptCatchup" {
            let isolate = js_string(data.get("isolate"));
            let frame = self.frame_by_isolate.get(&isolate).cloned();
            let url = data.get("url").and_then(Value::as_str).map(str::to_string);
            let source_url = non_empty(data.get("sourceUrl"));
            let elided = data
                .get("sourceMapUrlElided")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let map_url = non_empty(data.get("sourceMapUrl"));
            let script = self.script(data, at.ts);
            if script.frame.is_empty() {
                script.frame = frame.unwrap_or_default();
            }
            script.url = url;
            script.ts = at.ts;
            if source_url.is_some() {
                script.source_url = source_url;
            }
            if elided {
                script.source_map_url_elided = true;
            } else if map_url.is_some() {
                script.source_map_url = map_url;
            }
        } else if cat == SOURCE_RUNDOWN_SOURCES {
            let text = match data.get_mut("sourceText").map(Value::take) {
                Some(Value::String(s)) => Some(s),
                _ => None,
            };
            let script = self.script(data, at.ts);
            if name == "ScriptCatchup" {
                script.content = text;
            } else if name == "LargeScriptCatchup" {
                let content = script.content.get_or_insert_with(String::new);
                content.push_str(text.as_deref().unwrap_or("undefined"));
            }
        } else if name == "FunctionCall" && ph == b'X' {
            let (Some(isolate), Some(frame)) = (
                non_empty(data.get("isolate")).or_else(|| {
                    data.get("isolate")
                        .and_then(Value::as_u64)
                        .filter(|&n| n != 0)
                        .map(|n| n.to_string())
                }),
                non_empty(data.get("frame")),
            ) else {
                return;
            };
            if self.frame_by_isolate.get(&isolate) != Some(&frame) {
                for s in self.list.iter_mut() {
                    if s.frame.is_empty() && s.isolate == isolate {
                        s.frame = frame.clone();
                    }
                }
                self.frame_by_isolate.insert(isolate, frame);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page_events::stamp_at as at;
    use serde_json::json;

    #[test]
    fn a_script_gathers_its_rundown_events_as_the_engine_does() {
        let mut s = Scripts::default();
        let data = |v: Value| json!({ "data": v });
        // The isolate's frame from a call before the script is named.
        s.push(
            "FunctionCall",
            "devtools.timeline",
            b'X',
            &at(1),
            &mut data(json!({"isolate": "7", "frame": "F1"})),
        );
        s.push(
            "ScriptCatchup",
            SOURCE_RUNDOWN,
            b'X',
            &at(2),
            &mut data(
                json!({"isolate": "7", "scriptId": 3, "url": "https://a/x.js",
                "sourceMapUrl": "x.js.map"}),
            ),
        );
        s.push(
            "ScriptCatchup",
            SOURCE_RUNDOWN_SOURCES,
            b'X',
            &at(3),
            &mut data(json!({"isolate": "7", "scriptId": 3, "sourceText": "ab"})),
        );
        s.push(
            "LargeScriptCatchup",
            SOURCE_RUNDOWN_SOURCES,
            b'X',
            &at(4),
            &mut data(json!({"isolate": "7", "scriptId": 3, "sourceText": "cd"})),
        );
        // Sources of a script never named, then its frame from the target rundown.
        s.push(
            "ScriptCatchup",
            SOURCE_RUNDOWN_SOURCES,
            b'X',
            &at(5),
            &mut data(json!({"isolate": "7", "scriptId": 4, "sourceText": "e"})),
        );
        s.push(
            "ScriptCompiled",
            TARGET_RUNDOWN,
            b'X',
            &at(6),
            &mut data(json!({"isolate": "7", "scriptId": 4, "frame": "F2"})),
        );
        assert_eq!(s.list.len(), 2);
        let a = &s.list[0];
        assert_eq!((a.frame.as_str(), a.ts), ("F1", 2));
        assert_eq!(a.url.as_deref(), Some("https://a/x.js"));
        assert_eq!(a.source_map_url.as_deref(), Some("x.js.map"));
        assert_eq!(a.content.as_deref(), Some("abcd"));
        let b = &s.list[1];
        assert_eq!((b.frame.as_str(), b.ts), ("F2", 6));
        assert_eq!((b.url.as_deref(), b.content.as_deref()), (None, Some("e")));
    }

    #[test]
    fn odd_rundown_events_are_read_as_the_engine_reads_them_without_panicking() {
        let mut s = Scripts::default();
        let sources = |v: Value| {
            let mut args = json!({ "data": v });
            move |s: &mut Scripts, name: &str| {
                s.push(name, SOURCE_RUNDOWN_SOURCES, b'X', &at(1), &mut args)
            }
        };
        // Pieces before the whole text: appended to nothing; a piece that is no string is
        // appended as JavaScript writes `undefined`; the whole text then replaces them.
        sources(json!({"isolate": 1, "scriptId": "9", "sourceText": "a"}))(
            &mut s,
            "LargeScriptCatchup",
        );
        sources(json!({"isolate": 1, "scriptId": "9", "sourceText": 5}))(
            &mut s,
            "LargeScriptCatchup",
        );
        assert_eq!(s.list[0].content.as_deref(), Some("aundefined"));
        // Numbers and strings name the same script, as in the engine's `${isolate}.${scriptId}`.
        sources(json!({"isolate": "1", "scriptId": 9, "sourceText": "b"}))(&mut s, "ScriptCatchup");
        assert_eq!((s.list.len(), s.list[0].content.as_deref()), (1, Some("b")));
        // No ids at all: one script keyed `undefined.undefined`; no `data`: nothing.
        sources(json!({"sourceText": "c"}))(&mut s, "ScriptCatchup");
        assert_eq!(s.list[1].isolate, "undefined");
        s.push(
            "ScriptCatchup",
            SOURCE_RUNDOWN,
            b'X',
            &at(2),
            &mut json!({"data": 3}),
        );
        s.push(
            "ScriptCompiled",
            TARGET_RUNDOWN,
            b'X',
            &at(2),
            &mut Value::Null,
        );
        assert_eq!(s.list.len(), 2);
    }
}
