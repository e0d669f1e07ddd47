//! Every opened artifact as a resource, `jsprof://artifact/<handle>`: reading one gives the
//! same document as `open` (its kind, size and summary).

use std::sync::Arc;

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use rmcp::ErrorData;
use serde_json::{json, Map, Value};

use crate::store::Store;

const PREFIX: &str = "jsprof://artifact/";

pub fn list(store: &Arc<Store>) -> Vec<Resource> {
    store
        .entries()
        .iter()
        .map(|e| {
            Resource::new(format!("{PREFIX}{}", e.handle), e.handle.clone())
                .with_title(format!("{} ({})", e.name, e.kind()))
                .with_description(format!(
                    "{} opened as {}: read for its summary",
                    e.kind(),
                    e.handle
                ))
                .with_mime_type("application/json")
                .with_size(e.size)
        })
        .collect()
}

pub async fn read(store: &Arc<Store>, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!(
                "no resource `{}`: resources are {PREFIX}<handle> of opened files",
                uri.escape_debug()
            ),
            None,
        )
    };
    let handle = uri.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let entry = store.get(handle).map_err(|_| not_found())?;
    let mut args = Map::new();
    args.insert(
        "path".into(),
        Value::String(entry.path.display().to_string()),
    );
    let answer = crate::tools::call(store, "open", args)
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), Some(json!({"error": e.code()}))))?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        answer.json.to_string(),
        uri,
    )
    .with_mime_type("application/json")]))
}
