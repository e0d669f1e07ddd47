//! `jsprof heap strings FILE --json` and the UI's Duplicated strings panel: string values held
//! more than once, largest waste first.

use jsprof_heap::{duplicate_strings, Analysis, HeapSnapshot};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::warnings;
use crate::JsonWarning;

/// One duplicated value.
#[derive(Serialize, JsonSchema)]
pub struct StringJson {
    pub value: String,
    /// Only in answers that cut long values (MCP's `heap_strings`, at 500 characters): `value`
    /// is its first characters.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub value_cut: bool,
    pub count: u64,
    pub total_size: u64,
    /// The total minus the smallest copy: what keeping one copy would save.
    pub wasted_size: u64,
    pub retained_size: u64,
    /// V8 cut the value short in the snapshot; `length` is the full length (UTF-16 units).
    pub truncated: bool,
    pub length: Option<i64>,
    /// One of the copies (its id), for its Retainers.
    pub sample_id: u32,
}

/// `heap strings`.
#[derive(Serialize, JsonSchema)]
pub struct StringsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// How many duplicated values there are in all (before `limit`).
    pub total: usize,
    pub strings: Vec<StringJson>,
}

/// The duplicated strings, at most `limit` (0 = all).
pub fn strings_report(s: &HeapSnapshot, a: &Analysis, limit: usize) -> StringsReport {
    strings_report_shown(s, a, limit, usize::MAX)
}

/// [`strings_report`] with each value cut at `shown` characters (`value_cut` says which were):
/// one 10 MB string must not fill an agent's page.
pub fn strings_report_shown(
    s: &HeapSnapshot,
    a: &Analysis,
    limit: usize,
    shown: usize,
) -> StringsReport {
    let mut groups = duplicate_strings(s, a);
    let total = groups.len();
    if limit > 0 {
        groups.truncate(limit);
    }
    StringsReport {
        kind: s.kind(),
        warnings: warnings(s),
        total,
        strings: groups
            .into_iter()
            .map(|g| {
                let (value, value_cut) = cut_chars(g.value, shown);
                StringJson {
                    sample_id: s.nodes.id(g.sample),
                    value,
                    value_cut,
                    count: g.count,
                    total_size: g.total_size,
                    wasted_size: g.wasted_size,
                    retained_size: g.retained_size,
                    truncated: g.truncated,
                    length: g.length,
                }
            })
            .collect(),
    }
}

/// `value`'s first `shown` characters, and whether any were cut. A value of at most `shown` bytes
/// is not read: the CLI's `usize::MAX` costs nothing, however long the strings.
fn cut_chars(mut value: String, shown: usize) -> (String, bool) {
    if value.len() <= shown {
        return (value, false);
    }
    match value.char_indices().nth(shown) {
        Some((at, _)) => {
            value.truncate(at);
            (value, true)
        }
        None => (value, false),
    }
}

#[cfg(test)]
mod tests {
    use super::cut_chars;

    #[test]
    fn values_are_cut_at_characters_not_bytes() {
        assert_eq!(cut_chars("abc".into(), 3), ("abc".into(), false));
        assert_eq!(cut_chars("abcd".into(), 3), ("abc".into(), true));
        // Four characters, eight bytes: cut after the third character.
        assert_eq!(cut_chars("ééée".into(), 3), ("ééé".into(), true));
        assert_eq!(cut_chars("ééé".into(), 3), ("ééé".into(), false));
        assert_eq!(
            cut_chars("x".repeat(10), usize::MAX),
            ("x".repeat(10), false)
        );
    }
}
