//! Lantern's estimates of the observed network (`lantern/core/NetworkAnalyzer.js`): the round
//! trip to each origin (from connection setup times, else coarser signals deflated by 0.3), each
//! origin's server response time (time to first byte less the round trip, the median), and the
//! throughput (bytes over the time some download was in flight). The simulator replays the page
//! with these: the smallest round trip as its latency, each origin's excess over it as that
//! origin's extra latency.

use rustc_hash::FxHashMap as HashMap;

use jsprof_profile::page_events::ResourceTiming;

use crate::lantern_requests::LanternRequest;
use crate::units::{self, ms_to_s};

/// 14 KiB: the first congestion window's bytes.
const INITIAL_CWD: f64 = 14.0 * 1024.0;
/// Coarse round-trip estimates include much else; the engine deflates them.
const COARSE_ESTIMATE_MULTIPLIER: f64 = 0.3;

/// What the simulator is told about the network.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkAnalysis {
    /// Bits per second.
    pub throughput: f64,
    /// The smallest round trip of any origin (ms); NaN when no request gave an estimate (the
    /// simulator then refuses to run, as the engine's does).
    pub rtt: f64,
    /// Each origin's round trip beyond `rtt` (ms).
    pub additional_rtt_by_origin: HashMap<String, f64>,
    /// Each origin's median server response time (ms).
    pub server_response_time_by_origin: HashMap<String, f64>,
}

/// `NetworkAnalyzer.analyze`: `None` when no request can tell the throughput.
pub fn analyze(requests: &[LanternRequest]) -> Option<NetworkAnalysis> {
    let throughput = estimate_throughput(requests)?;
    let rtt_by_origin = minimum_rtt_by_origin(requests);
    // The summary's minimum is everyone's minimum; without any estimate it is undefined and
    // JavaScript's `Math.min` gives NaN.
    let rtt = rtt_by_origin.summary.unwrap_or(f64::NAN);
    let response = response_time_by_origin(requests, &rtt_by_origin);
    let mut additional_rtt_by_origin = HashMap::default();
    let mut server_response_time_by_origin = HashMap::default();
    for (origin, median) in response {
        // `||`: an origin's round trip of 0 counts as unknown.
        let origin_rtt = rtt_by_origin
            .by_origin
            .get(&origin)
            .copied()
            .filter(|&r| r != 0.0 && !r.is_nan())
            .unwrap_or(rtt);
        additional_rtt_by_origin.insert(origin.clone(), origin_rtt - rtt);
        server_response_time_by_origin.insert(origin, median);
    }
    Some(NetworkAnalysis {
        throughput,
        rtt,
        additional_rtt_by_origin,
        server_response_time_by_origin,
    })
}

/// `groupByOrigin`: indices of `requests` per origin, origins in first-seen order (extension
/// origins left out).
pub(crate) fn group_by_origin(requests: &[&LanternRequest]) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::default();
    for (i, r) in requests.iter().enumerate() {
        if r.origin.starts_with("chrome-extension:") {
            continue;
        }
        match at.get(r.origin.as_str()) {
            Some(&k) => out[k].1.push(i),
            None => {
                at.insert(r.origin.as_str(), out.len());
                out.push((r.origin.clone(), vec![i]));
            }
        }
    }
    out
}

/// `canTrustConnectionInformation`: more than one connection id, and each started fresh at
/// some point.
fn can_trust_connection_information(requests: &[&LanternRequest]) -> bool {
    let mut started: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        match started.iter_mut().find(|(id, _)| *id == r.connection_id) {
            Some((_, s)) => *s = *s || !r.connection_reused,
            None => started.push((r.connection_id, !r.connection_reused)),
        }
    }
    started.len() > 1 && started.iter().all(|&(_, s)| s)
}

/// `estimateIfConnectionWasReused`: per request (by index), whether it went over a connection
/// already open — the trace's word when it can be trusted, else a guess per origin (not the
/// origin's first request, and h2 or after the origin's first download ended).
pub(crate) fn connection_was_reused(requests: &[&LanternRequest], force_coarse: bool) -> Vec<bool> {
    if !force_coarse && can_trust_connection_information(requests) {
        return requests.iter().map(|r| r.connection_reused).collect();
    }
    let mut reused = vec![false; requests.len()];
    for (_, group) in group_by_origin(requests) {
        let earliest_reuse = group
            .iter()
            .map(|&i| requests[i].network_end_ms)
            .fold(f64::INFINITY, f64::min);
        for &i in &group {
            let r = requests[i];
            reused[i] = r.network_request_ms >= earliest_reuse || r.protocol == "h2";
        }
        // The first of the earliest keeps its fresh connection.
        let mut first = group[0];
        for &i in &group[1..] {
            if requests[first].network_request_ms > requests[i].network_request_ms {
                first = i;
            }
        }
        reused[first] = false;
    }
    reused
}

