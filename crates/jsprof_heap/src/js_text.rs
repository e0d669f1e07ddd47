//! Just enough of JavaScript's lexical grammar to cut one function's text out of its script, from
//! the position a heap snapshot gives for it (V8's function start: its parameter list, or the
//! `function`/`async` keyword before it), and to list the identifiers in it. Strings, template
//! literals (with their `${…}` parts), comments and regular-expression literals are stepped over
//! so that no bracket inside them is counted.
//!
//! It serves one question, "could this function read variable `v`?", and answers it
//! conservatively: every whole-word occurrence of `v` in the function's text counts as a read
//! (a property `.v` and a `"v"` inside a string too), and a text it cannot cut with confidence is
//! `None`, never a guess.

use rustc_hash::FxHashSet;

/// The byte offset of a 0-based line and column in `text`. V8 counts columns in UTF-16 code units;
/// the line is walked character by character so that non-ASCII text lands right.
pub fn offset(text: &[u8], line: u32, column: u32) -> Option<usize> {
    let mut at = 0;
    for _ in 0..line {
        at += text.get(at..)?.iter().position(|&b| b == b'\n')? + 1;
    }
    let rest = std::str::from_utf8(text.get(at..)?).ok().or_else(|| {
        // A cut copy may end inside a character: read the valid prefix.
        std::str::from_utf8(&text[at..at + utf8_prefix(&text[at..])]).ok()
    })?;
    let mut units = 0;
    for (i, c) in rest.char_indices() {
        if units == column as usize {
            return Some(at + i);
        }
        if c == '\n' {
            return None;
        }
        units += c.len_utf16();
    }
    (units == column as usize).then_some(at + rest.len())
}

