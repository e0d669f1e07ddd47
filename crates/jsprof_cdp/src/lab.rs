//! A page-load lab: pages in fresh browser contexts (each its own cold HTTP cache, cookies and
//! storage, as an incognito window has) and DevTools' throttling presets, applied over the
//! protocol the way the Performance panel applies them. `jsprof record --url URL --runs N`
//! records each run in a page that [`Browser::open_page`] opened.

use std::time::Duration;

use serde_json::{json, Value};

use crate::client::Client;
use crate::endpoint::Reach;
use crate::error::{CdpError, Result};
use crate::http::get_json;
use crate::target::{Target, TargetKind};

const HTTP_TIMEOUT: Duration = Duration::from_secs(5);
const COMMAND: Duration = Duration::from_secs(30);

/// A network profile of DevTools' throttling menu. The numbers are DevTools' own
/// (chrome-devtools-frontend `front_end/core/sdk/NetworkManager.ts`: `Slow3GConditions`,
/// shown as "3G", `Slow4GConditions`, `Fast4GConditions`): throughputs in bytes per second, the
/// bandwidths scaled by the factors DevTools applies to its nominal figures, latency in ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NetworkPreset {
    /// No throttling.
    #[default]
    None,
    /// "Fast 4G": 9 Mbit/s × 0.9 down, 1.5 Mbit/s × 0.9 up, 60 ms × 2.75 latency.
    Fast4g,
    /// "Slow 4G": 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up, 150 ms × 3.75 latency.
    Slow4g,
    /// "3G": 500 kbit/s × 0.8 both ways, 400 ms × 5 latency.
    ThreeG,
}

/// What `Network.emulateNetworkConditions` is given for a preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkConditions {
    pub latency_ms: f64,
    pub download_bytes_per_s: f64,
    pub upload_bytes_per_s: f64,
}

impl NetworkPreset {
    /// The CLI's names, as `--network` takes them.
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkPreset::None => "none",
            NetworkPreset::Fast4g => "fast-4g",
            NetworkPreset::Slow4g => "slow-4g",
            NetworkPreset::ThreeG => "3g",
        }
    }

    /// DevTools' numbers; `None` without throttling.
    pub fn conditions(self) -> Option<NetworkConditions> {
        let (down, up, latency) = match self {
            NetworkPreset::None => return None,
            NetworkPreset::Fast4g => (9e6 / 8.0 * 0.9, 1.5e6 / 8.0 * 0.9, 60.0 * 2.75),
            NetworkPreset::Slow4g => (1.6e6 / 8.0 * 0.9, 750e3 / 8.0 * 0.9, 150.0 * 3.75),
            NetworkPreset::ThreeG => (500e3 / 8.0 * 0.8, 500e3 / 8.0 * 0.8, 400.0 * 5.0),
        };
        Some(NetworkConditions {
            latency_ms: latency,
            download_bytes_per_s: down,
            upload_bytes_per_s: up,
        })
    }
}

/// The throttling of a page: CPU slowdown (1 = none) and a network preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttling {
    pub cpu_slowdown: f64,
    pub network: NetworkPreset,
}

impl Default for Throttling {
    fn default() -> Self {
        Throttling {
            cpu_slowdown: 1.0,
            network: NetworkPreset::None,
        }
    }
}

impl Throttling {
    /// Applies it to a page as the Performance panel does: `Emulation.setCPUThrottlingRate`
    /// and `Network.emulateNetworkConditions` (after `Network.enable`). Nothing is sent for
    /// what is not throttled.
    pub async fn apply(&self, page: &Client) -> Result<()> {
        if self.cpu_slowdown != 1.0 {
            page.call(
                "Emulation.setCPUThrottlingRate",
                json!({"rate": self.cpu_slowdown}),
                COMMAND,
            )
            .await?;
        }
        if let Some(c) = self.network.conditions() {
            page.call("Network.enable", json!({}), COMMAND).await?;
            page.call(
                "Network.emulateNetworkConditions",
                json!({
                    "offline": false,
                    "latency": c.latency_ms,
                    "downloadThroughput": c.download_bytes_per_s,
                    "uploadThroughput": c.upload_bytes_per_s,
                }),
                COMMAND,
            )
            .await?;
        }
        Ok(())
    }
}

