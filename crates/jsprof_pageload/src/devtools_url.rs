//! URLs as DevTools' front end completes them (`Common.ParsedURL`): how its source maps turn
//! each of their `sources` into a URL. Not the WHATWG URL parser: DevTools matches a URL against
//! its own pattern (scheme `://` user, host, port, path, query, fragment), normalizes `.` and
//! `..` in paths itself, and returns `data:`, `blob:`, `javascript:` and `mailto:` URLs as they
//! are.

use std::sync::OnceLock;

use regex::Regex;

/// A URL that matched DevTools' pattern (`ParsedURL` with `isValid`).
struct ParsedUrl<'a> {
    scheme: String,
    host: &'a str,
    port: &'a str,
    path: &'a str,
    query: &'a str,
    fragment: &'a str,
}

fn url_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let space = r"\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}";
        Regex::new(&format!(
            r"^(([A-Za-z][A-Za-z0-9+.\-]*)://(?:([A-Za-z0-9\-._~%!$&'()*+,;=:]*)@)?((?:\[::[0-9]?\])|(?:[^{space}/:]*))(?::([0-9]+))?)(/[^#?]*)?(?:\?([^#]*))?(?:#([^\n\r\u{{2028}}\u{{2029}}]*))?$"
        ))
        .expect("DevTools' URL pattern compiles")
    })
}

/// `ParsedURL.fromString`: `None` for what DevTools' pattern does not match (a `data:` URL, a
/// relative path).
fn parse(url: &str) -> Option<ParsedUrl<'_>> {
    // A blob URL's origin is its inner URL's (DevTools' `blobInnerScheme`).
    let inner = url.strip_prefix("blob:").unwrap_or(url);
    let m = url_pattern().captures(inner)?;
    let group = |i: usize| m.get(i).map_or("", |g| g.as_str());
    Some(ParsedUrl {
        scheme: group(2).to_ascii_lowercase(),
        host: group(4),
        port: group(5),
        path: m.get(6).map_or("/", |g| g.as_str()),
        query: group(7),
        fragment: group(8),
    })
}

impl ParsedUrl<'_> {
    fn security_origin(&self) -> String {
        let domain = match self.port {
            "" => self.host.to_string(),
            p => format!("{}:{p}", self.host),
        };
        if self.scheme.is_empty() && domain.is_empty() {
            return String::new();
        }
        format!("{}://{domain}", self.scheme)
    }

    /// The path up to its last `/`.
    fn folder(&self) -> &str {
        self.path.rfind('/').map_or("", |i| &self.path[..i])
    }
}

/// DevTools' `normalizePath`: `.` and `..` segments resolved.
fn normalize_path(path: &str) -> String {
    if !path.contains('.') {
        return path.to_string();
    }
    let rooted = path.starts_with('/');
    let segments: Vec<&str> = path[usize::from(rooted)..].split('/').collect();
    let mut out: Vec<&str> = Vec::new();
    for s in &segments {
        match *s {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    let mut normalized = out.join("/");
    if rooted && !normalized.is_empty() {
        normalized.insert(0, '/');
    }
    let last = segments.last().copied().unwrap_or("");
    if !normalized.ends_with('/') && (path.ends_with('/') || last == "." || last == "..") {
        normalized.push('/');
    }
    normalized
}

/// `ParsedURL.isRelativeURL`: no scheme, or a Windows drive letter.
pub fn is_relative(url: &str) -> bool {
    let b = url.as_bytes();
    let scheme_len = b.iter().position(|&c| c == b':');
    let begins_with_scheme = b.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme_len.is_some_and(|n| {
            b[1..n]
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        });
    !begins_with_scheme || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// `ParsedURL.completeURL(base, href)`; `None` where DevTools' answer is `null`.
pub fn complete_url(base: &str, href: &str) -> Option<String> {
    if ["data:", "blob:", "javascript:", "mailto:"]
        .iter()
        .any(|p| href.starts_with(p))
    {
        return Some(href.to_string());
    }
    let trimmed = href.trim_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    if let Some(h) = parse(trimmed).filter(|h| !h.scheme.is_empty()) {
        let query = if h.query.is_empty() {
            String::new()
        } else {
            format!("?{}", h.query)
        };
        let fragment = if h.fragment.is_empty() {
            String::new()
        } else {
            format!("#{}", h.fragment)
        };
        return Some(format!(
            "{}{}{query}{fragment}",
            h.security_origin(),
            normalize_path(h.path)
        ));
    }
    let b = parse(base)?;
    if href.starts_with("//") {
        return Some(format!("{}:{href}", b.scheme));
    }
    let origin = b.security_origin();
    let query = if b.query.is_empty() {
        String::new()
    } else {
        format!("?{}", b.query)
    };
    if href.is_empty() {
        return Some(format!("{origin}{}{query}", b.path));
    }
    if href.starts_with('#') {
        return Some(format!("{origin}{}{query}{href}", b.path));
    }
    if href.starts_with('?') {
        return Some(format!("{origin}{}{href}", b.path));
    }
    let path_len = href.find(['#', '?']).unwrap_or(href.len());
    let (path, suffix) = href.split_at(path_len);
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", b.folder())
    };
    Some(format!("{origin}{}{suffix}", normalize_path(&path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_complete_as_devtools_completes_them() {
        // DevTools' answers (its SourceMap's `sourceURLs()` for these sources, the map at
        // https://a.test/js/app.js.map).
        let base = "https://a.test/js/app.js.map";
        for (href, want) in [
            (
                "../node_modules/x/y.js",
                "https://a.test/node_modules/x/y.js",
            ),
            ("src/./b.js", "https://a.test/js/src/b.js"),
            ("/abs.js?q=1#f", "https://a.test/abs.js?q=1#f"),
            ("//cdn.test/c.js", "https://cdn.test/c.js"),
            ("webpack://shop/./src/u.js", "webpack://shop/src/u.js"),
            ("data:text/plain,x", "data:text/plain,x"),
            ("x/../../../z.js", "https://a.test/z.js"),
            ("a b/c.js", "https://a.test/js/a b/c.js"),
        ] {
            let got = complete_url(base, href);
            assert_eq!(got.as_deref(), Some(want), "{href}");
        }
        // A base DevTools cannot parse: no answer (the caller keeps the source as written).
        assert_eq!(complete_url("data:application/json,{}", "a.js"), None);
        assert!(is_relative("a/b.js") && is_relative("C:\\x") && !is_relative("webpack://x"));
    }
}
