//! A big Chromium trace from a recorded one: its `traceEvents` written `copies` times, copy `k`
//! with every process id moved up by `k × PID_STEP` (the top-level `pid` and any `"pid"` or
//! `"processId"` key in the args).
//!
//! Why processes rather than time: each copy is a set of processes of its own, so every
//! thread of copy `k` holds exactly the events and samples of the same thread of the recording,
//! at the same times. The numbers on the big file are then known: per thread, those of the
//! recording; over all threads, `copies` times them. Repeating the events on the same threads,
//! shifted in time, would join each copy's last sample to the next copy's first and change the
//! durations at every seam.
//!
//! Only bytes are rewritten, the events are never parsed: a `"pid":` right after `{` or `,` is a
//! key (in a string, its quote would follow a backslash).

use std::io::{self, Write};

/// How far apart the copies' process ids are: above Linux's largest pid (2^22).
pub const PID_STEP: u64 = 1 << 24;

/// A trace cut where its event array begins and ends.
pub struct Layout<'a> {
    /// Everything before the first event (`{"traceEvents":[` or `[`).
    pub head: &'a [u8],
    /// The events, without the blanks around them.
    pub events: &'a [u8],
    /// Everything from the array's `]` on (`],"metadata":{…}}`).
    pub tail: &'a [u8],
}

/// Finds the event array: the text itself when it is one, else the value of `traceEvents`.
pub fn layout(text: &[u8]) -> Result<Layout<'_>, String> {
    let first = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .ok_or("the trace is empty")?;
    let open = match text[first] {
        b'[' => first,
        b'{' => {
            let key = find(text, b"\"traceEvents\"").ok_or("no \"traceEvents\" key")?;
            let after = key + b"\"traceEvents\"".len();
            after
                + text[after..]
                    .iter()
                    .position(|&b| b == b'[')
                    .ok_or("\"traceEvents\" is not an array")?
        }
        _ => return Err("the trace is neither an array nor an object".into()),
    };
    let close = closing_bracket(text, open)
        .ok_or("the event array is not closed (a trace cut short): repeat a complete recording")?;
    let inner = &text[open + 1..close];
    let start = inner
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(inner.len());
    let end = inner
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    Ok(Layout {
        head: &text[..open + 1],
        events: &inner[start..end],
        tail: &text[close..],
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The `]` that closes the array opened at `open`, skipping strings.
fn closing_bracket(text: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Writes `events` with every process id moved up by `shift`.
pub fn write_shifted(events: &[u8], shift: u64, out: &mut impl Write) -> io::Result<()> {
    if shift == 0 {
        return out.write_all(events);
    }
    let mut done = 0;
    let mut i = 0;
    while let Some(q) = events[i..].iter().position(|&b| b == b'"') {
        let at = i + q;
        // A key follows `{` or `,`; a quote in a string follows a backslash.
        let key_here = || {
            events[..at]
                .iter()
                .rfind(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'{' || b == b',')
        };
        let key = [b"\"pid\"".as_slice(), b"\"processId\""]
            .into_iter()
            .find(|k| events[at..].starts_with(k))
            .filter(|_| key_here());
        let Some(key) = key else {
            i = at + 1;
            continue;
        };
        let mut j = at + key.len();
        while j < events.len() && events[j].is_ascii_whitespace() {
            j += 1;
        }
        if events.get(j) != Some(&b':') {
            i = at + 1;
            continue;
        }
        j += 1;
        while j < events.len() && events[j].is_ascii_whitespace() {
            j += 1;
        }
        let digits = events[j..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let value = std::str::from_utf8(&events[j..j + digits])
            .ok()
            .and_then(|d| d.parse::<u64>().ok());
        // A float, a string or a negative id is left as it is.
        let plain = !matches!(events.get(j + digits), Some(b'.' | b'e' | b'E'));
        match value {
            Some(pid) if plain => {
                out.write_all(&events[done..j])?;
                write!(out, "{}", pid + shift)?;
                done = j + digits;
                i = done;
            }
            _ => i = j,
        }
    }
    out.write_all(&events[done..])
}

/// Writes the trace with its events `copies` times over (at least once).
pub fn repeat(layout: &Layout<'_>, copies: u64, out: &mut impl Write) -> io::Result<()> {
    out.write_all(layout.head)?;
    out.write_all(b"\n")?;
    for k in 0..copies.max(1) {
        if k > 0 && !layout.events.is_empty() {
            out.write_all(b",\n")?;
        }
        write_shifted(layout.events, k * PID_STEP, out)?;
    }
    out.write_all(layout.tail)
}
