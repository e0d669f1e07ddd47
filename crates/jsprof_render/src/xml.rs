//! The one XML escaper of the SVG writers.

use std::borrow::Cow;

/// `s` made safe for XML text and for a double- or single-quoted attribute value. Newlines become
/// `&#10;` so that they survive attribute-value normalization (a tool reading `data-n` gets the
/// name back whole). Control characters other than tab, which XML 1.0 cannot carry at all, become
/// U+FFFD. Borrows when there is nothing to escape, as for most function names.
pub fn escape(s: &str) -> Cow<'_, str> {
    let needs = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || is_control(c);
    let Some(first) = s.find(needs) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if is_control(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Below U+0020, tab excepted (newline included: it is escaped, not replaced).
fn is_control(c: char) -> bool {
    (c as u32) < 0x20 && c != '\t'
}

#[cfg(test)]
mod tests {
    use super::escape;
    use std::borrow::Cow;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"a<b> & "c" 'd'"#),
            "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;"
        );
        // Already-escaped text is escaped again: the input is text, not markup.
        assert_eq!(escape("&amp;"), "&amp;amp;");
    }

    #[test]
    fn keeps_newlines_and_drops_what_xml_cannot_hold() {
        assert_eq!(escape("a\nb"), "a&#10;b");
        assert_eq!(escape("a\tb"), "a\tb");
        assert_eq!(escape("a\u{0}b\u{1b}c\rd"), "a\u{fffd}b\u{fffd}c\u{fffd}d");
    }

    #[test]
    fn borrows_clean_text_and_keeps_unicode() {
        assert!(matches!(escape("main (app.js:1:2)"), Cow::Borrowed(_)));
        assert_eq!(escape("λ → ü <"), "λ → ü &lt;");
        assert_eq!(escape(""), "");
    }
}
