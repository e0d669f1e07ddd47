//! A page-load lab: pages in fresh browser contexts (each its own cold HTTP cache, cookies and
//! storage, as an incognito window has) and DevTools' throttling presets, applied over the
//! protocol the way the Performance panel applies them. `jsprof record --url URL --runs N`
//! records each run in a page that [`Browser::open_page`] opened.

use std::time::Duration;

use serde_json::{json, Value};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::artifact::Artifact;
use crate::client::{Client, Event};
use crate::endpoint::Reach;
use crate::error::{CdpError, Result};
use crate::http::get_json;
use crate::recorder::{OutputSpec, RecordOptions, Recorder, StopReason};
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
    /// Every preset, in the menu's order.
    pub const ALL: [NetworkPreset; 4] = [
        NetworkPreset::None,
        NetworkPreset::Fast4g,
        NetworkPreset::Slow4g,
        NetworkPreset::ThreeG,
    ];

    /// The preset a name ([`Self::as_str`]) names.
    pub fn named(name: &str) -> Option<NetworkPreset> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

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

/// Where a page's recording reports as it goes: progress lines (`loading URL`, `collecting the
/// trace`) and warnings, each to a channel when the caller wants them.
#[derive(Clone, Default)]
pub struct Sinks {
    pub progress: Option<UnboundedSender<String>>,
    pub warnings: Option<UnboundedSender<String>>,
}

/// One page load recorded over a connection to its own page (a new tab, or a page of a lab's
/// browser context), the way the Performance panel's "Record and reload" records it: the
/// recorder started on the page, its load waited for (until `deadline`, or until `stop`
/// resolves), the trace collected. The page is closed by the recorder (`close_page`). A page
/// that went away is an error: nothing was saved.
pub async fn record_page(
    (client, events): (Client, UnboundedReceiver<Event>),
    url: &str,
    options: RecordOptions,
    output: OutputSpec,
    (deadline, stop): (
        Option<tokio::time::Instant>,
        impl std::future::Future<Output = ()>,
    ),
    sinks: Sinks,
) -> Result<(StopReason, Vec<Artifact>, Vec<String>)> {
    let mut recorder = match Recorder::start(
        client.clone(),
        events,
        TargetKind::ChromePage,
        options,
        output,
    )
    .await
    {
        Ok(r) => r,
        Err(e) => {
            // The recorder has closed the tab it was given.
            client.close();
            return Err(CdpError::Target(format!(
                "cannot start recording {url}: {e}"
            )));
        }
    };
    if let Some(sink) = sinks.progress {
        recorder.set_progress_sink(sink);
    }
    if let Some(sink) = sinks.warnings {
        recorder.set_warning_sink(sink);
    }
    let stop = recorder.wait_until(deadline, stop).await?;
    if let StopReason::TargetGone(detail) = &stop {
        return Err(CdpError::Target(format!(
            "the tab recording {url} went away ({detail}); nothing was saved"
        )));
    }
    let (artifacts, warnings) = recorder.finish().await?;
    Ok((stop, artifacts, warnings))
}

/// A page-load lab's settings: the page, how each run is throttled and recorded, the folder
/// its runs go to, and whether the runs share one warmed context.
#[derive(Clone, Debug)]
pub struct LabSpec {
    pub url: String,
    pub throttling: Throttling,
    /// One browser context for every run, warmed by one load that is not recorded (a warm
    /// cache); otherwise a fresh context per run (a cold cache, as an incognito window).
    pub warm: bool,
    /// Each run's recording; its `page_load` is the lab's page load (`--load-timeout`,
    /// `--settle`).
    pub options: RecordOptions,
    pub dir: std::path::PathBuf,
}

/// One recorded run: why it stopped, its files, and what it warned about.
#[derive(Debug)]
pub struct LabRun {
    pub stop: StopReason,
    pub artifacts: Vec<Artifact>,
    pub warnings: Vec<String>,
}

/// A lab under way on a browser: `jsprof record --url --runs N` and MCP's `record` with `runs`
/// both take their runs through it.
pub struct Lab<'a> {
    browser: &'a Browser,
    spec: LabSpec,
    /// A warm lab's one context.
    context: Option<String>,
}

