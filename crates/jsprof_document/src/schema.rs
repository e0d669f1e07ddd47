//! The JSON wire format, generated from the document types themselves (ripgrep's "Wire format",
//! made mechanical): every document's JSON Schema for the service's OpenAPI `components`, and
//! `docs/json.md`, the field-by-field reference, rendered from the same schemas and the types'
//! doc comments. Nothing else describes these documents, so a field added to a type appears in
//! both (a test fails while `docs/json.md` is stale; `JSPROF_BLESS=1` rewrites it).

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

/// A top-level document: its schema, and the commands and endpoints that answer with it.
pub struct Document {
    pub answers: &'static str,
    schema_name: fn() -> Cow<'static, str>,
    add: fn(&mut SchemaGenerator),
}

impl Document {
    /// The document `T`, answered by `answers`.
    const fn of<T: JsonSchema>(answers: &'static str) -> Self {
        Document {
            answers,
            schema_name: T::schema_name,
            add: add::<T>,
        }
    }

    /// Its schema's name (the type's, or its `#[schemars(rename)]`).
    pub fn name(&self) -> Cow<'static, str> {
        (self.schema_name)()
    }
}

fn add<T: JsonSchema>(g: &mut SchemaGenerator) {
    g.subschema_for::<T>();
}

/// Every document jsprof answers with, in the order `docs/json.md` lists them.
pub const DOCUMENTS: &[Document] = &[
    Document::of::<crate::summary::SummaryReport>(
        "`jsprof summary FILE --json`; `GET …/artifacts/{a}/summary`",
    ),
    Document::of::<crate::threads::ThreadsReport>(
        "`jsprof threads FILE --json`; `GET …/artifacts/{a}/threads`",
    ),
    Document::of::<crate::page::InsightsReport>(
        "`jsprof insights TRACE --json`; `GET …/artifacts/{a}/insights`",
    ),
    Document::of::<crate::page_runs::PageRunsReport>(
        "`jsprof insights DIR --json` (a folder of runs of one page load); `GET /api/ui/page-runs?runs=S/A,…`; MCP `page_runs` and `record` with `url`",
    ),
    Document::of::<crate::page_diff::PageDiffReport>(
        "`jsprof diff --base A/ --target B/ --json` when the inputs are page-load traces (two folders of runs); `GET /api/ui/page-diff?base=…&target=…`; MCP `page_diff`",
    ),
    Document::of::<crate::page::NetworkReport>(
        "`jsprof network TRACE --json`; `GET …/artifacts/{a}/network`",
    ),
    Document::of::<crate::page::TimingsReport>(
        "`jsprof timings TRACE --json`; `GET …/artifacts/{a}/timings`",
    ),
    Document::of::<crate::filmstrip::FilmstripDoc>(
        "`jsprof filmstrip TRACE --json`; `GET …/artifacts/{a}/filmstrip` (and the UI's)",
    ),
    Document::of::<crate::filmstrip::ScreenshotJson>(
        "`GET …/artifacts/{a}/filmstrip/{index}` (and the UI's): one image; `jsprof filmstrip --out DIR` writes them as files",
    ),
    Document::of::<crate::top::TopReport>(
        "`jsprof top FILE --json`; `GET …/artifacts/{a}/top`",
    ),
    Document::of::<crate::lines::LinesReport>(
        "`jsprof lines FILE --function RE --json`; `GET /api/ui/…/artifacts/{a}/lines` (one function); the MCP `source` tool's per-line numbers",
    ),
    Document::of::<crate::tree::TreeReport>(
        "`jsprof tree FILE --json`; `GET …/artifacts/{a}/tree`",
    ),
    Document::of::<crate::tree::SandwichReport>(
        "`jsprof tree FILE --sandwich RE --json`; the MCP `sandwich` tool",
    ),
    Document::of::<crate::events::EventsReport>(
        "`jsprof events FILE --json`; `GET …/timelines/{t}/events` (GetEvents)",
    ),
    Document::of::<crate::diff::DiffReport>(
        "`jsprof diff BEFORE AFTER --json`; `GET /api/ui/…/diff` (with `svg`)",
    ),
    Document::of::<crate::abtest::AbTestReport>(
        "`jsprof diff --base A… --target B… --json`; `jsprof lake diff LAKE --json`",
    ),
    Document::of::<crate::lake::LakeAddReport>(
        "`jsprof lake add LAKE INPUT… --json`",
    ),
    Document::of::<crate::lake::LakeLsReport>(
        "`jsprof lake ls LAKE --json`",
    ),
    Document::of::<crate::lake::LakeTopReport>(
        "`jsprof lake top LAKE --json`",
    ),
    Document::of::<crate::lake::LakeTrendReport>(
        "`jsprof lake trend LAKE FUNCTION --by LABEL --json`",
    ),
    Document::of::<crate::lake::LakePageTrendReport>(
        "`jsprof lake trend LAKE --metric METRIC --by LABEL --json`",
    ),
    Document::of::<crate::lake::LakePageDiffReport>(
        "`jsprof lake diff LAKE --page-loads --base WHERE --target WHERE --json`",
    ),
    Document::of::<crate::lake::LakeSqlReport>(
        "`jsprof lake sql LAKE QUERY --json`",
    ),
    Document::of::<crate::lake::LakeCompactReport>(
        "`jsprof lake compact LAKE --json`",
    ),
    Document::of::<crate::heap::SummaryReport>(
        "`jsprof heap summary FILE --json`; `GET …/heap/summary`",
    ),
    Document::of::<crate::heap_contexts::ContextsReport>(
        "`jsprof heap contexts FILE --json`; `GET …/heap/contexts`",
    ),
    Document::of::<crate::heap::NodesReport>(
        "`jsprof heap node FILE ID --json`; `GET …/heap/node/{id}`",
    ),
    Document::of::<crate::heap::RetainersReport>(
        "`jsprof heap retainers FILE ID --json`; `GET …/heap/retainers/{id}`",
    ),
    Document::of::<crate::heap_class::ClassObjectsReport>(
        "`jsprof heap class FILE KEY --json`; `GET /api/ui/…/heap/class` and `…/heap/class/between`",
    ),
    Document::of::<crate::heap_edges::EdgesReport>(
        "`jsprof heap edges FILE ID [--retainers] --json`; `GET /api/ui/…/heap/edges/{id}`",
    ),
    Document::of::<crate::heap_strings::StringsReport>(
        "`jsprof heap strings FILE --json`; `GET /api/ui/…/heap/strings`",
    ),
    Document::of::<crate::heap_advisors::AdvisorsReport>(
        "`jsprof heap advisors FILE --json`; `GET /api/ui/…/heap/advisors`; MCP `heap_advisors`",
    ),
    Document::of::<crate::process_memory::ProcessMemoryReport>(
        "`jsprof heap process DIR|SNAPSHOT… --json`",
    ),
    Document::of::<crate::heap_redact::RedactReport>("`jsprof heap redact FILE -o OUT --json`"),
    Document::of::<crate::heap_allocations::AllocationsReport>(
        "`jsprof heap allocations FILE --json`; `GET /api/ui/…/heap/allocations`",
    ),
    Document::of::<crate::heap::DiffReport>(
        "`jsprof heap diff BASE TARGET --json`; `GET …/heap/diff`",
    ),
    Document::of::<crate::heap_changes::ClassChangesReport>(
        "`jsprof heap diff BASE TARGET --class KEY --json`; `GET /api/ui/…/heap/diff/class`",
    ),
    Document::of::<crate::heap::LeaksReport>(
        "`jsprof heap leaks BASE TARGET FINAL --json`; `GET /api/ui/…/heap/leaks`",
    ),
    Document::of::<crate::leak_series::LeakSeriesReport>(
        "`jsprof heap leaks S1 S2 … SN --json` (4 to 50 snapshots, a directory, or `--series`); `GET /api/ui/…/heap/leaks?series=`; MCP `heap_leaks` with 4 or more handles",
    ),
    Document::of::<crate::check::CheckReport>(
        "`jsprof check FILE --budget budget.toml --json` (exit 1 when one fails)",
    ),
    Document::of::<crate::selection_summary::SelectionSummaryReport>(
        "`jsprof summary TRACE --range A..B --json` (or `--categories`); the UI's Summary panel: `GET /api/ui/sessions/{s}/summary`",
    ),
    Document::of::<crate::chart::ChartDoc>(
        "the UI's flame chart: `GET /api/ui/sessions/{s}/chart`; embedded by `jsprof report`",
    ),
    Document::of::<crate::chart::ProfileDoc>(
        "the UI's trees: `GET /api/ui/…/profile`; embedded by `jsprof report`",
    ),
    Document::of::<crate::chart::SandwichDoc>(
        "the UI's Sandwich tab: `GET /api/ui/…/sandwich`",
    ),
    Document::of::<crate::heap_pages::HeapDoc>(
        "the heap views `jsprof report` embeds",
    ),
];

