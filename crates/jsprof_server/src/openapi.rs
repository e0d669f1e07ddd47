//! `GET /api/openapi.json`: the API described as OpenAPI 3.1. The response documents' schemas are
//! generated from the document types (`jsprof_document::schema::components`), the same ones the
//! CLI prints and `docs/json.md` describes; the service's own request and session schemas are
//! written here.

use jsprof_document::events::EventsQuery;
use jsprof_document::filters::FilterSpec;
use jsprof_document::heap_query::{HeapDiffQuery, HeapSummaryQuery, RetainersOptions};
use jsprof_document::query::{Query, SummaryQuery, TopQuery, TreeQuery};
use serde_json::{json, Value};

use crate::state::AppState;

fn param(name: &str, location: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "in": location, "required": location == "path", "description": description, "schema": schema})
}

fn ok(description: &str, schema: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}})
}

fn errors(codes: &[&str]) -> Value {
    let mut map = serde_json::Map::new();
    for code in codes {
        map.insert(
            code.to_string(),
            json!({"description": "an error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}),
        );
    }
    Value::Object(map)
}

fn responses(success: (&str, Value), codes: &[&str]) -> Value {
    let mut r = errors(codes);
    r[success.0] = success.1;
    r
}

/// An ingest endpoint (`serve --lake`): a post outside the token checks that takes an ingest key
/// and answers 202 with the `kind` it read once the body is durable, and its CORS preflight.
fn ingest_route(summary: &str, parameters: Value, body: &str, kind: Value) -> Value {
    json!({
        "post": {
            "summary": summary,
            "security": [{"ingestBearer": []}, {"ingestKey": []}],
            "parameters": parameters,
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "description": body}}}},
            "responses": responses(("202", json!({"description": "durable; written to the lake with the next batch", "content": {"application/json": {"schema": {"type": "object", "required": ["kind", "accepted", "profile_id", "source_hash", "warnings"], "properties": {
                "kind": kind, "accepted": {"const": true},
                "profile_id": {"type": "string"}, "source_hash": {"type": "string"},
                "warnings": {"type": "array", "items": {"type": "object"}}}}}}})), &["400", "401", "403", "413", "500"])
        },
        "options": {"summary": "CORS preflight: allowed for the --ingest-origin origins, 403 without CORS headers for others", "responses": {"204": {"description": "allowed"}, "403": {"description": "not an allowed origin"}}}
    })
}

/// A query type's parameters as OpenAPI lists them, drawn from the type every door reads
/// (`jsprof_document::query`, `jsprof_document::heap_query`): each field of its JSON Schema, the
/// CLI's help as its description, then the filters when it takes them. `skip` names the fields
/// the route's path carries instead.
fn query_params<Q: Query>(skip: &[&str]) -> Value {
    let mut out = schema_params(schemars::schema_for!(Q), skip);
    if Q::FILTERED {
        // The filters, from the one type the CLI's flags and every door read them with.
        out.extend(schema_params(schemars::schema_for!(FilterSpec), &[]));
    }
    Value::Array(out)
}

/// Each property of `schema` as a query parameter, but those named in `skip`.
fn schema_params(schema: schemars::Schema, skip: &[&str]) -> Vec<Value> {
    let schema = serde_json::to_value(schema).expect("schemas serialize");
    let mut out = Vec::new();
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        if skip.contains(&name.as_str()) {
            continue;
        }
        // A named type's schema is under `$defs`; the field's own keys (its description) win.
        let mut field_schema = match field["$ref"].as_str() {
            Some(r) => schema["$defs"][r.trim_start_matches("#/$defs/")].clone(),
            None => json!({}),
        };
        for (k, v) in field.as_object().into_iter().flatten() {
            if k != "$ref" {
                field_schema[k] = v.clone();
            }
        }
        let description = field_schema
            .as_object_mut()
            .and_then(|o| o.remove("description"))
            .and_then(|d| d.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push(param(name, "query", &description, field_schema));
    }
    out
}

/// `first`, then `rest`'s items.
fn with_params(mut first: Vec<Value>, rest: Value) -> Value {
    first.extend(rest.as_array().into_iter().flatten().cloned());
    Value::Array(first)
}

