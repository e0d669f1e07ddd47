//! The cache insight (the trace engine's `Cache`, after Lighthouse's `uses-long-cache-ttl`):
//! static resources served with a cache lifetime short enough that a repeat visit likely
//! downloads them again, and the bytes that costs — each request's transfer size times the
//! chance a cache entry of that lifetime would have missed — and the FCP/LCP savings Lantern's
//! simulation gives for those bytes ([`metric_savings_for_wasted_bytes`]).

use std::time::{SystemTime, UNIX_EPOCH};

use super::insight_common::{in_bounds, State};
use super::lantern::{metric_savings_for_wasted_bytes, LanternContext, MetricSavings};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::{ms_to_s, s_to_ms};

/// A hit probability above which a lifetime is long enough.
const IGNORE_THRESHOLD: f64 = 0.925;

/// A request with an inefficient cache lifetime.
#[derive(Clone, Debug, PartialEq)]
pub struct CachedRequest {
    /// Index into the requests.
    pub request: usize,
    /// The cache lifetime (s): `max-age`, else from `expires`, else 0.
    pub ttl: f64,
    /// Transfer size times the chance of a cache miss.
    pub wasted_bytes: f64,
}

/// The cache insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    /// `fail` when any request is listed.
    pub state: State,
    /// Largest decoded body first, then shortest lifetime.
    pub requests: Vec<CachedRequest>,
    pub wasted_bytes: f64,
    /// FCP/LCP savings of not downloading the wasted bytes; `None` where the engine has no
    /// Lantern context (or no navigation).
    pub metric_savings: Option<MetricSavings>,
}

/// The directives of a `Cache-Control` header the engine reads (`parseCacheControl`).
#[derive(Default)]
struct CacheControl {
    max_age: Option<f64>,
    disabled: bool,
}

/// JavaScript's `parseInt(s, 10)`: leading blanks, a sign, then digits; `None` for NaN.
fn parse_int(s: &str) -> Option<f64> {
    let s = s.trim_start();
    let (sign, digits) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    (end > 0).then(|| sign * digits[..end].parse::<f64>().unwrap_or(f64::INFINITY))
}

fn parse_cache_control(header: &str) -> CacheControl {
    let mut cc = CacheControl::default();
    for directive in header.split(',') {
        let mut parts = directive.trim().split('=').map(str::trim);
        let key = parts.next().unwrap_or("");
        match key {
            "max-age" => {
                if let Some(v) = parts.next().and_then(parse_int) {
                    cc.max_age = Some(v);
                }
            }
            "no-cache" | "no-store" | "must-revalidate" | "private" => cc.disabled = true,
            _ => {}
        }
    }
    cc
}

/// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`, the form servers send) as ms since the
/// epoch; `None` for any other text (JavaScript's `Date` reads a few more forms, and the
/// engine treats what it cannot read as already expired, as this does).
fn http_date_ms(s: &str) -> Option<f64> {
    let mut it = s.split_whitespace();
    let _weekday = it.next()?;
    let day: i64 = it.next()?.parse().ok()?;
    let month = match it.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = it.next()?.parse().ok()?;
    let mut hms = it.next()?.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if it.next()? != "GMT" || !(1..=31).contains(&day) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(s_to_ms((days * 86_400 + h * 3600 + m * 60 + sec) as f64))
}

/// The engine's `computeCacheLifetimeInSeconds`: `max-age`, else `expires` from now (only a
/// header named in lower case, as the engine looks it up), else `None`.
fn lifetime(r: &Request, cc: Option<&CacheControl>) -> Option<f64> {
    if let Some(age) = cc.and_then(|c| c.max_age) {
        return Some(age);
    }
    let expires = r
        .response_headers
        .iter()
        .find(|(n, _)| n == "expires")
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())?;
    let Some(at) = http_date_ms(expires).filter(|&t| t != 0.0) else {
        return Some(0.0);
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64);
    Some(ms_to_s(at - now).ceil())
}

/// The engine's `getCacheHitProbability`: interpolated between deciles of cached resources'
/// age (hours) at a hit.
fn hit_probability(ttl_s: f64) -> f64 {
    const DECILES: [f64; 12] = [
        0.0,
        0.2,
        1.0,
        3.0,
        8.0,
        12.0,
        24.0,
        48.0,
        72.0,
        168.0,
        8760.0,
        f64::INFINITY,
    ];
    let hours = ttl_s / 3600.0;
    let upper = DECILES.iter().position(|&d| d >= hours).unwrap_or(0);
    if upper == DECILES.len() - 1 {
        return 1.0;
    }
    if upper == 0 {
        return 0.0;
    }
    let (x0, x1) = (DECILES[upper - 1], DECILES[upper]);
    let (y0, y1) = ((upper - 1) as f64 / 10.0, upper as f64 / 10.0);
    y0 + (hours - x0) * ((y1 - y0) / (x1 - x0))
}

