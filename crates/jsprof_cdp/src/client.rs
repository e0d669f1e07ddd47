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

/// Where the messages of worker sessions (`NodeWorker.receivedMessageFromWorker`) go, by
/// session id; and where the `NodeWorker.*` lifecycle events go once someone asked for them.
#[derive(Default)]
struct Routes {
    workers: HashMap<String, mpsc::UnboundedSender<String>>,
    worker_events: Option<mpsc::UnboundedSender<Event>>,
}

/// How commands leave: a WebSocket, or wrapped in `NodeWorker.sendMessageToWorker` on the
/// connection of the worker's parent.
#[derive(Clone)]
enum Outgoing {
    Socket(mpsc::UnboundedSender<Message>),
    Worker {
        tx: mpsc::UnboundedSender<String>,
        parent: Box<Client>,
        session: String,
    },
}

/// A connection to one CDP endpoint (cheap to clone: clones share the connection).
#[derive(Clone)]
pub struct Client {
    url: String,
    peer: SocketAddr,
    next_id: Arc<AtomicU64>,
    outgoing: Outgoing,
    pending: Pending,
    closed: Arc<Mutex<Option<String>>>,
    routes: Arc<Mutex<Routes>>,
}

/// The receiving side of a [`Client`], owned by the task that reads its transport: replies go to
/// their waiting callers, events to the event channel, and `shut` closes the client.
struct Inbox {
    pending: Pending,
    events: mpsc::UnboundedSender<Event>,
    routes: Arc<Mutex<Routes>>,
    closed: Arc<Mutex<Option<String>>>,
}

impl Inbox {
    /// Routes one incoming message: a reply to its caller, a worker's message to that worker's
    /// client, `NodeWorker.*` events to whoever asked for them, other events to `events`.
    fn dispatch(&self, text: &str) {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        if let Some(id) = value.get("id").and_then(Value::as_u64) {
            let waiter = self.pending.lock().expect("pending lock").remove(&id);
            if let Some(waiter) = waiter {
                let _ = waiter.send(reply_result(value));
            }
            return;
        }
        let Some(method) = value.get("method").and_then(Value::as_str) else {
            return;
        };
        let params = value.get("params").cloned().unwrap_or(Value::Null);
        let session = params.get("sessionId").and_then(Value::as_str);
        let mut routes = self.routes.lock().expect("routes lock");
        match (method, session) {
            ("NodeWorker.receivedMessageFromWorker", Some(session)) => {
                if let (Some(tx), Some(message)) = (
                    routes.workers.get(session),
                    params.get("message").and_then(Value::as_str),
                ) {
                    let _ = tx.send(message.to_string());
                }
                return;
            }
            ("NodeWorker.detachedFromWorker", Some(session)) => {
                // Its client's reader ends: the worker is gone.
                routes.workers.remove(session);
            }
            _ => {}
        }
        let event = Event {
            method: method.to_string(),
            session_id: value
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string),
            params,
        };
        match &routes.worker_events {
            Some(tx) if method.starts_with("NodeWorker.") => {
                let _ = tx.send(event);
            }
            _ => {
                let _ = self.events.send(event);
            }
        }
    }

    /// The connection is gone: every caller still waiting fails, every worker's client closes.
    fn shut(&self, detail: String) {
        *self.closed.lock().expect("closed lock") = Some(detail.clone());
        for (_, waiter) in self.pending.lock().expect("pending lock").drain() {
            let _ = waiter.send(Err(CdpError::Closed {
                detail: detail.clone(),
            }));
        }
        let mut routes = self.routes.lock().expect("routes lock");
        routes.workers.clear();
        routes.worker_events = None;
    }
}

impl Client {
    /// A fresh client sending through `outgoing`, the inbox its transport's reader feeds, and
    /// the receiver of its events: the part every transport (WebSocket, lines, worker) shares.
    fn assemble(
        url: String,
        peer: SocketAddr,
        outgoing: Outgoing,
    ) -> (Client, Inbox, mpsc::UnboundedReceiver<Event>) {
        let (events, events_rx) = mpsc::unbounded_channel();
        let client = Client {
            url,
            peer,
            next_id: Arc::new(AtomicU64::new(1)),
            outgoing,
            pending: Pending::default(),
            closed: Arc::default(),
            routes: Arc::default(),
        };
        let inbox = Inbox {
            pending: client.pending.clone(),
            events,
            routes: client.routes.clone(),
            closed: client.closed.clone(),
        };
        (client, inbox, events_rx)
    }

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
        let (client, inbox, events_rx) =
            Client::assemble(url.to_string(), peer, Outgoing::Socket(outgoing));

