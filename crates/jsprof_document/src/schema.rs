//! The JSON wire format, generated from the document types themselves (ripgrep's "Wire format",
//! made mechanical): every document's JSON Schema for the service's OpenAPI `components`, and
//! `docs/json.md`, the field-by-field reference, rendered from the same schemas and the types'
//! doc comments. Nothing else describes these documents, so a field added to a type appears in
//! both (a test fails while `docs/json.md` is stale; `JSPROF_BLESS=1` rewrites it).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

/// A top-level document: its schema name, and the commands and endpoints that answer with it.
pub struct Document {
    pub name: &'static str,
    pub answers: &'static str,
    add: fn(&mut SchemaGenerator),
}

fn add<T: JsonSchema>(g: &mut SchemaGenerator) {
    g.subschema_for::<T>();
}

/// Every document jsprof answers with, in the order `docs/json.md` lists them.
pub const DOCUMENTS: &[Document] = &[
    Document {
        name: "SummaryReport",
        answers: "`jsprof summary FILE --json`; `GET …/artifacts/{a}/summary`",
        add: add::<crate::summary::SummaryReport>,
    },
    Document {
        name: "ThreadsReport",
        answers: "`jsprof threads FILE --json`; `GET …/artifacts/{a}/threads`",
        add: add::<crate::threads::ThreadsReport>,
    },
    Document {
        name: "InsightsReport",
        answers: "`jsprof insights TRACE --json`; `GET …/artifacts/{a}/insights`",
        add: add::<crate::page::InsightsReport>,
    },
    Document {
        name: "NetworkReport",
        answers: "`jsprof network TRACE --json`; `GET …/artifacts/{a}/network`",
        add: add::<crate::page::NetworkReport>,
    },
    Document {
        name: "TimingsReport",
        answers: "`jsprof timings TRACE --json`; `GET …/artifacts/{a}/timings`",
        add: add::<crate::page::TimingsReport>,
    },
    Document {
        name: "FilmstripDoc",
        answers: "`jsprof filmstrip TRACE --json`; `GET …/artifacts/{a}/filmstrip` (and the UI's)",
        add: add::<crate::filmstrip::FilmstripDoc>,
    },
    Document {
        name: "ScreenshotJson",
        answers: "`GET …/artifacts/{a}/filmstrip/{index}` (and the UI's): one image; `jsprof filmstrip --out DIR` writes them as files",
        add: add::<crate::filmstrip::ScreenshotJson>,
    },
    Document {
        name: "TopReport",
        answers: "`jsprof top FILE --json`; `GET …/artifacts/{a}/top`",
        add: add::<crate::top::TopReport>,
    },
    Document {
        name: "LinesReport",
        answers: "`jsprof lines FILE --function RE --json`; `GET /api/ui/…/artifacts/{a}/lines` (one function); the MCP `source` tool's per-line numbers",
        add: add::<crate::lines::LinesReport>,
    },
    Document {
        name: "TreeReport",
        answers: "`jsprof tree FILE --json`; `GET …/artifacts/{a}/tree`",
        add: add::<crate::tree::TreeReport>,
    },
    Document {
        name: "SandwichReport",
        answers: "`jsprof tree FILE --sandwich RE --json`; the MCP `sandwich` tool",
        add: add::<crate::tree::SandwichReport>,
    },
    Document {
        name: "EventsReport",
        answers: "`jsprof events FILE --json`; `GET …/timelines/{t}/events` (GetEvents)",
        add: add::<crate::events::EventsReport>,
    },
    Document {
        name: "DiffReport",
        answers: "`jsprof diff BEFORE AFTER --json`; `GET /api/ui/…/diff` (with `svg`)",
        add: add::<crate::diff::DiffReport>,
    },
    Document {
        name: "AbTestReport",
        answers: "`jsprof diff --base A… --target B… --json`; `jsprof lake diff LAKE --json`",
        add: add::<crate::abtest::AbTestReport>,
    },
    Document {
        name: "HeapSummaryReport",
        answers: "`jsprof heap summary FILE --json`; `GET …/heap/summary`",
        add: add::<crate::heap::SummaryReport>,
    },
    Document {
        name: "NodesReport",
        answers: "`jsprof heap node FILE ID --json`; `GET …/heap/node/{id}`",
        add: add::<crate::heap::NodesReport>,
    },
    Document {
        name: "RetainersReport",
        answers: "`jsprof heap retainers FILE ID --json`; `GET …/heap/retainers/{id}`",
        add: add::<crate::heap::RetainersReport>,
    },
    Document {
        name: "ClassObjectsReport",
        answers: "`jsprof heap class FILE KEY --json`; `GET /api/ui/…/heap/class` and `…/heap/class/between`",
        add: add::<crate::heap_class::ClassObjectsReport>,
    },
    Document {
        name: "EdgesReport",
        answers:
            "`jsprof heap edges FILE ID [--retainers] --json`; `GET /api/ui/…/heap/edges/{id}`",
        add: add::<crate::heap_edges::EdgesReport>,
    },
    Document {
        name: "StringsReport",
        answers: "`jsprof heap strings FILE --json`; `GET /api/ui/…/heap/strings`",
        add: add::<crate::heap_strings::StringsReport>,
    },
    Document {
        name: "AllocationsReport",
        answers: "`jsprof heap allocations FILE --json`; `GET /api/ui/…/heap/allocations`",
        add: add::<crate::heap_allocations::AllocationsReport>,
    },
    Document {
        name: "HeapDiffReport",
        answers: "`jsprof heap diff BASE TARGET --json`; `GET …/heap/diff`",
        add: add::<crate::heap::DiffReport>,
    },
    Document {
        name: "ClassChangesReport",
        answers:
            "`jsprof heap diff BASE TARGET --class KEY --json`; `GET /api/ui/…/heap/diff/class`",
        add: add::<crate::heap_changes::ClassChangesReport>,
    },
    Document {
        name: "LeaksReport",
        answers: "`jsprof heap leaks BASE TARGET FINAL --json`; `GET /api/ui/…/heap/leaks`",
        add: add::<crate::heap::LeaksReport>,
    },
    Document {
        name: "CheckReport",
        answers: "`jsprof check FILE --budget budget.toml --json` (exit 1 when one fails)",
        add: add::<crate::check::CheckReport>,
    },
    Document {
        name: "ChartDoc",
        answers:
            "the UI's flame chart: `GET /api/ui/sessions/{s}/chart`; embedded by `jsprof report`",
        add: add::<crate::chart::ChartDoc>,
    },
    Document {
        name: "ProfileDoc",
        answers: "the UI's trees: `GET /api/ui/…/profile`; embedded by `jsprof report`",
        add: add::<crate::chart::ProfileDoc>,
    },
    Document {
        name: "SandwichDoc",
        answers: "the UI's Sandwich tab: `GET /api/ui/…/sandwich`",
        add: add::<crate::chart::SandwichDoc>,
    },
    Document {
        name: "HeapDoc",
        answers: "the heap views `jsprof report` embeds",
        add: add::<crate::heap_pages::HeapDoc>,
    },
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

fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
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
         Conventions (CONTRACT.md): every document is one JSON object with `kind` and `warnings`; \
         times are ms (`*_ms`), sizes bytes (`*_size`, `*_bytes`), positions 1-based; a field \
         marked optional is left out rather than `null` when it does not apply (a heap profile \
         has `*_bytes` where a time profile has `*_ms`).\n\n",
    );
    out.push_str("## Documents\n\n| document | answers |\n|---|---|\n");
    for d in DOCUMENTS {
        out.push_str(&format!(
            "| [{}](#{}) | {} |\n",
            d.name,
            d.name.to_ascii_lowercase(),
            d.answers
        ));
    }
    out.push('\n');
    let mut names: Vec<&String> = schemas.keys().collect();
    // Documents first, in their order, then the objects they contain by name.
    names.sort_by_key(|n| {
        (
            DOCUMENTS
                .iter()
                .position(|d| d.name == n.as_str())
                .unwrap_or(usize::MAX),
            n.to_string(),
        )
    });
    for name in names {
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
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_has_a_schema() {
        let schemas = components();
        for d in DOCUMENTS {
            assert!(schemas.contains_key(d.name), "{} has no schema", d.name);
        }
    }

    /// `docs/json.md` is what the types say; `JSPROF_BLESS=1` rewrites it.
    #[test]
    fn json_reference_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/json.md");
        let want = markdown();
        if std::env::var_os("JSPROF_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/json.md is stale: run `JSPROF_BLESS=1 cargo test -p jsprof_document json_reference`"
        );
    }
}
