//! Format detection from content: the first bytes of the (decompressed) text decide.
//!
//! The object forms are told apart by their top-level keys (read as JSON, so a function named
//! `snapshot` or `head` inside a value is not a key), in whatever order they come: a JS
//! Self-Profiling trace in the specification's member order (`resources`, `frames`, `stacks`,
//! `samples`) may show only `resources` and `frames` in the bytes seen. A text that begins with
//! a long `samples` array is told by its first element (a node id in a `.cpuprofile`, an object
//! with a `stackId` or `timestamp` in a self-profiling trace, with a `nodeId` or `size` in a
//! `.heapprofile`). Only then does a search of the bytes for known keys decide.

/// Every input format jsprof knows, sampled or heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    CpuProfile,
    SelfProfile,
    Trace,
    HeapProfile,
    HeapSnapshot,
}

/// How many bytes [`detect`] wants to see (fewer is fine for small files).
pub const SNIFF_LEN: usize = 64 * 1024;

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The first object key of a JSON text, if it starts with `{"key"`.
pub(crate) fn first_key(text: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    let ws = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    while i < text.len() && ws(text[i]) {
        i += 1;
    }
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    while i < text.len() && ws(text[i]) {
        i += 1;
    }
    if text.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let end = start + text[start..].iter().position(|&b| b == b'"')?;
    Some(&text[start..end])
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The end of the JSON string starting at `text[i] == '"'` (the index after its closing quote),
/// or `None` when the text ends first.
fn skip_string(text: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The end of the JSON value starting at `text[i]` (strings and nesting followed, contents not
/// checked), or `None` when the text ends first.
fn skip_value(text: &[u8], i: usize) -> Option<usize> {
    match text.get(i)? {
        b'"' => skip_string(text, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < text.len() {
                match text[j] {
                    b'"' => {
                        j = skip_string(text, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let end = text[i..]
                .iter()
                .position(|&b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())?;
            Some(i + end)
        }
    }
}

/// The top-level keys of a JSON object text, as many as `text` holds, each with the index where
/// its value starts (the last one's value may run past the end of `text`).
fn top_level_keys(text: &[u8]) -> Vec<(&[u8], usize)> {
    let mut keys = Vec::new();
    let mut i = skip_ws(text, 0);
    if text.get(i) != Some(&b'{') {
        return keys;
    }
    i += 1;
    loop {
        i = skip_ws(text, i);
        if text.get(i) != Some(&b'"') {
            return keys;
        }
        let Some(end) = skip_string(text, i) else {
            return keys;
        };
        let key = &text[i + 1..end - 1];
        i = skip_ws(text, end);
        if text.get(i) != Some(&b':') {
            return keys;
        }
        i = skip_ws(text, i + 1);
        keys.push((key, i));
        let Some(end) = skip_value(text, i) else {
            return keys;
        };
        i = skip_ws(text, end);
        if text.get(i) != Some(&b',') {
            return keys;
        }
        i += 1;
    }
}

/// The format the top-level keys name, if they name one.
fn by_keys(text: &[u8]) -> Option<Format> {
    let keys = top_level_keys(text);
    let has = |k: &[u8]| keys.iter().any(|(key, _)| *key == k);
    if has(b"traceEvents") {
        return Some(Format::Trace);
    }
    if has(b"snapshot") || (has(b"nodes") && has(b"edges")) {
        return Some(Format::HeapSnapshot);
    }
    if has(b"head") {
        // An old `.cpuprofile` or a `.heapprofile`: their nodes tell (`selfSize`).
        return None;
    }
    if has(b"frames") || has(b"stacks") || has(b"resources") {
        return Some(Format::SelfProfile);
    }
    if has(b"nodes") || has(b"timeDeltas") || has(b"startTime") || has(b"endTime") {
        return Some(Format::CpuProfile);
    }
    // Only `samples` seen: its first element tells.
    let &(_, at) = keys.iter().find(|(key, _)| *key == b"samples")?;
    if text.get(at) != Some(&b'[') {
        return None;
    }
    let first = skip_ws(text, at + 1);
    match text.get(first)? {
        b'0'..=b'9' | b'-' => Some(Format::CpuProfile),
        b'{' => {
            let element = top_level_keys(&text[first..]);
            let has = |k: &[u8]| element.iter().any(|(key, _)| *key == k);
            if has(b"stackId") || has(b"timestamp") {
                Some(Format::SelfProfile)
            } else if has(b"nodeId") || has(b"size") || has(b"ordinal") {
                Some(Format::HeapProfile)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Detects the format from the start of the text. `Err` says what the text looks like instead.
pub fn detect(prefix: &[u8]) -> Result<Format, String> {
    let text = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let first = text.iter().copied().find(|b| !b.is_ascii_whitespace());
    match first {
        None => return Err("the input is empty".to_string()),
        Some(b'[') => return Ok(Format::Trace),
        Some(b'{') => {}
        Some(_) => {
            return Err("the input is not JSON (it does not start with `{` or `[`)".to_string())
        }
    }
    match first_key(text) {
        Some(b"nodes") | Some(b"startTime") | Some(b"timeDeltas") => return Ok(Format::CpuProfile),
        Some(b"snapshot") => return Ok(Format::HeapSnapshot),
        Some(b"traceEvents") => return Ok(Format::Trace),
        // Keys only the Trace Event Format's object form has. DevTools saves a trace as
        // `{"metadata": {...}, "traceEvents": [...]}`, and its metadata (source maps, script
        // sources) can run far past the bytes seen here.
        Some(
            b"metadata" | b"displayTimeUnit" | b"otherData" | b"systemTraceEvents" | b"stackFrames",
        ) => return Ok(Format::Trace),
        _ => {}
    }
    if let Some(format) = by_keys(text) {
        return Ok(format);
    }
    if contains(text, b"\"traceEvents\"") {
        Ok(Format::Trace)
    } else if contains(text, b"\"node_fields\"") || contains(text, b"\"snapshot\"") {
        Ok(Format::HeapSnapshot)
    } else if contains(text, b"\"selfSize\"") {
        Ok(Format::HeapProfile)
    } else if contains(text, b"\"stacks\"") && contains(text, b"\"frames\"") {
        Ok(Format::SelfProfile)
    } else if contains(text, b"\"callFrame\"")
        || contains(text, b"\"nodes\"")
        || contains(text, b"\"head\"")
        || contains(text, b"\"timeDeltas\"")
    {
        Ok(Format::CpuProfile)
    } else if contains(text, b"\"frames\"") && contains(text, b"\"samples\"") {
        Ok(Format::SelfProfile)
    } else {
        Err("JSON, but not a format jsprof reads (expected a .cpuprofile, a JS Self-Profiling trace, a Chrome trace, a .heapprofile or a .heapsnapshot)".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_first_key_and_content() {
        assert_eq!(
            detect(br#"{"nodes":[{"id":1,"callFrame":{}}]}"#),
            Ok(Format::CpuProfile)
        );
        assert_eq!(detect(br#"  [{"ph":"X"}]"#), Ok(Format::Trace));
        assert_eq!(
            detect(br#"{"head":{"callFrame":{},"selfSize":0}}"#),
            Ok(Format::HeapProfile)
        );
        assert_eq!(
            detect(br#"{"head":{"functionName":"(root)","hitCount":0}}"#),
            Ok(Format::CpuProfile)
        );
        assert_eq!(
            detect(br#"{"frames":[],"resources":[],"stacks":[],"samples":[]}"#),
            Ok(Format::SelfProfile)
        );
        assert_eq!(
            detect(br#"{"snapshot":{"meta":{}}}"#),
            Ok(Format::HeapSnapshot)
        );
        // DevTools' own layout, its metadata longer than what is sniffed.
        let saved = format!(
            r#"{{"metadata": {{"sourceMaps": [{{"sourceMap": "{}"}}]}},
"traceEvents": [{{"ph":"X"}}]}}"#,
            "A".repeat(SNIFF_LEN)
        );
        assert_eq!(detect(&saved.as_bytes()[..SNIFF_LEN]), Ok(Format::Trace));
        // The specification's member order, its frames past what is sniffed: `stacks` and
        // `samples` come later (issue 33).
        let frames = vec![r#"{"name":"snapshot","resourceId":0}"#; 4000].join(",");
        let spec = format!(
            r#"{{"resources":["https://a.example/head.js"],"frames":[{frames}],"stacks":[],"samples":[]}}"#
        );
        assert!(spec.len() > SNIFF_LEN);
        assert_eq!(
            detect(&spec.as_bytes()[..SNIFF_LEN]),
            Ok(Format::SelfProfile)
        );
        // A long `samples` first: its first element tells the three formats that have one.
        let long = |first: &str| {
            let mut t = format!(r#"{{"samples":[{first}"#);
            while t.len() < SNIFF_LEN {
                t.push(',');
                t.push_str(first);
            }
            t
        };
        let of = |first: &str| detect(&long(first).as_bytes()[..SNIFF_LEN]);
        assert_eq!(
            of(r#"{"timestamp":1.5,"stackId":3}"#),
            Ok(Format::SelfProfile)
        );
        assert_eq!(of("12"), Ok(Format::CpuProfile));
        assert_eq!(
            of(r#"{"size":16,"nodeId":2,"ordinal":1}"#),
            Ok(Format::HeapProfile)
        );
        // Keys inside values are not top-level keys.
        assert_eq!(
            detect(br#"{"frames":[{"name":"traceEvents"}],"stacks":[],"samples":[]}"#),
            Ok(Format::SelfProfile)
        );
        assert!(detect(b"hello").is_err());
        assert!(detect(b"").is_err());
        assert!(detect(br#"{"a":1}"#).is_err());
    }
}
