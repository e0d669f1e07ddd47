//! The filters, defined once for every front door (pprof's `config.go` pattern): the CLI's
//! `--focus RE`, `--exclude RE`, `--drop RE` (all repeatable), `--hide-idle`, `--collapse-packages`,
//! `--collapse-recursion`, `--focus-stack PATH` and `--focus-stack-inverted PATH` (clap fills
//! [`FilterSpec`] through `#[command(flatten)]` with the `clap` feature); the service's and the
//! UI's query parameters of the same names (`focus`, `exclude`, `drop`, `focus_stack` and
//! `focus_stack_inverted` repeatable, [`FilterSpec::from_pairs`]); the page's address fragment
//! ([`FilterSpec::to_query`]). What the filters do, and in which order, is
//! `jsprof_analysis::filter`.
//!
//! Patterns stay text here, so that a spec is `Eq + Hash` (the service's cache key for a filtered
//! load) and serialises; [`FilterSpec::compile`] turns them into the transform's regexes once.

use jsprof_analysis::Filters;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ReportError, Result};

/// The filter parameters' names, for lists of known query parameters.
pub const PARAMS: [&str; 8] = [
    "focus",
    "exclude",
    "drop",
    "hide_idle",
    "collapse_packages",
    "collapse_recursion",
    "focus_stack",
    "focus_stack_inverted",
];

/// Which filters to apply; `Default` applies none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct FilterSpec {
    /// Only stacks through a function whose name or URL matches RE, re-rooted at the outermost
    /// match (repeatable: any pattern).
    #[cfg_attr(feature = "clap", arg(long, value_name = "RE", value_parser = check_pattern))]
    #[serde(default)]
    pub focus: Vec<String>,
    /// Drop frames whose function name or URL matches RE, charging their time to the caller
    /// (repeatable).
    #[cfg_attr(feature = "clap", arg(long, value_name = "RE", value_parser = check_pattern))]
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Leave out every sample whose stack passes through a function whose name or URL matches
    /// RE: what remains is the profile without that work (repeatable).
    #[cfg_attr(feature = "clap", arg(long, value_name = "RE", value_parser = check_pattern))]
    #[serde(default)]
    pub drop: Vec<String>,
    /// Leave out `(idle)` samples.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub hide_idle: bool,
    /// One frame per `node_modules` package.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub collapse_packages: bool,
    /// One frame per function per stack (recursive calls merge into the outer one).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub collapse_recursion: bool,
    /// Only the samples whose stack starts with exactly this call path, re-rooted at its last
    /// frame ("focus on subtree only"). PATH is the frames from the root, `;`-separated, each as
    /// `export --folded` writes it: `name url:line:column` (`(anonymous)` for no name, the
    /// location only when known; a `;` inside a name or URL is written `:`), so a folded line
    /// less its count is a path. Applied after every other filter, on the tree they leave
    /// (repeatable: each path in the tree the previous one left).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PATH"))]
    #[serde(default)]
    pub focus_stack: Vec<String>,
    /// The same from the Bottom-up tree: only the samples whose stack ends with PATH read from
    /// the leaf (leaf first, `;`-separated), cut below its last frame (repeatable).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PATH"))]
    #[serde(default)]
    pub focus_stack_inverted: Vec<String>,
}

/// A pattern as given, checked: the message names the pattern and what is wrong with it.
pub fn check_pattern(text: &str) -> std::result::Result<String, String> {
    Regex::new(text)
        .map(|_| text.to_string())
        .map_err(|e| format!("bad regular expression `{text}`: {e}"))
}

fn flag(name: &str, value: &str) -> Result<bool> {
    match value {
        "" | "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        v => Err(ReportError::Usage(format!(
            "bad `{name}` `{}`: expected true or false",
            v.escape_debug()
        ))),
    }
}

impl FilterSpec {
    /// True when no filter is set.
    pub fn is_empty(&self) -> bool {
        *self == FilterSpec::default()
    }

