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

    /// Reads the items of an object or an array whose opening bracket was read, up to and
    /// including `close`: none, or `item` then `,` or `close`, again and again.
    #[inline]
    pub(crate) fn read_items(
        &mut self,
        close: u8,
        context: &'static str,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        if self.peek_token()? == Some(close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            if !self.next_or_close(close, context)? {
                return Ok(());
            }
        }
    }

    /// Reads `[n, n, …]` of non-negative integers, handing each to `sink` (values wrap at 2^64).
    pub(crate) fn read_uint_array(
        &mut self,
        context: &'static str,
        mut sink: impl FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        let mut batch = Vec::new();
        let mut open = self.open_uint_array(context)?;
        while open {
            batch.clear();
            open = self.read_uints(context, &mut batch, 4096)?;
            batch.iter().try_for_each(|&v| sink(v))?;
        }
        Ok(())
    }

    /// Consumes the `[` of a numeric array; false when the array is empty (and consumed whole).
    pub(crate) fn open_uint_array(&mut self, context: &'static str) -> Result<bool> {
        self.expect(b'[', context)?;
        if self.peek_token()? == Some(b']') {
            self.pos += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// Appends the next values of an array opened by [`Self::open_uint_array`] to `out`, until `out`
    /// holds at least `limit` values (true: more follow) or the array closes (false). Values wrap at
    /// 2^64.
    pub(crate) fn read_uints(
        &mut self,
        context: &'static str,
        out: &mut Vec<u64>,
        limit: usize,
    ) -> Result<bool> {
        while out.len() < limit {
            self.read_uint_blocks(out, limit);
            let value = match self.buffered_uint() {
                Some(value) => value,
                None => self.read_uint(context)?,
            };
            out.push(value);
            // V8 separates values with "," and rows with "\n,"; anything else takes the general path.
            let rest = &self.buf[self.pos..self.len];
            if rest.first() == Some(&b',') {
                self.pos += 1;
            } else if rest.starts_with(b"\n,") {
                self.pos += 2;
            } else if !self.next_or_close(b']', context)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The bulk of a numeric array, 64 buffered bytes at a time: bit masks of the digits, commas and
    /// newlines show where every number starts and ends, so numbers are converted independently of
    /// each other instead of each waiting for the previous one's end. Handles `digits,` and
    /// `digits\n,` (what V8 writes); it stops before anything else, a number of more than 16 digits
    /// or the last 80 bytes of the buffer, or once `out` holds `limit` values, leaving `pos` at the
    /// start of a number.
    #[inline(always)]
    fn read_uint_blocks(&mut self, out: &mut Vec<u64>, limit: usize) {
        const POW10: [u64; 9] = [
            1,
            10,
            100,
            1000,
            10_000,
            100_000,
            1_000_000,
            10_000_000,
            100_000_000,
        ];
        let buf = &self.buf[..self.len];
        let word = |at: usize| u64::from_le_bytes(buf[at..at + 8].try_into().unwrap());
        let mut pos = self.pos;
        // 16 bytes of slack: a number starting near the window's end is read with two 8-byte loads.
        while pos + 80 <= buf.len() && out.len() < limit {
            let block: &[u8; 64] = buf[pos..pos + 64].try_into().unwrap();
            let (digit, comma, newline) = classify(block);
            // Bad: anything else, a comma not followed by a digit, a newline not followed by a comma.
            let bad =
                !(digit | comma | newline) | ((comma << 1) & !digit) | ((newline << 1) & !comma);
            let first_bad = bad.trailing_zeros();
            if digit & 1 == 0 {
                break;
            }
            // Numbers whose separator lies wholly before the first bad byte (so a number that may
            // go on past the window is never taken).
            let below = |n: u32| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
            let ends = digit & !(digit >> 1);
            let taken = (ends & (comma >> 1) & below(first_bad.saturating_sub(1)))
                | (ends & (newline >> 1) & below(first_bad.saturating_sub(2)));
            if taken == 0 {
                break;
            }
            let mut starts = digit & !(digit << 1);
            let mut ends = taken;
            // Values go to the stack first: pushing to `out` would reload its capacity every time.
            let mut values = [0u64; 32];
            let mut count = 0;
            while ends != 0 {
                let start = starts.trailing_zeros();
                let end = ends.trailing_zeros();
                starts &= starts - 1;
                ends &= ends - 1;
                let at = pos + start as usize;
                let len = end + 1 - start;
                let value = if len <= 8 {
                    digits_value(word(at), len)
                } else if len <= 16 {
                    digits_value(word(at), 8) * POW10[len as usize - 8]
                        + digits_value(word(at + 8), len - 8)
                } else {
                    out.extend_from_slice(&values[..count]);
                    self.pos = at;
                    return;
                };
                // A number takes at least two bytes with its separator: at most 32 per block.
                values[count & 31] = value;
                count += 1;
            }
            out.extend_from_slice(&values[..count]);
            let after = (63 - taken.leading_zeros()) as usize + 1;
            pos += after + if block[after] == b',' { 1 } else { 2 };
        }
        self.pos = pos;
    }

    /// The common case of [`Self::read_uint`]: a number of at most 15 digits starting right here,
    /// with 16 bytes buffered (so the number ends in the buffer), read without a branch per digit.
    #[inline(always)]
    fn buffered_uint(&mut self) -> Option<u64> {
        const POW10: [u64; 8] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000];
        let p = self.pos;
        let bytes = self.buf[..self.len].get(p..p + 16)?;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let (high, n) = leading_digits(word(0));
        if n == 0 {
            return None;
        }
        let (low, m) = leading_digits(word(8));
        let (value, digits) = if n < 8 {
            (high, n)
        } else if m < 8 {
            (high * POW10[m] + low, 8 + m)
        } else {
            return None;
        };
        self.pos = p + digits;
        Some(value)
    }

    /// One non-negative integer after optional whitespace, refilling as needed.
    #[cold]
    #[inline(never)]
    fn read_uint(&mut self, context: &'static str) -> Result<u64> {
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
        Ok(value)
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
                self.read_items(b'}', context, |t| {
                    let key = t.read_key(context)?;
                    fields.push((key, t.read_value_at(context, depth + 1)?));
                    Ok(())
                })?;
                Ok(Value::Object(fields))
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.read_items(b']', context, |t| {
                    items.push(t.read_value_at(context, depth + 1)?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
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

/// The value of the decimal digits at the start of `word` (eight bytes of text, the first in the lowest
/// byte) and how many there are, 0 to 8.
#[inline(always)]
fn leading_digits(word: u64) -> (u64, usize) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 and adding 6 keeps it 3. A byte of 0xFA or more
    // carries into the next one, but it is not a digit itself, so the first non-digit stays right.
    let high = word & (0xF0 * ONES);
    let high_plus_6 = word.wrapping_add(0x06 * ONES) & (0xF0 * ONES);
    let not_digit = (high | (high_plus_6 >> 4)) ^ (0x33 * ONES);
    let flags = (((not_digit & (0x7F * ONES)) + 0x7F * ONES) | not_digit) & (0x80 * ONES);
    let n = (flags.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    (digits_value(word, n as u32), n)
}

/// Bit masks of the digits, commas and newlines among 64 bytes (bit `i` for byte `i`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classify(block: &[u8; 64]) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_sub_epi8,
    };
    let (mut digit, mut comma, mut newline) = (0, 0, 0);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline, and the load reads the 16 bytes of `chunk`.
        let (d, c, n) = unsafe {
            let x = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            // A digit is a byte whose distance above '0' is at most 9 (unsigned).
            let above_zero = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
            let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(above_zero, _mm_set1_epi8(9)), above_zero);
            (
                _mm_movemask_epi8(is_digit),
                _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b',' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'\n' as i8))),
            )
        };
        digit |= (d as u16 as u64) << (16 * i);
        comma |= (c as u16 as u64) << (16 * i);
        newline |= (n as u16 as u64) << (16 * i);
    }
    (digit, comma, newline)
}

