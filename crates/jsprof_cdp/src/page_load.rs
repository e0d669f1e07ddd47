//! Recording a page load the way the Performance panel's "Record and reload" does: the page goes
//! to `about:blank` first (so nothing of an earlier page is in the trace), tracing starts with
//! the panel's own categories (JS samples and screenshots on), the page navigates to the URL,
//! and the recording ends once the load event has fired and the page has had time to settle.
//!
//! The [`Recorder`](crate::Recorder) drives it when [`RecordOptions::page_load`](crate::RecordOptions)
//! is set, so `jsprof record --url`, the service's sessions and any other caller share it.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::client::{Client, Event};
use crate::error::{CdpError, Result};

/// A page load to record.
#[derive(Clone, Debug)]
pub struct PageLoad {
    /// Where the page navigates once tracing runs.
    pub url: String,
    /// How long the recording goes on after the load event. `None`: until the caller stops it
    /// (`--duration`, Ctrl-C, the service's stop), the load event only reported.
    pub settle: Option<Duration>,
    /// With `settle`: how long to wait for the load event before stopping anyway, with a warning.
    pub load_timeout: Duration,
    /// Close the page once its trace is collected: the caller opened it for this recording.
    pub close_page: bool,
}

/// What DevTools' Performance panel waits for after the load event is 5 s; 3 s keeps the
/// recording short and still holds the late work of most pages (LCP, shifts, idle tasks).
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(3);

/// The longest wait for a load event before the recording stops anyway.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

impl PageLoad {
    /// Records until the load event plus [`DEFAULT_SETTLE`], at most [`LOAD_TIMEOUT`] without one.
    pub fn new(url: impl Into<String>) -> PageLoad {
        PageLoad {
            url: url.into(),
            settle: Some(DEFAULT_SETTLE),
            load_timeout: LOAD_TIMEOUT,
            close_page: false,
        }
    }
}

/// Refuses what is not a whole URL before anything is recorded: Chromium would take
/// `localhost:8080` for a URL of the scheme `localhost`. The message starts with the URL.
pub fn check_page_url(url: &str) -> std::result::Result<(), String> {
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let hierarchical = matches!(scheme, "http" | "https" | "file");
    if matches!(scheme, "localhost") {
        return Err(format!("{url}: give the scheme too, e.g. http://{url}"));
    }
    if !valid
        || (hierarchical && !url[scheme.len()..].starts_with("://"))
        || url.contains(char::is_whitespace)
    {
        return Err(format!(
            "{url}: not a URL; give it whole, e.g. http://localhost:8080/"
        ));
    }
    Ok(())
}

/// The categories DevTools' Performance panel records (chrome-devtools-frontend,
/// `TimelineController#startRecording`: `-*`, then its default list), with JS sampling and
/// the film strip, both on by default in the panel.
pub fn performance_panel_categories() -> Vec<&'static str> {
    vec![
        "-*",
        "blink.console",
        "loading",
        "blink.user_timing",
        "devtools.timeline",
        "disabled-by-default-devtools.target-rundown",
        "disabled-by-default-devtools.timeline.frame",
        "disabled-by-default-devtools.timeline.stack",
        "disabled-by-default-devtools.timeline",
        "disabled-by-default-devtools.v8-source-rundown-sources",
        "disabled-by-default-devtools.v8-source-rundown",
        "disabled-by-default-layout_shift.debug",
        "disabled-by-default-v8.inspector",
        "disabled-by-default-v8.cpu_profiler.hires",
        "disabled-by-default-lighthouse",
        "v8.execute",
        "v8",
        "cppgc",
        "navigation",
        "rail",
        // Options of the panel, on by default: JS samples and screenshots.
        "disabled-by-default-v8.cpu_profiler",
        "disabled-by-default-devtools.screenshot",
    ]
}

/// `Tracing.start`'s parameters as DevTools' `TracingManager` sends them (record until full,
/// a 1.2 GB buffer, buffer usage every 500 ms), the trace returned as a stream.
pub(crate) fn trace_config() -> Value {
    json!({
        "transferMode": "ReturnAsStream",
        "bufferUsageReportingInterval": 500,
        "traceConfig": {
            "recordMode": "recordUntilFull",
            "traceBufferSizeInKb": 1_200_000,
            "includedCategories": performance_panel_categories(),
        }
    })
}

const COMMAND: Duration = Duration::from_secs(30);
const BLANK_TIMEOUT: Duration = Duration::from_secs(10);

/// Before tracing: `Page.enable` (for the load event), then `about:blank`, as DevTools does to
/// leave the previous page out of the trace.
pub(crate) async fn go_blank(client: &Client, events: &mut UnboundedReceiver<Event>) -> Result<()> {
    client.call("Page.enable", json!({}), COMMAND).await?;
    let reply = client
        .call("Page.navigate", json!({"url": "about:blank"}), COMMAND)
        .await?;
    if let Some(error) = navigation_error(&reply) {
        return Err(CdpError::Target(format!(
            "the page cannot go to about:blank: {error}"
        )));
    }
    // The navigation's own end: a load event of the blank page that came late would otherwise
    // pass for the URL's.
    let deadline = Instant::now() + BLANK_TIMEOUT;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Err(_) => {
                return Err(CdpError::Timeout {
                    what: "about:blank's load event".to_string(),
                    after: BLANK_TIMEOUT,
                })
            }
            Ok(None) => {
                return Err(CdpError::Closed {
                    detail: "while going to about:blank".to_string(),
                })
            }
            Ok(Some(e)) if e.method == "Page.loadEventFired" => return Ok(()),
            Ok(Some(_)) => {}
        }
    }
}

