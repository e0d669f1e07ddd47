//! The modern HTTP insight (the trace engine's `ModernHTTP`, after Lighthouse's `uses-http2`):
//! requests served over HTTP/1.x from an origin that serves six or more static resources to
//! the page, where HTTP/2's multiplexing would help. Local origins, service-worker responses
//! and known third parties' tracking pixels are left out. The FCP/LCP savings replay Lantern's
//! optimistic paint graphs with those requests on HTTP/2 ([`http2_savings`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::cache::is_static;
use super::insight_common::{in_bounds, State};
use super::lantern::{paint_graph_savings, LanternContext, LanternError, MetricSavings};
use super::third_parties::{entity_of_url, known_entity};
use super::vitals::NavigationVitals;
use crate::network::Request;

/// The modern HTTP insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct ModernHttp {
    /// `fail` when any request is listed.
    pub state: State,
    /// The HTTP/1.x requests (indices into the requests), each URL once, in request order.
    pub http1_requests: Vec<usize>,
    /// FCP/LCP savings of serving them over HTTP/2; `None` where the engine has no Lantern
    /// context (or no navigation).
    pub metric_savings: Option<MetricSavings>,
}

/// A URL's origin as JavaScript's `new URL(url).origin` writes it for http(s): scheme and
/// host (lower case) and a port other than the scheme's default; `None` for other schemes.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    // An IPv6 host is bracketed; a port follows the host's last colon.
    let split_at = match host_port.rfind(']') {
        Some(end) => host_port[end..].find(':').map(|c| end + c),
        None => host_port.rfind(':'),
    };
    let (host, port) = match split_at {
        Some(c) => (&host_port[..c], &host_port[c + 1..]),
        None => (host_port, ""),
    };
    let host = host.to_ascii_lowercase();
    Some(match port {
        "" => format!("{scheme}://{host}"),
        p if p == default_port => format!("{scheme}://{host}"),
        p => format!("{scheme}://{host}:{p}"),
    })
}

/// The engine's `isSyntheticNetworkRequestLocalhost`.
fn is_localhost(url: &str) -> bool {
    let Some(o) = origin(url) else {
        return false;
    };
    let host = o.split_once("://").map_or("", |(_, h)| h);
    let host = match host.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    host == "localhost" || host == "127.0.0.1" || host.ends_with(".localhost")
}

/// The engine's `isMultiplexableStaticAsset`: a static resource, unless it is under 100 bytes
/// from a known third party (a tracking pixel).
fn is_multiplexable(r: &Request, first_party: Option<&str>) -> bool {
    if !is_static(r) {
        return false;
    }
    if r.decoded_body_length < 100.0 {
        if let Some(entity) = entity_of_url(&r.url) {
            if first_party == Some(entity.as_str()) {
                return true;
            }
            if known_entity(&r.url).is_some() {
                return false;
            }
        }
    }
    true
}

/// The engine's old-protocol test, `/HTTP\/[01][.\d]?/i`.
fn is_old_http(protocol: &str) -> bool {
    let p = protocol.to_ascii_lowercase();
    p.contains("http/0") || p.contains("http/1")
}

/// The engine's `computeMetricSavings`: the optimistic FCP and LCP graphs simulated again with
/// every request to one of `http1`'s URLs on `h2` (one multiplexed connection per origin,
/// reused), the difference floored to 10 ms.
pub fn http2_savings(
    ctx: &LanternContext,
    requests: &[Request],
    http1: &[usize],
) -> Result<MetricSavings, LanternError> {
    let urls: HashSet<&str> = http1.iter().map(|&i| requests[i].url.as_str()).collect();

    let mut changed = ctx.graph.graph.requests.clone();
    for r in &mut changed {
        if urls.contains(r.url.as_str()) {
            r.protocol = "h2".to_string();
        }
    }
    let (fcp, lcp) = paint_graph_savings(ctx, &changed)?;
    // `Platform.NumberUtilities.floor(savings, 1 / 10)`: down to a multiple of 10.
    let floor = |ms: f64| (ms / 10.0).floor() * 10.0;
    Ok(MetricSavings {
        fcp_ms: floor(fcp),
        lcp_ms: floor(lcp),
    })
}

/// The modern HTTP insight of `nav`. `first_party_url` is the navigation's document URL (the
/// trace's main-frame URL without a navigation); `lantern` the navigation's Lantern context.
pub fn modern_http(
    requests: &[Request],
    nav: &NavigationVitals,
    first_party_url: &str,
    lantern: Option<&LanternContext>,
) -> ModernHttp {
    let b = &nav.bounds;
    let first_party = entity_of_url(first_party_url);
    let in_nav: Vec<usize> = (0..requests.len())
        .filter(|&i| in_bounds(requests[i].start, requests[i].end - requests[i].start, b))
        .collect();
    let mut per_origin: HashMap<String, usize> = HashMap::default();
    for &i in &in_nav {
        let r = &requests[i];
        if !is_multiplexable(r, first_party.as_deref()) || is_localhost(&r.url) {
            continue;
        }
        if let Some(o) = origin(&r.url) {
            *per_origin.entry(o).or_default() += 1;
        }
    }
    let mut seen: HashSet<&str> = HashSet::default();
    let mut out = Vec::new();
    for &i in &in_nav {
        let r = &requests[i];
        if seen.contains(r.url.as_str()) || r.from_service_worker || !is_old_http(&r.protocol) {
            continue;
        }
        let group = origin(&r.url).and_then(|o| per_origin.get(&o).copied());
        if group.unwrap_or(0) < 6 {
            continue;
        }
        seen.insert(&r.url);
        out.push(i);
    }
    ModernHttp {
        state: State::pass_if(out.is_empty()),
        metric_savings: lantern.and_then(|ctx| http2_savings(ctx, requests, &out).ok()),
        http1_requests: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_as_javascript_writes_them() {
        for (url, want) in [
            (
                "HTTPS://Shop.Example.com:443/a?b",
                Some("https://shop.example.com"),
            ),
            ("http://127.0.0.1:8790/x.js", Some("http://127.0.0.1:8790")),
            ("data:text/plain,x", None),
        ] {
            assert_eq!(origin(url).as_deref(), want, "{url}");
        }
        for (url, local) in [
            ("http://localhost:8791/w.js", true),
            ("http://app.localhost/", true),
            ("https://cdn.example.com/", false),
        ] {
            assert_eq!(is_localhost(url), local, "{url}");
        }
    }

    #[test]
    fn old_protocols() {
        for (protocol, old) in [
            ("http/1.1", true),
            ("HTTP/1.0", true),
            ("h2", false),
            ("h3", false),
            ("unknown", false),
        ] {
            assert_eq!(is_old_http(protocol), old, "{protocol}");
        }
    }
}
