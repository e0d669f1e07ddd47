//! The network the simulator replays requests on: Lantern's TCP connection model
//! (`simulation/TCPConnection.js`: handshakes, TLS, slow start up to the bandwidth-delay
//! product, h2's leftover bytes), its connection pool (`ConnectionPool.js`: six connections per
//! origin, one for h2, the warmest free one first) and its DNS cache (`DNSCache.js`: two round
//! trips per host, shared by requests in flight).

use rustc_hash::FxHashMap as HashMap;

use super::error::LanternError;
use super::network_analyzer::{connection_was_reused, group_by_origin};
use crate::lantern_requests::LanternRequest;
use crate::units::ms_to_s;

const INITIAL_CONGESTION_WINDOW: f64 = 10.0;
const TCP_SEGMENT_SIZE: f64 = 1460.0;
/// The server's response time when the trace gave none for the origin (ms).
const DEFAULT_SERVER_RESPONSE_TIME: f64 = 30.0;
/// Chromium's sockets per origin.
const CONNECTIONS_PER_ORIGIN: usize = 6;
/// A DNS lookup takes this many round trips.
const DNS_RESOLUTION_RTT_MULTIPLIER: f64 = 2.0;

/// One simulated TCP connection.
#[derive(Clone, Debug)]
pub(crate) struct TcpConnection {
    warmed: bool,
    ssl: bool,
    h2: bool,
    rtt: f64,
    /// Bits per second, this connection's share while requests are in flight.
    pub(crate) throughput: f64,
    server_latency: f64,
    congestion_window: f64,
    h2_overflow_bytes: f64,
}

/// Where a download got to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Download {
    pub time_elapsed: f64,
    pub bytes_downloaded: f64,
    pub extra_bytes_downloaded: f64,
    pub congestion_window: f64,
}

impl TcpConnection {
    fn new(rtt: f64, throughput: f64, server_latency: f64, ssl: bool, h2: bool) -> Self {
        TcpConnection {
            warmed: false,
            ssl,
            h2,
            rtt,
            throughput,
            server_latency,
            congestion_window: INITIAL_CONGESTION_WINDOW,
            h2_overflow_bytes: 0.0,
        }
    }

    /// `maximumSaturatedConnections`: how many connections the throughput keeps busy.
    pub(crate) fn maximum_saturated_connections(rtt: f64, throughput: f64) -> f64 {
        let round_trips_per_second = 1000.0 / rtt;
        let bytes_per_second = round_trips_per_second * TCP_SEGMENT_SIZE;
        (throughput / (bytes_per_second * 8.0)).floor()
    }

    fn maximum_congestion_window(&self) -> f64 {
        let bytes_per_second = self.throughput / 8.0;
        let seconds_per_round_trip = ms_to_s(self.rtt);
        (bytes_per_second * seconds_per_round_trip / TCP_SEGMENT_SIZE).floor()
    }

    pub(crate) fn set_congestion_window(&mut self, cwnd: f64) {
        self.congestion_window = cwnd;
    }

    pub(crate) fn set_warmed(&mut self) {
        self.warmed = true;
    }

    pub(crate) fn set_h2_overflow_bytes(&mut self, bytes: f64) {
        if self.h2 {
            self.h2_overflow_bytes = bytes;
        }
    }

    /// `simulateDownloadUntil`: downloads `bytes` (for at most `maximum` ms), `already` ms into
    /// the request, after a DNS lookup of `dns` ms on a cold connection.
    pub(crate) fn simulate_download_until(
        &self,
        mut bytes: f64,
        already: f64,
        maximum: f64,
        dns: f64,
    ) -> Download {
        if self.warmed && self.h2 {
            bytes -= self.h2_overflow_bytes;
        }
        let two_way = self.rtt;
        let one_way = two_way / 2.0;
        let max_cwnd = self.maximum_congestion_window();
        let mut handshake_and_request = one_way;
        if !self.warmed {
            // DNS, SYN, SYN ACK, ACK + request, and TLS with False Start.
            handshake_and_request =
                dns + one_way + one_way + one_way + if self.ssl { two_way } else { 0.0 };
        }
        let mut time_to_first_byte = handshake_and_request + self.server_latency + one_way;
        if self.warmed && self.h2 {
            time_to_first_byte = 0.0;
        }
        let ttfb_elapsed = (time_to_first_byte - already).max(0.0);
        let maximum_download = maximum - ttfb_elapsed;
        let mut cwnd = self.congestion_window.min(max_cwnd);
        let mut total = 0.0;
        if ttfb_elapsed > 0.0 {
            total = cwnd * TCP_SEGMENT_SIZE;
        }
        let mut download_elapsed = 0.0;
        let mut remaining = bytes - total;
        while remaining > 0.0 && download_elapsed <= maximum_download {
            let window = (cwnd, max_cwnd, two_way, maximum_download);
            skip_identical_round_trips(window, &mut download_elapsed, &mut total, &mut remaining);
            download_elapsed += two_way;
            cwnd = max_cwnd.min(cwnd * 2.0).max(1.0);
            let in_window = cwnd * TCP_SEGMENT_SIZE;
            total += in_window;
            remaining -= in_window;
        }
        Download {
            time_elapsed: ttfb_elapsed + download_elapsed,
            bytes_downloaded: total.min(bytes).max(0.0),
            extra_bytes_downloaded: if self.h2 {
                (total - bytes).max(0.0)
            } else {
                0.0
            },
            congestion_window: cwnd,
        }
    }
}