    /// Takes the filter parameters out of query-string pairs (`focus`, `exclude`, `drop`,
    /// `focus_stack` and `focus_stack_inverted` may repeat; an empty pattern or path is none) and
    /// returns the other pairs untouched.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Result<(FilterSpec, Vec<(String, String)>)> {
        let mut spec = FilterSpec::default();
        let mut rest = Vec::new();
        for (k, v) in pairs {
            match k.as_str() {
                "focus" | "exclude" | "drop" if v.is_empty() => {}
                "focus" | "exclude" | "drop" => {
                    let v = check_pattern(&v).map_err(|e| {
                        ReportError::Usage(format!("bad `{k}`: {}", e.replace('\n', " ")))
                    })?;
                    match k.as_str() {
                        "focus" => spec.focus.push(v),
                        "exclude" => spec.exclude.push(v),
                        _ => spec.drop.push(v),
                    }
                }
                "focus_stack" | "focus_stack_inverted" if v.is_empty() => {}
                "focus_stack" => spec.focus_stack.push(v),
                "focus_stack_inverted" => spec.focus_stack_inverted.push(v),
                "hide_idle" => spec.hide_idle = flag(&k, &v)?,
                "collapse_packages" => spec.collapse_packages = flag(&k, &v)?,
                "collapse_recursion" => spec.collapse_recursion = flag(&k, &v)?,
                _ => rest.push((k, v)),
            }
        }
        Ok((spec, rest))
    }

    /// The spec as query-string pairs, the inverse of [`FilterSpec::from_pairs`] (the page's
    /// address fragment, links).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        out.extend(self.focus.iter().map(|p| ("focus", p.clone())));
        out.extend(self.exclude.iter().map(|p| ("exclude", p.clone())));
        out.extend(self.drop.iter().map(|p| ("drop", p.clone())));
        for (on, name) in [
            (self.hide_idle, "hide_idle"),
            (self.collapse_packages, "collapse_packages"),
            (self.collapse_recursion, "collapse_recursion"),
        ] {
            if on {
                out.push((name, "1".to_string()));
            }
        }
        out.extend(self.focus_stack.iter().map(|p| ("focus_stack", p.clone())));
        out.extend(
            self.focus_stack_inverted
                .iter()
                .map(|p| ("focus_stack_inverted", p.clone())),
        );
        out
    }

    /// The spec as a query string (`focus=a&hide_idle=1`), percent-encoded; "" without filters.
    pub fn to_query(&self) -> String {
        self.to_pairs()
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The transform these filters stand for.
    pub fn compile(&self) -> Result<Filters> {
        let paths = |texts: &[String]| -> Vec<Vec<String>> {
            texts
                .iter()
                .filter(|t| !t.is_empty())
                .map(|t| t.split(';').map(str::to_string).collect())
                .collect()
        };
        let compile = |patterns: &[String]| -> Result<Vec<Regex>> {
            patterns
                .iter()
                .map(|p| Regex::new(p).map_err(|e| ReportError::Usage(format!("bad `{p}`: {e}"))))
                .collect()
        };
        Ok(Filters {
            focus: compile(&self.focus)?,
            exclude: compile(&self.exclude)?,
            drop: compile(&self.drop)?,
            hide_idle: self.hide_idle,
            collapse_packages: self.collapse_packages,
            collapse_recursion: self.collapse_recursion,
            focus_stack: paths(&self.focus_stack),
            focus_stack_inverted: paths(&self.focus_stack_inverted),
        })
    }

    /// What is applied, in words for subtitles (`focus ^render$, idle hidden`).
    pub fn describe(&self) -> Option<String> {
        self.compile().ok().and_then(|f| f.describe())
    }
}

/// Percent-encodes all but unreserved characters (RFC 3986).
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        serde_urlencoded::from_str(q).unwrap()
    }

    #[test]
    fn query_pairs_round_trip_with_repeated_patterns() {
        let (spec, rest) = FilterSpec::from_pairs(pairs(
            "focus=%5Ea%24&focus=b%7Cc&exclude=x&drop=y&drop=z&hide_idle=1&range=1..2",
        ))
        .unwrap();
        assert_eq!(spec.focus, ["^a$", "b|c"]);
        assert_eq!(spec.exclude, ["x"]);
        assert_eq!(spec.drop, ["y", "z"]);
        assert!(spec.hide_idle && !spec.collapse_packages);
        assert_eq!(rest, [("range".to_string(), "1..2".to_string())]);
        let (again, _) = FilterSpec::from_pairs(pairs(&spec.to_query())).unwrap();
        assert_eq!(again, spec);
    }

    #[test]
    fn stack_paths_round_trip_and_split_on_semicolons() {
        let q =
            "focus_stack=main%20a.js%3A1%3A1%3Brun%20a.js%3A2%3A3&focus_stack=run%20a.js%3A2%3A3\
                 &focus_stack_inverted=(garbage%20collector)&focus_stack_inverted=&drop=x";
        let (spec, rest) = FilterSpec::from_pairs(pairs(q)).unwrap();
        assert!(rest.is_empty());
        assert_eq!(
            spec.focus_stack,
            ["main a.js:1:1;run a.js:2:3", "run a.js:2:3"]
        );
        assert_eq!(spec.focus_stack_inverted, ["(garbage collector)"]);
        let (again, _) = FilterSpec::from_pairs(pairs(&spec.to_query())).unwrap();
        assert_eq!(again, spec);
        let f = spec.compile().unwrap();
        assert_eq!(
            f.focus_stack,
            [vec!["main a.js:1:1", "run a.js:2:3"], vec!["run a.js:2:3"]]
        );
        assert_eq!(f.focus_stack_inverted, [vec!["(garbage collector)"]]);
    }

    #[test]
    fn a_bad_pattern_or_flag_is_refused_by_name() {
        let e = FilterSpec::from_pairs(pairs("focus=%28")).unwrap_err();
        assert!(e.to_string().contains("bad `focus`"), "{e}");
        let e = FilterSpec::from_pairs(pairs("hide_idle=maybe")).unwrap_err();
        assert!(e.to_string().contains("`hide_idle`"), "{e}");
    }
}