#[cfg(not(target_arch = "x86_64"))]
use classify_swar as classify;

/// [`classify`] without SIMD, eight bytes at a time.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn classify_swar(block: &[u8; 64]) -> (u64, u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x80 * ONES;
    // High bit of each byte that is zero.
    let zero = |x: u64| !(((x & !HIGH) + !HIGH) | x) & HIGH;
    // Gathers the high bits of the eight bytes into one byte.
    let gather = |x: u64| (x >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let (mut digit, mut comma, mut newline) = (0, 0, 0);
    for i in 0..8 {
        let w = u64::from_le_bytes(block[i * 8..i * 8 + 8].try_into().unwrap());
        let high = w & (0xF0 * ONES);
        let high_plus_6 = w.wrapping_add(0x06 * ONES) & (0xF0 * ONES);
        let not_digit = (high | (high_plus_6 >> 4)) ^ (0x33 * ONES);
        digit |= gather(zero(not_digit)) << (8 * i);
        comma |= gather(zero(w ^ (b',' as u64 * ONES))) << (8 * i);
        newline |= gather(zero(w ^ (b'\n' as u64 * ONES))) << (8 * i);
    }
    (digit, comma, newline)
}

/// The value of the first `len` (1 to 8) digits of `word` (eight bytes of text, the first in the
/// lowest byte).
#[inline(always)]
fn digits_value(word: u64, len: u32) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The digits moved up so that the bytes below them read as leading zeros, then pairs, quads and
    // halves combined (as simdjson's parse_eight_digits_unrolled).
    let mut v = (word & (0x0F * ONES)) << (64 - 8 * len);
    v = (v.wrapping_mul(10 << 8 | 1)) >> 8 & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100 << 16 | 1)) >> 16 & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10000 << 32 | 1)) >> 32
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
    fn leading_digits_of_words() {
        for text in [
            "12345678",
            "1234567,",
            "0,1,2,3,",
            "9\n,9,2,3",
            ",1234567",
            "98765432",
            "00000001",
            "4294967295",
            "1:",
            "5/",
            "\u{ff}1234567",
            "7\u{fa}",
            "1 2",
        ] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.resize(8, b'x');
            let word = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            let n = bytes
                .iter()
                .take(8)
                .take_while(|b| b.is_ascii_digit())
                .count();
            let value = bytes[..n]
                .iter()
                .fold(0u64, |v, &d| v * 10 + (d - b'0') as u64);
            assert_eq!(leading_digits(word), (value, n), "{text:?}");
        }
    }

    #[test]
    fn reads_uint_arrays_in_any_layout() {
        // Long arrays go through the 64-byte blocks; every separator, length and break must give
        // what a plain parse gives, wherever it falls relative to the blocks and the buffer.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let mut text = String::from("[");
            let mut expected = Vec::new();
            let count = (next() % 120) as usize + 1;
            for i in 0..count {
                if i > 0 {
                    text += match next() % 16 {
                        0 => ",\n",
                        1 => " ,",
                        2..=5 => "\n,",
                        _ => ",",
                    };
                }
                let digits = (next() % 24) as u32 + 1;
                let value = match digits {
                    1..=19 => next() % 10u64.pow(digits.min(19)),
                    _ => next(),
                };
                let width = if next() % 8 == 0 { digits as usize } else { 0 };
                text += &format!("{value:0width$}");
                expected.push(value);
            }
            text += "]";
            let mut values = Vec::new();
            tok(&text)
                .read_uint_array("test", |v| {
                    values.push(v);
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("round {round}: {e} in {text}"));
            assert_eq!(values, expected, "round {round}: {text}");
            // Damage: a bad byte anywhere gives what the byte-at-a-time path gives (a reader that
            // hands out one byte per call never fills enough for the fast paths).
            let at = (next() % text.len() as u64) as usize;
            for bad in [b'x', b'-', b',', b']', b' ', b'\n', b'7', 0xFF] {
                let mut damaged = text.clone().into_bytes();
                damaged[at] = bad;
                let fast = uints(&damaged[..]);
                let slow = uints(OneByte(&damaged));
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&damaged));
            }
        }
    }

    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    /// The values read, or the error's offset and text.
    fn uints(reader: impl Read) -> std::result::Result<Vec<u64>, (u64, String)> {
        let mut t = Tokenizer::new(reader, None);
        let mut values = Vec::new();
        t.read_uint_array("test", |v| {
            values.push(v);
            Ok(())
        })
        .map_err(|e| match &e {
            HeapError::Syntax { offset, .. } | HeapError::Truncated { offset, .. } => {
                (*offset, e.to_string())
            }
            _ => (u64::MAX, e.to_string()),
        })?;
        Ok(values)
    }

    #[test]
    fn classifies_blocks_alike_with_and_without_simd() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let mut block = [0u8; 64];
            for b in &mut block {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Mostly the bytes that matter, sometimes any byte.
                *b = match seed % 8 {
                    0 => (seed >> 8) as u8,
                    1 => b',',
                    2 => b'\n',
                    3 => b"/:]- "[(seed >> 8) as usize % 5],
                    _ => b'0' + (seed >> 8) as u8 % 10,
                };
            }
            // Without SIMD a byte of 0xFA or more may spoil the next ones; the scanner stops at
            // such a byte anyway, so only the bytes up to it must agree.
            let valid = match block.iter().position(|&b| b >= 0xFA) {
                Some(at) => u64::MAX >> (63 - at),
                None => u64::MAX,
            };
            let (a, b) = (classify(&block), classify_swar(&block));
            assert_eq!(
                (a.0 & valid, a.1 & valid, a.2 & valid),
                (b.0 & valid, b.1 & valid, b.2 & valid),
                "{block:?}"
            );
        }
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