/// Round trips past which [`skip_identical_round_trips`] takes them at once.
const MANY_ROUND_TRIPS: f64 = 1_000_000.0;

/// A window that no longer grows downloads the same bytes every round trip: a hostile transfer
/// size (or a round trip of 0 ms) would need billions of them, which the engine loops through.
/// Past [`MANY_ROUND_TRIPS`], all but the last are taken in one step (real pages need at most
/// thousands, and keep the engine's exact sums).
/// `window` is (congestion window, its maximum, round trip, time allowed).
fn skip_identical_round_trips(
    (cwnd, max_cwnd, two_way, maximum): (f64, f64, f64, f64),
    elapsed: &mut f64,
    total: &mut f64,
    remaining: &mut f64,
) {
    if max_cwnd.min(cwnd * 2.0).max(1.0) != cwnd {
        return;
    }
    let per_trip = cwnd * TCP_SEGMENT_SIZE;
    let by_bytes = (*remaining / per_trip).ceil();
    let by_time = match two_way > 0.0 {
        true => ((maximum - *elapsed) / two_way).floor() + 1.0,
        false => f64::INFINITY,
    };
    let trips = by_bytes.min(by_time) - 1.0;
    if trips < MANY_ROUND_TRIPS {
        return;
    }
    *elapsed += trips * two_way;
    *total += trips * per_trip;
    *remaining -= trips * per_trip;
}

/// The connections of one simulation, per origin.
pub(crate) struct ConnectionPool {
    pub(crate) connections: Vec<TcpConnection>,
    /// Each origin's connections, by the origin's slot ([`ConnectionPool::slot`]).
    by_origin: Vec<Vec<usize>>,
    slots: HashMap<String, usize>,
    /// Connection of each request in flight, by Lantern request index.
    by_request: Vec<Option<usize>>,
    /// In use, in the order they were taken, and per connection whether it is.
    in_use: Vec<usize>,
    busy: Vec<bool>,
}

/// What the pool is built from: the simulator's latency and throughput, and the analysis'
/// per-origin extras.
pub(crate) struct PoolOptions<'a> {
    pub rtt: f64,
    pub throughput: f64,
    pub additional_rtt_by_origin: &'a HashMap<String, f64>,
    pub server_response_time_by_origin: &'a HashMap<String, f64>,
}

impl ConnectionPool {
    /// The pool for the requests of a graph (`records`: Lantern request indices, in the graph's
    /// traversal order, and the requests).
    pub(crate) fn new(
        records: &[usize],
        requests: &[LanternRequest],
        o: &PoolOptions,
    ) -> Result<Self, LanternError> {
        let refs: Vec<&LanternRequest> = records.iter().map(|&i| &requests[i]).collect();
        let reused = connection_was_reused(&refs, true);
        let mut pool = ConnectionPool {
            connections: Vec::new(),
            by_origin: Vec::new(),
            slots: HashMap::default(),
            by_request: vec![None; requests.len()],
            in_use: Vec::new(),
            busy: Vec::new(),
        };
        for (origin, group) in group_by_origin(&refs) {
            // `||`: 0 (and NaN) count as unknown.
            let known = |v: Option<&f64>| v.copied().filter(|&v| v != 0.0 && !v.is_nan());
            let additional = known(o.additional_rtt_by_origin.get(&origin)).unwrap_or(0.0);
            let response = known(o.server_response_time_by_origin.get(&origin))
                .unwrap_or(DEFAULT_SERVER_RESPONSE_TIME);
            let mut conns: Vec<TcpConnection> = Vec::new();
            for &k in &group {
                if reused[k] {
                    continue;
                }
                let r = refs[k];
                let tls = r.scheme == "https" || r.scheme == "wss";
                conns.push(TcpConnection::new(
                    o.rtt + additional,
                    o.throughput,
                    response,
                    tls,
                    r.protocol == "h2",
                ));
            }
            let Some(first) = conns.first().cloned() else {
                return Err(LanternError::NoConnection(origin));
            };
            let min = if first.h2 { 1 } else { CONNECTIONS_PER_ORIGIN };
            while conns.len() < min {
                conns.push(first.clone());
            }
            let start = pool.connections.len();
            pool.connections.extend(conns);
            pool.slots.insert(origin, pool.by_origin.len());
            pool.by_origin
                .push((start..pool.connections.len()).collect());
        }
        pool.busy = vec![false; pool.connections.len()];
        Ok(pool)
    }