fn generator(definitions_path: &str) -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = definitions_path.to_string().into();
    // Describe what is written: `skip_serializing_if` fields are optional.
    settings.contract = schemars::generate::Contract::Serialize;
    settings.into_generator()
}

/// Every document's schema and the schemas they refer to, keyed by name, with references of the
/// form `#/components/schemas/NAME` (OpenAPI 3.1's place for them).
pub fn components() -> Map<String, Value> {
    let mut g = generator("/components/schemas");
    for d in DOCUMENTS {
        (d.add)(&mut g);
    }
    g.take_definitions(true)
}

fn type_of(schema: &Value) -> String {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("[{name}](#{})", name.to_ascii_lowercase());
    }
    if let Some(any) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        let parts: Vec<String> = any.as_array().into_iter().flatten().map(type_of).collect();
        return parts.join(" or ");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!(
                "array of {}",
                schema.get("items").map_or("any".into(), type_of)
            )
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let names: Vec<String> = ts
                .iter()
                .filter_map(Value::as_str)
                .map(|t| {
                    if t == "array" {
                        format!(
                            "array of {}",
                            schema.get("items").map_or("any".into(), type_of)
                        )
                    } else {
                        t.to_string()
                    }
                })
                .collect();
            names.join(" or ")
        }
        _ if schema.get("enum").is_some() => "string".to_string(),
        _ => "any".to_string(),
    }
}

