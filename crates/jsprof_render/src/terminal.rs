//! The one escaper of text a terminal shows: names, URLs and labels come from the input, and a
//! terminal obeys what they hold. ESC starts a control sequence (clear the screen, move the
//! cursor, set the window title, colour the rest of the output), CR returns to the start of the
//! line to overwrite what was printed, LF in a table cell starts a row of its own, and the bidi
//! overrides reorder what follows. Every such character is shown escaped instead:
//!
//! | characters | shown as |
//! |---|---|
//! | TAB, LF, CR | `\t`, `\n`, `\r` |
//! | other C0 (U+0000–U+001F, ESC among them), DEL (U+007F) | `\x1b`, `\x7f`, … |
//! | C1 (U+0080–U+009F) | `\u{9b}`, … |
//! | bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) | `\u{202e}`, … |
//!
//! A backslash is left as it is: a Windows path stays readable, and this text is for people
//! (JSON output keeps every string exact).
//!
//! [`escape`] is for one cell or name, where a line break is the input's; [`TerminalWriter`] is for
//! a whole text output, whose line breaks are the program's own, and escapes everything else.
//!
//! ```
//! use jsprof_render::terminal::escape;
//! assert_eq!(escape("render\x1b[2J\nfake row"), "render\\x1b[2J\\nfake row");
//! assert_eq!(escape("plain"), "plain");
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// True for a character a terminal would act on rather than show.
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\0'..='\x7f' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every character [`is_unsafe`] says a terminal acts on shown escaped; borrowed when
/// there is none.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_except(text, None)
}

fn escape_except(text: &str, keep: Option<char>) -> Cow<'_, str> {
    let unsafe_at = |c: char| is_unsafe(c) && Some(c) != keep;
    let Some(first) = text.find(unsafe_at) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if unsafe_at(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer of human text output: everything [`escape`] escapes is escaped, except the line
/// breaks, which are the output's own. Bytes that are not UTF-8 are shown as `\xNN`. A character
/// split between two writes is held until its end arrives (or [`flush`](Write::flush)).
pub struct TerminalWriter<W: Write> {
    inner: W,
    /// The start of a UTF-8 sequence whose end has not been written yet (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> TerminalWriter<W> {
    pub fn new(inner: W) -> TerminalWriter<W> {
        TerminalWriter {
            inner,
            pending: Vec::new(),
        }
    }

    /// The writer underneath (what is pending is not written).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Writes `bytes` escaped; with `eof`, an incomplete sequence at the end is written as bytes.
    fn put(&mut self, bytes: &[u8], eof: bool) -> io::Result<()> {
        let mut rest = bytes;
        let mut out = String::new();
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(&escape_except(text, Some('\n')));
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    out.push_str(&escape_except(
                        std::str::from_utf8(good).unwrap_or_default(),
                        Some('\n'),
                    ));
                    match e.error_len() {
                        Some(n) => {
                            for b in &bad[..n] {
                                let _ = write!(out, "\\x{b:02x}");
                            }
                            rest = &bad[n..];
                        }
                        None if eof => {
                            for b in bad {
                                let _ = write!(out, "\\x{b:02x}");
                            }
                            break;
                        }
                        None => {
                            self.pending.extend_from_slice(bad);
                            break;
                        }
                    }
                }
            }
        }
        self.inner.write_all(out.as_bytes())
    }
}

impl<W: Write> Write for TerminalWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            self.put(buf, false)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.put(&joined, false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.put(&pending, true)?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_shown_escaped() {
        assert_eq!(escape("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escape("a\r\n\tb"), "a\\r\\n\\tb");
        assert_eq!(escape("\0\x07\x7f"), "\\x00\\x07\\x7f");
        assert_eq!(escape("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape("abc\u{202e}fed\u{2066}"), "abc\\u{202e}fed\\u{2066}");
        // What a terminal only shows stays as it is.
        for plain in ["(anonymous)", "C:\\app\\x.js", "é ü 中 …", "\u{a0}\u{200b}"] {
            assert!(matches!(escape(plain), Cow::Borrowed(_)), "{plain}");
        }
    }

    fn through_writer(chunks: &[&[u8]]) -> String {
        let mut w = TerminalWriter::new(Vec::new());
        for c in chunks {
            w.write_all(c).unwrap();
        }
        w.flush().unwrap();
        String::from_utf8(w.inner).unwrap()
    }

    #[test]
    fn the_writer_keeps_line_breaks_and_escapes_the_rest() {
        assert_eq!(
            through_writer(&[b"row 1\x1b]0;title\x07\n", b"row\r2\n"]),
            "row 1\\x1b]0;title\\x07\nrow\\r2\n"
        );
        // A C1 control or a bidi override split between two writes is still seen whole.
        let rlo = "\u{202e}".as_bytes();
        let csi = "\u{9b}".as_bytes();
        assert_eq!(
            through_writer(&[
                b"a",
                &rlo[..1],
                &rlo[1..2],
                &rlo[2..],
                &csi[..1],
                &csi[1..],
                b"z"
            ]),
            "a\\u{202e}\\u{9b}z"
        );
        assert_eq!(
            through_writer(&["中".as_bytes(), b"\xff", &"é".as_bytes()[..1]]),
            "中\\xff\\xc3"
        );
    }
}
