//! Recording over CDP: start what was asked for, wait for the stop condition, collect every
//! artifact into a file.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::artifact::{Artifact, ArtifactKind, PartialFile};
use crate::client::{Client, Event};
use crate::error::{CdpError, Result};
use crate::page_load::{self, LoadEnd, Navigation, PageLoad};
use crate::target::TargetKind;

/// When heap snapshots are taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SnapshotMode {
    #[default]
    Off,
    AtEnd,
    Every(Duration),
}

/// What to record.
#[derive(Clone, Debug, Default)]
pub struct RecordOptions {
    pub cpu: bool,
    /// CPU sampling interval in µs (V8's default is 1000).
    pub interval_us: Option<u32>,
    pub heap_sampling: bool,
    /// Mean bytes between heap samples (V8's default is 32768).
    pub heap_sampling_interval: Option<u64>,
    pub heap_snapshot: SnapshotMode,
    /// Node: beside each heap snapshot, its isolate's `process.memoryUsage()` taken right after
    /// it (`STEM.memory.json`), so the snapshots of a process and its workers can be reconciled
    /// with its RSS (`jsprof heap process`).
    pub memory_usage: bool,
    /// Chromium only: a Performance-panel trace (with CPU samples when `cpu` is set).
    pub trace: bool,
    /// No heap snapshot is started once the recording's files add up to this many bytes (one
    /// snapshot in progress may pass it); a warning says so. `None`: no limit.
    pub snapshot_quota: Option<u64>,
    /// Node: record its worker threads too (`NodeWorker.enable`, each worker paused at its start
    /// until its own recording begins); [`Recorder::worker_events`] announces them.
    pub workers: bool,
    /// With `trace`, on a Chromium page: record this page load as the Performance panel's
    /// "Record and reload" does (its categories, JS samples and screenshots on); the recording
    /// then also ends by itself once the page has loaded and settled.
    pub page_load: Option<PageLoad>,
}

/// The shortest `--every` period: a heap snapshot of even a tiny heap pauses the program for a
/// good part of this, so a shorter period would record little but snapshots.
pub const MIN_SNAPSHOT_PERIOD: Duration = Duration::from_millis(250);

/// Where files go and how they are named (`STEM.cpuprofile`, …).
#[derive(Clone, Debug)]
pub struct OutputSpec {
    pub dir: PathBuf,
    pub stem: String,
}

/// Why a recording stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    Duration,
    Interrupted,
    /// The launched program finished and waits for us to collect and disconnect.
    ProgramFinished,
    /// The connection closed: the target died or went away.
    TargetGone(String),
    /// A recorded page load fired its load event and the settle time passed.
    PageLoaded,
    /// A recorded page load fired no load event within its timeout.
    LoadTimedOut,
    /// A recorded page load failed to navigate (`net::ERR_CONNECTION_REFUSED`, …).
    NavigationFailed(String),
}

/// Categories the Performance panel records, plus V8's CPU samples when asked for.
fn trace_categories(with_samples: bool) -> Vec<&'static str> {
    let mut c = vec![
        "devtools.timeline",
        "v8.execute",
        "disabled-by-default-devtools.timeline",
        "disabled-by-default-devtools.timeline.frame",
        "toplevel",
        "blink.console",
        "blink.user_timing",
        "latencyInfo",
        "disabled-by-default-devtools.timeline.stack",
        "v8",
        "blink",
        "loading",
    ];
    if with_samples {
        c.push("disabled-by-default-v8.cpu_profiler");
    }
    c
}

/// Time limits for each kind of wait.
const COMMAND: Duration = Duration::from_secs(30);
const COLLECT: Duration = Duration::from_secs(300);
/// How long a recording waits for the browser to destroy the page it opened and closed.
const PAGE_CLOSE: Duration = Duration::from_secs(5);

