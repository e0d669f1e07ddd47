//! The tools' input schemas as `tools/list` gives them.
//!
//! Every argument type derives its JSON Schema from the Rust type the tool parses (the query
//! types the CLI and the service read too), with every field's documentation: 34 KB for the
//! whole list, about 8,000 tokens an agent pays at every session's start before asking anything.
//! So by default the list is **compact**: the argument names, their types, their allowed values
//! and which are required — what a client needs to validate and a model needs to call — while
//! what the arguments mean is said once for all tools in the server's instructions
//! ([`crate::server`]) and in each tool's description. `jsprof mcp --full-schemas` gives the
//! derived schemas whole, with the paging arguments.

use serde_json::{Map, Value};

/// Keys of a derived schema that only document (compact lists leave them out): what a value
/// means, its default, and the integer widths schemars writes (`uint32`, `minimum: 0`).
const DOCUMENTING: &[&str] = &[
    "description",
    "default",
    "format",
    "minimum",
    "maximum",
    "title",
    "examples",
];

/// `schema` (a derived input schema, `$defs` and all) in its compact form: references resolved,
/// `null` alternatives dropped (an absent argument is the null one), documentation left out,
/// and a nested object (the `filters`) given as `{"type": "object"}`, its keys being named in
/// the server's instructions.
pub fn compact(schema: &Value) -> Value {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let mut props = Map::new();
    if let Some(Value::Object(p)) = schema.get("properties") {
        for (name, prop) in p {
            let prop = strip(&resolve(prop, &defs), &defs);
            let prop = if prop.get("properties").is_some() {
                serde_json::json!({"type": "object"})
            } else {
                prop
            };
            props.insert(name.clone(), prop);
        }
    }
    out.insert("properties".into(), Value::Object(props));
    if let Some(required) = schema.get("required") {
        out.insert("required".into(), required.clone());
    }
    Value::Object(out)
}

/// `v` with a `$ref` to `#/$defs/NAME` replaced by that definition.
fn resolve(v: &Value, defs: &Value) -> Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
            .cloned()
            .unwrap_or_else(|| v.clone()),
        None => v.clone(),
    }
}

/// One property's schema without its documentation and its `null` alternative.
fn strip(v: &Value, defs: &Value) -> Value {
    match v {
        Value::Object(m) => {
            // `anyOf: [X, {"type": "null"}]` is an optional X.
            if let Some(Value::Array(alts)) = m.get("anyOf") {
                let kept: Vec<&Value> = alts
                    .iter()
                    .filter(|a| a.get("type") != Some(&Value::from("null")))
                    .collect();
                if let [one] = kept.as_slice() {
                    return strip(&resolve(one, defs), defs);
                }
            }
            let mut out = Map::new();
            for (k, x) in m {
                if DOCUMENTING.contains(&k.as_str()) {
                    continue;
                }
                let x = match (k.as_str(), x) {
                    // `["string", "null"]` is an optional string.
                    ("type", Value::Array(types)) => {
                        let kept: Vec<Value> = types
                            .iter()
                            .filter(|t| *t != &Value::from("null"))
                            .cloned()
                            .collect();
                        match kept.as_slice() {
                            [one] => one.clone(),
                            _ => Value::Array(kept),
                        }
                    }
                    _ => strip(&resolve(x, defs), defs),
                };
                out.insert(k.clone(), x);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| strip(x, defs)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compact_keeps_names_types_values_and_what_is_required() {
        let derived = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "TopArgs",
            "$defs": {
                "By": {"description": "`self` or `total`.", "enum": ["self", "total"], "type": "string"},
                "FilterSpec": {"type": "object", "properties": {"focus": {"type": "array", "items": {"type": "string"}}}}
            },
            "properties": {
                "handle": {"description": "From `open`.", "type": "string"},
                "by": {"$ref": "#/$defs/By"},
                "depth": {"format": "uint32", "minimum": 0, "type": ["integer", "null"], "default": null},
                "id": {"anyOf": [{"$ref": "#/$defs/By"}, {"type": "null"}]},
                "filters": {"anyOf": [{"$ref": "#/$defs/FilterSpec"}, {"type": "null"}], "default": null},
                "handles": {"type": "array", "items": {"type": "string", "description": "x"}}
            },
            "required": ["handle"],
            "type": "object"
        });
        assert_eq!(
            compact(&derived),
            json!({
                "type": "object",
                "properties": {
                    "handle": {"type": "string"},
                    "by": {"enum": ["self", "total"], "type": "string"},
                    "depth": {"type": "integer"},
                    "id": {"enum": ["self", "total"], "type": "string"},
                    "filters": {"type": "object"},
                    "handles": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["handle"]
            })
        );
    }
}