/// The engine's `isCacheable`: a network scheme, a cacheable status, a static resource type.
pub(crate) fn is_cacheable(r: &Request) -> bool {
    const NON_NETWORK: [&str; 6] = [
        "blob",
        "data",
        "intent",
        "file",
        "filesystem",
        "chrome-extension",
    ];
    !NON_NETWORK.contains(&r.protocol.as_str())
        && matches!(r.status, 200 | 203 | 206)
        && is_static(r)
}

/// The engine's `STATIC_RESOURCE_TYPES`.
pub(crate) fn is_static(r: &Request) -> bool {
    matches!(
        r.resource_type.as_str(),
        "Font" | "Image" | "Media" | "Script" | "Stylesheet"
    )
}

/// The cache insight of `nav`, with its savings simulated in `lantern`, the navigation's
/// Lantern context.
pub fn cache(
    requests: &[Request],
    nav: &NavigationVitals,
    lantern: Option<&LanternContext>,
) -> Cache {
    let b = &nav.bounds;
    let mut out = Vec::new();
    let mut total = 0.0;
    for (i, r) in requests.iter().enumerate() {
        if !in_bounds(r.start, r.end - r.start, b) || !r.has_response_headers || !is_cacheable(r) {
            continue;
        }
        // The headers of one name joined, as the engine's `getCombinedHeaders`.
        let combined = |name: &str| {
            let values: Vec<&str> = r
                .response_headers
                .iter()
                .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
                .collect();
            let joined = values.join(", ");
            (!joined.is_empty()).then_some(joined)
        };
        let cache_control = combined("cache-control");
        let cc = cache_control.as_deref().map(parse_cache_control);
        // HTTP/1.0's `Pragma: no-cache` counts when `Cache-Control` is absent.
        let pragma_no_cache =
            cache_control.is_none() && combined("pragma").is_some_and(|p| p.contains("no-cache"));
        if pragma_no_cache || cc.as_ref().is_some_and(|c| c.disabled) {
            continue;
        }
        let ttl = lifetime(r, cc.as_ref());
        if ttl.is_some_and(|t| !t.is_finite() || t <= 0.0) {
            continue;
        }
        let ttl = ttl.unwrap_or(0.0);
        if ttl / 86_400.0 >= 30.0 {
            continue;
        }
        let p = hit_probability(ttl);
        if p > IGNORE_THRESHOLD {
            continue;
        }
        let wasted = (1.0 - p) * r.transfer_size;
        total += wasted;
        out.push(CachedRequest {
            request: i,
            ttl,
            wasted_bytes: wasted,
        });
    }
    // The engine's map of wasted bytes is filled in request order, before the sort.
    let wasted: Vec<(usize, f64)> = out.iter().map(|c| (c.request, c.wasted_bytes)).collect();
    let metric_savings =
        lantern.and_then(|ctx| metric_savings_for_wasted_bytes(ctx, requests, &wasted).ok());
    out.sort_by(|a, b| {
        let (ra, rb) = (&requests[a.request], &requests[b.request]);
        rb.decoded_body_length
            .total_cmp(&ra.decoded_body_length)
            .then(a.ttl.total_cmp(&b.ttl))
    });
    Cache {
        state: State::pass_if(out.is_empty()),
        requests: out,
        wasted_bytes: total,
        metric_savings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_read_as_javascript_reads_them() {
        // new Date('Sun, 06 Nov 1994 08:49:37 GMT').getTime()
        assert_eq!(
            http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777_000.0)
        );
        assert_eq!(http_date_ms("0"), None);
        assert_eq!(http_date_ms("tomorrow"), None);
    }

    #[test]
    fn hit_probability_follows_the_deciles() {
        assert_eq!(hit_probability(0.0), 0.0);
        // One hour: the second decile exactly.
        assert!((hit_probability(3600.0) - 0.2).abs() < 1e-12);
        // Two hours: halfway between 1 h (0.2) and 3 h (0.3).
        assert!((hit_probability(7200.0) - 0.25).abs() < 1e-12);
        assert_eq!(hit_probability(f64::INFINITY), 1.0);
    }

    #[test]
    fn cache_control_directives() {
        let cc = parse_cache_control("public, max-age=600");
        assert_eq!(cc.max_age, Some(600.0));
        assert!(!cc.disabled);
        assert!(parse_cache_control("max-age=60, no-store").disabled);
        assert_eq!(parse_cache_control("max-age=abc").max_age, None);
        assert_eq!(parse_int(" 42s"), Some(42.0));
    }
}
