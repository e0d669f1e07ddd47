//! The heap tools: a snapshot's Summary, classes, objects, retainers, dominators, statistics,
//! duplicate strings, detached DOM, Comparison and leaks (`jsprof heap … --json`).

use std::sync::Arc;

use jsprof_heap::SortBy;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::text::{fmt_bytes, object_row};
use super::{to_value, Answer, Question};
use crate::error::{ToolError, ToolResult};

#[derive(Deserialize, JsonSchema)]
pub struct HeapSummaryArgs {
    pub handle: String,
    /// `retained` (default), `self` or `count`.
    #[serde(default)]
    pub sort: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapClassArgs {
    pub handle: String,
    /// The class's `key` from heap_summary.
    pub key: String,
}

/// A heap object id: `123` or `"@123"`, as the tables print it.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(untagged)]
pub enum NodeId {
    Number(u32),
    Text(String),
}

impl NodeId {
    fn get(&self) -> ToolResult<u32> {
        match self {
            NodeId::Number(n) => Ok(*n),
            NodeId::Text(t) => t.trim_start_matches('@').parse().map_err(|_| {
                ToolError::BadRequest(format!(
                    "bad object id `{}`: expected a number like 123 or \"@123\"",
                    t.escape_debug()
                ))
            }),
        }
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapObjectArgs {
    pub handle: String,
    pub id: NodeId,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapRetainersArgs {
    pub handle: String,
    pub id: NodeId,
    /// How many shortest paths to find (default 5).
    #[serde(default)]
    pub paths: Option<usize>,
    /// Longest path searched (default 100).
    #[serde(default)]
    pub max_depth: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapDominatorsArgs {
    pub handle: String,
    /// The object whose dominated children to list (default: the root).
    #[serde(default)]
    pub id: Option<NodeId>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapStatisticsArgs {
    pub handle: String,
}

pub type HeapStringsArgs = HeapStatisticsArgs;
pub type HeapDetachedArgs = HeapStatisticsArgs;

#[derive(Deserialize, JsonSchema)]
pub struct HeapDiffArgs {
    /// The earlier snapshot's handle.
    pub base: String,
    pub target: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapLeaksArgs {
    /// Three or more snapshot handles in time order: before the action, after it, later.
    pub handles: Vec<String>,
    /// Hide groups retaining fewer bytes in the last snapshot.
    #[serde(default)]
    pub min_retained: u64,
}

pub(super) async fn heap_of(q: &Question<'_>, handle: &str) -> ToolResult<Arc<crate::store::Heap>> {
    let entry = q.store.get(handle)?;
    q.store.heap(&entry).await
}

pub(super) async fn heap_summary(q: Question<'_>, args: HeapSummaryArgs) -> ToolResult<Answer> {
    let sort = match args.sort.as_deref() {
        None | Some("retained") => SortBy::Retained,
        Some("self") => SortBy::SelfSize,
        Some("count") => SortBy::Count,
        Some(s) => {
            return Err(ToolError::BadRequest(format!(
                "bad `sort` `{}`: expected retained, self or count",
                s.escape_debug()
            )))
        }
    };
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            to_value(&jsprof_document::heap::summary_report(
                &heap.snapshot,
                &heap.analysis,
                sort,
                0,
            ))
        })
        .await?;
    q.paged((*doc).clone(), &["classes"], "classes", |c| {
        format!(
            "{} (key {}): {} objects, self {}, retained {}",
            c["name"].as_str().unwrap_or(""),
            c["key"],
            c["count"],
            fmt_bytes(&c["self_size"]),
            fmt_bytes(&c["retained_size"])
        )
    })
}

pub(super) async fn heap_class(q: Question<'_>, args: HeapClassArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let key = args.key.clone();
    let doc = crate::store::blocking(move || {
        let members = heap.class(&key).ok_or_else(|| {
            ToolError::NotFound(format!(
                "{}: no class with key `{}` (keys are in heap_summary's answer)",
                heap.name,
                key.escape_debug()
            ))
        })?;
        let page = jsprof_document::heap_pages::page(
            &heap.snapshot,
            &heap.analysis,
            &members,
            offset,
            items,
        );
        to_value(&page)
    })
    .await?;
    let total = doc["total"].as_u64().unwrap_or(0) as usize;
    q.window(doc, &["objects"], offset, total, "objects", object_row)
}

pub(super) async fn heap_object(q: Question<'_>, args: HeapObjectArgs) -> ToolResult<Answer> {
    let id = args.id.get()?;
    let heap = heap_of(&q, &args.handle).await?;
    let json = crate::store::blocking(move || {
        to_value(&jsprof_document::heap::nodes_report(
            &heap.name,
            &heap.snapshot,
            &heap.analysis,
            &[id],
        )?)
    })
    .await?;
    let n = &json["nodes"][0];
    let text = format!(
        "@{} {} ({}): self {}, retained {}, distance {}, dominated by @{}, {} edges, {} retainers",
        n["id"],
        n["name"].as_str().unwrap_or(""),
        n["type"].as_str().unwrap_or(""),
        fmt_bytes(&n["self_size"]),
        fmt_bytes(&n["retained_size"]),
        n["distance"],
        n["dominator_id"],
        n["edge_count"],
        n["retainer_count"]
    );
    Ok(Answer { json, text })
}

pub(super) async fn heap_retainers(q: Question<'_>, args: HeapRetainersArgs) -> ToolResult<Answer> {
    let id = args.id.get()?;
    let defaults = jsprof_document::heap::RetainersOptions::default();
    let options = jsprof_document::heap::RetainersOptions {
        paths: args.paths.unwrap_or(defaults.paths),
        max_depth: args.max_depth.unwrap_or(defaults.max_depth),
    };
    if options.paths > q.store.config.max_items {
        return Err(ToolError::TooLarge(format!(
            "paths {} is over this server's cap of {}",
            options.paths, q.store.config.max_items
        )));
    }
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let node = jsprof_document::heap::ordinal_of(&heap.name, &heap.snapshot, id)?;
            to_value(&jsprof_document::heap::retainers_report_with(
                &heap.snapshot,
                &heap.analysis,
                heap.retainers(),
                node,
                options,
            ))
        })
        .await?;
    let mut answer = q.paged((*doc).clone(), &["paths"], "retaining paths", |p| {
        let steps: Vec<String> = p["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "{} in {} @{}",
                    s["edge"].as_str().unwrap_or(""),
                    s["retainer"]["name"].as_str().unwrap_or(""),
                    s["retainer"]["id"]
                )
            })
            .collect();
        steps.join(" ← ")
    })?;
    answer.text = format!("{}\n{}", object_row(&answer.json["object"]), answer.text);
    Ok(answer)
}

pub(super) async fn heap_dominators(
    q: Question<'_>,
    args: HeapDominatorsArgs,
) -> ToolResult<Answer> {
    let id = args.id.as_ref().map(NodeId::get).transpose()?;
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let doc = crate::store::blocking(move || {
        let node = match id {
            Some(id) => jsprof_document::heap::ordinal_of(&heap.name, &heap.snapshot, id)?,
            None => heap.snapshot.root,
        };
        let page = jsprof_document::heap_pages::dominated_page(
            &heap.snapshot,
            &heap.analysis,
            heap.dominators(),
            node,
            offset,
            items,
        );
        let mut doc = to_value(&page)?;
        doc["object"] = to_value(&jsprof_document::heap::object_json(
            &heap.snapshot,
            &heap.analysis,
            node,
        ))?;
        Ok(doc)
    })
    .await?;
    let total = doc["total"].as_u64().unwrap_or(0) as usize;
    q.window(
        doc,
        &["objects"],
        offset,
        total,
        "immediately dominated objects",
        object_row,
    )
}

pub(super) async fn heap_statistics(
    q: Question<'_>,
    args: HeapStatisticsArgs,
) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let json = json!({
        "kind": heap.snapshot.kind(),
        "warnings": jsprof_document::heap::warnings(&heap.snapshot),
        "node_count": heap.snapshot.node_count(),
        "total_size": heap.analysis.total_size,
        "statistics": jsprof_document::heap::statistics_json(&heap.analysis.statistics),
    });
    let st = &json["statistics"];
    let text = format!(
        "{} objects, total {}: V8 heap {} (code {}, strings {}, JS arrays {}, system {}), native {} (typed arrays {})",
        json["node_count"],
        fmt_bytes(&st["total"]),
        fmt_bytes(&st["v8heap"]["total"]),
        fmt_bytes(&st["v8heap"]["code"]),
        fmt_bytes(&st["v8heap"]["strings"]),
        fmt_bytes(&st["v8heap"]["jsArrays"]),
        fmt_bytes(&st["v8heap"]["system"]),
        fmt_bytes(&st["native"]["total"]),
        fmt_bytes(&st["native"]["typedArrays"])
    );
    Ok(Answer { json, text })
}

