//! A hand scanner for the form every V8 of the last decade writes: `nodes` (each with `id`,
//! `callFrame`, `hitCount`, `children`, `positionTicks`, `deoptReason`), `startTime`, `endTime`,
//! `samples`, `timeDeltas`, integers only, no key twice; strings are borrowed from the text, and
//! the rare one with an escape is unescaped by serde_json itself. It fills the same
//! [`RawCpuProfile`] the serde reader fills, through the same [`NodeFields::finish`], so the
//! lowering and every number after it are one code. Anything else — a float, `-0`, `null`, a
//! key it does not know, a repeated key, bytes after the object, any syntax error — makes it give
//! up (`None`), and the caller reads the text with serde from the start, which handles every form
//! and names the place of an error. On a 21.4 MB profile of the TypeScript compiler, `top --json`
//! went from 66 to 52 ms with it (perf: the reading ~20 ms of the 52, serde's ~33 of the 66).

use std::borrow::Cow;

use super::RawCpuProfile;
use crate::call_frame::{CallFrameIn, NodeFields, TickIn, TreeSink};
use crate::json::{Float, FromNumber, IdString, Micros, NodeId, Number};

/// Reads `text` through `sink` (over a fresh profile); `None` when the text is not in the form
/// this reads (the profile is then to be dropped: it may hold some of the text's frames).
pub(super) fn read(text: &[u8], sink: &mut TreeSink<'_>) -> Option<RawCpuProfile> {
    let mut s = Scanner { text, at: 0 };
    let mut raw = RawCpuProfile::default();
    let mut seen = [false; 5];
    s.byte(b'{')?;
    loop {
        let key = s.string()?;
        s.byte(b':')?;
        let i = ["nodes", "startTime", "endTime", "samples", "timeDeltas"]
            .iter()
            .position(|k| k.as_bytes() == key)?;
        if std::mem::replace(&mut seen[i], true) {
            return None;
        }
        match i {
            0 => {
                s.nodes(sink)?;
                raw.has_nodes = true;
            }
            1 => raw.start_time = Some(s.integer()?.as_f64()),
            2 => raw.end_time = Some(s.integer()?.as_f64()),
            3 => {
                let mut ids = Vec::with_capacity(s.rest() / 8);
                s.array(|s| {
                    let id = u32::try_from(s.integer()?.as_u64()?).ok()?;
                    (id != u32::MAX).then(|| ids.push(id))
                })?;
                raw.samples = Some(ids);
            }
            _ => {
                let mut deltas = Vec::with_capacity(s.rest() / 8);
                s.array(|s| {
                    deltas.push(s.integer()?.to::<Micros>()?.0);
                    Some(())
                })?;
                raw.times = Some(deltas);
            }
        }
        if !s.comma_or(b'}')? {
            break;
        }
    }
    s.ws();
    (s.at == text.len()).then_some(raw)
}

/// An integer as JSON wrote it: serde_json's non-negative and negative integers.
#[derive(Clone, Copy)]
pub(crate) enum Integer {
    U64(u64),
    I64(i64),
}

impl Integer {
    /// As the serde reader's type `T` reads it (one conversion per type: [`FromNumber`]).
    #[inline]
    fn to<T: FromNumber>(self) -> Option<T> {
        T::from_number::<serde::de::value::Error>(match self {
            Integer::U64(v) => Number::U64(v),
            Integer::I64(v) => Number::I64(v),
        })
        .ok()
    }

    fn as_f64(self) -> f64 {
        self.to::<Float>().expect("every integer is a number").0
    }

    fn as_u64(self) -> Option<u64> {
        self.to::<NodeId>().map(|id| id.0)
    }
}

struct Scanner<'t> {
    text: &'t [u8],
    at: usize,
}

impl<'t> Scanner<'t> {
    fn rest(&self) -> usize {
        self.text.len() - self.at
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after white space, consumed when it is `b`.
    #[inline]
    fn byte(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.text.get(self.at) == Some(&b)).then(|| self.at += 1)
    }

    /// After a value: `,` (true) or `close` (false).
    #[inline]
    fn comma_or(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let b = *self.text.get(self.at)?;
        self.at += 1;
        match b {
            b',' => Some(true),
            b if b == close => Some(false),
            _ => None,
        }
    }

