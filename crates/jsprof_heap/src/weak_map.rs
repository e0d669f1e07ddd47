//! Recognising V8's names for the two edges that hold a WeakMap value.
//!
//! V8 names both edges `N / part of key (K @k) -> value (V @v) pair in WeakMap (table @t)`. DevTools
//! matches them with a regular expression; this is the same language, matched by hand so that the
//! crate needs no regex engine: leading digits, the fixed parts, any text without line terminators
//! for `K` and `V` (JavaScript's `.`), and digits for the ids.

const KEY_PART: &[u8] = b" / part of key (";
const VALUE_PART: &[u8] = b") -> value (";
const TABLE_PART: &[u8] = b") pair in WeakMap (table @";

/// A matched ephemeron edge name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeakMapEdgeName {
    /// Where the part shared by both edges of a pair starts (after the leading number).
    pub shared_start: usize,
    /// The table's node id (saturated; V8 ids fit in 32 bits).
    pub table_id: u64,
}

pub fn parse_weak_map_edge_name(name: &[u8]) -> Option<WeakMapEdgeName> {
    let lead = name.iter().take_while(|b| b.is_ascii_digit()).count();
    if lead == 0 {
        return None;
    }
    let body = name[lead..].strip_prefix(KEY_PART)?.strip_suffix(b")")?;
    let (before_table, table_digits) = split_trailing_digits(body)?;
    let middle = before_table.strip_suffix(TABLE_PART)?;
    let (middle, _value_id) = split_trailing_digits(middle)?;
    let middle = middle.strip_suffix(b" @")?;
    // `middle` is `K @k) -> value (V`: some occurrence of the value part must follow ` @digits`.
    let found = find_all(middle, VALUE_PART).any(|at| {
        split_trailing_digits(&middle[..at]).is_some_and(|(before, _)| before.ends_with(b" @"))
    });
    if !found || has_line_terminator(name) {
        return None;
    }
    let table_id = table_digits.iter().fold(0u64, |acc, &d| {
        acc.saturating_mul(10).saturating_add((d - b'0') as u64)
    });
    Some(WeakMapEdgeName {
        shared_start: lead,
        table_id,
    })
}

/// Splits off one or more trailing ASCII digits.
fn split_trailing_digits(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let digits = s.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    (digits > 0).then(|| s.split_at(s.len() - digits))
}

fn find_all<'a>(haystack: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    (0..haystack.len().saturating_sub(needle.len() - 1))
        .filter(move |&i| haystack[i..].starts_with(needle))
}

fn has_line_terminator(s: &[u8]) -> bool {
    s.iter().any(|&b| b == b'\n' || b == b'\r')
        || s.windows(3)
            .any(|w| w == [0xE2, 0x80, 0xA8] || w == [0xE2, 0x80, 0xA9])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_v8_names() {
        let name = b"12 / part of key (Object @3) -> value (Foo @5) pair in WeakMap (table @77)";
        let m = parse_weak_map_edge_name(name).unwrap();
        assert_eq!(m.table_id, 77);
        assert_eq!(&name[m.shared_start..m.shared_start + 3], b" / ");
        let tricky =
            b"1 / part of key (a) -> value (b @1) @2) -> value (c @3) pair in WeakMap (table @4)";
        assert!(parse_weak_map_edge_name(tricky).is_some());
    }

    #[test]
    fn rejects_other_names() {
        assert!(parse_weak_map_edge_name(b"elements").is_none());
        assert!(parse_weak_map_edge_name(
            b"1 / part of key (a @1) -> value (b @2) pair in WeakMap (table @)"
        )
        .is_none());
        assert!(parse_weak_map_edge_name(
            b"1 / part of key (a\n @1) -> value (b @2) pair in WeakMap (table @3)"
        )
        .is_none());
        assert!(parse_weak_map_edge_name(
            b"x / part of key (a @1) -> value (b @2) pair in WeakMap (table @3)"
        )
        .is_none());
    }
}
