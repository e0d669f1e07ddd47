//! The HTTP transport's sessions, bounded: each ends after [`Config::session_idle`] without a
//! request — a call still running is not idle, however long it takes — and at most
//! [`Config::max_sessions`] live at once: a new one closes the one asked least recently. The
//! client of an ended session gets 404 on its next request and, as MCP says, starts a new
//! session. A session holds a worker task and its channels; the opened artifacts are the
//! server's [`crate::store::Store`], shared and bounded on their own.
//!
//! Expired sessions are closed when the next request reaches the server (any session's, or a new
//! one), so no task of its own runs; the cap bounds what idle sessions hold meanwhile. rmcp's
//! own idle timer is off: it counts a running call as idle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

use crate::Config;

/// When a session was last asked something, and how many of its requests are being answered.
#[derive(Clone, Copy)]
struct Use {
    last: Instant,
    running: usize,
}

type Uses = Arc<Mutex<HashMap<SessionId, Use>>>;

fn lock(uses: &Uses) -> std::sync::MutexGuard<'_, HashMap<SessionId, Use>> {
    uses.lock().unwrap_or_else(|p| p.into_inner())
}

/// rmcp's in-memory sessions with an idle expiry and a cap on how many live.
pub struct Sessions {
    inner: LocalSessionManager,
    idle: Duration,
    max: usize,
    uses: Uses,
}

/// A request being answered in a session: while it lives the session is not idle, and its end
/// counts as the session's last use.
struct Running {
    uses: Uses,
    id: SessionId,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(u) = lock(&self.uses).get_mut(&self.id) {
            u.running = u.running.saturating_sub(1);
            u.last = Instant::now();
        }
    }
}

impl Sessions {
    pub fn new(config: &Config) -> Sessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = None;
        Sessions {
            inner,
            idle: config.session_idle,
            max: config.max_sessions.max(1),
            uses: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn touch(&self, id: &SessionId) {
        if let Some(u) = lock(&self.uses).get_mut(id) {
            u.last = Instant::now();
        }
    }

    fn running(&self, id: &SessionId) -> Running {
        if let Some(u) = lock(&self.uses).get_mut(id) {
            u.running += 1;
            u.last = Instant::now();
        }
        Running {
            uses: self.uses.clone(),
            id: id.clone(),
        }
    }

    /// Sessions open now.
    pub async fn live(&self) -> usize {
        self.inner.sessions.read().await.len()
    }

    /// Closes the sessions idle for longer than the expiry.
    async fn sweep(&self) -> Result<(), Error> {
        let expired: Vec<SessionId> = lock(&self.uses)
            .iter()
            .filter(|(_, u)| u.running == 0 && u.last.elapsed() > self.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.close_session(&id).await?;
        }
        Ok(())
    }

    /// The least recently asked session, while the cap is reached.
    async fn over_cap(&self) -> Option<SessionId> {
        if self.live().await < self.max {
            return None;
        }
        lock(&self.uses)
            .iter()
            .min_by_key(|(_, u)| u.last)
            .map(|(id, _)| id.clone())
    }
}

type Error = LocalSessionManagerError;

impl SessionManager for Sessions {
    type Error = Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Error> {
        self.sweep().await?;
        while let Some(oldest) = self.over_cap().await {
            self.close_session(&oldest).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        let now = Use {
            last: Instant::now(),
            running: 0,
        };
        lock(&self.uses).insert(id.clone(), now);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    /// Asked first for every request naming a session: expired ones are closed here.
    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        self.sweep().await?;
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        lock(&self.uses).remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        let running = self.running(id);
        let answer = self.inner.create_stream(id, message).await?;
        // The request runs until its answer's stream ends (or its client goes away).
        Ok(answer.map(move |m| {
            let _ = &running;
            m
        }))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(idle: Duration, max: usize) -> Sessions {
        Sessions::new(&Config {
            session_idle: idle,
            max_sessions: max,
            ..Config::default()
        })
    }

    #[tokio::test]
    async fn a_running_request_keeps_its_session_and_the_cap_ends_the_least_recent() {
        let s = sessions(Duration::from_millis(50), 2);
        let (a, _ta) = s.create_session().await.unwrap();
        let (b, _tb) = s.create_session().await.unwrap();
        // A call in progress in `a` outlasts the idle time; `b` is left alone.
        let call = s.running(&a);
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(s.has_session(&a).await.unwrap());
        assert!(!s.has_session(&b).await.unwrap(), "idle b expired");
        drop(call);
        assert!(s.has_session(&a).await.unwrap(), "its end counts as a use");
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!s.has_session(&a).await.unwrap(), "then it expires");

        let s = sessions(Duration::from_secs(600), 2);
        let (a, _ta) = s.create_session().await.unwrap();
        let (b, _tb) = s.create_session().await.unwrap();
        s.touch(&a);
        let (c, _tc) = s.create_session().await.unwrap();
        assert_eq!(s.live().await, 2);
        assert!(s.has_session(&a).await.unwrap() && s.has_session(&c).await.unwrap());
        assert!(!s.has_session(&b).await.unwrap());
    }
}
