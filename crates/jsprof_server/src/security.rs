//! The checks every request passes before any handler runs: the Host header names this server
//! (no DNS rebinding), a browser's `Origin` is this server's own, the client is not being
//! throttled for wrong tokens, and the per-server token is there (`Authorization: Bearer …` or
//! `?token=…`). Loopback is no exemption: any web page can send a request to localhost.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::ids;
use crate::state::AppState;

/// Wrong or missing tokens a client may send within [`WINDOW`] before it is made to wait.
pub const FAILURES_ALLOWED: u32 = 10;
/// The window those failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The first wait; each further round of failures doubles it, up to [`MAX_BLOCK`].
pub const FIRST_BLOCK: Duration = Duration::from_secs(1);
pub const MAX_BLOCK: Duration = Duration::from_secs(300);
/// Clients remembered at most: the table's memory is bounded whatever the number of addresses.
pub const MAX_CLIENTS: usize = 4096;

/// Splits `host[:port]` (`[v6]:port` included) into its name and port.
fn split_host(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((name, tail)) => (name, tail.strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

/// Whether a Host header value (lowercased) names this server. Loopback names and the bound
/// address always do, `--allow-host` names too; with an unspecified bind (`0.0.0.0`, `[::]`)
/// also any IP literal, as DNS rebinding needs a name the attacker controls: an IP address in
/// the Host header means the browser's page itself was loaded from that address.
pub fn host_allowed(state: &AppState, host: &str) -> bool {
    host_matches(state.local_addr, &state.config.allowed_hosts, host)
}

fn host_matches(bound: SocketAddr, allowed_hosts: &[String], host: &str) -> bool {
    let port = bound.port();
    let (name, host_port) = split_host(host);
    if host_port.and_then(|p| p.parse::<u16>().ok()) != Some(port) {
        return false;
    }
    let name = name.trim_end_matches('.');
    if name == "localhost" {
        return true;
    }
    if let Ok(ip) = name.parse::<IpAddr>() {
        let bound = bound.ip();
        return jsprof_cdp::is_loopback(ip) || ip == bound || bound.is_unspecified();
    }
    allowed_hosts.iter().any(|h| {
        let h = h.to_ascii_lowercase();
        let (allowed_name, allowed_port) = split_host(&h);
        allowed_name.trim_end_matches('.') == name
            && allowed_port.is_none_or(|p| p.parse::<u16>().ok() == Some(port))
    })
}

fn query_token(query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

/// One client's wrong tokens.
#[derive(Clone, Copy, Debug)]
struct Strikes {
    failures: u32,
    window_start: Instant,
    blocked_until: Option<Instant>,
    /// How many times it was blocked: the next wait is `FIRST_BLOCK * 2^rounds`.
    rounds: u32,
    last: Instant,
}

/// Wrong-token counts per client address (IPv6 by /64: one host has a whole prefix), so a
/// guesser gets 429 with `Retry-After` instead of thousands of tries a second.
#[derive(Default)]
pub struct AuthThrottle {
    clients: Mutex<HashMap<IpAddr, Strikes>>,
}

fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

impl AuthThrottle {
    fn clients(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Strikes>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long `ip` must still wait, if it is blocked.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let until = self.clients().get(&client_key(ip))?.blocked_until?;
        (until > now).then(|| until - now)
    }

    /// Counts a wrong or missing token.
    pub fn failure(&self, ip: IpAddr, now: Instant) {
        let key = client_key(ip);
        let mut clients = self.clients();
        if !clients.contains_key(&key) && clients.len() >= MAX_CLIENTS {
            evict(&mut clients, now);
        }
        let s = clients.entry(key).or_insert(Strikes {
            failures: 0,
            window_start: now,
            blocked_until: None,
            rounds: 0,
            last: now,
        });
        if now.duration_since(s.window_start) > WINDOW {
            s.failures = 0;
            s.window_start = now;
        }
        s.failures += 1;
        s.last = now;
        if s.failures >= FAILURES_ALLOWED {
            let wait = FIRST_BLOCK
                .saturating_mul(1u32 << s.rounds.min(16))
                .min(MAX_BLOCK);
            s.blocked_until = Some(now + wait);
            s.rounds = s.rounds.saturating_add(1);
            s.failures = 0;
            s.window_start = now;
        }
    }

    /// A right token: the client's record is forgotten.
    pub fn success(&self, ip: IpAddr) {
        let key = client_key(ip);
        let mut clients = self.clients();
        if !clients.is_empty() {
            clients.remove(&key);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.clients().len()
    }
}

/// Makes room in a full table: clients neither blocked nor seen for a while go first, else the
/// one seen longest ago.
fn evict(clients: &mut HashMap<IpAddr, Strikes>, now: Instant) {
    let idle = |s: &Strikes| {
        s.blocked_until.is_none_or(|u| u <= now) && now.duration_since(s.last) > MAX_BLOCK
    };
    clients.retain(|_, s| !idle(s));
    if clients.len() >= MAX_CLIENTS {
        if let Some(oldest) = clients.iter().min_by_key(|(_, s)| s.last).map(|(k, _)| *k) {
            clients.remove(&oldest);
        }
    }
}

/// 429 with `Retry-After` (whole seconds, rounded up): the client sent too many `what` (the
/// service's wrong tokens, the ingest's wrong keys) and the throttle holds it back for `wait`.
pub(crate) fn too_many(wait: Duration, what: &str) -> Response {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = ApiError {
        status: StatusCode::TOO_MANY_REQUESTS,
        code: "TOO_MANY_REQUESTS",
        message: format!("too many {what} from this address; retry in {secs} s"),
    }
    .into_response();
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

fn check_host_and_origin(state: &AppState, req: &Request) -> Result<(), ApiError> {
    let headers = req.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.to_ascii_lowercase());
    let expected = || format!("127.0.0.1:{}", state.local_addr.port());
    match &host {
        Some(h) if host_allowed(state, h) => {}
        Some(h) => {
            return Err(ApiError::forbidden(format!(
                "Host `{}` is not this server's address (expected {}, or a name given with \
                 --allow-host)",
                ids::printable(h),
                expected()
            )))
        }
        None => return Err(ApiError::forbidden("the Host header is missing")),
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
        let own = origin
            .strip_prefix("http://")
            .is_some_and(|o| host_allowed(state, o));
        if !own {
            return Err(ApiError::forbidden(format!(
                "cross-origin request from `{}` refused",
                ids::printable(&origin)
            )));
        }
    }
    Ok(())
}

fn check_token(state: &AppState, req: &Request) -> Result<(), ApiError> {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string());
    let token = bearer.or_else(|| query_token(req.uri().query()));
    match token {
        Some(t) if ids::same_token(&t, &state.token) => Ok(()),
        Some(_) => Err(ApiError::unauthorized("wrong token")),
        None => Err(ApiError::unauthorized(
            "a token is required: `Authorization: Bearer TOKEN` or `?token=TOKEN` (printed by `jsprof serve` at start)",
        )),
    }
}

/// The middleware.
pub async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    if let Err(e) = check_host_and_origin(&state, &req) {
        return e.into_response();
    }
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let now = Instant::now();
    if let Some(wait) = client.and_then(|ip| state.throttle.blocked(ip, now)) {
        return too_many(wait, "requests with a wrong or missing token");
    }
    match check_token(&state, &req) {
        Ok(()) => {
            if let Some(ip) = client {
                state.throttle.success(ip);
            }
            next.run(req).await
        }
        Err(e) => {
            if let Some(ip) = client {
                state.throttle.failure(ip, now);
            }
            e.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn failures_block_with_a_growing_wait() {
        let t = AuthThrottle::default();
        let a = ip("192.0.2.7");
        let start = Instant::now();
        for _ in 0..FAILURES_ALLOWED - 1 {
            t.failure(a, start);
        }
        assert_eq!(t.blocked(a, start), None);
        t.failure(a, start);
        assert_eq!(t.blocked(a, start), Some(FIRST_BLOCK));
        let later = start + FIRST_BLOCK;
        assert_eq!(t.blocked(a, later), None);
        for _ in 0..FAILURES_ALLOWED {
            t.failure(a, later);
        }
        assert_eq!(t.blocked(a, later), Some(FIRST_BLOCK * 2));
        // Another address is not affected; a success forgets.
        assert_eq!(t.blocked(ip("192.0.2.8"), later), None);
        t.success(a);
        assert_eq!(t.blocked(a, later), None);
    }

    #[test]
    fn ipv6_is_counted_per_prefix_and_the_table_is_bounded() {
        let t = AuthThrottle::default();
        let now = Instant::now();
        for i in 0..FAILURES_ALLOWED {
            t.failure(ip(&format!("2001:db8::{i:x}")), now);
        }
        assert!(t.blocked(ip("2001:db8::ffff"), now).is_some());
        for i in 0..(MAX_CLIENTS as u32 + 100) {
            t.failure(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i)), now);
        }
        assert!(t.len() <= MAX_CLIENTS);
    }

    /// Item 9 of issue 15: with `--addr 0.0.0.0` any Host passed, `--allow-host` was ignored.
    #[test]
    fn a_public_bind_still_checks_the_host() {
        let bound: SocketAddr = "0.0.0.0:9400".parse().unwrap();
        let allowed = vec!["my.box".to_string(), "other.box:9400".to_string()];
        for ok in [
            "127.0.0.1:9400",
            "localhost:9400",
            "[::1]:9400",
            "192.0.2.2:9400",
            "my.box:9400",
            "other.box:9400",
        ] {
            assert!(host_matches(bound, &allowed, ok), "{ok}");
        }
        for bad in [
            "evil.example:9400",
            "my.box:1",
            "my.box",
            "rebind.my.box:9400",
            "127.0.0.1",
        ] {
            assert!(!host_matches(bound, &allowed, bad), "{bad}");
        }
        let specific: SocketAddr = "192.0.2.2:9400".parse().unwrap();
        assert!(host_matches(specific, &[], "192.0.2.2:9400"));
        assert!(!host_matches(specific, &[], "192.0.2.3:9400"));
    }

    #[test]
    fn hosts_split() {
        assert_eq!(split_host("[::1]:80"), ("::1", Some("80")));
        assert_eq!(split_host("a.b:80"), ("a.b", Some("80")));
        assert_eq!(split_host("a.b"), ("a.b", None));
        assert_eq!(split_host("::1"), ("::1", None));
    }
}
