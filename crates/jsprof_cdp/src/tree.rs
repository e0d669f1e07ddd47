//! Recording several targets at once — the Node processes of a launched command and the worker
//! threads of each — every one in its own task, with its own files, all stopped together.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::artifact::Artifact;
use crate::client::{Client, Event};
use crate::recorder::{OutputSpec, RecordOptions, Recorder, StopReason};
use crate::target::TargetKind;

/// Which process or thread a recording is of.
#[derive(Clone, Debug, Default)]
pub struct TargetLabel {
    pub pid: Option<u32>,
    pub ppid: Option<u32>,
    /// The worker thread's id (`NodeWorker` `workerId`); `None` for a process's main thread.
    pub worker: Option<String>,
    pub title: String,
}

/// How the recording of one target ended.
#[derive(Debug)]
pub struct TargetRecording {
    pub label: TargetLabel,
    /// `None` when it failed before waiting ([`TargetRecording::error`] says why).
    pub stop: Option<StopReason>,
    pub artifacts: Vec<Artifact>,
    pub warnings: Vec<String>,
    /// Why nothing (or not everything) was saved.
    pub error: Option<String>,
}

/// What every target's task shares: the stop signal, where results and warnings go.
#[derive(Clone)]
pub struct Tree {
    stop: watch::Receiver<bool>,
    /// A worker thread's recording also stops when its process's recording does: the process's
    /// connection carries the worker's messages and closes once the process is collected.
    parent_stop: Option<watch::Receiver<bool>>,
    done: mpsc::UnboundedSender<TargetRecording>,
    warnings: mpsc::UnboundedSender<(String, String)>,
    options: RecordOptions,
    deadline: Option<tokio::time::Instant>,
}

/// The receiving ends of a [`Tree`], and its stop switch.
pub struct TreeHandle {
    pub stop: watch::Sender<bool>,
    /// One result per target; ends once every task (and the [`Tree`] itself) is dropped.
    pub done: mpsc::UnboundedReceiver<TargetRecording>,
    /// Warnings as they happen: the target ([`describe`]), the warning.
    pub warnings: mpsc::UnboundedReceiver<(String, String)>,
}

/// One target for [`Tree::spawn`] to record: its connection and events, what it is, where its
/// artifacts go and how the summary names it.
struct Target {
    client: Client,
    events: mpsc::UnboundedReceiver<Event>,
    kind: TargetKind,
    output: OutputSpec,
    label: TargetLabel,
}

impl Tree {
    /// A tree whose targets record with `options` until `deadline` (or the stop switch).
    pub fn new(
        options: RecordOptions,
        deadline: Option<tokio::time::Instant>,
    ) -> (Tree, TreeHandle) {
        let (stop_tx, stop_rx) = watch::channel(false);
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let (warn_tx, warn_rx) = mpsc::unbounded_channel();
        (
            Tree {
                stop: stop_rx,
                parent_stop: None,
                done: done_tx,
                warnings: warn_tx,
                options,
                deadline,
            },
            TreeHandle {
                stop: stop_tx,
                done: done_rx,
                warnings: warn_rx,
            },
        )
    }

    /// Records `client`'s target in a new task until it finishes by itself, goes away, or the
    /// tree is stopped; with [`RecordOptions::workers`], each of its worker threads too, as
    /// `OUTPUT.stem-worker<ID>`. The task ends once its result is handed in.
    pub fn spawn(
        &self,
        client: Client,
        events: mpsc::UnboundedReceiver<Event>,
        kind: TargetKind,
        output: OutputSpec,
        label: TargetLabel,
    ) -> JoinHandle<()> {
        let tree = self.clone();
        let target = Target {
            client,
            events,
            kind,
            output,
            label,
        };
        tokio::spawn(async move {
            let result = tree.record(target).await;
            let _ = tree.done.send(result);
        })
    }