/// Longest string value put in an answer: one 10 MB string must not fill the page.
pub(super) const STRING_SHOWN: usize = 500;

pub(super) async fn heap_strings(q: Question<'_>, args: HeapStringsArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let s = &heap.snapshot;
            let groups = jsprof_heap::duplicate_strings(s, &heap.analysis);
            let strings: Vec<Value> = groups
                .into_iter()
                .map(|g| {
                    let cut = g.value.chars().count() > STRING_SHOWN;
                    let value: String = g.value.chars().take(STRING_SHOWN).collect();
                    json!({
                        "value": value,
                        "value_cut": cut,
                        "count": g.count,
                        "total_size": g.total_size,
                        "wasted_size": g.wasted_size,
                        "retained_size": g.retained_size,
                        "truncated": g.truncated,
                        "length": g.length,
                        "sample_id": s.nodes.id[g.sample as usize],
                    })
                })
                .collect();
            Ok(json!({
                "kind": s.kind(),
                "warnings": jsprof_document::heap::warnings(s),
                "strings": strings,
            }))
        })
        .await?;
    q.paged((*doc).clone(), &["strings"], "duplicate strings", |g| {
        let value: String = g["value"].as_str().unwrap_or("").chars().take(60).collect();
        format!(
            "{value:?} ×{}: wasted {} (@{})",
            g["count"],
            fmt_bytes(&g["wasted_size"]),
            g["sample_id"]
        )
    })
}

