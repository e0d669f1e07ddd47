//! Where a CDP connection really goes. The WebSocket client (tungstenite) reads URLs with
//! `http::Uri`, which drops userinfo: `ws://[::1]@10.0.0.5:9229/x` connects to `10.0.0.5`. Every
//! address here is parsed once with that same parser, userinfo is refused, the host is resolved,
//! and the TCP connection is made here to an address that passed the [`Reach`] check — so the
//! check and the connection can never disagree, whatever DNS answers in between.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::net::TcpStream;

use crate::error::{CdpError, Result};

/// Which addresses a connection may go to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reach {
    /// Anywhere (the CLI: the user names the target on their own machine).
    #[default]
    Any,
    /// Only this machine's loopback interface (the service: a CDP connection runs code in the
    /// target, so a token holder must not reach other machines through it).
    Loopback,
}

/// A host and port to connect to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// A name or an IP address, without IPv6 brackets.
    pub host: String,
    pub port: u16,
}

fn refuse(what: &str, why: &str) -> CdpError {
    CdpError::Target(format!(
        "bad CDP address `{}`: {why}",
        what.escape_default()
    ))
}

fn endpoint_of(what: &str, uri: &http::Uri, default_port: Option<u16>) -> Result<Endpoint> {
    let authority = uri.authority().ok_or_else(|| refuse(what, "no host"))?;
    if authority.as_str().contains('@') {
        // The client would connect to the host after `@`, whatever a reader sees before it.
        return Err(refuse(what, "user information (`…@`) is not allowed"));
    }
    let host = authority.host();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if host.is_empty() {
        return Err(refuse(what, "no host"));
    }
    let port = authority
        .port_u16()
        .or(default_port)
        .ok_or_else(|| refuse(what, "expected HOST:PORT"))?;
    Ok(Endpoint {
        host: host.to_string(),
        port,
    })
}

/// The endpoint of a `ws://` (or `wss://`) URL, as the WebSocket client reads it.
pub fn ws_endpoint(url: &str) -> Result<Endpoint> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| refuse(url, &format!("not a URL ({e})")))?;
    let default_port = match uri.scheme_str() {
        Some("ws") => 80,
        Some("wss") => 443,
        _ => return Err(refuse(url, "expected a ws:// URL")),
    };
    endpoint_of(url, &uri, Some(default_port))
}

/// The endpoint of `HOST:PORT` (`127.0.0.1:9229`, `[::1]:9222`, `localhost:9229`).
pub fn addr_endpoint(addr: &str) -> Result<Endpoint> {
    if addr.is_empty()
        || addr.contains(['/', '?', '#', '@', '\\'])
        || addr.contains(char::is_whitespace)
    {
        return Err(refuse(addr, "expected HOST:PORT"));
    }
    let uri: http::Uri = format!("http://{addr}/")
        .parse()
        .map_err(|_| refuse(addr, "expected HOST:PORT"))?;
    endpoint_of(addr, &uri, None)
}

/// The inspector's id of a target: the last segment of its WebSocket URL's path
/// (`ws://127.0.0.1:9229/<id>`, `ws://…/devtools/page/<id>`).
pub fn target_id(url: &str) -> Option<String> {
    let uri: http::Uri = url.parse().ok()?;
    let id = uri.path().rsplit('/').next()?;
    (!id.is_empty()).then(|| id.to_string())
}

fn allowed(reach: Reach, addr: &SocketAddr) -> bool {
    match reach {
        Reach::Any => true,
        Reach::Loopback => is_loopback(addr.ip()),
    }
}

/// Loopback, including IPv4-mapped IPv6 loopback (`::ffff:127.0.0.1`).
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// The addresses `endpoint` resolves to that `reach` allows; an error naming the first refused
/// one when none is allowed.
pub async fn resolve(endpoint: &Endpoint, reach: Reach) -> Result<Vec<SocketAddr>> {
    let literal = endpoint.host.parse::<IpAddr>().is_ok();
    if reach == Reach::Loopback && !literal && !endpoint.host.eq_ignore_ascii_case("localhost") {
        // Loopback has one name; asking DNS about any other would already reach outside.
        return Err(CdpError::NotAllowed(format!(
            "{}:{} is not on this machine's loopback interface (only IP addresses and \
             `localhost` are)",
            endpoint.host, endpoint.port
        )));
    }
    let all: Vec<SocketAddr> = tokio::net::lookup_host((endpoint.host.as_str(), endpoint.port))
        .await
        .map_err(|e| CdpError::Connect {
            url: format!("{}:{}", endpoint.host, endpoint.port),
            reason: format!("cannot resolve the host: {e}"),
        })?
        .collect();
    let ok: Vec<SocketAddr> = all.iter().copied().filter(|a| allowed(reach, a)).collect();
    if ok.is_empty() {
        return Err(CdpError::NotAllowed(format!(
            "{}:{} is not on this machine's loopback interface{}",
            endpoint.host,
            endpoint.port,
            all.first()
                .map(|a| format!(" (it resolves to {})", a.ip()))
                .unwrap_or_default()
        )));
    }
    Ok(ok)
}

/// A TCP connection to the first address of `endpoint` that `reach` allows and that answers.
pub async fn connect(endpoint: &Endpoint, reach: Reach, timeout: Duration) -> Result<TcpStream> {
    let what = format!("{}:{}", endpoint.host, endpoint.port);
    let addrs = resolve(endpoint, reach).await?;
    let work = async {
        let mut last = None;
        for addr in &addrs {
            match TcpStream::connect(addr).await {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(CdpError::Connect {
            url: what.clone(),
            reason: last.map_or_else(|| "no address".to_string(), |e| e.to_string()),
        })
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| CdpError::Timeout {
            what: format!("a connection to {what}"),
            after: timeout,
        })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_refused_wherever_it_hides() {
        for url in [
            "ws://[::1]@10.0.0.5:9229/x",
            "ws://127.0.0.1:x@evil.example/x",
            "ws://127.0.0.1@evil.example:9229/x",
            "ws://user:pw@127.0.0.1:9229/x",
        ] {
            let e = ws_endpoint(url).unwrap_err().to_string();
            assert!(e.contains("user information"), "{url}: {e}");
        }
        for addr in ["127.0.0.1:1@evil:9222", "[::1]@evil:9222", "a/b:1", ""] {
            assert!(addr_endpoint(addr).is_err(), "{addr}");
        }
    }

    #[test]
    fn endpoints_are_what_the_client_connects_to() {
        let e = ws_endpoint("ws://[::1]:9229/abc").unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 9229));
        let e = ws_endpoint("ws://localhost/abc").unwrap();
        assert_eq!((e.host.as_str(), e.port), ("localhost", 80));
        let e = addr_endpoint("127.0.0.1:9222").unwrap();
        assert_eq!((e.host.as_str(), e.port), ("127.0.0.1", 9222));
        assert!(addr_endpoint("127.0.0.1").is_err());
        assert!(ws_endpoint("http://127.0.0.1:1/").is_err());
        assert_eq!(
            target_id("ws://127.0.0.1:1/devtools/page/ABC").as_deref(),
            Some("ABC")
        );
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!is_loopback("10.0.0.5".parse().unwrap()));
    }

    #[tokio::test]
    async fn loopback_reach_refuses_other_hosts() {
        let e = Endpoint {
            host: "192.0.2.1".to_string(),
            port: 9,
        };
        let err = resolve(&e, Reach::Loopback).await.unwrap_err();
        assert!(matches!(err, CdpError::NotAllowed(_)), "{err}");
        assert_eq!(resolve(&e, Reach::Any).await.unwrap().len(), 1);
    }
}