/// The document.
pub fn document(state: &AppState) -> Value {
    let path = |name, description, schema| param(name, "path", description, schema);
    let id_schema = json!({"type": "string", "pattern": "^[0-9a-f]{16}$"});
    let sid = || path("id", "a session id (16 hex digits)", id_schema.clone());
    let number = json!({"type": "integer", "minimum": 0});
    let aid = || path("artifact", "an artifact id of the session", number.clone());
    let node = || {
        path(
            "node",
            "a heap node id (the @id DevTools shows)",
            number.clone(),
        )
    };
    let std_errors = ["400", "401", "403", "404", "500"];
    // A page load's runs: a required list of trace artifacts.
    let runs = |name: &str, what: &str| {
        let mut p = param(
            name,
            "query",
            &format!(
                "{what}: SESSION_ID/ARTIFACT_ID,… (trace artifacts, 1 to {})",
                crate::ui_page_load::MAX_RUNS
            ),
            json!({"type": "string", "pattern": "^[0-9a-f]{16}/[0-9]+(,[0-9a-f]{16}/[0-9]+)*$"}),
        );
        p["required"] = json!(true);
        p
    };
    // A `GET` route: its path's parameters, summary, query parameters (when it takes any) and
    // its 200 answer; the standard errors.
    let get = |path: Value, summary: &str, query: Option<Value>, answer: Value| {
        let mut get =
            json!({"summary": summary, "responses": responses(("200", answer), &std_errors)});
        if let Some(query) = query {
            get["parameters"] = query;
        }
        json!({"parameters": path, "get": get})
    };
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "jsprof serve",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The profiling service: sessions recorded over the DevTools protocol or imported from files; timelines and events (the classic profiler service's StartProfiler, StopProfiler, GetEvents, ReleaseSession) with the JSON of the jsprof CLI. Every request carries the server's token as `Authorization: Bearer TOKEN` or `?token=TOKEN`; the Host header must name the server and a browser's Origin must be the server's own."
        },
        "servers": [{"url": format!("http://{}", state.local_addr)}],
        "security": [{"bearer": []}, {"token": []}],
        "paths": {
            "/api/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1"}}}},
            "/api/sessions": {
                "get": {"summary": "Every session, oldest first", "responses": responses(("200", ok("the sessions", "SessionList")), &std_errors)},
                "post": {
                    "summary": "StartProfiler: start recording a target (commands are never launched)",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/StartRequest"}}}},
                    "responses": responses(("201", ok("the session, recording", "Session")), &["400", "401", "403", "404", "409", "500"])
                },
                "delete": {"summary": "ReleaseSession without an id: release every stopped or failed session", "responses": responses(("200", ok("the released ids", "Released")), &std_errors)}
            },
            "/api/sessions/import": {"post": {
                "summary": "Import a file of any format jsprof reads (the request body; gzip too) as a stopped session",
                "parameters": [param("name", "query", "the file's name, for messages", json!({"type": "string"}))],
                "requestBody": {"required": true, "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                "responses": responses(("201", ok("the session", "Session")), &["400", "401", "403", "413", "500"])
            }},
            "/api/sessions/{id}": {
                "parameters": [sid()],
                "get": {"summary": "One session", "responses": responses(("200", ok("the session", "Session")), &std_errors)},
                "delete": {"summary": "ReleaseSession: delete a stopped or failed session and its files", "responses": responses(("200", ok("the released id", "Released")), &["400", "401", "403", "404", "409", "500"])}
            },
            "/api/sessions/{id}/stop": {
                "parameters": [sid()],
                "post": {"summary": "StopProfiler: collect the recording; answered once post-processing is done", "responses": responses(("200", ok("the session with its timelines", "Session")), &["400", "401", "403", "404", "409", "500"])}
            },
            "/api/sessions/{id}/timelines/{timeline}/events": {
                "parameters": [sid(), param("timeline", "path", "a timeline id of the session", json!({"type": "integer"}))],
                "get": {
                    "summary": "GetEvents: exactly `jsprof events --json` on the session's file",
                    "parameters": query_params::<EventsQuery>(&["thread"]),
                    "responses": responses(("200", ok("the events", "EventsReport")), &std_errors)
                }
            },
            "/api/sessions/{id}/artifacts/{artifact}/summary": get(json!([sid(), aid()]), "`jsprof summary --json` on a CPU (or sampling heap) artifact", Some(query_params::<SummaryQuery>(&[])), ok("the summary", "SummaryReport")),
            "/api/sessions/{id}/artifacts/{artifact}/threads": get(json!([sid(), aid()]), "`jsprof threads --json` on a CPU artifact", None, ok("the timelines", "ThreadsReport")),
            "/api/sessions/{id}/artifacts/{artifact}/insights": get(json!([sid(), aid()]), "`jsprof insights --json` on a trace artifact: Web Vitals per navigation and DevTools' insights", None, ok("the insights", "InsightsReport")),
            "/api/sessions/{id}/artifacts/{artifact}/network": get(json!([sid(), aid()]), "`jsprof network --json` on a trace artifact: every request", None, ok("the requests", "NetworkReport")),
            "/api/sessions/{id}/artifacts/{artifact}/timings": get(json!([sid(), aid()]), "`jsprof timings --json` on a trace artifact: marks and measures", None, ok("the user timings", "TimingsReport")),
            "/api/sessions/{id}/artifacts/{artifact}/top": get(json!([sid(), aid()]), "`jsprof top --json` on a CPU (or sampling heap) artifact", Some(query_params::<TopQuery>(&[])), ok("the function table", "TopReport")),
            "/api/sessions/{id}/artifacts/{artifact}/tree": {
                "parameters": [sid(), aid()],
                "get": {"summary": "`jsprof tree --json` on a CPU (or sampling heap) artifact; with `sandwich`, `jsprof tree --sandwich RE --json`",
                    "parameters": query_params::<TreeQuery>(&[]),
                    "responses": responses(("200", json!({"description": "the tree in depth-first pre-order, or the sandwich", "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/TreeReport"}, {"$ref": "#/components/schemas/SandwichReport"}]}}}})), &std_errors)}
            },
            "/api/sessions/{id}/artifacts/{artifact}/filmstrip": get(json!([sid(), aid()]), "`jsprof filmstrip --json`: a trace's screenshots in time order, times only", None, ok("the filmstrip", "FilmstripDoc")),
            "/api/sessions/{id}/artifacts/{artifact}/filmstrip/{index}": {
                "parameters": [sid(), aid(), {"name": "index", "in": "path", "required": true, "description": "the screenshot's index in the filmstrip", "schema": {"type": "integer", "minimum": 0}}],
                "get": {"summary": "one screenshot's image (base64, as the trace holds it); 404 past the last",
                    "responses": responses(("200", ok("the image", "ScreenshotJson")), &std_errors)}
            },
            "/api/sessions/{id}/artifacts/{artifact}/heap/summary": get(json!([sid(), aid()]), "`jsprof heap summary --json`", Some(query_params::<HeapSummaryQuery>(&[])), ok("DevTools' Summary", "HeapSummaryReport")),
            "/api/sessions/{id}/artifacts/{artifact}/heap/contexts": get(json!([sid(), aid()]), "`jsprof heap contexts --json`: the JavaScript contexts (native contexts) and the bytes each owns", None, ok("the contexts", "HeapContextsReport")),
            "/api/sessions/{id}/artifacts/{artifact}/heap/node/{node}": get(json!([sid(), aid(), node()]), "`jsprof heap node --json`", None, ok("the object", "NodesReport")),
            "/api/sessions/{id}/artifacts/{artifact}/heap/retainers/{node}": get(json!([sid(), aid(), node()]), "`jsprof heap retainers --json`", Some(query_params::<RetainersOptions>(&[])), ok("the retaining paths", "RetainersReport")),
            "/ingest/v1/selfprofile": ingest_route(
                "Field collection (serve --lake): a JS Self-Profiling trace posted by a page, appended to the lake. Answered 202 only once the trace is durable in the lake's spool. Outside the token checks: it takes an ingest key (serve --ingest-key-file) and answers CORS for the --ingest-origin origins only",
                json!([
                    param("key", "query", "an ingest key (sendBeacon cannot set headers); or `Authorization: Bearer KEY`", json!({"type": "string"})),
                    {"name": "page", "in": "query", "required": true, "description": "the page's label", "schema": {"type": "string", "maxLength": 256}},
                    {"name": "release", "in": "query", "required": true, "description": "the release's label", "schema": {"type": "string", "maxLength": 256}},
                    param("label.NAME", "query", "any other label NAME=VALUE (NAME: letters, digits, `_`, `-`, `.`); `browser` and `device` are set from the User-Agent, `source` is `ingest`", json!({"type": "string"}))
                ]),
                "the trace `profiler.stop()` resolves to (frames, resources, samples, stacks)",
                json!({"const": "selfprofile"}),
            ),
            "/ingest/v1/profile": ingest_route(
                "Production collection (serve --lake): a .cpuprofile or .heapprofile window posted by a process (the Node agent, `jsprof/agent`), appended to the lake with its labels. Same keys, limits, spool and durability as /ingest/v1/selfprofile: answered 202 only once the window is durable in the lake's spool",
                json!([
                    param("key", "query", "an ingest key; or `Authorization: Bearer KEY`", json!({"type": "string"})),
                    {"name": "service", "in": "query", "required": true, "description": "the service's label", "schema": {"type": "string", "maxLength": 256}},
                    param("version", "query", "the service's version (label)", json!({"type": "string", "maxLength": 256})),
                    param("host", "query", "the host's name (label)", json!({"type": "string", "maxLength": 256})),
                    param("pid", "query", "the process id (label)", json!({"type": "string", "pattern": "^[0-9]+$"})),
                    param("thread", "query", "the profile's thread column (`--where thread=…`): `main` or `worker-N`", json!({"type": "string", "pattern": "^(main|worker-[0-9]+)$"})),
                    param("stall", "query", "`1`: the window covers an event-loop stall (label)", json!({"const": "1"})),
                    param("stall_start_ms", "query", "the stall's start, ms from the profile's start (label; `jsprof top --range START..END`)", json!({"type": "number", "minimum": 0})),
                    param("stall_end_ms", "query", "the stall's end, ms from the profile's start (label)", json!({"type": "number", "minimum": 0})),
                    param("stall_ms", "query", "the stall's length in ms (label)", json!({"type": "number", "minimum": 0})),
                    param("heap_used", "query", "bytes of JS heap used at the window's end (label)", json!({"type": "string", "pattern": "^[0-9]+$"})),
                    param("heap_total", "query", "bytes of JS heap at the window's end (label)", json!({"type": "string", "pattern": "^[0-9]+$"})),
                    param("rss", "query", "the process's resident set in bytes at the window's end (label)", json!({"type": "string", "pattern": "^[0-9]+$"})),
                    param("external", "query", "bytes of memory outside the JS heap held by JS objects at the window's end (label)", json!({"type": "string", "pattern": "^[0-9]+$"})),
                    param("start_ms", "query", "the window's wall-clock start, ms since the epoch: the profile's start time in the lake (`--since`, `lake trend --by day`); else the post's arrival", json!({"type": "number", "minimum": 0})),
                    param("label.NAME", "query", "any other label NAME=VALUE (NAME: letters, digits, `_`, `-`, `.`; not a parameter above nor a column of the lake's profiles); `source` is `ingest`", json!({"type": "string"}))
                ]),
                "a .cpuprofile (`Profiler.stop`'s profile) or a .heapprofile (`HeapProfiler.stopSampling`'s profile), as JSON; gzip when its bytes are gzip (`Content-Encoding: gzip` or none)",
                json!({"enum": ["cpuprofile", "heapprofile"]}),
            ),
            "/api/ui/sessions/{id}/summary": get(json!([sid()]), "`jsprof summary TRACE --range A..B --json`: the Performance panel's Summary of a selection, one thread's time in a range by DevTools' categories (each entry's self time, clipped), Idle the rest", Some(with_params(vec![
                param("timeline", "query", "the thread: a timeline id (as the chart's `timeline`); the default thread without", number.clone()),
                param("range", "query", "START..END in ms from the input's time origin (the chart's `range`, the CLI's `--range`); an open side is the recording's edge", json!({"type": "string"})),
            ], Value::Array(schema_params(schemars::schema_for!(FilterSpec), &[])))), ok("the time of each category in the range", "SelectionSummaryReport")),
            "/api/ui/page-runs": get(json!([]), "`jsprof insights DIR --json` over trace artifacts: the runs of one page load, each named by its artifact's name; each run read in turn", Some(json!([runs("runs", "the runs")])), ok("each metric's distribution over the runs, each insight's failing share", "PageRunsReport")),
            "/api/ui/page-diff": get(json!([]), "`jsprof diff --base A/ --target B/ --json` over trace artifacts: two builds' page loads compared metric by metric (the CLI's defaults: noise floor 0.5 points, a function tested when in 3 runs); every run must have a navigation", Some(json!([
                runs("base", "the base build's runs"),
                runs("target", "the target build's runs"),
                param("alpha", "query", "a change is significant when its Benjamini-Hochberg q-value is below this", json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.05}))
            ])), ok("per metric the Hodges-Lehmann shift, its 95 % interval and q-value; the insights that changed", "PageDiffReport")),
            "/api/sessions/{id}/artifacts/{artifact}/heap/diff": {
                "parameters": [sid(), aid()],
                "get": {"summary": "`jsprof heap diff --json BASE THIS`", "parameters": with_params(vec![param("base", "query", "SESSION_ID/ARTIFACT_ID of the earlier snapshot", json!({"type": "string"}))], query_params::<HeapDiffQuery>(&[])),
                    "responses": responses(("200", ok("DevTools' Comparison", "HeapDiffReport")), &std_errors)}
            }
        },
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "token": {"type": "apiKey", "in": "query", "name": "token"},
                "ingestBearer": {"type": "http", "scheme": "bearer", "description": "an ingest key (not the token)"},
                "ingestKey": {"type": "apiKey", "in": "query", "name": "key"}
            },
            "schemas": {
                "Error": {"type": "object", "required": ["error", "message"], "properties": {
                    "error": {"type": "string", "enum": ["BAD_REQUEST", "NOT_FOUND", "CONFLICT", "TOO_LARGE", "UNAUTHORIZED", "FORBIDDEN", "TOO_MANY_REQUESTS", "INTERNAL_ERROR"]},
                    "message": {"type": "string"}}},
                "StartRequest": {"type": "object", "required": ["target"], "additionalProperties": false, "properties": {
                    "target": {"type": "string", "description": "ws://HOST:PORT/ID | HOST:PORT | pid:PID | chrome:HOST:PORT (loopback unless --allow-remote-targets)"},
                    "record": {"type": "array", "items": {"type": "string", "enum": ["cpu", "heap-sampling", "heap-snapshot", "trace"]}, "default": ["cpu"]},
                    "interval_us": {"type": "integer", "minimum": 1, "maximum": 1000000},
                    "snapshot_every_s": {"type": "number", "description": "with heap-snapshot: one every so many seconds too"},
                    "url": {"type": "string", "description": "with trace and a chrome:HOST:PORT target: record the load of this URL in a new tab as the Performance panel's Record and reload does (`jsprof record --url`); the session stops by itself 3 s after the load event (at most 60 s without one) and the tab is closed"}}},
                "SessionList": {"type": "object", "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}},
                "Released": {"type": "object", "properties": {"released": {"type": "array", "items": {"type": "string"}}}}
            }
        }
    });
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("written above");
    schemas.extend(jsprof_document::schema::components());
    // The session resource, from its type.
    let mut g = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .into_generator();
    g.subschema_for::<crate::state::SessionJson>();
    schemas.extend(g.take_definitions(true));
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn names(params: &Value) -> Vec<String> {
        let mut names: Vec<String> = params
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    }

    /// The description lists what the route reads: the query type's names (less its aliases)
    /// and the filters, each with the CLI's help and a resolved schema.
    #[test]
    fn the_parameters_described_are_the_ones_read() {
        fn check<Q: Query>(skip: &[&str]) {
            let described = query_params::<Q>(skip);
            let mut read: Vec<String> = Params::known::<Q>()
                .into_iter()
                .filter(|k| !skip.contains(&k.as_str()))
                .filter(|k| !Q::ALIASES.iter().any(|(old, _)| old == k))
                .collect();
            read.sort();
            assert_eq!(names(&described), read);
            for p in described.as_array().unwrap() {
                assert!(
                    p.get("$ref").is_none() && p["schema"].get("$ref").is_none(),
                    "{p}"
                );
                assert!(!p["description"].as_str().unwrap().is_empty(), "{p}");
            }
        }
        check::<TopQuery>(&[]);
        check::<TreeQuery>(&[]);
        check::<EventsQuery>(&["thread"]);
        check::<SummaryQuery>(&[]);
        check::<HeapSummaryQuery>(&[]);
        check::<RetainersOptions>(&[]);
        check::<HeapDiffQuery>(&[]);
        let top = query_params::<TopQuery>(&[]);
        let by = top
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "by")
            .unwrap();
        assert_eq!(by["schema"]["enum"], json!(["self", "total"]));
        assert_eq!(by["description"], "Order by self or total time.");
    }
}