impl<'a> Lab<'a> {
    /// Gets the browser ready for the runs. A warm lab's context is warmed by one load of the
    /// page, not recorded. A cold lab makes one load in a context of its own, not recorded,
    /// then thrown away: the browser's own first-load costs (its renderer and network
    /// processes starting) are not the page's, and would otherwise be run 1's.
    pub async fn start(browser: &'a Browser, spec: LabSpec) -> Result<Lab<'a>> {
        let timeout = spec
            .options
            .page_load
            .as_ref()
            .map_or(crate::page_load::LOAD_TIMEOUT, |p| p.load_timeout);
        let context = browser.create_context().await?;
        let primed = browser
            .prime(&context, &spec.url, &spec.throttling, timeout)
            .await;
        if !spec.warm || primed.is_err() {
            let _ = browser.dispose_context(&context).await;
        }
        primed?;
        Ok(Lab {
            browser,
            context: spec.warm.then_some(context),
            spec,
        })
    }

    /// Records one run as `stem.*` in the lab's folder: a page opened in a fresh context (or
    /// the warm one), throttled, its load recorded until it has loaded and settled, or until
    /// `stop` resolves (then what was recorded is saved).
    pub async fn run(
        &self,
        stem: String,
        sinks: Sinks,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<LabRun> {
        let context = match &self.context {
            Some(c) => c.clone(),
            None => self.browser.create_context().await?,
        };
        let recorded = self.run_in(&context, stem, sinks, stop).await;
        if self.context.is_none() {
            let _ = self.browser.dispose_context(&context).await;
        }
        let (stop, artifacts, warnings) = recorded?;
        Ok(LabRun {
            stop,
            artifacts,
            warnings,
        })
    }

    async fn run_in(
        &self,
        context: &str,
        stem: String,
        sinks: Sinks,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(StopReason, Vec<Artifact>, Vec<String>)> {
        let url = &self.spec.url;
        let target = self.browser.open_page(context).await?;
        let connection = Client::connect(&target.ws_url, COMMAND, Reach::Any).await?;
        self.spec
            .throttling
            .apply(&connection.0)
            .await
            .map_err(|e| {
                CdpError::Target(format!("cannot throttle the run's page for {url}: {e}"))
            })?;
        let output = OutputSpec {
            dir: self.spec.dir.clone(),
            stem,
        };
        record_page(
            connection,
            url,
            self.spec.options.clone(),
            output,
            (None, stop),
            sinks,
        )
        .await
    }

    /// Closes a warm lab's context.
    pub async fn finish(self) {
        if let Some(context) = &self.context {
            let _ = self.browser.dispose_context(context).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DevTools' numbers (`NetworkManager.ts`, read again on 2026-11-29: `Slow3GConditions`
    /// 500 kbit/s × 0.8 both ways and 400 ms × 5; `Slow4GConditions` 1.6 Mbit/s × 0.9 down,
    /// 750 kbit/s × 0.9 up, 150 ms × 3.75; `Fast4GConditions` 9 Mbit/s × 0.9 down, 1.5 Mbit/s ×
    /// 0.9 up, 60 ms × 2.75), in bytes per second.
    #[test]
    fn devtools_presets() {
        let slow = NetworkPreset::Slow4g.conditions().unwrap();
        assert_eq!(slow.latency_ms, 562.5);
        assert_eq!(slow.download_bytes_per_s, 180_000.0);
        assert_eq!(slow.upload_bytes_per_s, 84_375.0);
        let fast = NetworkPreset::Fast4g.conditions().unwrap();
        assert_eq!(fast.latency_ms, 165.0);
        assert_eq!(fast.download_bytes_per_s, 1_012_500.0);
        assert_eq!(fast.upload_bytes_per_s, 168_750.0);
        let three = NetworkPreset::ThreeG.conditions().unwrap();
        assert_eq!(three.latency_ms, 2000.0);
        assert_eq!(three.download_bytes_per_s, 50_000.0);
        assert_eq!(three.upload_bytes_per_s, 50_000.0);
        assert_eq!(NetworkPreset::None.conditions(), None);
        for p in NetworkPreset::ALL {
            assert_eq!(NetworkPreset::named(p.as_str()), Some(p));
        }
        assert_eq!(NetworkPreset::named("5g"), None);
    }
}
