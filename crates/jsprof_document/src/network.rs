//! `jsprof network TRACE --json` ([`NetworkReport`]): every request of the waterfall, in
//! DevTools' order, with its timing phases.

use jsprof_pageload::units::us_to_ms;
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::CpuInput;
use crate::page_common::{story, Clock};
use crate::{warnings_json, JsonWarning, Result};

/// One request of the waterfall.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RequestJson {
    pub url: String,
    pub request_id: String,
    /// When the request was issued (the first `ResourceWillSendRequest`/`ResourceSendRequest`).
    pub start_ms: f64,
    /// DevTools' bar end: the `ResourceFinish` event.
    pub end_ms: f64,
    pub dur_ms: f64,
    /// When the network stack finished receiving it.
    pub finish_ms: f64,
    pub send_start_ms: f64,
    /// Response headers received (first byte of the body).
    pub download_start_ms: f64,
    pub queueing_ms: f64,
    pub stalled_ms: f64,
    /// Time to first byte from the request being sent (`receiveHeadersStart - sendEnd`).
    pub server_response_ms: f64,
    pub waiting_ms: f64,
    pub download_ms: f64,
    pub priority: String,
    pub initial_priority: String,
    pub fetch_priority_hint: String,
    pub mime_type: String,
    pub resource_type: String,
    pub method: Option<String>,
    pub transfer_size: u64,
    pub decoded_body_size: u64,
    pub status: u32,
    pub protocol: String,
    /// `blocking`, `in_body_parser_blocking`, `non_blocking`, …
    pub render_blocking: String,
    pub from_cache: bool,
    pub failed: bool,
    pub finished: bool,
    pub frame: String,
    pub initiator_type: Option<String>,
    pub initiator_url: Option<String>,
    pub redirects: Vec<String>,
}

/// `jsprof network TRACE --json`: every request, in DevTools' order.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct NetworkReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub requests: Vec<RequestJson>,
    pub transfer_size: u64,
}

/// The network document of a trace.
pub fn network_report(input: &CpuInput) -> Result<NetworkReport> {
    let story = story(input)?;
    let c = Clock::new(story.bounds.start);
    let requests: Vec<RequestJson> = story
        .requests
        .iter()
        .map(|r| RequestJson {
            url: r.url.clone(),
            request_id: r.request_id.clone(),
            start_ms: c.ts(r.start),
            end_ms: c.ts(r.end),
            dur_ms: us_to_ms(r.end - r.start),
            finish_ms: c.ts(r.finish),
            send_start_ms: c.ts(r.send_start),
            download_start_ms: c.ts(r.download_start),
            queueing_ms: us_to_ms(r.queueing),
            stalled_ms: us_to_ms(r.stalled),
            server_response_ms: us_to_ms(r.server_response_time),
            waiting_ms: us_to_ms(r.waiting),
            download_ms: us_to_ms(r.download),
            priority: r.priority.clone(),
            initial_priority: r.initial_priority.clone(),
            fetch_priority_hint: r.fetch_priority_hint.clone(),
            mime_type: r.mime_type.clone(),
            resource_type: r.resource_type.clone(),
            method: r.request_method.clone(),
            transfer_size: r.transfer_size.max(0.0) as u64,
            decoded_body_size: r.decoded_body_length.max(0.0) as u64,
            status: r.status,
            protocol: r.protocol.clone(),
            render_blocking: r.render_blocking.clone(),
            from_cache: r.from_cache,
            failed: r.failed,
            finished: r.finished,
            frame: r.frame.clone(),
            initiator_type: r.initiator.as_ref().map(|(t, _)| t.clone()),
            initiator_url: r.initiator.as_ref().and_then(|(_, u)| u.clone()),
            redirects: r.redirects.clone(),
        })
        .collect();
    Ok(NetworkReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        transfer_size: requests.iter().map(|r| r.transfer_size).sum(),
        requests,
    })
}
