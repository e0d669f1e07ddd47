//! A streaming JSON tokenizer over any `Read`, with fast paths for what heap snapshots are made of:
//! long arrays of unsigned integers and a long array of strings.
//!
//! It owns a fixed buffer and never looks back further than the current byte, so memory does not grow
//! with the input, and results do not depend on how the reader splits its data (a property test checks
//! this). Offsets in errors count bytes of the decompressed text.

use std::io::{ErrorKind, Read};

use crate::error::{HeapError, Result};
use crate::strings::push_wtf8;

const BUFFER_SIZE: usize = 1 << 20;
/// Deeper nesting than this in a header value is refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

/// A JSON value, for the small parts of a snapshot that are read whole (the `snapshot` header).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(Vec<u8>),
    Array(Vec<Value>),
    Object(Vec<(Vec<u8>, Value)>),
}

impl Value {
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields
                .iter()
                .rev()
                .find(|(k, _)| k == key.as_bytes())
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// An array of strings (`node_fields`, `node_types[0]`, …); other elements read as empty.
    pub(crate) fn as_string_list(&self) -> Option<Vec<String>> {
        match self {
            Value::Array(items) => Some(
                items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => crate::strings::wtf8_to_string(s),
                        _ => String::new(),
                    })
                    .collect(),
            ),
            _ => None,
        }
    }
}

pub(crate) struct Tokenizer<'p, R> {
    reader: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// Offset of `buf[0]` in the input.
    base: u64,
    eof: bool,
    progress: Option<&'p mut dyn FnMut(u64)>,
}

