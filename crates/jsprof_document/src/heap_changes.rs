//! `jsprof heap diff BASE TARGET --class KEY --json` and the UI's Comparison rows that expand: the
//! new objects (in TARGET) and the deleted ones (in BASE) of one class, a page of each.

use jsprof_heap::{class_changes, Analysis, HeapSnapshot};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{warnings_named, Named};
use crate::heap_pages::{page, ObjectsPage};
use crate::{JsonWarning, ReportError, Result};

/// `heap diff --class`: one Comparison row's objects.
#[derive(Serialize, JsonSchema)]
pub struct ClassChangesReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// The Summary key of the class (a Comparison row's `key`).
    pub key: String,
    pub name: String,
    /// Objects of TARGET whose ids BASE does not have in this class, largest self size first
    /// (their count and sizes are the row's `new_count` and `alloc_size`).
    pub new: ObjectsPage,
    /// Objects of BASE whose ids TARGET does not have in this class, largest self size first,
    /// with BASE's sizes and distances (the row's `deleted_count` and `freed_size`).
    pub deleted: ObjectsPage,
}

/// The new and deleted objects of class `key`, `offset`/`limit` applied to each list; `NotFound`
/// when neither snapshot has the class.
pub fn class_changes_report(
    base: Named<&mut HeapSnapshot, &mut Analysis>,
    target: Named<&HeapSnapshot, &Analysis>,
    key: &str,
    offset: usize,
    limit: usize,
) -> Result<ClassChangesReport> {
    let changes = class_changes(
        base.snapshot,
        base.analysis,
        target.snapshot,
        target.analysis,
        key,
    )
    .ok_or_else(|| {
        ReportError::NotFound(format!(
            "no class with key `{key}` in {} or {}",
            base.name, target.name
        ))
    })?;
    let mut warnings = warnings_named(base.name, base.snapshot);
    warnings.extend(warnings_named(target.name, target.snapshot));
    Ok(ClassChangesReport {
        kind: target.snapshot.kind(),
        warnings,
        key: key.to_string(),
        name: changes.name,
        new: page(
            target.snapshot,
            target.analysis,
            &changes.new,
            offset,
            limit,
        ),
        deleted: page(
            base.snapshot,
            base.analysis,
            &changes.deleted,
            offset,
            limit,
        ),
    })
}
