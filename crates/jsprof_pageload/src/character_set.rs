//! The character set insight (the trace engine's `CharacterSet`): the document declares its
//! encoding in the `Content-Type` response header, or in a `<meta charset>` within the first
//! 1024 bytes of its HTML (what the parser reports in `MetaCharsetCheck`, on Chromes that
//! write it).

use std::sync::LazyLock;

use regex::Regex;

use jsprof_profile::page_events::PageEvents;

use super::insight_common::State;
use super::vitals::NavigationVitals;
use crate::network::Request;

/// The engine's `CHARSET_HTTP_REGEX`.
static CHARSET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)charset\s*=\s*[a-zA-Z0-9\-_:.()]{2,}").unwrap());

/// The character set insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterSet {
    /// `fail` when neither the header nor an early meta tag declares the encoding.
    pub state: State,
    /// The document's request (index into the requests); `None` before the first navigation,
    /// or when the trace lacks it (the engine's `NO_DOCUMENT_REQUEST` warning): the insight
    /// then passes without evidence.
    pub request: Option<usize>,
    /// `Content-Type` names a charset.
    pub http_charset: bool,
    /// The navigation's last `MetaCharsetCheck` disposition: `found-in-first-1024-bytes`,
    /// `found-after-first-1024-bytes`, `not-found`; `None` when the trace has none with data.
    pub meta_charset_disposition: Option<String>,
}

impl CharacterSet {
    /// A `<meta charset>` in the first 1024 bytes.
    pub fn meta_charset(&self) -> bool {
        self.meta_charset_disposition.as_deref() == Some("found-in-first-1024-bytes")
    }
}

/// The engine's `hasCharsetInContentType`: the first `Content-Type` header decides.
fn http_charset(r: &Request) -> bool {
    r.response_headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .is_some_and(|(_, v)| CHARSET.is_match(v))
}

/// The character set insight of `nav`.
pub fn character_set(
    page: &PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
) -> CharacterSet {
    let no_evidence = CharacterSet {
        state: State::Pass,
        request: None,
        http_charset: false,
        meta_charset_disposition: None,
    };
    let Some(id) = nav.navigation_id.as_ref() else {
        return no_evidence;
    };
    let Some(doc) = requests.iter().position(|r| &r.request_id == id) else {
        return no_evidence;
    };
    // Each check belongs to its frame's latest navigation started by then; the navigation's
    // last check (by time) tells.
    let mut checks: Vec<_> = page
        .charset_checks
        .iter()
        .filter(|c| c.frame.as_deref() == Some(nav.frame.as_str()))
        .filter(|c| {
            page.navigations
                .iter()
                .filter(|n| n.frame == nav.frame && n.at.ts <= c.at.ts)
                .max_by_key(|n| n.at.ts)
                .is_some_and(|n| &n.navigation_id == id)
        })
        .collect();
    checks.sort_by_key(|c| c.at.ts);
    let disposition = checks.last().and_then(|c| c.disposition.clone());
    let http = http_charset(&requests[doc]);
    let mut out = CharacterSet {
        state: State::Pass,
        request: Some(doc),
        http_charset: http,
        meta_charset_disposition: disposition,
    };
    if !out.http_charset && !out.meta_charset() {
        out.state = State::Fail;
    }
    out
}