        tokio::spawn(async move {
            while let Some(message) = outgoing_rx.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });

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
                inbox.dispatch(&text);
            };
            inbox.shut(detail);
        });
        Ok((client, events_rx))
    }

    /// A client over newline-delimited JSON messages (one CDP message a line, both ways): the
    /// channel of `jsprof record`'s preload relay, a Unix socket in a directory only the
    /// recording user can open ([`crate::launch`]). `name` stands for the URL in messages.
    /// Lines are not bounded: the peer is a process of our own user (the socket's peer
    /// credentials are checked before this).
    pub fn over_lines<R, W>(
        reader: R,
        mut writer: W,
        name: String,
    ) -> (Client, mpsc::UnboundedReceiver<Event>)
    where
        R: tokio::io::AsyncBufRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let (outgoing, mut outgoing_rx) = mpsc::unbounded_channel::<Message>();
        // No network peer: an in-process session behind a Unix socket.
        let peer = SocketAddr::from(([0, 0, 0, 0], 0));
        let (client, inbox, events_rx) = Client::assemble(name, peer, Outgoing::Socket(outgoing));
        tokio::spawn(async move {
            while let Some(message) = outgoing_rx.recv().await {
                let text = match message {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => break,
                    _ => continue,
                };
                if writer.write_all(text.as_bytes()).await.is_err()
                    || writer.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
            let _ = writer.shutdown().await;
        });
        tokio::spawn(async move {
            let mut lines = reader.lines();
            let detail = loop {
                match lines.next_line().await {
                    Ok(Some(line)) => inbox.dispatch(&line),
                    Ok(None) => break String::new(),
                    Err(e) => break e.to_string(),
                }
            };
            inbox.shut(detail);
        });
        (client, events_rx)
    }

    /// The `NodeWorker.*` events of this connection (`attachedToWorker`, `detachedFromWorker`),
    /// from now on apart from the other events. Messages from attached workers never go there:
    /// they reach the worker's own [`Client`] ([`Client::attach_worker`]).
    pub fn worker_events(&self) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.routes.lock().expect("routes lock").worker_events = Some(tx);
        rx
    }

    /// A client for the worker session `session_id` (from `NodeWorker.attachedToWorker`): its
    /// commands travel in `NodeWorker.sendMessageToWorker` over this connection, its replies and
    /// events come back in `NodeWorker.receivedMessageFromWorker`. The worker's client closes
    /// when the worker detaches or this connection closes.
    pub fn attach_worker(&self, session_id: &str) -> (Client, mpsc::UnboundedReceiver<Event>) {
        let (incoming_tx, mut incoming_rx) = mpsc::unbounded_channel::<String>();
        let (outgoing_tx, mut outgoing_rx) = mpsc::unbounded_channel::<String>();
        let outgoing = Outgoing::Worker {
            tx: outgoing_tx,
            parent: Box::new(self.clone()),
            session: session_id.to_string(),
        };
        let url = format!("{}#worker={session_id}", self.url);
        let (client, inbox, events_rx) = Client::assemble(url, self.peer, outgoing);
        if let Some(detail) = self.closed.lock().expect("closed lock").clone() {
            *client.closed.lock().expect("closed lock") = Some(detail);
        } else {
            self.routes
                .lock()
                .expect("routes lock")
                .workers
                .insert(session_id.to_string(), incoming_tx);
        }
        let parent = self.clone();
        let session = session_id.to_string();
        tokio::spawn(async move {
            while let Some(message) = outgoing_rx.recv().await {
                let params = json!({"sessionId": session, "message": message});
                // The reply to the wrapped command comes back as a worker message; a failure
                // to send means the worker or its parent is gone, which the reader sees.
                if parent
                    .call("NodeWorker.sendMessageToWorker", params, WORKER_SEND)
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
        tokio::spawn(async move {
            while let Some(text) = incoming_rx.recv().await {
                inbox.dispatch(&text);
            }
            inbox.shut("the worker detached".to_string());
        });
        (client, events_rx)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the connection really goes to (after name resolution); `0.0.0.0:0` for a
    /// client [`Client::over_lines`].
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
        let sent = match &self.outgoing {
            Outgoing::Socket(tx) => tx.send(Message::Text(message.to_string().into())).is_ok(),
            Outgoing::Worker { tx, .. } => tx.send(message.to_string()).is_ok(),
        };
        if !sent {
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
    /// For a worker's client: `NodeWorker.detach` on the parent's connection, which lets a
    /// worker that waits for its debugger to disconnect finish.
    pub fn close(&self) {
        match &self.outgoing {
            Outgoing::Socket(tx) => {
                let _ = tx.send(Message::Close(None));
            }
            Outgoing::Worker {
                parent, session, ..
            } => {
                let parent = parent.clone();
                let params = json!({"sessionId": session});
                tokio::spawn(async move {
                    let _ = parent.call("NodeWorker.detach", params, WORKER_SEND).await;
                });
            }
        }
    }
}

/// How long forwarding one command to a worker may take (the worker answers separately).
const WORKER_SEND: Duration = Duration::from_secs(30);

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
