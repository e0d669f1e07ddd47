//! A small Chrome DevTools Protocol client and the recorder built on it: CPU profiles, sampling
//! heap profiles, heap snapshots (streamed to disk) and Chromium traces, from Node processes
//! (launched, by address, by pid) and Chromium pages; and page loads recorded as DevTools'
//! "Record and reload" does ([`RecordOptions::page_load`], `page_load.rs`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), jsprof_cdp::CdpError> {
//! use std::time::Duration;
//! use jsprof_cdp::{Client, OutputSpec, RecordOptions, Recorder};
//! use jsprof_cdp::Reach;
//! let target = jsprof_cdp::resolve_inspect("127.0.0.1:9229", Reach::Loopback).await?;
//! let (client, events) =
//!     Client::connect(&target.ws_url, Duration::from_secs(5), Reach::Loopback).await?;
//! let options = RecordOptions { cpu: true, ..Default::default() };
//! let output = OutputSpec { dir: "profiles".into(), stem: "app".into() };
//! let mut recorder = Recorder::start(client, events, target.kind, options, output).await?;
//! recorder.wait(Some(Duration::from_secs(5)), true).await?;
//! for file in recorder.stop().await? {
//!     println!("{}", file.path.display());
//! }
//! # Ok(()) }
//! ```

mod artifact;
mod client;
mod endpoint;
mod error;
mod http;
mod lab;
mod launch;
mod page_load;
mod recorder;
mod target;
mod tree;

pub use artifact::{timestamp, unused_path, utc, Artifact, ArtifactKind, PartialFile, UtcTime};
pub use client::{Client, Event};
pub use endpoint::{addr_endpoint, is_loopback, target_id, ws_endpoint, Endpoint, Reach};
pub use error::{CdpError, Result};
pub use http::get_json;
pub use lab::{
    record_page, Browser, Lab, LabRun, LabSpec, NetworkConditions, NetworkPreset, Sinks, Throttling,
};
pub use launch::{
    launch, launch_with, LaunchOptions, Launched, Registration, Registry, CLOSED, REGISTRY_ENV,
};
pub use page_load::{
    check_page_url, performance_panel_categories, PageLoad, DEFAULT_SETTLE, LOAD_TIMEOUT,
};
pub use recorder::{
    OutputSpec, RecordOptions, Recorder, SnapshotMode, StopReason, MIN_SNAPSHOT_PERIOD,
};
pub use target::{
    check_node_process, open_chrome_tab, resolve_chrome, resolve_inspect, resolve_pid, Target,
    TargetKind, NODE_DEFAULT_PORT,
};
pub use tree::{describe, TargetLabel, TargetRecording, Tree, TreeHandle, EXIT_GRACE};