/// `estimateRTTViaConnectionTiming`: the TCP handshake (and the TLS one) of a fresh connection.
fn rtt_via_connection_timing(r: &LanternRequest, t: &ResourceTiming, reused: bool) -> Vec<f64> {
    if reused {
        return Vec::new();
    }
    if t.connect_end >= 0.0 && t.connect_start >= 0.0 && r.protocol.starts_with("h3") {
        return vec![t.connect_end - t.connect_start];
    }
    if t.ssl_start >= 0.0 && t.ssl_end >= 0.0 && t.ssl_start != t.connect_start {
        return vec![t.connect_end - t.ssl_start, t.ssl_start - t.connect_start];
    }
    if t.connect_start >= 0.0 && t.connect_end >= 0.0 {
        return vec![t.connect_end - t.connect_start];
    }
    Vec::new()
}

/// `estimateRTTViaDownloadTiming`: a fresh download past the first congestion window, its time
/// after the first byte per round trip it needed.
fn rtt_via_download_timing(r: &LanternRequest, t: &ResourceTiming, reused: bool) -> Vec<f64> {
    if reused || r.transfer_size <= INITIAL_CWD {
        return Vec::new();
    }
    if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
        return Vec::new();
    }
    let total = r.network_end_ms - r.network_request_ms;
    let after_first_byte = total - t.receive_headers_end;
    let round_trips = (r.transfer_size / INITIAL_CWD).log2();
    if round_trips > 5.0 {
        return Vec::new();
    }
    vec![after_first_byte / round_trips]
}

/// `estimateRTTViaSendStartTiming`: a fresh connection's wait to send, over DNS, TCP and TLS.
fn rtt_via_send_start_timing(r: &LanternRequest, t: &ResourceTiming, reused: bool) -> Vec<f64> {
    if reused || !t.send_start.is_finite() || t.send_start < 0.0 {
        return Vec::new();
    }
    let mut round_trips = 1.0;
    if !r.protocol.starts_with("h3") {
        round_trips += 1.0;
    }
    if r.scheme == "https" {
        round_trips += 1.0;
    }
    vec![t.send_start / round_trips]
}

/// `estimateRTTViaHeadersEndTiming`: time to the headers, less a share for the server, per
/// round trip.
fn rtt_via_headers_end_timing(r: &LanternRequest, t: &ResourceTiming, reused: bool) -> Vec<f64> {
    if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
        return Vec::new();
    }
    let Some(ty) = r.resource_type.as_deref() else {
        return Vec::new();
    };
    let share = match ty {
        "Document" | "XHR" | "Fetch" => 0.9,
        _ => 0.4,
    };
    let server = t.receive_headers_end * share;
    let mut round_trips = 1.0;
    if !reused {
        round_trips += 1.0;
        if !r.protocol.starts_with("h3") {
            round_trips += 1.0;
        }
        if r.scheme == "https" {
            round_trips += 1.0;
        }
    }
    vec![((t.receive_headers_end - server) / round_trips).max(3.0)]
}

/// The minimum round trip per origin, and over all of them (`None` without any estimate).
struct RttByOrigin {
    by_origin: HashMap<String, f64>,
    summary: Option<f64>,
}

type Estimator = fn(&LanternRequest, &ResourceTiming, bool) -> Vec<f64>;

