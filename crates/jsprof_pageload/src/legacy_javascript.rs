//! The legacy JavaScript insight (the trace engine's `LegacyJavaScript`, after Lighthouse's
//! `legacy-javascript`): scripts that ship polyfills of features every modern browser has
//! (core-js's `Array.prototype.includes`, `Object.assign`, …) or Babel's transforms of syntax
//! they understand (classes, generators, spread). The detector looks for the code patterns
//! those leave in a script's source — an assignment to the feature, a `defineProperty` of it,
//! core-js's `$({target: …}, {…})` export or its module name — and charges each script the
//! core-js modules its polyfills pull in (at most all of core-js) plus an estimate per
//! transform. Scripts of 5000 bytes or more that waste 5000 bytes or more are listed, their
//! waste turned into bytes on the network by the script's compression ratio.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use jsprof_profile::page_events::PageEvents;
use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::insight_common::State;
use super::lantern::{metric_savings_for_wasted_bytes, LanternContext, MetricSavings};
use super::script_maps::SourceMap;
use super::scripts::{compression_ratio, page_scripts};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::js_round;

/// Scripts shorter than this (UTF-16 code units), or wasting fewer bytes, are not listed.
const BYTE_THRESHOLD: usize = 5000;

/// A polyfill or transform found in a script, where its pattern first matched.
// The engine counts lines and columns as below, except that a `\r\n` opening the script ends
// no line. The insights document serializes it as it is: its docs are the JSON reference's.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename = "LegacyMatch")]
pub struct Match {
    /// The feature polyfilled (`Array.prototype.includes`) or the Babel plugin
    /// (`@babel/plugin-transform-classes`).
    pub name: &'static str,
    /// 0-based; every `\r` and every `\n` ends a line, as the engine counts.
    pub line: usize,
    /// 0-based, in UTF-16 code units.
    pub column: usize,
}

/// What the detector says of one script's source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detection {
    /// By name.
    pub matches: Vec<Match>,
    /// Bytes of source the polyfills and transforms cost.
    pub estimated_bytes: f64,
}

/// A script with legacy JavaScript.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyScript {
    /// Index into the page's scripts.
    pub script: usize,
    pub url: Option<String>,
    /// Index into the requests.
    pub request: Option<usize>,
    pub matches: Vec<Match>,
    /// The estimate in bytes on the network (rounded).
    pub estimated_byte_savings: f64,
}

/// The legacy JavaScript insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyJavaScript {
    /// `fail` when a listed script has a request.
    pub state: State,
    /// Most savings first.
    pub scripts: Vec<LegacyScript>,
    /// The listed scripts' savings, summed once per request.
    pub wasted_bytes: f64,
    /// `None` where the engine has no navigation or no Lantern context.
    pub metric_savings: Option<MetricSavings>,
    /// The listed scripts' requests, each once, most savings first (`relatedEvents`).
    pub related: Vec<usize>,
}

include!("legacy_javascript_data.rs");