/// The field names an object schema's `required` lists.
fn required_fields(list: Option<&Value>) -> Vec<&str> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The schemas' names as `docs/json.md` and the TypeScript declarations list them: documents
/// first, in their order, then the objects they contain by name.
fn in_order(schemas: &Map<String, Value>) -> Vec<&String> {
    let mut names: Vec<&String> = schemas.keys().collect();
    names.sort_by_key(|n| {
        (
            DOCUMENTS
                .iter()
                .position(|d| d.name() == n.as_str())
                .unwrap_or(usize::MAX),
            n.to_string(),
        )
    });
    names
}

/// `docs/json.md`: every document and every object it contains, field by field.
pub fn markdown() -> String {
    let schemas = components();
    let mut out = String::new();
    out.push_str(
        "# jsprof's JSON documents\n\n\
         Generated from the types in `crates/jsprof_document` (`jsprof_document::schema`); do not \
         edit by hand — `JSPROF_BLESS=1 cargo test -p jsprof_document json_reference` rewrites it. \
         The same schemas are the `components` of the service's OpenAPI document \
         (`GET /api/openapi.json`).\n\n\
         Conventions: every document is one JSON object with `kind` and `warnings`; \
         times are ms (`*_ms`), sizes bytes (`*_size`, `*_bytes`), positions 1-based; a field \
         marked optional is left out rather than `null` when it does not apply (a heap profile \
         has `*_bytes` where a time profile has `*_ms`).\n\n",
    );
    out.push_str("## Documents\n\n| document | answers |\n|---|---|\n");
    for d in DOCUMENTS {
        out.push_str(&format!(
            "| [{}](#{}) | {} |\n",
            d.name(),
            d.name().to_ascii_lowercase(),
            d.answers
        ));
    }
    out.push('\n');
    for name in in_order(&schemas) {
        let schema = &schemas[name];
        out.push_str(&format!("## {name}\n\n"));
        if let Some(d) = schema.get("description").and_then(Value::as_str) {
            out.push_str(&one_line(d));
            out.push_str("\n\n");
        }
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            out.push_str(&format!("A {}.\n\n", type_of(schema)));
            continue;
        };
        let required = required_fields(schema.get("required"));
        out.push_str("| field | type | | description |\n|---|---|---|---|\n");
        for (field, p) in props {
            out.push_str(&format!(
                "| `{field}` | {} | {} | {} |\n",
                type_of(p),
                if required.contains(&field.as_str()) {
                    ""
                } else {
                    "optional"
                },
                p.get("description")
                    .and_then(Value::as_str)
                    .map(one_line)
                    .unwrap_or_default()
            ));
        }
        out.push('\n');
    }
    out
}

