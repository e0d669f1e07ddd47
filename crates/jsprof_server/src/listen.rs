//! The accept loop: hyper's HTTP/1 server with the limits `axum::serve` lacks. A client must send
//! its request head within `header_timeout` (also the keep-alive idle limit: hyper applies it
//! while waiting for the next head), a request body may not stall longer than `body_timeout`
//! between chunks, and at most `max_connections` connections are served at once; more wait in
//! the kernel's backlog. Without these, connections that never finish their headers hold a
//! descriptor each forever, without a token.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Sleep;
use tower_service::Service;

/// The connection limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub max_connections: usize,
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
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut req = req.map(|inner| {
                axum::body::Body::new(IdleBody {
                    inner,
                    timeout: body_timeout,
                    sleep: None,
                })
            });
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            let mut app = app.clone();
            async move { Ok::<_, Infallible>(app.call(req).await.unwrap_or_else(|e| match e {})) }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    eprintln!("jsprof serve: shutting down");
    drain.await;
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
}