/// What [`Regex`] reads for the JavaScript pattern `js` (no flags): `.` does not match JS's
/// line terminators, `\s` is JS's white space, and a brace is a literal.
fn translate(js: &str) -> String {
    const JS_SPACE: &str = r"[\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";
    let mut out = String::with_capacity(js.len() * 2);
    let mut chars = js.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('s') => out.push_str(JS_SPACE),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push_str(r"\\"),
            },
            '.' => out.push_str(r"[^\n\r\u{2028}\u{2029}]"),
            '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The engine's `buildPolyfillExpression` for `Object.property` (always with an object: every
/// core-js polyfill it knows is of one). The object goes in unescaped, as there: the dot of
/// `Array.prototype` matches any character.
fn polyfill_expression(name: &str, module: &str) -> String {
    let (object, property) = name.rsplit_once('.').expect("a polyfill of an object");
    let qt = |t: &str| format!(r#"['"]{t}['"]"#);
    let plain = object.replace(".prototype", "");
    format!(
        r#"{object}\.{property}\s?=[^=]|{object}\[{q}\]\s?=[^=]|defineProperty\({object},\s?{q}|\({object},\s*{{{property}:.*}},\s*{{{property}|{{target:{t}[^;]*}},{{{property}:|{m}(?:\.js)?""#,
        q = qt(property),
        t = qt(&plain),
        m = module.replace('.', r"\."),
    )
}

/// The Babel transforms the detector knows: (plugin, pattern).
const TRANSFORMS: [(&str, &str); 3] = [
    (
        "@babel/plugin-transform-classes",
        "Cannot call a class as a function",
    ),
    (
        "@babel/plugin-transform-regenerator",
        "Generator is already running|regeneratorRuntime",
    ),
    (
        "@babel/plugin-transform-spread",
        "Invalid attempt to spread non-iterable instance",
    ),
];

/// Every pattern as one alternation, a group per pattern (core-js's polyfills, then the
/// transforms), and each pattern's name.
fn matcher() -> &'static (Regex, Vec<&'static str>) {
    static RE: OnceLock<(Regex, Vec<&'static str>)> = OnceLock::new();
    RE.get_or_init(|| {
        let core_js = POLYFILLS.iter().filter(|p| p.2);
        let polyfills = core_js
            .clone()
            .map(|(name, modules, _, _)| polyfill_expression(name, modules[0]));
        let transforms = TRANSFORMS.iter().map(|(_, e)| e.to_string());
        let all: Vec<String> = polyfills
            .chain(transforms)
            .map(|e| format!("({})", translate(&e)))
            .collect();
        let re = Regex::new(&all.join("|")).expect("the legacy JavaScript patterns compile");
        let names = core_js.map(|p| p.0).chain(TRANSFORMS.iter().map(|t| t.0));
        (re, names.collect())
    })
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The engine's `CodePatternMatcher.match`: each pattern's first match, in source order.
fn find_patterns(code: &str) -> Vec<Match> {
    let (re, names) = matcher();
    let mut seen = vec![false; names.len()];
    let mut out = Vec::new();
    let (mut line, mut line_start, mut scanned) = (0, 0, 0);
    // The engine's newline pattern is `^\r\n|\r|\n` without the `m` flag: a `\r\n` counts as
    // one line end only at the very start (and its line then begins at the `\n`).
    if code.starts_with("\r\n") {
        (line, line_start, scanned) = (1, 1, 2);
    }
    for caps in re.captures_iter(code) {
        let m = caps.get(0).expect("group 0");
        if m.start() < scanned {
            continue;
        }
        // Line ends inside a match were consumed by it; those between matches count.
        for (i, b) in code.as_bytes()[scanned..m.start()].iter().enumerate() {
            if matches!(b, b'\r' | b'\n') {
                line += 1;
                line_start = scanned + i + 1;
            }
        }
        scanned = m.end();
        let Some(k) = (1..caps.len()).find(|&g| caps.get(g).is_some()) else {
            continue;
        };
        let k = k - 1;
        if std::mem::replace(&mut seen[k], true) {
            continue;
        }
        out.push(Match {
            name: names[k],
            line,
            column: utf16_len(&code[line_start..m.start()]),
        });
    }
    out
}

/// Non-overlapping occurrences of `re` in `code`.
fn count(code: &str, re: &str) -> f64 {
    Regex::new(&translate(re))
        .expect("a transform's count pattern compiles")
        .find_iter(code)
        .count() as f64
}

/// The engine's `estimateWastedBytes`: the core-js modules the polyfills need (each once, at
/// most all of core-js), plus each transform's estimate.
fn estimate_bytes(code: &str, matches: &[Match]) -> f64 {
    let mut modules = BTreeSet::new();
    for m in matches {
        if let Some((_, _, _, deps)) = POLYFILLS.iter().find(|p| p.0 == m.name) {
            modules.extend(deps.iter().copied());
        }
    }
    let polyfills: u32 = modules.iter().map(|&i| MODULE_SIZES[i as usize]).sum();
    let mut bytes = f64::from(polyfills.min(MAX_POLYFILL_BYTES));
    for m in matches {
        bytes += match m.name {
            "@babel/plugin-transform-classes" => {
                let per = "_classCallCheck()".len() as f64;
                1000.0 + (code.matches("_classCallCheck").count() as f64 - 1.0) * per
            }
            "@babel/plugin-transform-regenerator" => {
                count(code, r"regeneratorRuntime\(?\)?\.a?wrap") * 80.0
            }
            "@babel/plugin-transform-spread" => {
                let per = "_toConsumableArray()".len() as f64;
                1169.0 + count(code, r"\.apply\(void 0,\s?_toConsumableArray") * per
            }
            _ => 0.0,
        };
    }
    bytes
}

/// The engine's `detectLegacyJavaScript`: the patterns found in `code`, and each polyfill not
/// found there whose module the script's source map lists (at the first mapping from it).
pub fn detect(code: &str, map: Option<&SourceMap>) -> Detection {
    let mut matches = find_patterns(code);
    if let Some(map) = map {
        for (name, modules, _, _) in POLYFILLS {
            if matches.iter().any(|m| m.name == *name) {
                continue;
            }
            let Some(source) = map.source_urls.iter().find(|s| {
                modules.iter().any(|m| {
                    s.ends_with(&format!("/{m}.js")) || s.contains(&format!("node_modules/{m}/"))
                })
            }) else {
                continue;
            };
            let first = map
                .mappings
                .iter()
                .find(|e| map.source_of(e) == Some(source.as_str()));
            matches.push(Match {
                name,
                line: first.map_or(0, |e| e.line as usize),
                column: first.map_or(0, |e| e.column as usize),
            });
        }
    }
    matches.sort_by(|a, b| a.name.cmp(b.name));
    let estimated_bytes = estimate_bytes(code, &matches);
    Detection {
        matches,
        estimated_bytes,
    }
}

/// The legacy JavaScript insight of `nav`. `maps` are the page's scripts' source maps
/// ([`super::script_maps::script_source_maps`]); `lantern` is the navigation's Lantern context,
/// `None` without one (then no metric savings).
pub fn legacy_javascript(
    page: &PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
    maps: &[Option<SourceMap>],
    lantern: Option<&LanternContext>,
) -> LegacyJavaScript {
    let mut scripts = Vec::new();
    let mut wasted: Vec<(usize, f64)> = Vec::new();
    for s in page_scripts(page, requests, nav, true) {
        let Some(code) = s.script.content.as_deref() else {
            continue;
        };
        // `content.length < 5000` in UTF-16 code units: no fewer than bytes / 3.
        if code.len() < BYTE_THRESHOLD || utf16_len(code) < BYTE_THRESHOLD {
            continue;
        }
        let found = detect(code, maps[s.index].as_ref());
        if found.estimated_bytes < BYTE_THRESHOLD as f64 {
            continue;
        }
        let transfer = js_round(found.estimated_bytes * compression_ratio(&s, requests));
        if let Some(r) = s.request {
            match wasted.iter_mut().find(|(i, _)| *i == r) {
                Some(w) => w.1 = transfer,
                None => wasted.push((r, transfer)),
            }
        }
        scripts.push(LegacyScript {
            script: s.index,
            url: s.script.url.clone(),
            request: s.request,
            matches: found.matches,
            estimated_byte_savings: transfer,
        });
    }
    // Stable, as JavaScript's sort.
    scripts.sort_by(|a, b| {
        b.estimated_byte_savings
            .total_cmp(&a.estimated_byte_savings)
    });
    let mut related: Vec<usize> = Vec::new();
    for r in scripts.iter().filter_map(|s| s.request) {
        if !related.contains(&r) {
            related.push(r);
        }
    }
    let metric_savings = match (nav.ts, lantern) {
        (Some(_), Some(ctx)) => metric_savings_for_wasted_bytes(ctx, requests, &wasted).ok(),
        _ => None,
    };
    LegacyJavaScript {
        state: State::pass_if(related.is_empty()),
        wasted_bytes: wasted.iter().fold(0.0, |sum, (_, b)| sum + b),
        scripts,
        metric_savings,
        related,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_text(code: &str) -> Detection {
        detect(code, None)
    }

    fn names(d: &Detection) -> Vec<&str> {
        d.matches.iter().map(|m| m.name).collect()
    }

    // The expected values are what the engine's `detectLegacyJavaScript` (npm
    // `legacy-javascript`, the oracle's) answers for the same sources.
    #[test]
    fn every_pattern_compiles_and_finds_core_js_and_babel() {
        let code = "var a=1;\nArray.prototype.includes = function(){};\r\n\
            $({target:'Object',stat:true},{assign:x});\n\
            function _classCallCheck(a, n) { throw new TypeError(\"Cannot call a class as a function\"); }\n\
            _classCallCheck(this, A); _classCallCheck(this, B);";
        let d = detect_text(code);
        assert_eq!(
            names(&d),
            [
                "@babel/plugin-transform-classes",
                "Array.prototype.includes",
                "Object.assign"
            ]
        );
        let at: Vec<(usize, usize)> = d.matches.iter().map(|m| (m.line, m.column)).collect();
        // `\r\n` past the start is two line ends.
        assert_eq!(at, [(4, 54), (1, 0), (3, 2)]);
        assert_eq!(d.estimated_bytes, 32841.0);
    }

    #[test]
    fn a_match_that_spans_a_line_end_does_not_count_it() {
        // `[^=]` takes the `\n`: the next match is still on line 0.
        let d = detect_text("Math.trunc =\nMath.sign=1");
        let at: Vec<(&str, usize, usize)> = d
            .matches
            .iter()
            .map(|m| (m.name, m.line, m.column))
            .collect();
        assert_eq!(at, [("Math.sign", 0, 13), ("Math.trunc", 0, 0)]);
        assert_eq!(d.estimated_bytes, 26436.0);
        // The dot of `String.prototype` is any character, as the engine's unescaped pattern.
        let d = detect_text("StringXprototype.trim = 1");
        assert_eq!(
            (names(&d), d.estimated_bytes),
            (vec!["String.prototype.trim"], 28679.0)
        );
        // A comparison is not an assignment.
        assert!(detect_text("if (Object.keys == null) {}")
            .matches
            .is_empty());
        // A `\r\n` that opens the source is one line end, its line beginning at the `\n`.
        let d = detect_text("\r\nx;Object.is=1");
        assert_eq!((d.matches[0].line, d.matches[0].column), (1, 3));
    }

    #[test]
    fn columns_count_utf16_code_units() {
        let d = detect_text("'😀é';Object.values = 1");
        assert_eq!((d.matches[0].line, d.matches[0].column), (0, 6));
        assert_eq!(d.estimated_bytes, 28452.0);
    }
}
