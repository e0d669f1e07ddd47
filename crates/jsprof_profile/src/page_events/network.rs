//! The network requests' events (`Resource*`, `PreloadRenderBlockingStatusChange`), as DevTools'
//! `NetworkRequestsHandler` reads them: each kept with its request id, to be gathered per request
//! in `jsprof_pageload`.

use serde_json::Value;

use super::args::{bool_at, f64_at, owned_at, stack_urls, str_at, string};
use super::{
    Event, Finish, NetworkEvent, PageEvents, RequestEvent, ResourceTiming, Response, SendRequest,
    Stamp,
};

impl PageEvents {
    /// A network event; one without `args.data.requestId` is counted and dropped.
    pub(super) fn push_request(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            name, dur, data, ..
        } = *e;
        let Some(request_id) = self.required(
            str_at(data, &["requestId"]),
            "network events without `args.data.requestId`",
        ) else {
            return;
        };
        let event = match name {
            "ResourceWillSendRequest" => NetworkEvent::WillSendRequest,
            "ResourceSendRequest" => {
                let Some(url) = self.required(
                    str_at(data, &["url"]),
                    "`ResourceSendRequest` without `args.data.url`",
                ) else {
                    return;
                };
                NetworkEvent::SendRequest(send_request(url, data))
            }
            "ResourceReceiveResponse" => NetworkEvent::ReceiveResponse(response(data)),
            "ResourceReceivedData" => NetworkEvent::ReceivedData {
                encoded_data_length: f64_at(data, &["encodedDataLength"]).unwrap_or(0.0),
            },
            "ResourceFinish" => NetworkEvent::Finish(Finish {
                finish_time: f64_at(data, &["finishTime"]).filter(|&t| t != 0.0),
                encoded_data_length: f64_at(data, &["encodedDataLength"]),
                decoded_body_length: f64_at(data, &["decodedBodyLength"]).unwrap_or(0.0),
                did_fail: bool_at(data, &["didFail"]),
            }),
            "ResourceChangePriority" => NetworkEvent::ChangePriority {
                priority: string(str_at(data, &["priority"])),
            },
            "ResourceMarkAsCached" => NetworkEvent::MarkAsCached,
            "PreloadRenderBlockingStatusChange" => {
                NetworkEvent::PreloadRenderBlockingStatusChange {
                    render_blocking: owned_at(data, &["renderBlocking"]),
                }
            }
            _ => return,
        };
        self.requests.push(RequestEvent {
            at,
            dur,
            request_id: request_id.to_string(),
            event,
        });
    }

    /// `LinkPreconnect`: a `<link rel=preconnect>`.
    pub(super) fn push_preconnect(&mut self, e: &Event<'_>, _: Stamp) {
        if let Some(url) = str_at(e.data, &["url"]) {
            self.link_preconnects.push(url.to_string());
        }
    }
}

/// `ResourceSendRequest`'s data.
fn send_request(url: &str, data: &Value) -> SendRequest {
    SendRequest {
        url: url.to_string(),
        priority: string(str_at(data, &["priority"])),
        frame: string(str_at(data, &["frame"])),
        request_method: owned_at(data, &["requestMethod"]),
        resource_type: owned_at(data, &["resourceType"]),
        render_blocking: owned_at(data, &["renderBlocking"]),
        fetch_priority_hint: owned_at(data, &["fetchPriorityHint"]),
        is_link_preload: bool_at(data, &["isLinkPreload"]),
        initiator: str_at(data, &["initiator", "type"])
            .map(|t| (t.to_string(), owned_at(data, &["initiator", "url"]))),
        fetch_type: owned_at(data, &["initiator", "fetchType"]),
        stack_trace: stack_urls(data),
    }
}

/// `ResourceReceiveResponse`'s data.
fn response(data: &Value) -> Response {
    Response {
        status: f64_at(data, &["statusCode"]).unwrap_or(0.0) as u32,
        mime_type: string(str_at(data, &["mimeType"])),
        protocol: owned_at(data, &["protocol"]),
        from_cache: bool_at(data, &["fromCache"]),
        from_service_worker: bool_at(data, &["fromServiceWorker"]),
        timing: data.get("timing").and_then(timing_of),
        encoded_data_length: f64_at(data, &["encodedDataLength"]).unwrap_or(0.0),
        has_connection_id: data.get("connectionId").is_some(),
        connection_id: f64_at(data, &["connectionId"]).unwrap_or(0.0),
        connection_reused: bool_at(data, &["connectionReused"]),
        has_headers: data.get("headers").is_some_and(|h| !h.is_null()),
        headers: data
            .get("headers")
            .and_then(Value::as_array)
            .map(|hs| {
                hs.iter()
                    .filter_map(|h| {
                        Some((
                            str_at(h, &["name"])?.to_string(),
                            str_at(h, &["value"])?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn timing_of(t: &Value) -> Option<ResourceTiming> {
    let f = |k: &str| t.get(k).and_then(Value::as_f64);
    Some(ResourceTiming {
        request_time: f("requestTime")?,
        dns_start: f("dnsStart").unwrap_or(-1.0),
        dns_end: f("dnsEnd").unwrap_or(-1.0),
        connect_start: f("connectStart").unwrap_or(-1.0),
        connect_end: f("connectEnd").unwrap_or(-1.0),
        ssl_start: f("sslStart").unwrap_or(-1.0),
        ssl_end: f("sslEnd").unwrap_or(-1.0),
        send_start: f("sendStart").unwrap_or(0.0),
        send_end: f("sendEnd").unwrap_or(0.0),
        receive_headers_start: f("receiveHeadersStart"),
        receive_headers_end: f("receiveHeadersEnd").unwrap_or(0.0),
        proxy_start: f("proxyStart").unwrap_or(-1.0),
        proxy_end: f("proxyEnd").unwrap_or(-1.0),
    })
}