/// A Chromium's browser-level connection (its `/json/version` WebSocket), which creates and
/// disposes browser contexts and opens pages in them.
pub struct Browser {
    client: Client,
    addr: String,
    /// `/json/version`'s `Browser` (`Chrome/131.0.6778.85`, `HeadlessChrome/…`).
    pub version: String,
    /// `/json/version`'s `User-Agent`.
    pub user_agent: String,
}

impl Browser {
    /// Connects to the browser at `addr` (`HOST:PORT` of `--remote-debugging-port`).
    pub async fn connect(addr: &str, reach: Reach, timeout: Duration) -> Result<Browser> {
        let info = get_json(addr, "/json/version", "GET", HTTP_TIMEOUT, reach).await?;
        let text = |key: &str| {
            info.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let ws = text("webSocketDebuggerUrl");
        if ws.is_empty() {
            return Err(CdpError::Target(format!(
                "{addr}: /json/version names no browser WebSocket (webSocketDebuggerUrl)"
            )));
        }
        let (client, _events) = Client::connect(&ws, timeout, reach).await?;
        Ok(Browser {
            client,
            addr: addr.to_string(),
            version: text("Browser"),
            user_agent: text("User-Agent"),
        })
    }

    /// A new browser context (`Target.createBrowserContext`): empty cache, cookies, storage.
    pub async fn create_context(&self) -> Result<String> {
        let reply = self
            .client
            .call("Target.createBrowserContext", json!({}), COMMAND)
            .await?;
        reply
            .get("browserContextId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                CdpError::Target("Target.createBrowserContext gave no browserContextId".into())
            })
    }

    /// Closes a context and every page in it (`Target.disposeBrowserContext`).
    pub async fn dispose_context(&self, context: &str) -> Result<()> {
        self.client
            .call(
                "Target.disposeBrowserContext",
                json!({"browserContextId": context}),
                COMMAND,
            )
            .await
            .map(|_| ())
    }

    /// A blank page in `context`, to connect to.
    pub async fn open_page(&self, context: &str) -> Result<Target> {
        let reply = self
            .client
            .call(
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context}),
                COMMAND,
            )
            .await?;
        let id = reply
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or_else(|| CdpError::Target("Target.createTarget gave no targetId".into()))?;
        Ok(Target {
            ws_url: format!("ws://{}/devtools/page/{id}", self.addr),
            kind: TargetKind::ChromePage,
            title: "about:blank".to_string(),
            pid: None,
        })
    }

    /// Loads `url` once in a page of `context` and closes the page, without recording: the
    /// context's cache then holds what the page fetched (a warm run).
    pub async fn prime(
        &self,
        context: &str,
        url: &str,
        throttling: &Throttling,
        timeout: Duration,
    ) -> Result<()> {
        let page = self.open_page(context).await?;
        let (client, mut events) = Client::connect(&page.ws_url, COMMAND, Reach::Any).await?;
        throttling.apply(&client).await?;
        client.call("Page.enable", json!({}), COMMAND).await?;
        client
            .call("Page.navigate", json!({"url": url}), timeout)
            .await?;
        let loaded = tokio::time::timeout(timeout, async {
            while let Some(e) = events.recv().await {
                if e.method == "Page.loadEventFired" {
                    return true;
                }
            }
            false
        })
        .await;
        let _ = client.call("Page.close", json!({}), COMMAND).await;
        match loaded {
            Ok(true) => Ok(()),
            Ok(false) => Err(CdpError::Closed {
                detail: format!("while loading {url} to warm the cache"),
            }),
            Err(_) => Err(CdpError::Timeout {
                what: format!("the load event of {url} (warming the cache)"),
                after: timeout,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devtools_presets() {
        let slow = NetworkPreset::Slow4g.conditions().unwrap();
        assert_eq!(slow.latency_ms, 562.5);
        assert_eq!(slow.download_bytes_per_s, 180_000.0);
        assert_eq!(slow.upload_bytes_per_s, 84_375.0);
        let fast = NetworkPreset::Fast4g.conditions().unwrap();
        assert_eq!(fast.latency_ms, 165.0);
        assert_eq!(fast.download_bytes_per_s, 1_012_500.0);
        let three = NetworkPreset::ThreeG.conditions().unwrap();
        assert_eq!(three.latency_ms, 2000.0);
        assert_eq!(three.download_bytes_per_s, 50_000.0);
        assert_eq!(NetworkPreset::None.conditions(), None);
    }
}