impl<'p, R: Read> Tokenizer<'p, R> {
    pub(crate) fn new(reader: R, progress: Option<&'p mut dyn FnMut(u64)>) -> Self {
        Tokenizer {
            reader,
            buf: vec![0; BUFFER_SIZE].into_boxed_slice(),
            pos: 0,
            len: 0,
            base: 0,
            eof: false,
            progress,
        }
    }

    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Makes at least one unread byte available; false at end of input.
    #[inline]
    fn fill(&mut self) -> Result<bool> {
        if self.pos < self.len {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.base += self.len as u64;
        self.pos = 0;
        self.len = 0;
        loop {
            match self.reader.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.len = n;
                    if let Some(progress) = self.progress.as_mut() {
                        progress(self.base + n as u64);
                    }
                    return Ok(true);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(HeapError::Io {
                        offset: self.base,
                        source,
                    })
                }
            }
        }
    }

    pub(crate) fn syntax(&self, message: impl Into<String>) -> HeapError {
        HeapError::Syntax {
            offset: self.offset(),
            message: message.into(),
        }
    }

    fn truncated(&self, context: &'static str) -> HeapError {
        HeapError::Truncated {
            offset: self.offset(),
            context,
        }
    }

    /// The next byte that is not whitespace, not consumed; `None` at end of input.
    #[inline]
    pub(crate) fn peek_token(&mut self) -> Result<Option<u8>> {
        loop {
            if !self.fill()? {
                return Ok(None);
            }
            let b = self.buf[self.pos];
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                return Ok(Some(b));
            }
        }
    }

    /// Consumes the next token byte, which must be `expected`.
    pub(crate) fn expect(&mut self, expected: u8, context: &'static str) -> Result<()> {
        match self.peek_token()? {
            Some(b) if b == expected => {
                self.pos += 1;
                Ok(())
            }
            Some(b) => Err(self.syntax(format!(
                "expected '{}' while reading {context}, found '{}'",
                expected as char,
                (b as char).escape_default()
            ))),
            None => Err(self.truncated(context)),
        }
    }

    /// After a value inside an array or object: consumes `,` (true) or `close` (false).
    pub(crate) fn next_or_close(&mut self, close: u8, context: &'static str) -> Result<bool> {
        match self.peek_token()? {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(b) => Err(self.syntax(format!(
                "expected ',' or '{}' while reading {context}, found '{}'",
                close as char,
                (b as char).escape_default()
            ))),
            None => Err(self.truncated(context)),
        }
    }

    /// Reads `[n, n, …]` of non-negative integers, handing each to `sink` (values wrap at 2^64).
    pub(crate) fn read_uint_array(
        &mut self,
        context: &'static str,
        mut sink: impl FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        self.expect(b'[', context)?;
        if self.peek_token()? == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            // Fast path: every value that lies wholly in the buffer, without refills or calls.
            let mut p = self.pos;
            let buf = &self.buf[..self.len];
            loop {
                let mut q = p;
                while q < buf.len() && matches!(buf[q], b' ' | b'\n' | b'\r' | b'\t') {
                    q += 1;
                }
                let start = q;
                let mut value: u64 = 0;
                while q < buf.len() {
                    let d = buf[q].wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    value = value.wrapping_mul(10).wrapping_add(d as u64);
                    q += 1;
                }
                if q == start {
                    break;
                }
                while q < buf.len() && matches!(buf[q], b' ' | b'\n' | b'\r' | b'\t') {
                    q += 1;
                }
                // A value that may continue in the next buffer, or anything unusual: the slow path.
                match buf.get(q) {
                    Some(b',') => {
                        sink(value)?;
                        p = q + 1;
                    }
                    Some(b']') => {
                        sink(value)?;
                        self.pos = q + 1;
                        return Ok(());
                    }
                    _ => break,
                }
            }
            self.pos = p;
            // Slow path: one value, refilling as needed.
            if self.peek_token()?.is_none() {
                return Err(self.truncated(context));
            }
            let mut value: u64 = 0;
            let mut digits = 0usize;
            loop {
                if !self.fill()? {
                    return Err(self.truncated(context));
                }
                let slice = &self.buf[self.pos..self.len];
                let mut n = 0;
                for &b in slice {
                    let d = b.wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    value = value.wrapping_mul(10).wrapping_add(d as u64);
                    n += 1;
                }
                self.pos += n;
                digits += n;
                if n < slice.len() {
                    break;
                }
            }
            if digits == 0 {
                return Err(self.syntax(format!("expected a non-negative integer in {context}")));
            }
            sink(value)?;
            if !self.next_or_close(b']', context)? {
                return Ok(());
            }
        }
    }

    /// Reads a JSON string (the next token must be `"`) and appends its WTF-8 bytes to `out`.
    /// Lone surrogate escapes are kept; raw bytes that are not UTF-8 become U+FFFD, as a browser decodes.
    pub(crate) fn read_string_into(
        &mut self,
        out: &mut Vec<u8>,
        context: &'static str,
    ) -> Result<()> {
        self.expect(b'"', context)?;
        let mut pending_high: Option<u32> = None;
        let mut segment_start = out.len();
        let mut segment_ascii = true;
        loop {
            if !self.fill()? {
                return Err(self.truncated(context));
            }
            let slice = &self.buf[self.pos..self.len];
            let stop = slice.iter().position(|&b| b == b'"' || b == b'\\');
            let raw = &slice[..stop.unwrap_or(slice.len())];
            if !raw.is_empty() {
                if let Some(high) = pending_high.take() {
                    push_wtf8(out, high);
                    segment_start = out.len();
                }
                segment_ascii &= raw.is_ascii();
                out.extend_from_slice(raw);
            }
            self.pos += raw.len();
            let Some(_) = stop else { continue };
            if !segment_ascii {
                repair_utf8(out, segment_start);
            }
            let b = self.buf[self.pos];
            self.pos += 1;
            if b == b'"' {
                if let Some(high) = pending_high.take() {
                    push_wtf8(out, high);
                }
                return Ok(());
            }
            let escape = self.next_byte(context)?;
            let code = match escape {
                b'"' => b'"' as u32,
                b'\\' => b'\\' as u32,
                b'/' => b'/' as u32,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n' as u32,
                b'r' => b'\r' as u32,
                b't' => b'\t' as u32,
                b'u' => {
                    let mut v = 0u32;
                    for _ in 0..4 {
                        let h = self.next_byte(context)?;
                        let d = (h as char)
                            .to_digit(16)
                            .ok_or_else(|| self.syntax(format!("bad \\u escape in {context}")))?;
                        v = v * 16 + d;
                    }
                    v
                }
                other => {
                    return Err(self.syntax(format!(
                        "bad escape '\\{}' in {context}",
                        (other as char).escape_default()
                    )))
                }
            };
            match (pending_high.take(), code) {
                (Some(high), 0xDC00..=0xDFFF) => {
                    push_wtf8(out, 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00));
                }
                (previous, _) => {
                    if let Some(high) = previous {
                        push_wtf8(out, high);
                    }
                    if (0xD800..=0xDBFF).contains(&code) {
                        pending_high = Some(code);
                    } else {
                        push_wtf8(out, code);
                    }
                }
            }
            segment_start = out.len();
            segment_ascii = true;
        }
    }

    fn next_byte(&mut self, context: &'static str) -> Result<u8> {
        if !self.fill()? {
            return Err(self.truncated(context));
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(b)
    }

    /// Reads an object key and the `:` after it.
    pub(crate) fn read_key(&mut self, context: &'static str) -> Result<Vec<u8>> {
        let mut key = Vec::new();
        self.read_string_into(&mut key, context)?;
        self.expect(b':', context)?;
        Ok(key)
    }

    /// Reads any JSON value whole (for small parts such as the header).
    pub(crate) fn read_value(&mut self, context: &'static str) -> Result<Value> {
        self.read_value_at(context, 0)
    }

    fn read_value_at(&mut self, context: &'static str, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(self.syntax(format!("nesting deeper than {MAX_DEPTH} in {context}")));
        }
        match self.peek_token()? {
            None => Err(self.truncated(context)),
            Some(b'{') => {
                self.pos += 1;
                let mut fields = Vec::new();
                if self.peek_token()? == Some(b'}') {
                    self.pos += 1;
                    return Ok(Value::Object(fields));
                }
                loop {
                    let key = self.read_key(context)?;
                    let value = self.read_value_at(context, depth + 1)?;
                    fields.push((key, value));
                    if !self.next_or_close(b'}', context)? {
                        return Ok(Value::Object(fields));
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.peek_token()? == Some(b']') {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.read_value_at(context, depth + 1)?);
                    if !self.next_or_close(b']', context)? {
                        return Ok(Value::Array(items));
                    }
                }
            }
            Some(b'"') => {
                let mut s = Vec::new();
                self.read_string_into(&mut s, context)?;
                Ok(Value::String(s))
            }
            Some(_) => self.read_scalar(context),
        }
    }

    /// `true`, `false`, `null` or a number.
    fn read_scalar(&mut self, context: &'static str) -> Result<Value> {
        let start = self.offset();
        let mut word = Vec::new();
        while self.fill()? {
            let b = self.buf[self.pos];
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') {
                if word.len() > 64 {
                    return Err(self.syntax(format!("overlong token in {context}")));
                }
                word.push(b);
                self.pos += 1;
            } else {
                break;
            }
        }
        let bad = || HeapError::Syntax {
            offset: start,
            message: format!(
                "unexpected '{}' in {context}",
                String::from_utf8_lossy(&word)
            ),
        };
        match &word[..] {
            b"" if !self.fill()? => Err(self.truncated(context)),
            b"" => Err(self.syntax(format!(
                "unexpected '{}' in {context}",
                (self.buf[self.pos] as char).escape_default()
            ))),
            b"true" => Ok(Value::Bool(true)),
            b"false" => Ok(Value::Bool(false)),
            b"null" => Ok(Value::Null),
            w if w[0] == b'-' || w[0].is_ascii_digit() => std::str::from_utf8(w)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .map(Value::Number)
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    /// Skips any value without building it; nesting depth is only counted, so any depth is fine.
    pub(crate) fn skip_value(&mut self, context: &'static str) -> Result<()> {
        let mut scratch = Vec::new();
        let mut closers: Vec<u8> = Vec::new();
        loop {
            // A value.
            match self.peek_token()? {
                None => return Err(self.truncated(context)),
                Some(b'{') => {
                    self.pos += 1;
                    if self.peek_token()? == Some(b'}') {
                        self.pos += 1;
                    } else {
                        scratch.clear();
                        self.read_string_into(&mut scratch, context)?;
                        self.expect(b':', context)?;
                        closers.push(b'}');
                        continue;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    if self.peek_token()? == Some(b']') {
                        self.pos += 1;
                    } else {
                        closers.push(b']');
                        continue;
                    }
                }
                Some(b'"') => {
                    scratch.clear();
                    self.read_string_into(&mut scratch, context)?;
                }
                Some(_) => {
                    self.read_scalar(context)?;
                }
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&close) = closers.last() else {
                    return Ok(());
                };
                if self.next_or_close(close, context)? {
                    if close == b'}' {
                        scratch.clear();
                        self.read_string_into(&mut scratch, context)?;
                        self.expect(b':', context)?;
                    }
                    break;
                }
                closers.pop();
            }
        }
    }

    /// True when only whitespace remains.
    pub(crate) fn at_end(&mut self) -> Result<bool> {
        Ok(self.peek_token()?.is_none())
    }
}

/// Replaces invalid UTF-8 in `out[start..]` with U+FFFD (what `TextDecoder` does to the file).
fn repair_utf8(out: &mut Vec<u8>, start: usize) {
    if std::str::from_utf8(&out[start..]).is_ok() {
        return;
    }
    let fixed = String::from_utf8_lossy(&out[start..]).into_owned();
    out.truncate(start);
    out.extend_from_slice(fixed.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(text: &str) -> Tokenizer<'static, &[u8]> {
        Tokenizer::new(text.as_bytes(), None)
    }

    #[test]
    fn reads_uint_arrays() {
        let mut values = Vec::new();
        tok(" [1, 22,\n333 ]")
            .read_uint_array("test", |v| {
                values.push(v);
                Ok(())
            })
            .unwrap();
        assert_eq!(values, vec![1, 22, 333]);
        assert!(tok("[1,-2]").read_uint_array("test", |_| Ok(())).is_err());
        assert!(matches!(
            tok("[1,2").read_uint_array("test", |_| Ok(())),
            Err(HeapError::Truncated { offset: 4, .. })
        ));
    }

    #[test]
    fn reads_strings_with_lone_surrogates() {
        let mut out = Vec::new();
        tok(r#""a\ud800b\ud83d\ude00\n""#)
            .read_string_into(&mut out, "test")
            .unwrap();
        let mut expected = b"a".to_vec();
        push_wtf8(&mut expected, 0xD800);
        expected.push(b'b');
        push_wtf8(&mut expected, 0x1F600);
        expected.push(b'\n');
        assert_eq!(out, expected);
    }

    #[test]
    fn skips_nested_values() {
        let mut t = tok(r#"{"a":[1,{"b":"x]"}],"c":null} 7"#);
        t.skip_value("test").unwrap();
        assert_eq!(t.read_value("test").unwrap(), Value::Number(7.0));
    }
}
