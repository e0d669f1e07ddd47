//! `jsprof record --chrome ADDR --trace --url URL`: a page load, recorded in a tab of its own.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use jsprof_cdp::{
    Client, OutputSpec, PageLoad, Reach, RecordOptions, StopReason, TargetLabel, TargetRecording,
};

use super::{sanitize, seconds, stem, Args, Outcome, Signals, CONNECT_TIMEOUT};
use crate::output::JsonWarning;

/// `--url`: the load of a page recorded in a new tab of the browser at `--chrome`, the way the
/// Performance panel's "Record and reload" does it; the recording ends by itself once the page
/// has loaded and settled (or at `--duration` after the navigation, or at Ctrl-C), and the tab
/// is closed.
pub(super) async fn record_page_load(
    args: &Args,
    url: &str,
    options: RecordOptions,
    duration: Option<Duration>,
    throttling: jsprof_cdp::Throttling,
) -> Result<Outcome> {
    let mut signals = Signals::install()?;
    let page = page_spec(args, url, duration)?;
    let addr = args.chrome.as_deref().unwrap_or_default();
    let target = jsprof_cdp::open_chrome_tab(addr, Reach::Any)
        .await
        .with_context(|| {
            format!(
                "--chrome {addr}: cannot open a tab there (is a Chromium started with \
                 --remote-debugging-port listening on it?)"
            )
        })?;
    let (client, events) = Client::connect(&target.ws_url, CONNECT_TIMEOUT, Reach::Any)
        .await
        .with_context(|| format!("cannot attach to the new tab {}", target.ws_url))?;
    if let Err(e) = throttling.apply(&client).await {
        let _ = client
            .call("Page.close", serde_json::json!({}), CONNECT_TIMEOUT)
            .await;
        bail!("cannot throttle the new tab for {url}: {e}");
    }
    let options = RecordOptions {
        page_load: Some(page),
        ..options
    };
    let output = OutputSpec {
        dir: args.out.clone(),
        stem: stem(
            args,
            &format!("pageload-{}", sanitize(url)).replace("--", "-"),
        ),
    };
    eprintln!(
        "jsprof: recording the load of {url} in a new tab of {addr}{}",
        match duration {
            Some(d) => format!(" for {:.1} s", d.as_secs_f64()),
            None => " until it has loaded and settled (Ctrl-C to stop earlier)".to_string(),
        }
    );
    let (stop, artifacts, recorded_warnings) = record_in_page(
        client,
        events,
        url,
        options,
        output,
        duration,
        signals.recv(),
    )
    .await?;
    let warnings = recorded_warnings
        .iter()
        .map(|message| JsonWarning {
            at: url.to_string(),
            message: message.clone(),
        })
        .collect();
    Ok(Outcome {
        target: url.to_string(),
        stop: stop.clone(),
        targets: vec![TargetRecording {
            label: TargetLabel {
                pid: None,
                ppid: None,
                worker: None,
                title: url.to_string(),
            },
            stop: Some(stop),
            artifacts,
            warnings: recorded_warnings,
            error: None,
        }],
        program: None,
        warnings,
    })
}

/// The page load `--url` (and each of `--runs`) records: `--load-timeout`, `--settle`, and no
/// settle time with `--duration` (which then decides the end). The page is closed afterwards.
pub(super) fn page_spec(args: &Args, url: &str, duration: Option<Duration>) -> Result<PageLoad> {
    let mut page = PageLoad::new(url);
    page.close_page = true;
    if let Some(s) = args.load_timeout {
        page.load_timeout = seconds(s, "--load-timeout")?;
    }
    if let Some(s) = args.settle {
        if !(s.is_finite() && s >= 0.0) {
            bail!("--settle needs a number of seconds (0 or more), not {s}");
        }
        page.settle = Some(Duration::from_secs_f64(s));
    }
    if duration.is_some() {
        page.settle = None;
    }
    Ok(page)
}

/// One page load recorded over a connection to its own page ([`jsprof_cdp::record_page`]), its
/// progress and warnings printed as they come.
pub(super) async fn record_in_page(
    client: Client,
    events: tokio::sync::mpsc::UnboundedReceiver<jsprof_cdp::Event>,
    url: &str,
    options: RecordOptions,
    output: OutputSpec,
    duration: Option<Duration>,
    stop_signal: impl std::future::Future<Output = ()>,
) -> Result<(StopReason, Vec<jsprof_cdp::Artifact>, Vec<String>)> {
    let deadline = duration.map(|d| tokio::time::Instant::now() + d);
    let (sinks, printer) = printed(url);
    let recorded = jsprof_cdp::record_page(
        (client, events),
        url,
        options,
        output,
        (deadline, stop_signal),
        sinks,
    )
    .await
    .with_context(|| format!("recording {url}"));
    let _ = printer.await;
    recorded
}

/// Sinks that print a page's progress and warnings on stderr as they happen (the warnings come
/// again in the JSON at the end); the printer ends when the recording drops them.
pub(super) fn printed(url: &str) -> (jsprof_cdp::Sinks, tokio::task::JoinHandle<()>) {
    let (progress, mut progress_rx) = tokio::sync::mpsc::unbounded_channel();
    let (warned, mut warned_rx) = tokio::sync::mpsc::unbounded_channel();
    let at = url.to_string();
    let printer = tokio::spawn(async move {
        loop {
            tokio::select! {
                Some(p) = progress_rx.recv() => eprintln!("jsprof: {p}"),
                Some(w) = warned_rx.recv() => eprintln!("jsprof: warning: {at}: {w}"),
                else => break,
            }
        }
    });
    let sinks = jsprof_cdp::Sinks {
        progress: Some(progress),
        warnings: Some(warned),
    };
    (sinks, printer)
}
