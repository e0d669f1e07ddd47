//! The accept loop: hyper's HTTP/1 server with the limits `axum::serve` lacks. A client must send
//! its request head within `header_timeout` (also the keep-alive idle limit: hyper applies it
//! while waiting for the next head), a request body may not stall longer than `body_timeout`
//! between chunks, and at most `max_connections` connections are served at once; more wait in
//! the kernel's backlog. Without these, connections that never finish their headers hold a
//! descriptor each forever, without a token.
//!
//! Posts to the ingest endpoints (`ingest_config::is_ingest_path`) have a budget of their own: a
//! connection whose request is a post there gives its seat back to the service and takes one of
//! `ingest_connections` for the rest of its life, or is answered 503 and closed when none is
//! free. Slow posts from the field can then never leave the admin API or MCP without a
//! connection; at most `max_connections + ingest_connections` are open at once.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::Router;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tower_service::Service;

use crate::error::ApiError;
use crate::ingest_config::is_ingest_path;

/// The connection limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub max_connections: usize,
    /// The ingest endpoint's own budget; 0 when it is not served.
    pub ingest_connections: usize,
}

/// A connection's seat: one of the service's until its first ingest post, then one of the
/// ingest's. Dropped with the connection.
struct Seat {
    general: Option<OwnedSemaphorePermit>,
    ingest: Option<OwnedSemaphorePermit>,
}

impl Seat {
    /// Moves the connection to the ingest budget; `false` when that budget is spent.
    fn take_ingest(&mut self, pool: &Arc<Semaphore>) -> bool {
        if self.ingest.is_none() {
            match pool.clone().try_acquire_owned() {
                Ok(p) => self.ingest = Some(p),
                Err(_) => return false,
            }
            self.general = None;
        }
        true
    }
}

/// 503 with `Connection: close`: every ingest connection is taken.
fn ingest_busy(budget: usize) -> axum::response::Response {
    let mut response = ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: "BUSY",
        message: format!(
            "the ingest endpoint is serving {budget} posts already \
             (serve --ingest-max-connections); retry later"
        ),
    }
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A request body that fails when no data arrives for `timeout`.
struct IdleBody {
    inner: Incoming,
    timeout: Duration,
    /// Armed while a poll waits for data; dropped when data comes.
    sleep: Option<Pin<Box<Sleep>>>,
}

impl Body for IdleBody {
    type Data = <Incoming as Body>::Data;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.sleep = None;
                Poll::Ready(frame.map(|f| f.map_err(BoxError::from)))
            }
            Poll::Pending => {
                let timeout = this.timeout;
                let sleep = this
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(format!(
                        "no request data for {} s",
                        timeout.as_secs()
                    )
                    .into()))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then runs `drain` (saving recordings)
/// and waits up to `grace` for open connections to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    drain: impl Future<Output = ()>,
    grace: Duration,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let ingest_permits = (limits.ingest_connections > 0)
        .then(|| Arc::new(Semaphore::new(limits.ingest_connections)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors (EMFILE) and the like: pause rather than spin.
                    eprintln!("jsprof serve: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let body_timeout = limits.body_timeout;
        let seat = Arc::new(std::sync::Mutex::new(Seat {
            general: Some(permit),
            ingest: None,
        }));
        let conn_seat = seat.clone();
        let ingest_permits = ingest_permits.clone();
        let ingest_budget = limits.ingest_connections;
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let busy = match &ingest_permits {
                Some(pool) if is_ingest_path(req.uri().path()) => {
                    let mut seat = seat.lock().unwrap_or_else(|e| e.into_inner());
                    (!seat.take_ingest(pool)).then(|| ingest_busy(ingest_budget))
                }
                _ => None,
            };
            let mut req = req.map(|inner| {
                axum::body::Body::new(IdleBody {
                    inner,
                    timeout: body_timeout,
                    sleep: None,
                })
            });
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            let mut app = app.clone();
            async move {
                if let Some(busy) = busy {
                    return Ok::<_, Infallible>(busy);
                }
                Ok(app.call(req).await.unwrap_or_else(|e| match e {}))
            }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(conn_seat);
        });
    }
    drop(listener);
    eprintln!("jsprof serve: shutting down");
    drain.await;
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
}