/// A schema name as a TypeScript identifier (generic instances such as `Foo<Bar>` included).
fn ts_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A property name as TypeScript writes it: bare when it is an identifier, else quoted.
fn ts_key(key: &str) -> String {
    let identifier = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        key.to_string()
    } else {
        Value::String(key.to_string()).to_string()
    }
}

/// `text` as a doc comment at `indent`, or nothing when there is no text.
fn ts_doc(text: Option<&str>, indent: &str) -> String {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return String::new();
    };
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for line in lines {
        if line.is_empty() {
            out.push_str(&format!("{indent} *\n"));
        } else {
            out.push_str(&format!("{indent} * {line}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

/// Wraps a union or intersection in parentheses where it is an array's element.
fn ts_element(ty: String) -> String {
    let nested = {
        let mut depth = 0i32;
        let mut top_level_operator = false;
        for c in ty.chars() {
            match c {
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => depth -= 1,
                '|' | '&' if depth == 0 => top_level_operator = true,
                _ => {}
            }
        }
        top_level_operator
    };
    if nested {
        format!("({ty})")
    } else {
        ty
    }
}

/// `parts` joined by `sep`, each once, in their order.
fn ts_join(parts: Vec<String>, sep: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    for p in parts {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    if seen.len() > 1 && seen.iter().any(|p| p == "unknown") && sep == " | " {
        return "unknown".to_string();
    }
    seen.join(sep)
}

/// The TypeScript type of `schema`; objects are written as literals indented from `indent`.
fn ts_type(schema: &Value, indent: &str) -> String {
    let Some(obj) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => "never".to_string(),
            _ => "unknown".to_string(),
        };
    };
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        return ts_name(r.rsplit('/').next().unwrap_or(r));
    }
    if let Some(c) = obj.get("const") {
        return c.to_string();
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        return ts_join(values.iter().map(Value::to_string).collect(), " | ");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(any) = obj.get(key).and_then(Value::as_array) {
            let base = base_without(obj, &[key]);
            let parts: Vec<String> = any
                .iter()
                .map(|v| {
                    let ty = ts_type(v, indent);
                    match &base {
                        Some(b) => {
                            format!("{} & {}", ts_element(ts_type(b, indent)), ts_element(ty))
                        }
                        None => ty,
                    }
                })
                .collect();
            return ts_join(parts, " | ");
        }
    }
    if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
        let mut parts: Vec<String> = all.iter().map(|v| ts_element(ts_type(v, indent))).collect();
        if let Some(b) = base_without(obj, &["allOf"]) {
            parts.insert(0, ts_element(ts_type(&b, indent)));
        }
        return ts_join(parts, " & ");
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if obj.contains_key("properties") || obj.contains_key("additionalProperties") => {
            vec!["object"]
        }
        _ if obj.contains_key("items") || obj.contains_key("prefixItems") => vec!["array"],
        _ => vec![],
    };
    if types.is_empty() {
        return "unknown".to_string();
    }
    let parts = types
        .iter()
        .map(|t| match *t {
            "string" => "string".to_string(),
            "integer" | "number" => "number".to_string(),
            "boolean" => "boolean".to_string(),
            "null" => "null".to_string(),
            "array" => ts_array(obj, indent),
            "object" => ts_object(obj, indent),
            _ => "unknown".to_string(),
        })
        .collect();
    ts_join(parts, " | ")
}

/// `obj` less `keys` and its annotations, when what is left still says something (an object's
/// properties beside its `oneOf`, as a flattened enum writes them).
fn base_without(obj: &Map<String, Value>, keys: &[&str]) -> Option<Value> {
    let rest: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| {
            !keys.contains(&k.as_str())
                && !matches!(
                    k.as_str(),
                    "description" | "title" | "$schema" | "examples" | "default" | "deprecated"
                )
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let says = rest.contains_key("properties")
        || rest.contains_key("additionalProperties")
        || rest.contains_key("items")
        || rest.contains_key("prefixItems")
        || rest.contains_key("$ref");
    says.then_some(Value::Object(rest))
}

fn ts_array(obj: &Map<String, Value>, indent: &str) -> String {
    if let Some(prefix) = obj.get("prefixItems").and_then(Value::as_array) {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let mut parts: Vec<String> = prefix
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let ty = ts_type(v, indent);
                if i < min {
                    ty
                } else {
                    format!("{}?", ts_element(ty))
                }
            })
            .collect();
        match obj.get("items") {
            None | Some(Value::Bool(false)) => {}
            Some(rest) => parts.push(format!("...{}[]", ts_element(ts_type(rest, indent)))),
        }
        if obj.get("maxItems").and_then(Value::as_u64) != Some(prefix.len() as u64)
            && obj.get("items").is_none()
        {
            parts.push("...unknown[]".to_string());
        }
        return format!("[{}]", parts.join(", "));
    }
    match obj.get("items") {
        Some(items) => format!("{}[]", ts_element(ts_type(items, indent))),
        None => "unknown[]".to_string(),
    }
}

