//! The CLI's filters (`--focus`, `--exclude`, `--hide-idle`, `--collapse-packages`,
//! `--collapse-recursion`) as query parameters of every CPU endpoint: the service's `top`, `tree`
//! and `events` and the UI's chart, trees and diff. They are applied where the CLI applies them —
//! `jsprof_analysis::filter` on the sampled profile before the timelines are built — so an
//! endpoint with `focus=render` answers what `jsprof … --focus render` prints.
//!
//! One pattern per parameter: "any of several" is the alternation `a|b`.

use jsprof_analysis::Filters;
use regex::Regex;

use crate::error::{ApiError, ApiResult};
use crate::ids;
use crate::params::Params;

/// The names of the filter parameters, for the endpoints' lists of known parameters.
pub const PARAMS: [&str; 5] = [
    "focus",
    "exclude",
    "hide_idle",
    "collapse_packages",
    "collapse_recursion",
];

/// The filters a request asks for, validated. Equal specs give equal results, so the spec is
/// also the cache's key for a filtered load.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FilterSpec {
    pub focus: Option<String>,
    pub exclude: Option<String>,
    pub hide_idle: bool,
    pub collapse_packages: bool,
    pub collapse_recursion: bool,
}

fn pattern(p: &Params, k: &str) -> ApiResult<Option<String>> {
    let Some(v) = p.get(k).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    Regex::new(v).map_err(|e| {
        ApiError::bad_request(format!(
            "bad `{k}` regular expression `{}`: {e}",
            ids::printable(v)
        ))
    })?;
    Ok(Some(v.to_string()))
}

impl FilterSpec {
    /// The filters among the query parameters `p` (absent ones: none).
    pub fn from_params(p: &Params) -> ApiResult<FilterSpec> {
        Ok(FilterSpec {
            focus: pattern(p, "focus")?,
            exclude: pattern(p, "exclude")?,
            hide_idle: p.flag("hide_idle")?,
            collapse_packages: p.flag("collapse_packages")?,
            collapse_recursion: p.flag("collapse_recursion")?,
        })
    }

    pub fn is_empty(&self) -> bool {
        *self == FilterSpec::default()
    }

    /// The transform these parameters stand for.
    pub fn filters(&self) -> Filters {
        // Validated in `from_params`.
        let compile = |p: &Option<String>| p.iter().filter_map(|p| Regex::new(p).ok()).collect();
        Filters {
            focus: compile(&self.focus),
            exclude: compile(&self.exclude),
            hide_idle: self.hide_idle,
            collapse_packages: self.collapse_packages,
            collapse_recursion: self.collapse_recursion,
        }
    }

    /// What is applied, in words (`focus ^render$, idle hidden`), `None` without filters: the
    /// same words as the CLI's subtitles.
    pub fn describe(&self) -> Option<String> {
        self.filters().describe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> Params {
        let query = serde_urlencoded::to_string(pairs).unwrap();
        Params::parse(Some(query), &PARAMS).unwrap()
    }

    #[test]
    fn reads_every_filter() {
        let spec = FilterSpec::from_params(&map(&[
            ("focus", "^render$"),
            ("exclude", "lodash"),
            ("hide_idle", "1"),
            ("collapse_packages", "true"),
            ("collapse_recursion", ""),
        ]))
        .unwrap();
        assert_eq!(spec.focus.as_deref(), Some("^render$"));
        assert_eq!(spec.exclude.as_deref(), Some("lodash"));
        assert!(spec.hide_idle && spec.collapse_packages && spec.collapse_recursion);
        let f = spec.filters();
        assert_eq!((f.focus.len(), f.exclude.len()), (1, 1));
        assert_eq!(
            spec.describe().as_deref(),
            Some(
                "focus ^render$, exclude lodash, idle hidden, packages collapsed, recursion collapsed"
            )
        );
    }

    #[test]
    fn empty_values_and_false_flags_are_no_filter() {
        let spec = FilterSpec::from_params(&map(&[
            ("focus", ""),
            ("hide_idle", "0"),
            ("collapse_packages", "false"),
        ]))
        .unwrap();
        assert!(spec.is_empty());
        assert!(spec.filters().is_empty());
        assert_eq!(spec.describe(), None);
    }

    #[test]
    fn bad_pattern_and_bad_flag_are_clear_errors() {
        let e = FilterSpec::from_params(&map(&[("focus", "(unclosed")])).unwrap_err();
        assert!(
            e.message
                .contains("bad `focus` regular expression `(unclosed`"),
            "{}",
            e.message
        );
        let e = FilterSpec::from_params(&map(&[("hide_idle", "yes")])).unwrap_err();
        assert!(e.message.contains("bad `hide_idle` `yes`"), "{}", e.message);
    }
}
