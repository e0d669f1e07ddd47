//! `jsprof heap redact FILE -o OUT --json`: what a redaction replaced.

use jsprof_heap::RedactStats;
use schemars::JsonSchema;
use serde::Serialize;

/// `heap redact`: counts of what was replaced in the copy written.
#[derive(Serialize, JsonSchema)]
pub struct RedactReport {
    /// Entries in the input's string table.
    pub strings: u64,
    /// Of those, replaced by placeholders of the same length (in UTF-16 code units).
    pub strings_redacted: u64,
    /// Entries appended to the table: a text that is both a kept name (a class or property name)
    /// and a value gets a placeholder of its own for the value.
    pub strings_appended: u64,
    /// Nodes whose text was replaced: string values, regexps, and numbers with `--numbers`.
    pub nodes_redacted: u64,
    /// Whether number values were zeroed (`--numbers`).
    pub numbers: bool,
    pub numbers_zeroed: u64,
}

impl RedactReport {
    pub fn new(stats: &RedactStats, numbers: bool) -> RedactReport {
        RedactReport {
            strings: stats.strings,
            strings_redacted: stats.redacted,
            strings_appended: stats.appended,
            nodes_redacted: stats.nodes_redacted,
            numbers,
            numbers_zeroed: stats.numbers_zeroed,
        }
    }
}
