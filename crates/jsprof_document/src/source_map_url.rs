//! Finding a script's `sourceMappingURL` comment without parsing it, by the source map
//! standard's rule (ECMA-426, "extract a source map URL from JavaScript without parsing"): the
//! script is read line by line; a `//` or one-line `/* */` comment of the form
//! `# sourceMappingURL=URL` (or `@ …`) sets the URL, and any code after it clears it again. So
//! the URL that counts is in the comments that end the script, and only the script's tail needs
//! reading: [`in_script`] reads its last [`TAIL`] bytes and reads the whole script only when
//! those bytes hold nothing but comments and white space (a long inline `data:` map, a long
//! licence at the end), where the answer may lie further back.
//!
//! The rule looks at one line at a time (an unclosed `/*` is a comment to the end of its line,
//! and the next line is read afresh), so reading from any line start on gives the same answer as
//! reading the whole script, as long as that stretch holds code.

use std::path::{Path, PathBuf};

/// How much of a script's end is read first.
pub(crate) const TAIL: u64 = 64 << 10;

/// The URL the comments that end `script` name; `Ok(None)` when they name none. Reads at most
/// `max` bytes, only regular files, and only below `roots` when any are given.
pub(crate) fn in_script(
    script: &Path,
    max: u64,
    roots: &[PathBuf],
) -> Result<Option<String>, String> {
    let (tail, whole) = crate::local_file::read_suffix(script, TAIL, roots)?;
    if whole {
        return Ok(scan(&tail).url);
    }
    // The first line of the tail may have begun before it: start at the next line.
    if let Some(start) = tail.iter().position(|&b| b == b'\n' || b == b'\r') {
        let found = scan(&tail[start + 1..]);
        if found.url.is_some() || found.code {
            return Ok(found.url);
        }
    }
    let text = crate::local_file::read_bounded(script, max, roots)?;
    Ok(scan(&text).url)
}

/// What a stretch of lines says: the URL in force at its end, and whether it held any code.
struct Scan {
    url: Option<String>,
    code: bool,
}

/// The standard's line-by-line scan over `text`.
fn scan(text: &[u8]) -> Scan {
    let mut out = Scan {
        url: None,
        code: false,
    };
    for line in lines(text) {
        let mut rest = line;
        loop {
            rest = trim_start(rest);
            if rest.is_empty() {
                break;
            }
            if let Some(comment) = rest.strip_prefix(b"//") {
                if let Some(url) = url_in_comment(comment) {
                    out.url = Some(url);
                }
                break;
            }
            if let Some(after) = rest.strip_prefix(b"/*") {
                let Some(end) = after.windows(2).position(|w| w == b"*/") else {
                    // Unclosed: a comment to the end of the line.
                    break;
                };
                if let Some(url) = url_in_comment(&after[..end]) {
                    out.url = Some(url);
                }
                rest = &after[end + 2..];
                continue;
            }
            // Code: everything up to the next `/` (or one lone `/`).
            out.url = None;
            out.code = true;
            let n = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
            rest = &rest[n.max(1)..];
        }
    }
    out
}

/// Lines split on ECMAScript line terminators (LF, CR, U+2028, U+2029); CR LF gives an empty
/// line between, which changes nothing here.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                b'\n' | b'\r' => {
                    let line = &rest[..i];
                    rest = &rest[i + 1..];
                    return Some(line);
                }
                0xE2 if rest.get(i + 1) == Some(&0x80)
                    && matches!(rest.get(i + 2), Some(0xA8 | 0xA9)) =>
                {
                    let line = &rest[..i];
                    rest = &rest[i + 3..];
                    return Some(line);
                }
                _ => i += 1,
            }
        }
        let line = rest;
        rest = &[];
        Some(line)
    })
}

/// `s` without its leading white space: ASCII white space, NBSP and the byte-order mark.
fn trim_start(mut s: &[u8]) -> &[u8] {
    loop {
        s = match s {
            [b' ' | b'\t' | 0x0B | 0x0C, rest @ ..] => rest,
            [0xC2, 0xA0, rest @ ..] => rest,
            [0xEF, 0xBB, 0xBF, rest @ ..] => rest,
            _ => return s,
        }
    }
}