    /// A string without escapes or control characters, its bytes.
    #[inline]
    fn string(&mut self) -> Option<&'t [u8]> {
        self.byte(b'"')?;
        let start = self.at;
        let len = memchr::memchr(b'"', &self.text[start..])?;
        let bytes = &self.text[start..start + len];
        if bytes.iter().any(|&b| b == b'\\' || b < 0x20) {
            return None;
        }
        self.at = start + len + 1;
        Some(bytes)
    }

    /// A string as text (UTF-8 checked): borrowed from the input, or, when it has escapes,
    /// unescaped by serde_json itself. One pass over its bytes (they are short: a loop beats a
    /// vectorised search's set-up).
    #[inline]
    fn text(&mut self) -> Option<Cow<'t, str>> {
        self.byte(b'"')?;
        let start = self.at;
        let mut end = start;
        let mut ascii = true;
        loop {
            match *self.text.get(end)? {
                b'"' => break,
                b'\\' => return self.escaped(start, end),
                b if b < 0x20 => return None,
                b => ascii &= b < 0x80,
            }
            end += 1;
        }
        self.at = end + 1;
        let bytes = &self.text[start..end];
        let text = if ascii {
            // SAFETY: ASCII bytes are UTF-8.
            unsafe { std::str::from_utf8_unchecked(bytes) }
        } else {
            std::str::from_utf8(bytes).ok()?
        };
        Some(Cow::Borrowed(text))
    }

    /// The string that starts at `start` and has an escape at `at`, unescaped by serde_json.
    #[cold]
    fn escaped(&mut self, start: usize, mut at: usize) -> Option<Cow<'t, str>> {
        loop {
            match *self.text.get(at)? {
                b'\\' => at += 2,
                b'"' => break,
                _ => at += 1,
            }
        }
        let unescaped: String = serde_json::from_slice(&self.text[start - 1..=at]).ok()?;
        self.at = at + 1;
        Some(Cow::Owned(unescaped))
    }

    /// An integer: `-`, then digits without a leading zero; a fraction or exponent is not one.
    #[inline]
    fn integer(&mut self) -> Option<Integer> {
        self.ws();
        let negative = self.text.get(self.at) == Some(&b'-');
        self.at += usize::from(negative);
        let start = self.at;
        let mut v: u64 = 0;
        while let Some(&d @ b'0'..=b'9') = self.text.get(self.at) {
            v = v.checked_mul(10)?.checked_add((d - b'0') as u64)?;
            self.at += 1;
        }
        let digits = self.at - start;
        if digits == 0 || (digits > 1 && self.text[start] == b'0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.text.get(self.at) {
            return None;
        }
        Some(if negative {
            // serde_json reads `-0` as the float -0.0: left to it.
            if v == 0 {
                return None;
            }
            Integer::I64(0i64.checked_sub_unsigned(v)?)
        } else {
            Integer::U64(v)
        })
    }

    /// `[`, `item` for each element, `]`.
    #[inline]
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.byte(b'[')?;
        self.ws();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(());
        }
        loop {
            item(self)?;
            if !self.comma_or(b']')? {
                return Some(());
            }
        }
    }

    /// `{`, `field` for each key (whose value it reads), `}`; a key twice gives up.
    #[inline]
    fn object<const N: usize>(
        &mut self,
        keys: [&str; N],
        mut field: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        self.byte(b'{')?;
        self.ws();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Some(());
        }
        let mut seen = [false; N];
        loop {
            let key = self.string()?;
            self.byte(b':')?;
            let i = keys
                .iter()
                .position(|k| k.len() == key.len() && k.as_bytes() == key)?;
            if std::mem::replace(&mut seen[i], true) {
                return None;
            }
            field(self, i)?;
            if !self.comma_or(b'}')? {
                return Some(());
            }
        }
    }

    /// The `nodes` array, each node finished into the sink as the serde reader finishes it.
    fn nodes(&mut self, sink: &mut TreeSink<'_>) -> Option<()> {
        sink.tree.nodes.reserve(self.rest() / 256);
        self.array(|s| {
            let mut fields = NodeFields::default();
            let mut children = None;
            s.object(
                [
                    "id",
                    "callFrame",
                    "hitCount",
                    "children",
                    "positionTicks",
                    "deoptReason",
                    "parent",
                    "selfSize",
                ],
                |s, i| {
                    match i {
                        0 => fields.id = Some(s.integer()?.as_u64()?),
                        1 => fields.call_frame = Some(s.call_frame()?),
                        2 => fields.hit_count = Some(s.integer()?.as_f64()),
                        3 => {
                            let start = sink.tree.children.len() as u32;
                            let tree = &mut sink.tree;
                            s.array(|s| {
                                tree.children.push(s.integer()?.as_u64()?);
                                Some(())
                            })?;
                            children = Some(start..sink.tree.children.len() as u32);
                        }
                        4 => s.array(|s| {
                            let mut tick = TickIn {
                                line: Float(0.0),
                                ticks: Float(0.0),
                            };
                            let mut both = 0;
                            s.object(["line", "ticks"], |s, i| {
                                let v = Float(s.integer()?.as_f64());
                                both += 1;
                                match i {
                                    0 => tick.line = v,
                                    _ => tick.ticks = v,
                                }
                                Some(())
                            })?;
                            (both == 2).then(|| fields.ticks.push(tick))
                        })?,
                        5 => fields.deopt_reason = Some(s.text()?),
                        6 => fields.parent = Some(s.integer()?.as_u64()?),
                        _ => fields.self_size = Some(s.integer()?.as_f64()),
                    }
                    Some(())
                },
            )?;
            fields.id?;
            let fallback = sink.fallback_id();
            fields.finish(&mut sink.tree, sink.profile, children, fallback);
            Some(())
        })
    }

    fn call_frame(&mut self) -> Option<CallFrameIn<'t>> {
        let mut frame = CallFrameIn::default();
        self.object(
            [
                "functionName",
                "scriptId",
                "url",
                "lineNumber",
                "columnNumber",
            ],
            |s, i| {
                match i {
                    0 => frame.function_name = Some(s.text()?),
                    1 => frame.script_id = Some(IdString(s.text()?)),
                    2 => frame.url = Some(s.text()?),
                    3 => frame.line_number = Some(Float(s.integer()?.as_f64())),
                    _ => frame.column_number = Some(Float(s.integer()?.as_f64())),
                }
                Some(())
            },
        )?;
        Some(frame)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use crate::cpuprofile::{read_common_form, read_cpuprofile, read_cpuprofile_from};
    use crate::json::Source;

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if name.ends_with(".gz") {
            let mut text = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_end(&mut text)
                .expect("gzip");
            text
        } else {
            bytes
        }
    }

    /// The serde reader's profile of `text` (a reader's source never takes the scanner).
    fn by_serde(text: &[u8]) -> String {
        format!("{:?}", read_cpuprofile(text).expect("serde reads it"))
    }

    #[test]
    fn the_scanner_reads_what_serde_reads_or_gives_up() {
        // V8's own profiles: the scanner takes each, and its profile is serde's, field by field.
        for name in [
            "cpu/tsc.cpuprofile.gz",
            "cpu/node-mix.cpuprofile.gz",
            "diff/before.cpuprofile.gz",
            "diff/after.cpuprofile.gz",
            "third-party/speedscope/Chrome-65-sucrase.cpuprofile.gz",
        ] {
            let text = fixture(name);
            let fast = read_common_form(&text).unwrap_or_else(|| panic!("{name}: not taken"));
            assert_eq!(format!("{fast:?}"), by_serde(&text), "{name}");
        }
        // Forms it leaves to serde: each gives up, and serde reads it (the caller's fallback).
        let base = r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},{"id":2,"callFrame":{"functionName":"f","scriptId":"7","url":"file:///a.js","lineNumber":3,"columnNumber":9},"hitCount":2,"positionTicks":[{"line":4,"ticks":2}]}],"startTime":100,"endTime":300,"samples":[2,2],"timeDeltas":[50,50]}"#;
        let escaped = base.replacen(r#""f""#, r#""f\u00e9\n\"""#, 1);
        for text in [base, &escaped] {
            let fast = read_common_form(text.as_bytes()).expect("the common form is taken");
            assert_eq!(format!("{fast:?}"), by_serde(text.as_bytes()));
        }
        for (from, to) in [
            (r#""startTime":100"#, r#""startTime":100.5"#),
            (r#""startTime":100"#, r#""startTime":1e2"#),
            (r#""hitCount":2"#, r#""hitCount":null"#),
            (r#""hitCount":2"#, r#""hitCount":2,"hitCount":3"#),
            (r#""samples":[2,2]"#, r#""samples":[2,2],"title":"x""#),
            (r#""url":"""#, r#""url":"","codeType":"JS""#),
            (r#""scriptId":"7""#, r#""scriptId":7"#),
            (r#""id":2,"#, r#""id":-0,"#),
            (r#""url":"""#, "\"url\":\"\t\""),
            (r#""callFrame""#, r#""call\u0046rame""#),
        ] {
            let text = base.replacen(from, to, 1);
            assert_ne!(text, base, "{to}");
            assert!(read_common_form(text.as_bytes()).is_none(), "{to}");
            // What the text's reader answers is serde's answer, a profile or an error.
            let answer = read_cpuprofile_from(Source::<&[u8]>::Slice(text.as_bytes()));
            let serde = read_cpuprofile(text.as_bytes());
            assert_eq!(format!("{answer:?}"), format!("{serde:?}"), "{to}");
        }
        for text in [format!("{base} x"), base[..base.len() - 1].to_string()] {
            assert!(read_common_form(text.as_bytes()).is_none(), "{text}");
        }
        // Profiles exported from a JS Self-Profiling trace (a float `endTime`) and the legacy form
        // (a `head` tree): left to serde whole.
        let exported = fixture("selfprofile/primes.exported.cpuprofile");
        assert!(read_common_form(&exported).is_none());
        let legacy = fixture("third-party/speedscope/node-10.11.0-example.cpuprofile.gz");
        assert!(read_common_form(&legacy).is_none());
    }
}
