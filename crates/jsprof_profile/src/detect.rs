//! Format detection from content: the first bytes of the (decompressed) text decide.

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
        assert!(detect(b"hello").is_err());
        assert!(detect(b"").is_err());
        assert!(detect(br#"{"a":1}"#).is_err());
    }
}