/// Sends a command whose failure is harmless (a target too old for it, a domain it lacks): the
/// recording goes on either way.
async fn optional(client: &Client, method: &str, params: Value) {
    let _ = client.call(method, params, COMMAND).await;
}

/// Closes the page of `client`'s connection. `Page.close` answers before the tab is gone; the
/// browser drops the connection when the target is destroyed, so wait (briefly) for that: a
/// caller listing the tabs after `record` returns no longer sees it.
async fn close_page_and_wait(client: &Client) {
    if client.call("Page.close", json!({}), COMMAND).await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(PAGE_CLOSE, async {
        while !client.is_closed() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// A recording in progress on one connection.
pub struct Recorder {
    client: Client,
    events: UnboundedReceiver<Event>,
    kind: TargetKind,
    options: RecordOptions,
    output: OutputSpec,
    artifacts: Vec<Artifact>,
    gone: Option<String>,
    warnings: Vec<String>,
    quota_warned: bool,
    /// Periodic snapshots taken so far, and the digits their numbers are padded to.
    snapshots_taken: u32,
    snapshot_width: usize,
    warning_sink: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    /// Events that arrived while a snapshot was being taken, for `wait` to handle.
    deferred: std::collections::VecDeque<Event>,
    /// The page load being recorded.
    navigation: Option<Navigation>,
    progress_sink: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    buffer_full_warned: bool,
}

impl Recorder {
    /// Starts recording. For a launched program waiting in `--inspect-brk`, this also lets it run.
    /// A page opened for a page load ([`PageLoad::close_page`]) is closed again when the start
    /// fails (another trace already running in the browser, …).
    pub async fn start(
        client: Client,
        events: UnboundedReceiver<Event>,
        kind: TargetKind,
        options: RecordOptions,
        output: OutputSpec,
    ) -> Result<Recorder> {
        let close_page = options.page_load.as_ref().is_some_and(|p| p.close_page);
        let started =
            Recorder::start_recording(client.clone(), events, kind, options, output).await;
        if started.is_err() && close_page {
            close_page_and_wait(&client).await;
        }
        started
    }

    async fn start_recording(
        client: Client,
        mut events: UnboundedReceiver<Event>,
        kind: TargetKind,
        options: RecordOptions,
        output: OutputSpec,
    ) -> Result<Recorder> {
        if options.trace && kind != TargetKind::ChromePage {
            return Err(CdpError::Target(
                "tracing (--trace) needs a Chromium page; Node's inspector has no Tracing domain"
                    .to_string(),
            ));
        }
        if options.page_load.is_some() && !options.trace {
            return Err(CdpError::Target(
                "recording a page load needs tracing (--trace)".to_string(),
            ));
        }
        if options.page_load.is_some() {
            page_load::go_blank(&client, &mut events).await?;
        }
        if kind == TargetKind::Node {
            // Lets us collect before a launched program exits (Node ≥ 12); harmless otherwise.
            optional(
                &client,
                "NodeRuntime.notifyWhenWaitingForDisconnect",
                json!({"enabled": true}),
            )
            .await;
            // `NodeRuntime.waitingForDebugger` when the program waits for us (Node ≥ 20.12,
            // ≥ 21.6; an error before). A `runIfWaitingForDebugger` that reaches Node before its
            // main thread starts waiting (`--inspect-brk` prints its URL first) is lost, and the
            // program would wait forever; `wait` answers the event with another one.
            optional(&client, "NodeRuntime.enable", json!({})).await;
        }
        if options.cpu {
            client.call("Profiler.enable", json!({}), COMMAND).await?;
            if let Some(interval) = options.interval_us {
                client
                    .call(
                        "Profiler.setSamplingInterval",
                        json!({"interval": interval}),
                        COMMAND,
                    )
                    .await?;
            }
            client.call("Profiler.start", json!({}), COMMAND).await?;
        }
        if options.heap_sampling {
            // Collected objects too: the profile answers "who allocated", not only "who holds".
            let mut params = json!({"includeObjectsCollectedByMajorGC": true, "includeObjectsCollectedByMinorGC": true});
            if let Some(interval) = options.heap_sampling_interval {
                params["samplingInterval"] = json!(interval);
            }
            client
                .call("HeapProfiler.startSampling", params, COMMAND)
                .await?;
        }
        if options.trace && options.page_load.is_some() {
            client
                .call("Tracing.start", page_load::trace_config(), COMMAND)
                .await?;
            // DevTools' warm-up: V8 starts its CPU profiler on the first JS run after tracing
            // starts, a cost better paid now than inside the page's first task.
            let warm_up = "(async function(){ await 1; })()";
            let params = json!({"expression": warm_up, "throwOnSideEffect": true});
            optional(&client, "Runtime.evaluate", params).await;
        } else if options.trace {
            let config = json!({
                "transferMode": "ReturnAsStream",
                "traceConfig": {
                    "recordMode": "recordAsMuchAsPossible",
                    "includedCategories": trace_categories(options.cpu),
                    "excludedCategories": ["*"],
                }
            });
            client.call("Tracing.start", config, COMMAND).await?;
        }
        if options.workers && kind == TargetKind::Node {
            // Workers started from now on wait for `Runtime.runIfWaitingForDebugger` in their
            // own session, so their recording starts before their first line runs. A worker's
            // own session has no NodeWorker domain (Node 20): workers of workers run unrecorded.
            optional(
                &client,
                "NodeWorker.enable",
                json!({"waitForDebuggerOnStart": true}),
            )
            .await;
        }
        optional(&client, "Runtime.runIfWaitingForDebugger", json!({})).await;
        let navigation = options
            .page_load
            .clone()
            .map(|spec| Navigation::start(&client, spec));
        Ok(Recorder {
            client,
            events,
            kind,
            options,
            output,
            artifacts: Vec::new(),
            gone: None,
            warnings: Vec::new(),
            quota_warned: false,
            snapshots_taken: 0,
            snapshot_width: 1,
            warning_sink: None,
            deferred: std::collections::VecDeque::new(),
            navigation,
            progress_sink: None,
            buffer_full_warned: false,
        })
    }

    /// What the recording is doing, as it happens (going to the URL, the load event, collecting
    /// the trace), for a caller that shows progress.
    pub fn set_progress_sink(&mut self, sink: tokio::sync::mpsc::UnboundedSender<String>) {
        if let Some(n) = &self.navigation {
            let _ = sink.send(format!("loading {}", n.spec().url));
        }
        self.progress_sink = Some(sink);
    }

    fn progress(&self, message: String) {
        if let Some(sink) = &self.progress_sink {
            let _ = sink.send(message);
        }
    }

    /// The connection's client (a clone): to attach to the workers [`RecordOptions::workers`]
    /// announces.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Warnings are also sent here as they happen (the CLI prints them at once).
    pub fn set_warning_sink(&mut self, sink: tokio::sync::mpsc::UnboundedSender<String>) {
        self.warning_sink = Some(sink);
    }

    fn warn(&mut self, warning: String) {
        if let Some(sink) = &self.warning_sink {
            let _ = sink.send(warning.clone());
        }
        self.warnings.push(warning);
    }

    pub fn kind(&self) -> TargetKind {
        self.kind
    }

    /// What the recording skipped so far (snapshots past the quota).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether the snapshot quota is reached; the first time, says so in the warnings.
    fn quota_reached(&mut self) -> bool {
        let Some(quota) = self.options.snapshot_quota else {
            return false;
        };
        let used: u64 = self.artifacts.iter().map(|a| a.bytes).sum();
        if used < quota {
            return false;
        }
        if !self.quota_warned {
            self.quota_warned = true;
            self.warn(format!(
                "heap snapshots stopped: the recording's files reached the quota of {quota} bytes \
                 ({used} bytes after {} file{})",
                self.artifacts.len(),
                if self.artifacts.len() == 1 { "" } else { "s" }
            ));
        }
        true
    }

    /// Waits until `duration` passes, Ctrl-C (when `ctrl_c`), the launched program finishes, or
    /// the target goes away; takes periodic snapshots meanwhile.
    pub async fn wait(&mut self, duration: Option<Duration>, ctrl_c: bool) -> Result<StopReason> {
        let interrupt = async {
            if ctrl_c {
                let _ = tokio::signal::ctrl_c().await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        let deadline = duration.map(|d| tokio::time::Instant::now() + d);
        self.wait_until(deadline, interrupt).await
    }

    /// [`Recorder::wait`] with the caller's own stop condition: when `stop` completes the
    /// recording stops as [`StopReason::Interrupted`] (Ctrl-C, SIGTERM, a sibling's end). The
    /// `deadline` is a point in time, so targets that join a recording late end with it.
    ///
    /// Periodic snapshots keep to a wall-clock schedule (start + k × period): one that takes
    /// longer than the period skips the ticks it overran, with a warning, and none starts when
    /// the last one's length would carry it past `duration`.
    pub async fn wait_until(
        &mut self,
        deadline: Option<tokio::time::Instant>,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<StopReason> {
        let start = tokio::time::Instant::now();
        let duration = deadline.map(|d| d.saturating_duration_since(start));
        let sleep =
            tokio::time::sleep_until(deadline.unwrap_or(start + Duration::from_secs(u64::MAX / 4)));
        tokio::pin!(sleep);
        let every = match self.options.heap_snapshot {
            SnapshotMode::Every(d) => Some(d),
            _ => None,
        };
        if let Some(every) = every {
            // Enough digits for every snapshot planned (the periodic ones and the last), so a
            // shell glob lists them in order; 3 when the end is not known.
            let planned = duration.map(|d| (d.as_secs_f64() / every.as_secs_f64()) as u64 + 1);
            self.snapshot_width = planned.map_or(3, |n| n.to_string().len());
        }
        let period = every.unwrap_or(Duration::from_secs(3600));
        let mut tick = tokio::time::interval_at(start + period, period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut snapshots = every.is_some();
        let mut last_length = Duration::ZERO;
        tokio::pin!(stop);
        loop {
            let (page_deadline, page_end) =
                match self.navigation.as_ref().and_then(Navigation::deadline) {
                    Some((at, end)) => (Some(at), Some(end)),
                    None => (None, None),
                };
            let page_sleep = tokio::time::sleep_until(
                page_deadline.unwrap_or(start + Duration::from_secs(u64::MAX / 4)),
            );
            tokio::select! {
                _ = &mut sleep, if duration.is_some() => return Ok(StopReason::Duration),
                _ = &mut stop => return Ok(StopReason::Interrupted),
                _ = page_sleep, if page_deadline.is_some() => {
                    return Ok(match page_end {
                        Some(LoadEnd::TimedOut) => {
                            if let Some(n) = self.navigation.as_mut() {
                                n.explained();
                            }
                            let timeout = self.navigation.as_ref().map_or(Duration::ZERO, |n| n.spec().load_timeout);
                            self.warn(format!(
                                "{} fired no load event within {:.0} s; the recording stopped \
                                 there, its trace kept",
                                self.navigation.as_ref().map_or("the page", |n| n.spec().url.as_str()),
                                timeout.as_secs_f64()
                            ));
                            StopReason::LoadTimedOut
                        }
                        _ => StopReason::PageLoaded,
                    });
                }
                reply = page_load::next_reply(&mut self.navigation) => {
                    let failed = self.navigation.as_mut().and_then(|n| n.on_reply(reply));
                    if let Some(why) = failed {
                        let url = self.navigation.as_ref().map(|n| n.spec().url.clone()).unwrap_or_default();
                        self.warn(format!(
                            "{url} did not load: {why}; the trace of the attempt is kept"
                        ));
                        return Ok(StopReason::NavigationFailed(why));
                    }
                }
                _ = tick.tick(), if snapshots => {
                    if self.quota_reached() {
                        // Keep recording the rest; no more snapshots.
                        snapshots = false;
                        continue;
                    }
                    if deadline.is_some_and(|d| tokio::time::Instant::now() + last_length > d) {
                        // It would end after the promised duration; the final one follows soon.
                        continue;
                    }
                    let began = tokio::time::Instant::now();
                    let artifacts = self.take_snapshot().await?;
                    last_length = began.elapsed();
                    self.artifacts.extend(artifacts);
                    if last_length > period {
                        self.warn(format!(
                            "heap snapshot {} took {:.1} s, longer than the {} s period; the \
                             snapshots it overran were skipped",
                            self.snapshots_taken,
                            last_length.as_secs_f64(),
                            period.as_secs_f64()
                        ));
                    }
                }
                event = self.events.recv() => match event {
                    None => {
                        let detail = "the connection closed".to_string();
                        self.gone = Some(detail.clone());
                        return Ok(StopReason::TargetGone(detail));
                    }
                    Some(e) => {
                        if let Some(stop) = self.on_event(e).await {
                            return Ok(stop);
                        }
                    }
                },
            }
            // Events that arrived while a snapshot was being taken.
            while let Some(e) = self.deferred.pop_front() {
                if let Some(stop) = self.on_event(e).await {
                    return Ok(stop);
                }
            }
        }
    }

    /// What an event means for a recording in progress: the end, or a release to send.
    async fn on_event(&mut self, e: Event) -> Option<StopReason> {
        match e.method.as_str() {
            "Page.loadEventFired" => {
                if let Some(after) = self.navigation.as_mut().and_then(Navigation::on_load) {
                    let settle = self.navigation.as_ref().and_then(|n| n.spec().settle);
                    self.progress(match settle {
                        Some(s) => format!(
                            "load event after {after:.2} s; recording {:.1} s more",
                            s.as_secs_f64()
                        ),
                        None => format!("load event after {after:.2} s"),
                    });
                }
                None
            }
            "Tracing.bufferUsage" => {
                let full = e
                    .params
                    .get("percentFull")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
                if full >= 0.99 && !self.buffer_full_warned {
                    self.buffer_full_warned = true;
                    self.warn(
                        "the trace buffer is full: events after this point are lost".to_string(),
                    );
                }
                None
            }
            "NodeRuntime.waitingForDisconnect" => Some(StopReason::ProgramFinished),
            "NodeRuntime.waitingForDebugger" => {
                let _ = self
                    .client
                    .call("Runtime.runIfWaitingForDebugger", json!({}), COMMAND)
                    .await;
                None
            }
            "Inspector.detached" | "Inspector.targetCrashed" => {
                let detail = format!("{} {}", e.method, e.params);
                self.gone = Some(detail.clone());
                Some(StopReason::TargetGone(detail))
            }
            _ => None,
        }
    }

    /// Stops every recording and writes its file. On error nothing is left under a final name.
    pub async fn stop(self) -> Result<Vec<Artifact>> {
        self.finish().await.map(|(artifacts, _)| artifacts)
    }

    /// [`Recorder::stop`], with the warnings of the whole recording (snapshots past the quota).
    pub async fn finish(mut self) -> Result<(Vec<Artifact>, Vec<String>)> {
        if let Some(detail) = &self.gone {
            return Err(CdpError::Closed {
                detail: format!(
                    "the target went away before the recording was collected: {detail}"
                ),
            });
        }
        if self.options.cpu {
            let result = self
                .client
                .call("Profiler.stop", json!({}), COLLECT)
                .await?;
            let artifact = self.write_json(ArtifactKind::CpuProfile, &result["profile"])?;
            self.artifacts.push(artifact);
        }
        if self.options.heap_sampling {
            let result = self
                .client
                .call("HeapProfiler.stopSampling", json!({}), COLLECT)
                .await?;
            let artifact = self.write_json(ArtifactKind::HeapProfile, &result["profile"])?;
            self.artifacts.push(artifact);
        }
        if let Some(warning) = self.navigation.as_ref().and_then(Navigation::missing_load) {
            self.warn(warning);
        }
        if self.options.trace {
            self.progress("collecting the trace".to_string());
            let artifact = self.collect_trace().await?;
            self.artifacts.push(artifact);
        }
        if self.options.heap_snapshot != SnapshotMode::Off && !self.quota_reached() {
            let artifacts = self.take_snapshot().await?;
            self.artifacts.extend(artifacts);
        }
        if let Some(n) = self.navigation.take() {
            if n.spec().close_page {
                // Opened for this recording: closed with it (over its own connection).
                close_page_and_wait(&self.client).await;
            }
        }
        self.client.close();
        Ok((self.artifacts, self.warnings))
    }

    fn write_json(&self, kind: ArtifactKind, value: &Value) -> Result<Artifact> {
        if value.is_null() {
            return Err(CdpError::Target(format!(
                "the target returned no {} data",
                kind.as_str()
            )));
        }
        let mut file = PartialFile::create(&self.output.dir, &self.output.stem, kind)?;
        let text = serde_json::to_vec(value).map_err(|e| CdpError::Target(e.to_string()))?;
        file.write(&text)?;
        file.commit()
    }

    /// A heap snapshot, and with [`RecordOptions::memory_usage`] on a Node target the isolate's
    /// `process.memoryUsage()` right after it (the snapshot's full GC has just run, so its
    /// `heapUsed` is the snapshot's heap). A memory reading that fails is a warning: the
    /// snapshot is kept.
    async fn take_snapshot(&mut self) -> Result<Vec<Artifact>> {
        let snapshot = self.snapshot_file().await?;
        let mut artifacts = vec![snapshot];
        if self.options.memory_usage && self.kind == TargetKind::Node {
            match self.memory_usage(&artifacts[0]).await {
                Ok(a) => artifacts.push(a),
                Err(e) => self.warn(format!(
                    "no process.memoryUsage() beside {}: {e}",
                    artifacts[0].path.display()
                )),
            }
        }
        Ok(artifacts)
    }

    /// `process.memoryUsage()` of this target's isolate, written as `SNAPSHOT.memory.json`
    /// (the snapshot's name without `.heapsnapshot`).
    async fn memory_usage(&self, snapshot: &Artifact) -> Result<Artifact> {
        let expression =
            "JSON.stringify({memory_usage: process.memoryUsage(), pid: process.pid, time_ms: Date.now()})";
        let reply = self
            .client
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
                COMMAND,
            )
            .await?;
        if let Some(e) = reply.get("exceptionDetails") {
            // "illegal access": an isolate that is exiting runs no more JS.
            return Err(CdpError::Target(format!(
                "the isolate threw {}",
                e["exception"]["value"]
            )));
        }
        let text = reply["result"]["value"].as_str().ok_or_else(|| {
            CdpError::Target(format!("Runtime.evaluate answered {}", reply["result"]))
        })?;
        let mut value: Value = serde_json::from_str(text).map_err(|e| {
            CdpError::Target(format!("Runtime.evaluate answered {text:?}, not JSON: {e}"))
        })?;
        let name = snapshot
            .path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        value["kind"] = json!("memory-usage");
        value["snapshot"] = json!(name);
        let stem = name.strip_suffix(".heapsnapshot").unwrap_or(&name);
        let mut file = PartialFile::create(&self.output.dir, stem, ArtifactKind::MemoryUsage)?;
        let text =
            serde_json::to_vec_pretty(&value).map_err(|e| CdpError::Target(e.to_string()))?;
        file.write(&text)?;
        file.commit()
    }

    /// `HeapProfiler.takeHeapSnapshot`: chunks arrive as events before the reply; each goes
    /// straight to disk.
    async fn snapshot_file(&mut self) -> Result<Artifact> {
        // Periodic snapshots are numbered from 1 (`X-1`, `X-2`, …, zero-padded), the last one
        // included, so their names sort in the order they were taken.
        let stem = match self.options.heap_snapshot {
            SnapshotMode::Every(_) => {
                self.snapshots_taken += 1;
                format!(
                    "{}-{:0width$}",
                    self.output.stem,
                    self.snapshots_taken,
                    width = self.snapshot_width
                )
            }
            _ => self.output.stem.clone(),
        };
        let mut file = PartialFile::create(&self.output.dir, &stem, ArtifactKind::HeapSnapshot)?;
        let call = self.client.call(
            "HeapProfiler.takeHeapSnapshot",
            json!({"reportProgress": false}),
            COLLECT,
        );
        tokio::pin!(call);
        loop {
            tokio::select! {
                biased;
                event = self.events.recv() => match event {
                    Some(e) if e.method == "HeapProfiler.addHeapSnapshotChunk" => {
                        if let Some(chunk) = e.params.get("chunk").and_then(Value::as_str) {
                            file.write(chunk.as_bytes())?;
                        }
                    }
                    // Kept for `wait`: the program may finish (waitingForDisconnect) meanwhile.
                    Some(e) => self.deferred.push_back(e),
                    None => return Err(CdpError::Closed { detail: "while taking a heap snapshot".to_string() }),
                },
                result = &mut call => {
                    result?;
                    break;
                }
            }
        }
        // Chunks routed before the reply may still be queued.
        while let Ok(e) = self.events.try_recv() {
            if e.method == "HeapProfiler.addHeapSnapshotChunk" {
                if let Some(chunk) = e.params.get("chunk").and_then(Value::as_str) {
                    file.write(chunk.as_bytes())?;
                }
            } else {
                self.deferred.push_back(e);
            }
        }
        file.commit()
    }

    /// `Tracing.end`, then the trace read from its IO stream into the file.
    async fn collect_trace(&mut self) -> Result<Artifact> {
        self.client.call("Tracing.end", json!({}), COMMAND).await?;
        let deadline = tokio::time::Instant::now() + COLLECT;
        let stream = loop {
            let event = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .map_err(|_| CdpError::Timeout {
                    what: "Tracing.tracingComplete".to_string(),
                    after: COLLECT,
                })?;
            match event {
                Some(e) if e.method == "Tracing.tracingComplete" => {
                    break e
                        .params
                        .get("stream")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| {
                            CdpError::Target(
                                "Tracing.tracingComplete came without a stream".to_string(),
                            )
                        })?;
                }
                Some(_) => {}
                None => {
                    return Err(CdpError::Closed {
                        detail: "while collecting the trace".to_string(),
                    })
                }
            }
        };
        let mut file =
            PartialFile::create(&self.output.dir, &self.output.stem, ArtifactKind::Trace)?;
        loop {
            let chunk = self
                .client
                .call(
                    "IO.read",
                    json!({"handle": stream, "size": 1 << 20}),
                    COLLECT,
                )
                .await?;
            let data = chunk.get("data").and_then(Value::as_str).unwrap_or("");
            if chunk.get("base64Encoded").and_then(Value::as_bool) == Some(true) {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| CdpError::Target(format!("IO.read returned bad base64: {e}")))?;
                file.write(&bytes)?;
            } else {
                file.write(data.as_bytes())?;
            }
            if chunk.get("eof").and_then(Value::as_bool) == Some(true) {
                break;
            }
        }
        let _ = self
            .client
            .call("IO.close", json!({"handle": stream}), COMMAND)
            .await;
        file.commit()
    }
}