    async fn record(&self, target: Target) -> TargetRecording {
        let Target {
            client,
            events,
            kind,
            output,
            label,
        } = target;
        let workers = self.options.workers && kind == TargetKind::Node;
        let mut options = self.options.clone();
        options.workers = workers;
        let worker_events = workers.then(|| client.worker_events());
        let mut result = TargetRecording {
            label: label.clone(),
            stop: None,
            artifacts: Vec::new(),
            warnings: Vec::new(),
            error: None,
        };
        let mut recorder =
            match Recorder::start(client.clone(), events, kind, options, output.clone()).await {
                Ok(r) => r,
                Err(e) => {
                    // Never leave it paused at its start, waiting for us.
                    let _ = client
                        .call(
                            "Runtime.runIfWaitingForDebugger",
                            serde_json::json!({}),
                            Duration::from_secs(5),
                        )
                        .await;
                    client.close();
                    result.error = Some(format!("cannot start recording: {e}"));
                    return result;
                }
            };
        let (sink, mut sunk) = mpsc::unbounded_channel();
        recorder.set_warning_sink(sink);
        let who = describe(&label);
        let warnings = self.warnings.clone();
        let forward = who.clone();
        tokio::spawn(async move {
            while let Some(w) = sunk.recv().await {
                let _ = warnings.send((forward.clone(), w));
            }
        });
        let workers = worker_events.map(|worker_events| {
            self.watch_workers(client.clone(), worker_events, output, label.clone())
        });
        let mut stop = self.stop.clone();
        let mut parent_stop = self.parent_stop.clone();
        let stopped = async move {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => {}
                _ = async {
                    match parent_stop.as_mut() {
                        Some(p) => { let _ = p.wait_for(|s| *s).await; }
                        None => std::future::pending::<()>().await,
                    }
                } => {}
            }
        };
        let reason = recorder.wait_until(self.deadline, stopped).await;
        if let Some(workers) = workers {
            let gone = matches!(reason, Ok(StopReason::TargetGone(_)));
            workers.stop_and_wait(!gone).await;
        }
        let reason = match reason {
            Ok(reason) => reason,
            Err(e) => {
                result.error = Some(e.to_string());
                client.close();
                return result;
            }
        };
        result.stop = Some(reason.clone());
        if let StopReason::TargetGone(detail) = reason {
            result.error = Some(format!(
                "it went away before its recording was collected ({detail}); nothing was saved"
            ));
            result.warnings = recorder.warnings().to_vec();
            return result;
        }
        match recorder.finish().await {
            Ok((artifacts, warnings)) => {
                result.artifacts = artifacts;
                result.warnings = warnings;
            }
            Err(e) => result.error = Some(format!("collecting its recording failed: {e}")),
        }
        client.close();
        result
    }

    /// Starts a recording for every worker `client`'s target announces; they stop with the
    /// returned [`Workers`].
    fn watch_workers(
        &self,
        client: Client,
        mut events: mpsc::UnboundedReceiver<Event>,
        output: OutputSpec,
        parent: TargetLabel,
    ) -> Workers {
        let (stop_tx, stop_rx) = watch::channel(false);
        let tasks = Arc::new(Mutex::new(Vec::new()));
        let workers = Workers {
            stop: stop_tx,
            tasks: tasks.clone(),
        };
        let mut tree = self.clone();
        tree.parent_stop = Some(stop_rx);
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if event.method != "NodeWorker.attachedToWorker" {
                    continue;
                }
                let Some(session) = event.params["sessionId"].as_str() else {
                    continue;
                };
                let info = &event.params["workerInfo"];
                let id = info["workerId"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| info["workerId"].as_u64().map(|n| n.to_string()))
                    .unwrap_or_else(|| session.to_string());
                let title = info["title"].as_str().unwrap_or("worker").to_string();
                let (worker, worker_events) = client.attach_worker(session);
                let label = TargetLabel {
                    pid: parent.pid,
                    ppid: parent.ppid,
                    worker: Some(id.clone()),
                    title,
                };
                let output = OutputSpec {
                    dir: output.dir.clone(),
                    stem: format!("{}-worker{id}", output.stem),
                };
                let task = tree.spawn(worker, worker_events, TargetKind::Node, output, label);
                tasks.lock().expect("workers lock").push(task);
            }
        });
        workers
    }
}

/// The worker threads' recordings of one process.
struct Workers {
    stop: watch::Sender<bool>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Workers {
    /// Stops every worker's recording and, with `wait`, waits until each has handed in its
    /// files: only then may the process's connection, which carries their messages, close
    /// (closing it first failed the workers' collection as "the worker detached"). A worker
    /// attached meanwhile is stopped at once, and waited for too.
    async fn stop_and_wait(self, wait: bool) {
        let _ = self.stop.send(true);
        if !wait {
            return;
        }
        loop {
            let tasks = std::mem::take(&mut *self.tasks.lock().expect("workers lock"));
            if tasks.is_empty() {
                return;
            }
            for task in tasks {
                let _ = task.await;
            }
        }
    }
}

/// `pid 42 (app.js)`, `pid 42 worker 1 (worker.js)`.
pub fn describe(label: &TargetLabel) -> String {
    let mut s = match label.pid {
        Some(pid) => format!("pid {pid}"),
        None => label.title.clone(),
    };
    if let Some(worker) = &label.worker {
        s.push_str(&format!(" worker {worker}"));
    }
    if label.pid.is_some() && !label.title.is_empty() {
        s.push_str(&format!(" ({})", label.title));
    }
    s
}

/// How long stopped processes get to exit after SIGINT before SIGKILL.
pub const EXIT_GRACE: Duration = Duration::from_secs(5);
