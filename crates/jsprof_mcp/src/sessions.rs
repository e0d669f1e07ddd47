//! The HTTP transport's sessions, bounded: each ends after [`Config::session_idle`] without a
//! message (rmcp's `keep_alive`: its worker stops and the session is removed), and at most
//! [`Config::max_sessions`] live at once — a new one closes the one asked least recently, whose
//! client gets 404 on its next request and, as MCP says, starts a new session. A session holds a
//! worker task and its channels; the opened artifacts are the server's [`crate::store::Store`],
//! shared and bounded on their own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

use crate::Config;

/// rmcp's in-memory sessions with an idle expiry and a cap on how many live.
pub struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    /// When each live session was last asked something.
    used: Mutex<HashMap<SessionId, Instant>>,
}

impl Sessions {
    pub fn new(config: &Config) -> Sessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(config.session_idle);
        Sessions {
            inner,
            max: config.max_sessions.max(1),
            used: Mutex::new(HashMap::new()),
        }
    }

    fn touch(&self, id: &SessionId) {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = used.get_mut(id) {
            *at = Instant::now();
        }
    }

    /// Sessions open now.
    pub async fn live(&self) -> usize {
        self.inner.sessions.read().await.len()
    }

    /// The least recently asked session, while the cap is reached.
    async fn over_cap(&self) -> Option<SessionId> {
        if self.live().await < self.max {
            return None;
        }
        let used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        used.iter()
            .min_by_key(|(_, at)| **at)
            .map(|(id, _)| id.clone())
    }
}

type Error = LocalSessionManagerError;

impl SessionManager for Sessions {
    type Error = Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Error> {
        while let Some(oldest) = self.over_cap().await {
            self.close_session(&oldest).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), Instant::now());
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

    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        self.used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
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