/// An object literal type (`{ … }`), or `Record`-like index signatures for maps.
fn ts_object(obj: &Map<String, Value>, indent: &str) -> String {
    let body = ts_members(obj, &format!("{indent}  "));
    if body.is_empty() {
        return "{}".to_string();
    }
    format!("{{\n{body}{indent}}}")
}

/// The members of an object schema, one per line at `indent`, with their doc comments.
fn ts_members(obj: &Map<String, Value>, indent: &str) -> String {
    let required = required_fields(obj.get("required"));
    let mut out = String::new();
    let props = obj.get("properties").and_then(Value::as_object);
    for (field, p) in props.into_iter().flatten() {
        out.push_str(&ts_doc(
            p.get("description").and_then(Value::as_str),
            indent,
        ));
        out.push_str(&format!(
            "{indent}{}{}: {};\n",
            ts_key(field),
            if required.contains(&field.as_str()) {
                ""
            } else {
                "?"
            },
            ts_type(p, indent)
        ));
    }
    match obj.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(extra) => {
            // A map: its values' type, or anything beside named properties (which an index
            // signature would have to cover).
            let ty = if props.is_some_and(|p| !p.is_empty()) {
                "unknown".to_string()
            } else {
                ts_type(extra, indent)
            };
            out.push_str(&format!("{indent}[key: string]: {ty};\n"));
        }
    }
    out
}