    /// The connections in use, in the order they were taken.
    pub(crate) fn in_use(&self) -> &[usize] {
        &self.in_use
    }

    /// The slot of an origin's connections (`None`: the pool has none for it).
    pub(crate) fn slot(&self, origin: &str) -> Option<usize> {
        self.slots.get(origin).copied()
    }

    /// `acquire`: the free connection to the request's origin (its [`ConnectionPool::slot`])
    /// with the largest congestion window, taken; `None` when every one is busy.
    pub(crate) fn acquire(
        &mut self,
        request: usize,
        slot: Option<usize>,
    ) -> Result<Option<usize>, LanternError> {
        if self.by_request[request].is_some() {
            return Err(LanternError::Simulation("Record already has a connection"));
        }
        let mut best: Option<usize> = None;
        let none: &[usize] = &[];
        for &c in slot.map_or(none, |s| self.by_origin[s].as_slice()) {
            if self.busy[c] {
                continue;
            }
            // `||`: a best window of 0 compares as -Infinity.
            let current = best
                .map(|b| self.connections[b].congestion_window)
                .filter(|&w| w != 0.0 && !w.is_nan())
                .unwrap_or(f64::NEG_INFINITY);
            if self.connections[c].congestion_window > current {
                best = Some(c);
            }
        }
        if let Some(c) = best {
            self.in_use.push(c);
            self.busy[c] = true;
            self.by_request[request] = Some(c);
        }
        Ok(best)
    }

    /// `acquireActiveConnectionFromRequest`.
    pub(crate) fn active(&self, request: usize) -> Result<usize, LanternError> {
        self.by_request[request].ok_or(LanternError::Simulation(
            "Could not find an active connection for request",
        ))
    }

    pub(crate) fn release(&mut self, request: usize) {
        if let Some(c) = self.by_request[request].take() {
            self.in_use.retain(|&u| u != c);
            self.busy[c] = false;
        }
    }
}

/// When each host's name is resolved.
pub(crate) struct DnsCache {
    rtt: f64,
    resolved_at: HashMap<String, f64>,
}

impl DnsCache {
    pub(crate) fn new(rtt: f64) -> Self {
        DnsCache {
            rtt,
            resolved_at: HashMap::default(),
        }
    }

    /// `getTimeUntilResolution` (always updating the cache, as the simulator asks).
    pub(crate) fn time_until_resolution(&mut self, host: &str, requested_at: f64) -> f64 {
        let mut time = self.rtt * DNS_RESOLUTION_RTT_MULTIPLIER;
        if let Some(&at) = self.resolved_at.get(host) {
            time = (at - requested_at).max(0.0).min(time);
        }
        let resolved = requested_at + time;
        let entry = self.resolved_at.entry(host.to_string()).or_insert(resolved);
        *entry = entry.min(resolved);
        time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cold 1 MB download at 150 ms, 1.6 Mbit/s (Lantern's mobile defaults).
    #[test]
    fn cold_downloads_pay_the_handshakes_then_grow_their_window() {
        let c = TcpConnection::new(150.0, 1.6 * 1024.0 * 1024.0, 30.0, true, false);
        // Three one-way trips of handshake and request, a round trip of TLS, the server's 30 ms
        // and the response's way back: 480 ms and the first window (10 segments); then one
        // round trip doubles it to 20 (the bandwidth-delay product allows 21).
        let d = c.simulate_download_until(1460.0 * 20.0, 0.0, f64::INFINITY, 0.0);
        assert_eq!(d.time_elapsed, 480.0 + 150.0);
        assert_eq!(d.bytes_downloaded, 1460.0 * 20.0);
        assert_eq!(d.congestion_window, 20.0);
        let max = TcpConnection::maximum_saturated_connections(150.0, 1.6 * 1024.0 * 1024.0);
        assert_eq!(max, 21.0);
    }

    /// A transfer size no network delivers, at a round trip of 0: answered at once, whole.
    #[test]
    fn hostile_sizes_do_not_loop_for_ever() {
        let c = TcpConnection::new(0.0, 1e8, 30.0, false, false);
        let d = c.simulate_download_until(1e15, 0.0, f64::INFINITY, 0.0);
        assert_eq!(d.bytes_downloaded, 1e15);
        assert_eq!(d.time_elapsed, 30.0);
        let c = TcpConnection::new(0.1, 1e8, 30.0, false, false);
        let d = c.simulate_download_until(1e15, 0.0, 500.0, 0.0);
        assert!(d.bytes_downloaded < 1e15 && d.time_elapsed > 500.0 && d.time_elapsed < 501.0);
    }

    #[test]
    fn dns_lookups_are_shared_by_a_host() {
        let mut d = DnsCache::new(10.0);
        assert_eq!(d.time_until_resolution("a.test", 0.0), 20.0);
        assert_eq!(d.time_until_resolution("a.test", 5.0), 15.0);
        assert_eq!(d.time_until_resolution("a.test", 50.0), 0.0);
        assert_eq!(d.time_until_resolution("b.test", 50.0), 20.0);
    }
}
