//! The JSON of a navigation's script insights — the trace engine's legacy JavaScript and
//! duplicated JavaScript ([`jsprof_pageload`]'s `legacy_javascript`,
//! `duplicated_javascript`): part of `jsprof insights`' [`crate::insights::InsightsJson`].

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::duplicated_javascript::Duplicate;
use jsprof_pageload::insights::NavigationInsights;
use jsprof_pageload::lantern::MetricSavings;
pub use jsprof_pageload::legacy_javascript::Match as LegacyMatch;
use jsprof_pageload::PageStory;
use jsprof_profile::page_events::PageEvents;

use crate::insights::InsightsJson;
use crate::page_common::{Clock, RequestRefJson};

/// A script that ships legacy JavaScript.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LegacyScriptJson {
    /// `null` for a script without one (an inline or eval'd script).
    pub url: Option<String>,
    /// The first request for its url, if any.
    pub request: Option<RequestRefJson>,
    /// The bytes its polyfills and transforms cost, as bytes on the network (the source's
    /// estimate times the script's compression ratio, rounded).
    pub estimated_byte_savings: f64,
    /// By name. A polyfill whose module the script's source map lists is found where the first
    /// mapping from that module is.
    pub matches: Vec<LegacyMatch>,
}

/// Legacy JavaScript: polyfills and transforms of features modern browsers have.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LegacyJavaScriptJson {
    /// `pass`, or `fail` when a listed script was loaded by a request.
    pub state: String,
    /// Scripts of 5000 bytes or more wasting 5000 bytes or more, most savings first.
    pub scripts: Vec<LegacyScriptJson>,
    /// The listed scripts' savings, once per request.
    pub wasted_bytes: f64,
    /// How much earlier FCP would come without the wasted bytes (Lantern's simulation,
    /// rounded to 50 ms); `null` where the engine has no Lantern context.
    pub fcp_savings_ms: Option<f64>,
    /// The same for LCP.
    pub lcp_savings_ms: Option<f64>,
}

/// One copy of a duplicated source.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct SourceCopyJson {
    /// The script's url (`null` for a script without one).
    pub url: Option<String>,
    pub request: Option<RequestRefJson>,
    /// The script's bytes from this source, as bytes on the network.
    pub attributed_size: f64,
}

/// A source (or a package's sources) bundled into more than one script.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct DuplicateJson {
    /// The source from `node_modules/` on, or its URL; for `duplication_by_package`,
    /// `node_modules/NAME` (or `node_modules/@SCOPE/NAME`) for a package's files together.
    pub source: String,
    /// Largest first; copies under 10% of the largest or under 512 bytes left out.
    pub copies: Vec<SourceCopyJson>,
    /// All copies but the largest.
    pub estimated_duplicate_bytes: f64,
}

/// Duplicated JavaScript: modules bundled into more than one script, found through the
/// scripts' source maps (those the trace's `metadata.sourceMaps` holds, or `data:` URLs give).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct DuplicatedJavaScriptJson {
    /// `pass`, or `fail` when a source is duplicated.
    pub state: String,
    /// The navigation's scripts: compiled by its frame within its bounds.
    pub scripts: usize,
    /// Most duplicate bytes first.
    pub duplication: Vec<DuplicateJson>,
    pub duplication_by_package: Vec<DuplicateJson>,
    /// The urls of the scripts with a duplicate, each once.
    pub scripts_with_duplication: Vec<Option<String>>,
    /// The duplicate bytes, summed over the scripts' requests.
    pub wasted_bytes: f64,
    /// As [`LegacyJavaScriptJson::fcp_savings_ms`].
    pub fcp_savings_ms: Option<f64>,
    pub lcp_savings_ms: Option<f64>,
}

/// The script insights of `ins`, into its navigation's `out`.
pub(crate) fn page_scripts_json(
    c: &Clock,
    page: &PageEvents,
    story: &PageStory,
    ins: &NavigationInsights,
    out: &mut InsightsJson,
) {
    let story_url = |i: usize| page.scripts.list[i].url.clone();
    let duplicate = |d: &Duplicate| DuplicateJson {
        source: d.source.clone(),
        copies: d
            .copies
            .iter()
            .map(|copy| SourceCopyJson {
                url: story_url(copy.script),
                request: copy.request.map(|i| c.request_ref(&story.requests[i])),
                attributed_size: copy.attributed_size,
            })
            .collect(),
        estimated_duplicate_bytes: d.estimated_duplicate_bytes,
    };
    let fcp = |m: &Option<MetricSavings>| m.map(|m| m.fcp_ms);
    let lcp = |m: &Option<MetricSavings>| m.map(|m| m.lcp_ms);
    out.legacy_javascript = ins
        .legacy_javascript
        .as_ref()
        .map(|l| LegacyJavaScriptJson {
            state: l.state.as_str().to_string(),
            scripts: l
                .scripts
                .iter()
                .map(|s| LegacyScriptJson {
                    url: s.url.clone(),
                    request: s.request.map(|i| c.request_ref(&story.requests[i])),
                    estimated_byte_savings: s.estimated_byte_savings,
                    matches: s.matches.clone(),
                })
                .collect(),
            wasted_bytes: l.wasted_bytes,
            fcp_savings_ms: fcp(&l.metric_savings),
            lcp_savings_ms: lcp(&l.metric_savings),
        });
    out.duplicated_javascript =
        ins.duplicated_javascript
            .as_ref()
            .map(|d| DuplicatedJavaScriptJson {
                state: d.state.as_str().to_string(),
                scripts: d.scripts.len(),
                duplication: d.duplication.iter().map(duplicate).collect(),
                duplication_by_package: d.duplication_by_package.iter().map(duplicate).collect(),
                scripts_with_duplication: d
                    .scripts_with_duplication
                    .iter()
                    .map(|&i| story_url(i))
                    .collect(),
                wasted_bytes: d.wasted_bytes,
                fcp_savings_ms: fcp(&d.metric_savings),
                lcp_savings_ms: lcp(&d.metric_savings),
            });
}