/// `estimateMinimumRTTByOrigin` with the engine's default options.
fn minimum_rtt_by_origin(requests: &[LanternRequest]) -> RttByOrigin {
    let refs: Vec<&LanternRequest> = requests.iter().collect();
    let reused = connection_was_reused(&refs, false);
    let mut by_origin = HashMap::default();
    let mut summary: Option<f64> = None;
    for (origin, group) in group_by_origin(&refs) {
        let mut estimates: Vec<f64> = Vec::new();
        let collect = |estimates: &mut Vec<f64>, estimator: Estimator, multiplier: f64| {
            for &i in &group {
                let r = refs[i];
                let Some(t) = &r.timing else {
                    continue;
                };
                if r.transfer_size == 0.0 || r.transfer_size.is_nan() {
                    continue;
                }
                estimates.extend(estimator(r, t, reused[i]).iter().map(|e| e * multiplier));
            }
        };
        collect(&mut estimates, rtt_via_connection_timing, 1.0);
        if estimates.is_empty() {
            let m = COARSE_ESTIMATE_MULTIPLIER;
            collect(&mut estimates, rtt_via_download_timing, m);
            collect(&mut estimates, rtt_via_send_start_timing, m);
            collect(&mut estimates, rtt_via_headers_end_timing, m);
        }
        if estimates.is_empty() {
            continue;
        }
        let min = js_min(&estimates);
        summary = Some(summary.map_or(min, |s| js_min(&[s, min])));
        by_origin.insert(origin, min);
    }
    RttByOrigin { by_origin, summary }
}

/// JavaScript's `Math.min` over numbers: NaN wins.
fn js_min(values: &[f64]) -> f64 {
    values
        .iter()
        .fold(f64::INFINITY, |m, &v| units::js_min(m, v))
}

/// The median of `values` as the engine's `getSummary` takes it (sorted by `a - b`).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| {
        (a - b)
            .partial_cmp(&0.0)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let n = values.len();
    let mid = (n - 1) / 2;
    if n.is_multiple_of(2) {
        (values[mid] + values[mid + 1]) / 2.0
    } else {
        values[mid]
    }
}

/// `estimateServerResponseTimeByOrigin`: per origin with an estimate (first-seen order), the
/// median of (time to first byte − the origin's round trip).
fn response_time_by_origin(requests: &[LanternRequest], rtt: &RttByOrigin) -> Vec<(String, f64)> {
    let refs: Vec<&LanternRequest> = requests.iter().collect();
    let mut out = Vec::new();
    for (origin, group) in group_by_origin(&refs) {
        let origin_rtt = rtt
            .by_origin
            .get(&origin)
            .copied()
            .filter(|&r| r != 0.0 && !r.is_nan())
            .or(rtt.summary.filter(|&r| r != 0.0 && !r.is_nan()))
            .unwrap_or(0.0);
        let mut estimates: Vec<f64> = Vec::new();
        for &i in &group {
            let Some(t) = &refs[i].timing else {
                continue;
            };
            if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
                continue;
            }
            if !t.send_end.is_finite() || t.send_end < 0.0 {
                continue;
            }
            let ttfb = t.receive_headers_end - t.send_end;
            estimates.push((ttfb - origin_rtt).max(0.0));
        }
        if !estimates.is_empty() {
            out.push((origin, median(&mut estimates)));
        }
    }
    out
}

/// `estimateThroughput`: the bytes of the complete, successful network downloads over the time
/// at least one of them was downloading (bits per second); `None` without any.
fn estimate_throughput(requests: &[LanternRequest]) -> Option<f64> {
    let mut total_bytes = 0.0;
    // (time in s, is a start), in push order for the stable sort.
    let mut boundaries: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        if r.scheme == "data"
            || r.failed
            || !r.finished
            || r.status > 300
            || r.transfer_size == 0.0
            || r.transfer_size.is_nan()
        {
            continue;
        }
        total_bytes += r.transfer_size;
        boundaries.push((ms_to_s(r.response_headers_end_ms), true));
        boundaries.push((ms_to_s(r.network_end_ms), false));
    }
    if boundaries.is_empty() {
        return None;
    }
    boundaries.sort_by(|a, b| {
        (a.0 - b.0)
            .partial_cmp(&0.0)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let (mut inflight, mut start, mut duration) = (0i64, 0.0, 0.0);
    for (time, is_start) in boundaries {
        if is_start {
            if inflight == 0 {
                start = time;
            }
            inflight += 1;
        } else {
            inflight -= 1;
            if inflight == 0 {
                duration += time - start;
            }
        }
    }
    Some(total_bytes * 8.0 / duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_are_the_engines() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(js_min(&[2.0, 1.0]), 1.0);
        assert!(js_min(&[2.0, f64::NAN]).is_nan());
    }
}
