//! A CDP connection over one WebSocket: numbered commands with replies, and a stream of events.
//!
//! One task reads the socket and routes replies to their waiting callers and events to the event
//! channel, so events that arrive while a command runs (heap snapshot chunks arrive before
//! `takeHeapSnapshot` returns) are never lost. Message-size limits are lifted: `Profiler.stop`
//! returns a whole profile in one message.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use crate::endpoint::{self, Reach};
use crate::error::{CdpError, Result};

/// A CDP event: `method`, `params` and, for flattened sessions, the session id.
#[derive(Clone, Debug)]
pub struct Event {
    pub method: String,
    pub params: Value,
    pub session_id: Option<String>,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value>>>>>;

/// A connection to one CDP endpoint.
pub struct Client {
    url: String,
    peer: SocketAddr,
    next_id: AtomicU64,
    outgoing: mpsc::UnboundedSender<Message>,
    pending: Pending,
    closed: Arc<Mutex<Option<String>>>,
}

impl Client {
    /// Connects to a WebSocket debugger URL (`ws://127.0.0.1:9229/<id>`) on an address `reach`
    /// allows. Returns the client and the receiver of its events.
    pub async fn connect(
        url: &str,
        timeout: Duration,
        reach: Reach,
    ) -> Result<(Client, mpsc::UnboundedReceiver<Event>)> {
        let config = WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        // The TCP connection is ours, to an address that passed the check; tungstenite only
        // speaks the handshake over it.
        let endpoint = endpoint::ws_endpoint(url)?;
        let stream = endpoint::connect(&endpoint, reach, timeout).await?;
        let peer = stream.peer_addr().map_err(|e| CdpError::Connect {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        let connect = tokio_tungstenite::client_async_with_config(url, stream, Some(config));
        let (socket, _) = tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| CdpError::Timeout {
                what: format!("a WebSocket connection to {url}"),
                after: timeout,
            })?
            .map_err(|e| CdpError::Connect {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
        let (mut sink, mut stream) = socket.split();
        let (outgoing, mut outgoing_rx) = mpsc::unbounded_channel::<Message>();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let closed: Arc<Mutex<Option<String>>> = Arc::default();

        tokio::spawn(async move {
            while let Some(message) = outgoing_rx.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });

        let reader_pending = pending.clone();
        let reader_closed = closed.clone();
        tokio::spawn(async move {
            let detail = loop {
                let message = match stream.next().await {
                    None => break String::new(),
                    Some(Err(e)) => break e.to_string(),
                    Some(Ok(m)) => m,
                };
                let text = match message {
                    Message::Text(t) => t.to_string(),
                    Message::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
                    Message::Close(_) => break String::new(),
                    _ => continue,
                };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if let Some(id) = value.get("id").and_then(Value::as_u64) {
                    let waiter = reader_pending.lock().expect("pending lock").remove(&id);
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(reply_result(value));
                    }
                } else if let Some(method) = value.get("method").and_then(Value::as_str) {
                    let event = Event {
                        method: method.to_string(),
                        session_id: value
                            .get("sessionId")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        params: value.get("params").cloned().unwrap_or(Value::Null),
                    };
                    let _ = events_tx.send(event);
                }
            };
            *reader_closed.lock().expect("closed lock") = Some(detail.clone());
            // Fail every caller still waiting: the connection is gone.
            for (_, waiter) in reader_pending.lock().expect("pending lock").drain() {
                let _ = waiter.send(Err(CdpError::Closed {
                    detail: detail.clone(),
                }));
            }
        });

        let client = Client {
            url: url.to_string(),
            peer,
            next_id: AtomicU64::new(1),
            outgoing,
            pending,
            closed,
        };
        Ok((client, events_rx))
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the connection really goes to (after name resolution).
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }

    /// True once the socket has closed.
    pub fn is_closed(&self) -> bool {
        self.closed.lock().expect("closed lock").is_some()
    }

    /// Sends `method` with `params` and waits up to `timeout` for its result.
    pub async fn call(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        self.call_in(None, method, params, timeout).await
    }

    /// Like [`Client::call`], inside a flattened target session.
    pub async fn call_in(
        &self,
        session_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        if let Some(detail) = self.closed.lock().expect("closed lock").clone() {
            return Err(CdpError::Closed { detail });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session_id {
            message["sessionId"] = json!(session);
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, tx);
        if self
            .outgoing
            .send(Message::Text(message.to_string().into()))
            .is_err()
        {
            self.pending.lock().expect("pending lock").remove(&id);
            return Err(CdpError::Closed {
                detail: String::new(),
            });
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(result)) => result.map_err(|e| match e {
                CdpError::Protocol { code, message, .. } => CdpError::Protocol {
                    method: method.to_string(),
                    code,
                    message,
                },
                other => other,
            }),
            Ok(Err(_)) => Err(CdpError::Closed {
                detail: String::new(),
            }),
            Err(_) => {
                self.pending.lock().expect("pending lock").remove(&id);
                Err(CdpError::Timeout {
                    what: format!("the reply to {method}"),
                    after: timeout,
                })
            }
        }
    }

    /// Closes the connection (the target's inspector sees the debugger detach).
    pub fn close(&self) {
        let _ = self.outgoing.send(Message::Close(None));
    }
}

fn reply_result(value: Value) -> Result<Value> {
    if let Some(error) = value.get("error") {
        return Err(CdpError::Protocol {
            method: String::new(),
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_string(),
        });
    }
    Ok(value.get("result").cloned().unwrap_or(Value::Null))
}
