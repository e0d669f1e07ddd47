//! The snapshot's `strings` table: every string in one byte arena.
//!
//! V8 writes strings as UTF-16 code units escaped one by one, so lone surrogates occur. Rust's `str` cannot
//! hold them, so the arena stores WTF-8 (UTF-8 that also encodes unpaired surrogates as 3-byte sequences).
//! DevTools compares and measures strings in UTF-16 code units; the helpers here do the same so that sort
//! orders and length caps match.

use std::cmp::Ordering;

/// A string's index in the table, as node names and edge names refer to it.
pub type StringIndex = u32;

/// All strings of a snapshot, plus those the analysis appends (class names, `Detached …`).
///
/// The two columns are private to the crate, as [`crate::Nodes`]' are: the index cache writes and
/// reads them whole, and checks that `ends` never decreases and ends at `bytes.len()` before it
/// hands out a table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strings {
    pub(crate) bytes: Vec<u8>,
    /// `ends[i]` is the end of string `i` in `bytes`; string `i` starts at `ends[i - 1]` (or 0).
    pub(crate) ends: Vec<u64>,
}

impl Strings {
    pub fn new() -> Strings {
        Strings::default()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The WTF-8 bytes of string `index`.
    pub fn bytes(&self, index: StringIndex) -> &[u8] {
        let i = index as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// String `index` for people: lone surrogates become U+FFFD.
    pub fn get(&self, index: StringIndex) -> String {
        wtf8_to_string(self.bytes(index))
    }

    /// Appends a string and returns its index.
    pub fn push(&mut self, bytes: &[u8]) -> StringIndex {
        self.bytes.extend_from_slice(bytes);
        self.finish()
    }

    /// The arena the reader appends raw bytes to before calling [`Strings::finish`].
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Closes the string whose bytes were appended since the previous one.
    pub(crate) fn finish(&mut self) -> StringIndex {
        self.ends.push(self.bytes.len() as u64);
        (self.ends.len() - 1) as StringIndex
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Bytes held (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 8
    }
}

/// Decodes WTF-8 into UTF-16 code units, as JavaScript sees the string.
pub fn utf16_units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    let mut i = 0;
    let mut pending_low: Option<u16> = None;
    std::iter::from_fn(move || {
        if let Some(low) = pending_low.take() {
            return Some(low);
        }
        let (cp, len) = decode_wtf8(bytes, i)?;
        i += len;
        if cp >= 0x10000 {
            let c = cp - 0x10000;
            pending_low = Some(0xDC00 | (c & 0x3FF) as u16);
            Some(0xD800 | (c >> 10) as u16)
        } else {
            Some(cp as u16)
        }
    })
}

/// One code point (surrogates included) at `i`; invalid bytes decode as U+FFFD, one byte at a time.
fn decode_wtf8(bytes: &[u8], i: usize) -> Option<(u32, usize)> {
    let b0 = *bytes.get(i)?;
    let cont = |k: usize| {
        bytes
            .get(i + k)
            .filter(|b| **b & 0xC0 == 0x80)
            .map(|b| (*b & 0x3F) as u32)
    };
    let decoded = match b0 {
        0x00..=0x7F => Some((b0 as u32, 1)),
        0xC2..=0xDF => cont(1).map(|c1| (((b0 & 0x1F) as u32) << 6 | c1, 2)),
        0xE0..=0xEF => match (cont(1), cont(2)) {
            (Some(c1), Some(c2)) => {
                let cp = ((b0 & 0x0F) as u32) << 12 | c1 << 6 | c2;
                (cp >= 0x800).then_some((cp, 3))
            }
            _ => None,
        },
        0xF0..=0xF4 => match (cont(1), cont(2), cont(3)) {
            (Some(c1), Some(c2), Some(c3)) => {
                let cp = ((b0 & 0x07) as u32) << 18 | c1 << 12 | c2 << 6 | c3;
                (0x10000..=0x10FFFF).contains(&cp).then_some((cp, 4))
            }
            _ => None,
        },
        _ => None,
    };
    Some(decoded.unwrap_or((0xFFFD, 1)))
}

/// Appends code point `cp` (a lone surrogate included) as WTF-8.
pub fn push_wtf8(out: &mut Vec<u8>, cp: u32) {
    match cp {
        0..=0x7F => out.push(cp as u8),
        0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]),
        0x800..=0xFFFF => out.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
        _ => out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
    }
}

/// A Rust string for output; unpaired surrogates become U+FFFD.
pub fn wtf8_to_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => char::decode_utf16(utf16_units(bytes))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    }
}

/// JavaScript's `<` on strings: UTF-16 code unit order.
pub fn cmp_utf16(a: &[u8], b: &[u8]) -> Ordering {
    // Byte order equals UTF-16 order unless a 4-byte sequence meets a 3-byte one at or above U+E000.
    if a.iter().chain(b).all(|&x| x < 0xF0) {
        return a.cmp(b);
    }
    utf16_units(a).cmp(utf16_units(b))
}

/// JavaScript's `string.length`.
pub fn utf16_len(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    utf16_units(bytes).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_round_trip_as_utf16() {
        let mut v = Vec::new();
        push_wtf8(&mut v, 'a' as u32);
        push_wtf8(&mut v, 0xD800);
        push_wtf8(&mut v, 0x1F600);
        let units: Vec<u16> = utf16_units(&v).collect();
        assert_eq!(units, vec![0x61, 0xD800, 0xD83D, 0xDE00]);
        assert_eq!(utf16_len(&v), 4);
        assert_eq!(wtf8_to_string(&v), "a\u{FFFD}\u{1F600}");
    }

    #[test]
    fn utf16_order_puts_astral_below_private_use() {
        let astral = "\u{1F600}".as_bytes();
        let bmp = "\u{E000}".as_bytes();
        assert_eq!(cmp_utf16(astral, bmp), Ordering::Less);
        assert_eq!(cmp_utf16(b"a", b"b"), Ordering::Less);
    }
}