/// `Page.navigate`'s `errorText` (`net::ERR_CONNECTION_REFUSED`, …), when the navigation failed.
fn navigation_error(reply: &Value) -> Option<String> {
    reply
        .get("errorText")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// Why a page load's recording ends by itself at its deadline.
#[derive(Debug)]
pub(crate) enum LoadEnd {
    /// The load event, then the settle time.
    Settled,
    /// No load event within the timeout.
    TimedOut,
}

/// A navigation in progress: its reply (it comes once the response has arrived, or the
/// navigation failed) and when the load event fired.
pub(crate) struct Navigation {
    spec: PageLoad,
    reply: Option<JoinHandle<Result<Value>>>,
    started: Instant,
    loaded: Option<Instant>,
    /// A warning already says why the page did not load.
    explained: bool,
}

impl Navigation {
    /// Sends `Page.navigate` without waiting for its reply, which a slow server delays.
    pub(crate) fn start(client: &Client, spec: PageLoad) -> Navigation {
        let client = client.clone();
        let url = spec.url.clone();
        let timeout = spec.load_timeout;
        let reply = tokio::spawn(async move {
            client
                .call("Page.navigate", json!({"url": url}), timeout)
                .await
        });
        Navigation {
            spec,
            reply: Some(reply),
            started: Instant::now(),
            loaded: None,
            explained: false,
        }
    }

    pub(crate) fn spec(&self) -> &PageLoad {
        &self.spec
    }

    /// When the recording ends by itself, and why: the load event plus the settle time, or the
    /// load timeout. `None` when the caller's own stop decides.
    pub(crate) fn deadline(&self) -> Option<(Instant, LoadEnd)> {
        let settle = self.spec.settle?;
        Some(match self.loaded {
            Some(at) => (at + settle, LoadEnd::Settled),
            None => (self.started + self.spec.load_timeout, LoadEnd::TimedOut),
        })
    }

    /// Waits for `Page.navigate`'s reply; pending forever once it has come.
    pub(crate) async fn reply(&mut self) -> Result<Value> {
        match &mut self.reply {
            Some(handle) => {
                let result = handle.await;
                self.reply = None;
                result.unwrap_or_else(|e| Err(CdpError::Target(format!("navigation task: {e}"))))
            }
            None => std::future::pending().await,
        }
    }

    /// What the navigation's reply means: `Some(why)` when the page did not load.
    pub(crate) fn on_reply(&mut self, reply: Result<Value>) -> Option<String> {
        let why = match reply {
            Ok(v) => navigation_error(&v)?,
            // No answer within the load timeout: the load timeout itself says so.
            Err(CdpError::Timeout { .. }) => return None,
            Err(e) => e.to_string(),
        };
        self.explained = true;
        Some(why)
    }

    /// A warning has said why the page did not load (the load timeout).
    pub(crate) fn explained(&mut self) {
        self.explained = true;
    }

    /// Notes the load event; the seconds since the navigation started, the first time.
    pub(crate) fn on_load(&mut self) -> Option<f64> {
        if self.loaded.is_some() {
            return None;
        }
        let now = Instant::now();
        self.loaded = Some(now);
        Some(now.duration_since(self.started).as_secs_f64())
    }

    /// Whether the recording ended without a load event of the URL (nor a failure that says
    /// why): the warning to give.
    pub(crate) fn missing_load(&self) -> Option<String> {
        if self.loaded.is_some() || self.explained {
            return None;
        }
        Some(format!(
            "{} had not fired its load event when the recording stopped ({:.1} s after the \
             navigation); the trace holds what was recorded until then",
            self.spec.url,
            self.started.elapsed().as_secs_f64()
        ))
    }
}

/// The navigation's reply, if there is a navigation still waiting for one; pending otherwise.
pub(crate) async fn next_reply(navigation: &mut Option<Navigation>) -> Result<Value> {
    match navigation {
        Some(n) => n.reply().await,
        None => std::future::pending().await,
    }
}

impl Drop for Navigation {
    fn drop(&mut self) {
        if let Some(handle) = self.reply.take() {
            handle.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_urls() {
        for ok in [
            "http://127.0.0.1:8080/",
            "https://example.com/a?b=c",
            "file:///tmp/page.html",
            "about:blank",
            "data:text/html,<p>hi</p>",
        ] {
            assert_eq!(check_page_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "localhost:8080",
            "127.0.0.1:8080/",
            "example.com",
            "http:/x",
            "",
            "http://a b",
        ] {
            let err = check_page_url(bad).unwrap_err();
            assert!(err.starts_with(bad), "{bad}: {err}");
        }
    }

    #[test]
    fn the_panels_categories_with_samples_and_screenshots() {
        let c = performance_panel_categories();
        assert_eq!(c[0], "-*");
        for want in [
            "devtools.timeline",
            "disabled-by-default-devtools.timeline",
            "blink.user_timing",
            "loading",
            "disabled-by-default-v8.cpu_profiler",
            "disabled-by-default-devtools.screenshot",
        ] {
            assert!(c.contains(&want), "{want}");
        }
        assert_eq!(trace_config()["transferMode"], "ReturnAsStream");
    }
}