/// `npm/jsprof/types.d.ts`: every schema of [`components`] as a TypeScript declaration, with the
/// schemas' descriptions as doc comments, for the npm package's typed API (`top()` resolves to a
/// `TopReport`). Objects are interfaces (fields that may be left out are optional, `?`); enums
/// and `oneOf` are unions; `$ref`s are the types' names; integers and numbers are `number`.
pub fn typescript() -> String {
    let schemas = components();
    let mut out = String::new();
    out.push_str(
        "// jsprof's JSON documents as TypeScript types.\n\
         //\n\
         // Generated from the types in `crates/jsprof_document` (`jsprof_document::schema`), like\n\
         // docs/json.md; do not edit by hand: `JSPROF_BLESS=1 cargo test -p jsprof_document\n\
         // typescript_declarations` rewrites it. Times are ms (`*_ms`), sizes bytes (`*_size`,\n\
         // `*_bytes`), positions 1-based; an optional field is left out rather than `null`.\n\n",
    );
    for name in in_order(&schemas) {
        let schema = &schemas[name];
        let mut doc = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        if let Some(d) = DOCUMENTS.iter().find(|d| d.name() == name.as_str()) {
            if !doc.is_empty() {
                doc.push_str("\n\n");
            }
            doc.push_str(&format!("Answers {}.", d.answers));
        }
        out.push_str(&ts_doc(Some(&doc), ""));
        let plain_object = schema.get("type").and_then(Value::as_str) == Some("object")
            && schema.get("properties").is_some()
            && ["oneOf", "anyOf", "allOf"]
                .iter()
                .all(|k| schema.get(k).is_none());
        let name = ts_name(name);
        match schema.as_object() {
            Some(obj) if plain_object => {
                out.push_str(&format!(
                    "export interface {name} {{\n{}}}\n\n",
                    ts_members(obj, "  ")
                ));
            }
            _ => out.push_str(&format!(
                "export type {name} = {};\n\n",
                ts_type(schema, "")
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_has_a_schema() {
        let schemas = components();
        for d in DOCUMENTS {
            let name = d.name();
            assert!(schemas.contains_key(name.as_ref()), "{name} has no schema");
        }
    }

    /// `docs/json.md` is what the types say; `JSPROF_BLESS=1` rewrites it.
    #[test]
    fn json_reference_is_current() {
        assert_current("docs/json.md", &markdown(), "json_reference");
    }

    /// `path` (from the repository's root) holds `want`; `JSPROF_BLESS=1` writes it there.
    fn assert_current(path: &str, want: &str, test: &str) {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path);
        if std::env::var_os("JSPROF_BLESS").is_some() {
            std::fs::write(&file, want).unwrap();
        }
        let have = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            have == want,
            "{path} is stale: run `JSPROF_BLESS=1 cargo test -p jsprof_document {test}`"
        );
    }

    /// The schema shapes the documents use, as TypeScript.
    #[test]
    fn typescript_of_each_schema_shape() {
        use serde_json::json;
        let ty = |v: Value| ts_type(&v, "");
        assert_eq!(
            ty(json!({"$ref": "#/components/schemas/TopReport"})),
            "TopReport"
        );
        assert_eq!(ty(json!({"type": ["integer", "null"]})), "number | null");
        assert_eq!(
            ty(json!({"type": "string", "enum": ["a", "b"]})),
            r#""a" | "b""#
        );
        assert_eq!(
            ty(json!({"oneOf": [{"const": "pass"}, {"const": "fail"}]})),
            r#""pass" | "fail""#
        );
        assert_eq!(
            ty(json!({"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]})),
            "A | null"
        );
        assert_eq!(
            ty(json!({"type": ["array", "null"], "items": {"type": ["number", "null"]}})),
            "(number | null)[] | null"
        );
        assert_eq!(
            ty(
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                      "minItems": 2, "maxItems": 2})
            ),
            "[string, number]"
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": {"type": "number"}})),
            "{\n  [key: string]: number;\n}"
        );
        assert_eq!(ty(json!(true)), "unknown");
        assert_eq!(
            ty(json!({"type": ["boolean", "null"], "description": "x"})),
            "boolean | null"
        );
        let quoted = json!({
            "type": "object",
            "properties": {"a-b": {"type": "string", "description": "A */ B"}},
            "required": []
        });
        assert_eq!(ty(quoted), "{\n  /** A *\\/ B */\n  \"a-b\"?: string;\n}");
    }

    /// `npm/jsprof/types.d.ts`, the npm package's document types, is what the types say;
    /// `JSPROF_BLESS=1` rewrites it.
    #[test]
    fn typescript_declarations_are_current() {
        assert_current(
            "npm/jsprof/types.d.ts",
            &typescript(),
            "typescript_declarations",
        );
    }
}
