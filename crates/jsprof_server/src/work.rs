//! The heavy part of a request (building a report, loading an artifact) runs on a blocking
//! thread, at most two per core at a time (one computes while another's answer is being sent).
//! Without the bound, 32 concurrent clients meant 32 threads sharing 2 cores, each holding its
//! half-built answer (and its malloc arena): no request finished sooner, and the memory in
//! flight grew with the number of clients. `bench/serve-load.sh` on a 231 MB trace, 32 clients,
//! 120 s, 2 cores: unbounded 158 req/s, p99 385 ms, RSS rising to 463 MB; one per core 140
//! req/s, p99 314 ms, 150 MB; two per core 152 req/s, p99 268 ms, 179 MB.

use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;
use tokio::task::JoinError;

use crate::error::{ApiError, ApiResult};

fn permits() -> Arc<Semaphore> {
    static PERMITS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    PERMITS
        .get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            Arc::new(Semaphore::new(2 * cores))
        })
        .clone()
}

/// Runs `f` on a blocking thread once a core is free; the slot is held until `f` returns, even
/// if the request that asked for it goes away.
pub async fn spawn<F, T>(f: F) -> Result<T, JoinError>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let permit = permits()
        .acquire_owned()
        .await
        .expect("the semaphore is never closed");
    tokio::task::spawn_blocking(move || {
        let out = f();
        drop(permit);
        out
    })
    .await
}

/// [`spawn`] for a request's work that can fail: its error, or a panic as an internal error.
pub async fn run<F, T>(f: F) -> ApiResult<T>
where
    F: FnOnce() -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    spawn(f)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
}