fn utf8_prefix(b: &[u8]) -> usize {
    match std::str::from_utf8(b) {
        Ok(_) => b.len(),
        Err(e) => e.valid_up_to(),
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Words after which a `/` starts a regular expression, not a division.
const BEFORE_REGEX: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"instanceof",
    b"yield",
    b"await",
];

/// A cursor over a script's bytes.
struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    /// Whether a `/` here would start a regular expression (after an operator, an opening
    /// bracket, a keyword such as `return`, or at the start).
    regex_ok: bool,
    /// The text is the script's whole text: its end ends an expression (not so in a cut copy).
    whole: bool,
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn at(&self, s: &[u8]) -> bool {
        self.b[self.i..].starts_with(s)
    }

    /// Steps over white space and comments; true when a line ended among them.
    fn trivia(&mut self) -> Option<bool> {
        let mut newline = false;
        loop {
            match self.peek() {
                Some(b'\n') => {
                    newline = true;
                    self.i += 1;
                }
                Some(c) if c.is_ascii_whitespace() => self.i += 1,
                Some(b'/') if self.at(b"//") => {
                    match self.b[self.i..].iter().position(|&c| c == b'\n') {
                        Some(n) => self.i += n,
                        None => self.i = self.b.len(),
                    }
                }
                Some(b'/') if self.at(b"/*") => {
                    let n = find(&self.b[self.i + 2..], b"*/")?;
                    newline |= self.b[self.i..self.i + 2 + n].contains(&b'\n');
                    self.i += n + 4;
                }
                _ => return Some(newline),
            }
        }
    }

    /// Steps over a quoted string starting at the cursor.
    fn string(&mut self, quote: u8) -> Option<()> {
        self.i += 1;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => self.i += 2,
                b'\n' => return None,
                c => {
                    self.i += 1;
                    if c == quote {
                        return Some(());
                    }
                }
            }
        }
    }

    /// Steps over a template literal starting at the cursor, its `${…}` parts included.
    fn template(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    return Some(());
                }
                b'$' if self.b.get(self.i + 1) == Some(&b'{') => {
                    self.i += 1;
                    self.balanced()?;
                }
                _ => self.i += 1,
            }
        }
    }

    /// Steps over a regular-expression literal starting at the cursor, and its flags.
    fn regex(&mut self) -> Option<()> {
        self.i += 1;
        let mut class = false;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => self.i += 2,
                b'\n' => return None,
                b'[' => {
                    class = true;
                    self.i += 1;
                }
                b']' => {
                    class = false;
                    self.i += 1;
                }
                b'/' if !class => {
                    self.i += 1;
                    while self.peek().is_some_and(is_ident) {
                        self.i += 1;
                    }
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
    }

    /// Steps over one token (or a string, template or regex) that is not trivia; returns the
    /// byte it started with.
    fn token(&mut self) -> Option<u8> {
        let c = self.peek()?;
        match c {
            b'"' | b'\'' => {
                self.string(c)?;
                self.regex_ok = false;
            }
            b'`' => {
                self.template()?;
                self.regex_ok = false;
            }
            b'/' if self.regex_ok => {
                self.regex()?;
                self.regex_ok = false;
            }
            c if is_ident(c) => {
                let start = self.i;
                while self.peek().is_some_and(is_ident) {
                    self.i += 1;
                }
                self.regex_ok = BEFORE_REGEX.contains(&&self.b[start..self.i]);
            }
            b')' | b']' | b'}' => {
                self.i += 1;
                self.regex_ok = false;
            }
            _ => {
                self.i += 1;
                self.regex_ok = true;
            }
        }
        Some(c)
    }

    /// At an opening bracket: steps past its matching closing one.
    fn balanced(&mut self) -> Option<()> {
        let mut stack = Vec::new();
        loop {
            self.trivia()?;
            let c = self.token()?;
            match c {
                b'(' | b'[' | b'{' => stack.push(c),
                b')' | b']' | b'}' => {
                    let open = stack.pop()?;
                    if (open, c) != (b'(', b')')
                        && (open, c) != (b'[', b']')
                        && (open, c) != (b'{', b'}')
                    {
                        return None;
                    }
                    if stack.is_empty() {
                        return Some(());
                    }
                }
                _ => {}
            }
        }
    }

    /// Steps over the identifier at the cursor, if one is there.
    fn word(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        while self.peek().is_some_and(is_ident) {
            self.i += 1;
        }
        (self.i > start).then(|| &self.b[start..self.i])
    }

    /// An arrow function's expression body: up to a `,`, `;` or closing bracket outside any
    /// bracket, or a line end that no operator continues.
    fn expression(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            let end = self.i;
            let newline = self.trivia()?;
            let Some(c) = self.peek() else {
                self.i = end;
                return self.whole.then_some(());
            };
            if depth == 0
                && (matches!(c, b',' | b';' | b')' | b']' | b'}')
                    || newline && !b".?:+-*/%&|^<>=".contains(&c) && !self.regex_ok)
            {
                self.i = end;
                return Some(());
            }
            match self.token()? {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
                _ => {}
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The text of the function that starts at byte `start` of `script`: its parameters and body.
/// `None` when the text there is not a function this cutter understands (a class, a getter
/// written another way) or does not end within the script. `whole`: `script` is the whole
/// script, not a cut copy whose end could fall inside the function.
pub fn function_text(script: &[u8], start: usize, whole: bool) -> Option<&[u8]> {
    let mut lx = Lexer {
        b: script,
        i: start,
        regex_ok: true,
        whole,
    };
    lx.trivia()?;
    // `async`, `function`, `*` and the name may precede the parameters.
    for _ in 0..4 {
        let before = lx.i;
        match lx.peek()? {
            b'*' => lx.i += 1,
            c if is_ident(c) => {
                let w = lx.word()?;
                lx.trivia()?;
                // A lone parameter of an arrow function: `x => …`.
                if lx.at(b"=>") {
                    lx.i = before;
                    break;
                }
                if w == b"class" {
                    return None;
                }
            }
            _ => break,
        }
        lx.trivia()?;
    }
    match lx.peek()? {
        b'(' => lx.balanced()?,
        c if is_ident(c) => {
            lx.word()?;
        }
        _ => return None,
    }
    lx.trivia()?;
    if lx.at(b"=>") {
        lx.i += 2;
        lx.trivia()?;
        if lx.peek()? == b'{' {
            lx.balanced()?;
        } else {
            lx.regex_ok = true;
            lx.expression()?;
        }
    } else if lx.peek()? == b'{' {
        lx.balanced()?;
    } else {
        return None;
    }
    Some(&script[start..lx.i])
}

/// Every identifier-like word of `text` (keywords and property names included).
pub fn words(text: &[u8]) -> FxHashSet<&[u8]> {
    let mut out = FxHashSet::default();
    let mut i = 0;
    while i < text.len() {
        if is_ident(text[i]) {
            let start = i;
            while i < text.len() && is_ident(text[i]) {
                i += 1;
            }
            if !text[start].is_ascii_digit() {
                out.insert(&text[start..i]);
            }
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(src: &str, at: &str) -> Option<String> {
        let start = src.find(at).unwrap();
        function_text(src.as_bytes(), start, true).map(|t| String::from_utf8(t.to_vec()).unwrap())
    }

    #[test]
    fn cuts_functions_of_every_form() {
        let src = "const a = function keeper(x) { return x + '}' + `${ {a: 1}.a }`; }; next();";
        assert_eq!(
            cut(src, "(x)").as_deref(),
            Some("(x) { return x + '}' + `${ {a: 1}.a }`; }")
        );
        let src = "f(() => big.length, 2);";
        assert_eq!(cut(src, "()").as_deref(), Some("() => big.length"));
        let src = "xs.map(x => /}/.test(x) ? 1 : 2)\nother()";
        assert_eq!(
            cut(src, "x =>").as_deref(),
            Some("x => /}/.test(x) ? 1 : 2")
        );
        let src = "async function run(a, b) { /* } */ // }\n return a / b; }\nrest";
        assert_eq!(
            cut(src, "async").as_deref(),
            Some("async function run(a, b) { /* } */ // }\n return a / b; }")
        );
        let src = "const g = (a) =>\n  a\n    .map(f)\nnext";
        assert_eq!(cut(src, "(a)").as_deref(), Some("(a) =>\n  a\n    .map(f)"));
        assert_eq!(cut("class A { }", "class"), None);
        assert_eq!(cut("function f( { ", "("), None);
        // An expression body that reaches the end of a cut copy may go on past it.
        let src = "f(() => big.length";
        assert_eq!(function_text(src.as_bytes(), 2, false), None);
        assert_eq!(
            function_text(src.as_bytes(), 2, true),
            Some(&b"() => big.length"[..])
        );
    }

    #[test]
    fn offsets_count_utf16_units() {
        let src = "a\n€😀x = 1";
        // '€' is one UTF-16 unit, '😀' two.
        assert_eq!(offset(src.as_bytes(), 1, 3), Some(2 + 3 + 4));
        assert_eq!(offset(src.as_bytes(), 0, 0), Some(0));
        assert_eq!(offset(src.as_bytes(), 3, 0), None);
    }

    #[test]
    fn words_are_whole_identifiers() {
        let w = words(b"return bigBuffer.length + big2 + 3x;");
        assert!(w.contains(&b"bigBuffer"[..]));
        assert!(!w.contains(&b"big"[..]));
        assert!(w.contains(&b"length"[..]));
    }
}