pub(super) async fn heap_detached(q: Question<'_>, args: HeapDetachedArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let s = &heap.snapshot;
            let trees = jsprof_document::heap_pages::detached(
                s,
                &heap.analysis,
                heap.dominators(),
                usize::MAX,
            );
            Ok(json!({
                "kind": s.kind(),
                "warnings": jsprof_document::heap::warnings(s),
                "trees": to_value(&trees)?,
            }))
        })
        .await?;
    q.paged((*doc).clone(), &["trees"], "detached DOM trees", |t| {
        format!(
            "{} nodes, retained {}: {}",
            t["node_count"],
            fmt_bytes(&t["retained_size"]),
            object_row(&t["root"])
        )
    })
}

pub(super) async fn heap_diff(q: Question<'_>, args: HeapDiffArgs) -> ToolResult<Answer> {
    let base = q.store.get(&args.base)?;
    // Checked and loaded like the target, so a wrong handle fails before a long read.
    q.store.heap(&base).await?;
    let target = heap_of(&q, &args.target).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            // The comparison re-classifies its base, so it gets a copy of its own.
            let (mut snapshot, mut analysis) = crate::store::read_snapshot(&base.path, &base.name)?;
            let (report, _) = jsprof_document::heap::diff_report(
                jsprof_document::heap::Named {
                    name: &base.name,
                    snapshot: &mut snapshot,
                    analysis: &mut analysis,
                },
                jsprof_document::heap::Named {
                    name: &target.name,
                    snapshot: &target.snapshot,
                    analysis: &target.analysis,
                },
                0,
            );
            to_value(&report)
        })
        .await?;
    q.paged((*doc).clone(), &["classes"], "classes that changed", |c| {
        format!(
            "{}: {:+} objects (+{} −{}), size {:+}",
            c["name"].as_str().unwrap_or(""),
            c["count_delta"].as_i64().unwrap_or(0),
            c["new_count"],
            c["deleted_count"],
            c["size_delta"].as_i64().unwrap_or(0)
        )
    })
}

pub(super) async fn heap_leaks(q: Question<'_>, args: HeapLeaksArgs) -> ToolResult<Answer> {
    if args.handles.len() < 3 {
        return Err(ToolError::BadRequest(format!(
            "heap_leaks needs three or more snapshot handles in time order (before, after, later); got {}",
            args.handles.len()
        )));
    }
    let mut heaps = Vec::new();
    for h in &args.handles {
        heaps.push(heap_of(&q, h).await?);
    }
    let (base, target, last) = (
        heaps[0].clone(),
        heaps[1].clone(),
        heaps[heaps.len() - 1].clone(),
    );
    let min_retained = args.min_retained;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            use jsprof_document::heap::Named;
            // Into the process's order by object ids, as `jsprof heap leaks` does (and says).
            let order = jsprof_document::heap::leaks_order([
                &base.snapshot,
                &target.snapshot,
                &last.snapshot,
            ]);
            let given = [&base, &target, &last];
            let (base, target, last) = (given[order[0]], given[order[1]], given[order[2]]);
            to_value(&jsprof_document::heap::leaks_report(
                Named {
                    name: &base.name,
                    snapshot: &base.snapshot,
                    analysis: (),
                },
                Named {
                    name: &target.name,
                    snapshot: &target.snapshot,
                    analysis: (),
                },
                Named {
                    name: &last.name,
                    snapshot: &last.snapshot,
                    analysis: &last.analysis,
                },
                order,
                jsprof_document::heap::LeaksOptions {
                    min_retained,
                    limit: 0,
                },
            ))
        })
        .await?;
    q.paged((*doc).clone(), &["groups"], "leak groups", |g| {
        let path: Vec<String> = g["path"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "{}{}",
                    s["class"].as_str().unwrap_or(""),
                    s["edge"].as_str().unwrap_or("")
                )
            })
            .collect();
        format!(
            "{} ×{} retaining {} via {} (sample @{})",
            g["class"].as_str().unwrap_or(""),
            g["count"],
            fmt_bytes(&g["retained_size"]),
            path.join(" → "),
            g["sample_id"]
        )
    })
}
