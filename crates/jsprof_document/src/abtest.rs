//! `jsprof diff --base A… --target B… --json` and `jsprof lake diff --json`: which functions'
//! shares changed between two groups of profiles, with the statistics behind each change
//! (`jsprof_analysis::abtest`), as one document.

use jsprof_analysis::abtest::{AbTest, FunctionTest, PMethod, ShareTest};
use schemars::JsonSchema;
use serde::Serialize;

use crate::JsonWarning;

/// One group: how it was chosen and how many profiles it holds.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct GroupJson {
    /// The files (or the lake's selection) of the group.
    pub selection: String,
    /// Profiles compared (those with weight on some function).
    pub profiles: usize,
}

/// One share (self or total, as a percentage of each profile's weight on some function) of one
/// function, compared. Every `*_points` field is in share points (percent of the profile).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct ShareJson {
    pub base_mean_points: f64,
    pub target_mean_points: f64,
    /// target_mean_points − base_mean_points.
    pub mean_difference_points: f64,
    /// The Hodges-Lehmann shift (median of all target − base differences) and its
    /// distribution-free confidence interval; computed only where `q < alpha` (`null` else).
    pub shift_points: Option<f64>,
    pub shift_low_points: Option<f64>,
    pub shift_high_points: Option<f64>,
    /// The Mann-Whitney statistic (R's W: pairs target > base, ties one half).
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// `exact` (small groups without ties) or `normal` (tie-corrected, continuity-corrected).
    pub method: &'static str,
    /// Benjamini-Hochberg adjusted over every test of the comparison.
    pub q: f64,
    /// `q < alpha` and `|shift| ≥ noise floor`.
    pub reported: bool,
}

/// One function tested.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct AbFunctionJson {
    pub name: String,
    pub url: String,
    /// Only when functions are matched by their whole position (`key: function`).
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Profiles of each group where the function has weight.
    pub base_present: usize,
    pub target_present: usize,
    pub self_share: ShareJson,
    pub total_share: ShareJson,
}

/// `jsprof diff --base … --target … --json`, `jsprof lake diff --json`: the group comparison.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct AbTestReport {
    pub base: GroupJson,
    pub target: GroupJson,
    pub warnings: Vec<JsonWarning>,
    /// `name-url` or `function`: how functions are matched.
    pub key: &'static str,
    /// A change is reported when its q-value is below `alpha` …
    pub alpha: f64,
    /// … and its shift at least this many share points.
    pub noise_floor_points: f64,
    /// Functions present in fewer profiles (both groups together) are not tested.
    pub min_profiles: usize,
    /// Functions tested, and those seen but too rare to test.
    pub tested: usize,
    pub untested: usize,
    /// Functions with `q < alpha` on some share but shifted less than the noise floor.
    pub significant_below_floor: usize,
    /// The reported changes, largest self shift first.
    pub changes: Vec<AbFunctionJson>,
}

const POINTS: f64 = 100.0;

fn share(s: &ShareTest) -> ShareJson {
    let pts = |v: f64| (!v.is_nan()).then_some(v * POINTS);
    ShareJson {
        base_mean_points: s.base_mean * POINTS,
        target_mean_points: s.target_mean * POINTS,
        mean_difference_points: s.mean_difference() * POINTS,
        shift_points: pts(s.shift.estimate),
        shift_low_points: pts(s.shift.low),
        shift_high_points: pts(s.shift.high),
        u: s.test.u,
        p: s.test.p,
        method: match s.test.method {
            PMethod::Exact => "exact",
            PMethod::Normal => "normal",
        },
        q: s.q,
        reported: s.reported,
    }
}

/// How a comparison names a group of files (`base.selection`, `target.selection`): the file
/// as given, or `N files (FIRST … LAST)`; `-` is `<stdin>`. The CLI and MCP name a folder's
/// runs the same way, so their documents are the same bytes.
pub fn group_label(files: &[std::path::PathBuf]) -> String {
    let name = |p: &std::path::Path| {
        if p == std::path::Path::new("-") {
            "<stdin>".to_string()
        } else {
            p.display().to_string()
        }
    };
    match files {
        [one] => name(one),
        [first, .., last] => format!("{} files ({} … {})", files.len(), name(first), name(last)),
        [] => String::new(),
    }
}

/// One function's row.
pub fn function_json(f: &FunctionTest) -> AbFunctionJson {
    AbFunctionJson {
        name: f.name.0.clone(),
        url: f.name.1.clone(),
        line: f.name.2,
        column: f.name.3,
        base_present: f.base_present,
        target_present: f.target_present,
        self_share: share(&f.self_share),
        total_share: share(&f.total_share),
    }
}

/// The document of a comparison; `key` is `name-url` or `function`.
pub fn report(
    t: &AbTest,
    base: &str,
    target: &str,
    key: &'static str,
    warnings: Vec<JsonWarning>,
) -> AbTestReport {
    let alpha = t.options.alpha;
    AbTestReport {
        base: GroupJson {
            selection: base.to_string(),
            profiles: t.base_profiles,
        },
        target: GroupJson {
            selection: target.to_string(),
            profiles: t.target_profiles,
        },
        warnings,
        key,
        alpha,
        noise_floor_points: t.options.noise_floor * POINTS,
        min_profiles: t.options.min_profiles,
        tested: t.functions.len(),
        untested: t.untested,
        significant_below_floor: t
            .functions
            .iter()
            .filter(|f| !f.reported() && (f.self_share.q < alpha || f.total_share.q < alpha))
            .count(),
        changes: t.reported().map(function_json).collect(),
    }
}