/// The URL of a comment's text `# sourceMappingURL=URL` (or `@`), white space allowed after
/// the mark and after the URL, nothing else.
fn url_in_comment(comment: &[u8]) -> Option<String> {
    let rest = comment
        .strip_prefix(b"#")
        .or_else(|| comment.strip_prefix(b"@"))?;
    let rest = trim_start(rest).strip_prefix(b"sourceMappingURL=")?;
    let end = rest
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    trim_start(&rest[end..])
        .iter()
        .all(|b| b.is_ascii_whitespace())
        .then(|| String::from_utf8_lossy(&rest[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Option<String> {
        scan(text.as_bytes()).url
    }

    #[test]
    fn the_standards_rule() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "x();\n//# sourceMappingURL=app.js.map\n",
                Some("app.js.map"),
            ),
            ("x();\n//@ sourceMappingURL=old.map", Some("old.map")),
            ("/*# sourceMappingURL=a.map */", Some("a.map")),
            (
                "x(); //# sourceMappingURL=same-line.map",
                Some("same-line.map"),
            ),
            (
                "//# sourceMappingURL=a.map\n// licence\n/* more */\n\n",
                Some("a.map"),
            ),
            // Code after the comment clears it.
            ("//# sourceMappingURL=a.map\nx();\n", None),
            ("/*# sourceMappingURL=a.map */ x();", None),
            // The last comment wins.
            (
                "//# sourceMappingURL=a.map\n//# sourceMappingURL=b.map",
                Some("b.map"),
            ),
            // Not a comment of the form.
            ("var s = 'sourceMappingURL=x';", None),
            ("//# sourceMappingURL=a.map trailing words", None),
            ("// sourceMappingURL=a.map", None),
            ("//#sourceMappingURL=tight.map", Some("tight.map")),
            // An unclosed block comment runs to the end of its line only.
            ("/* open\n//# sourceMappingURL=a.map", Some("a.map")),
            ("x();\u{2028}//# sourceMappingURL=ls.map", Some("ls.map")),
            ("\u{feff}//# sourceMappingURL=bom.map", Some("bom.map")),
        ];
        for (text, want) in cases {
            assert_eq!(url(text).as_deref(), *want, "{text:?}");
        }
    }

    #[test]
    fn the_tail_gives_the_whole_scripts_answer() {
        let dir = std::env::temp_dir().join(format!("jsprof-smu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let code = "function f(a, b) { return a / b; }\n".repeat(4 * TAIL as usize / 36);
        let long_map = format!(
            "//# sourceMappingURL=data:application/json;base64,{}\n",
            "QUFB".repeat(TAIL as usize / 2)
        );
        let licence = format!("/*{}*/\n", " licence text ".repeat(TAIL as usize / 7));
        let cases: Vec<(String, Option<String>)> = vec![
            (
                format!("{code}//# sourceMappingURL=app.js.map\n"),
                Some("app.js.map".into()),
            ),
            (code.clone(), None),
            (format!("//# sourceMappingURL=early.map\n{code}"), None),
            (format!("{code}{long_map}"), url(&long_map)),
            (
                format!("{code}//# sourceMappingURL=before-licence.map\n{licence}"),
                Some("before-licence.map".into()),
            ),
            (
                "short(); //# sourceMappingURL=s.map".into(),
                Some("s.map".into()),
            ),
        ];
        assert!(cases[3]
            .1
            .as_deref()
            .is_some_and(|u| u.len() > TAIL as usize));
        for (i, (text, want)) in cases.iter().enumerate() {
            let path = dir.join(format!("{i}.js"));
            std::fs::write(&path, text).unwrap();
            assert_eq!(&in_script(&path, 1 << 30, &[]).unwrap(), want, "case {i}");
            assert_eq!(&scan(text.as_bytes()).url, want, "case {i}, whole");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
