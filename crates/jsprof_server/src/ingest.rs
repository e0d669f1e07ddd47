//! The ingest endpoints, appended to a profile lake (`jsprof_lake`):
//! `POST /ingest/v1/selfprofile` takes JS Self-Profiling traces posted by browsers in the field
//! (`navigator.sendBeacon` or `fetch`); `POST /ingest/v1/profile` takes `.cpuprofile` and
//! `.heapprofile` windows posted by running processes (the Node agent). One handler serves
//! both: they differ only by `jsprof_lake::ingest::Endpoint`'s table (parameters, bodies), and
//! share the keys, limits, spool and threads below.
//!
//! The endpoints sit outside the service's own checks (`security::guard`): pages on other
//! origins post to them, so they have their own keys (`--ingest-key-file`, never the admin
//! token: the server refuses to start when one is), their own CORS allowance
//! (`--ingest-origin`), their own throttle of wrong keys per client address, and a size limit
//! per post checked while the body is read. What a post carries (labels, length, body) is
//! checked by `jsprof_lake::ingest`.
//!
//! **Accepted means durable.** A post is validated (its body must load as what its endpoint
//! takes, with that endpoint's required labels), then appended to the spool —
//! `LAKE/.ingest-spool/`, segment files of length-prefixed, checksummed records, each header
//! naming its endpoint — and fsynced before the 202 is sent.
//! One thread owns the spool and commits in groups: every request waiting while one fsync runs
//! shares the next one, so throughput grows with concurrency instead of paying an fsync per
//! trace. Every `batch_traces` traces or `batch_interval` the segment is closed and handed to the
//! lake thread, which writes the batch with the lake's writer and only then deletes the segment.
//! At start every segment left over (a crash, a kill) is replayed into the lake; a trace that
//! was already written before the crash is skipped by the lake's content hash, so each accepted
//! trace lands exactly once.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::StreamExt;
use jsprof_lake::{Lake, Prepared};
use serde_json::json;
use tokio::sync::oneshot;

use crate::error::ApiError;
use crate::ids;
use crate::ingest_config::IngestConfig;
use crate::security::AuthThrottle;
use crate::spool_record::{decode_records, encode_record, SpoolHeader};

use crate::ingest_config::{PROFILE_PATH, SELFPROFILE_PATH};
use jsprof_lake::ingest::{self as post_check, Endpoint, Refusal};

/// Why ingestion cannot start.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("the lake {path}: {message}")]
    Lake { path: PathBuf, message: String },
    #[error("the ingest spool {path}: {source}")]
    Spool {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn spool_err(path: &Path) -> impl FnOnce(std::io::Error) -> IngestError {
    let path = path.to_path_buf();
    move |source| IngestError::Spool { path, source }
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// Reads one post for the lake; the same call at accept time and at replay, so what replay
/// writes is what was validated.
fn prepare(header: &SpoolHeader, body: Vec<u8>, max_bytes: u64) -> Result<Prepared, Refusal> {
    post_check::prepare_post(
        &header.name,
        header.received_us,
        &header.post,
        body,
        max_bytes,
    )
}

/// The endpoint's answer to a refused post.
fn refused(r: Refusal) -> ApiError {
    match r {
        Refusal::TooLarge(limit) => ApiError::too_large(Refusal::TooLarge(limit).to_string()),
        Refusal::BadRequest(m) => ApiError::bad_request(m),
    }
}

// ---------------------------------------------------------------------------------------------
// The spool thread and the lake thread.

struct Job {
    record: Vec<u8>,
    prepared: Prepared,
    done: oneshot::Sender<Result<(), String>>,
}

/// A closed segment and the traces in it, for the lake thread.
struct Batch {
    segment: PathBuf,
    prepared: Vec<Prepared>,
}

struct Segment {
    path: PathBuf,
    out: BufWriter<File>,
    prepared: Vec<Prepared>,
    opened: Instant,
}

struct Spool {
    dir: PathBuf,
    /// Unique per start, so a segment name is never reused even after a crash.
    stamp: String,
    seq: u64,
}

impl Spool {
    fn open_segment(&mut self) -> std::io::Result<Segment> {
        self.seq += 1;
        let path = self
            .dir
            .join(format!("seg-{}-{:08}.log", self.stamp, self.seq));
        let file = jsprof_lake::private::create_new_append(&path)?;
        // The new name must be durable before any record in it is acknowledged.
        sync_dir(&self.dir)?;
        Ok(Segment {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            prepared: Vec::new(),
            opened: Instant::now(),
        })
    }
}

/// Appends jobs in groups: one write and one fsync for everything waiting.
fn spool_thread(
    mut spool: Spool,
    jobs: mpsc::Receiver<Job>,
    lake: mpsc::Sender<Batch>,
    batch_traces: usize,
    interval: Duration,
) {
    let mut segment: Option<Segment> = None;
    let mut group: Vec<Job> = Vec::new();
    loop {
        let wait = segment
            .as_ref()
            .filter(|s| !s.prepared.is_empty())
            .map(|s| interval.saturating_sub(s.opened.elapsed()));
        let first = match wait {
            Some(w) => match jobs.recv_timeout(w) {
                Ok(job) => Some(job),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            },
            None => match jobs.recv() {
                Ok(job) => Some(job),
                Err(_) => return,
            },
        };
        if let Some(job) = first {
            group.push(job);
            while group.len() < batch_traces {
                match jobs.try_recv() {
                    Ok(job) => group.push(job),
                    Err(_) => break,
                }
            }
            if segment.is_none() {
                match spool.open_segment() {
                    Ok(s) => segment = Some(s),
                    Err(e) => {
                        fail(&mut group, &format!("cannot open a spool segment: {e}"));
                        continue;
                    }
                }
            }
            let seg = segment.as_mut().expect("just opened");
            let written = (|| {
                for job in &group {
                    seg.out.write_all(&job.record)?;
                }
                seg.out.flush()?;
                seg.out.get_ref().sync_data()
            })();
            match written {
                Ok(()) => {
                    for job in group.drain(..) {
                        seg.prepared.push(job.prepared);
                        let _ = job.done.send(Ok(()));
                    }
                }
                Err(e) => {
                    // What was written of this group is an unacknowledged tail; later records
                    // go to a fresh segment so that replay (which stops at a bad record) never
                    // loses acknowledged ones behind it.
                    fail(&mut group, &format!("cannot write the spool: {e}"));
                    if let Some(s) = segment.take() {
                        hand_over(s, &lake);
                    }
                    continue;
                }
            }
        }
        let due = segment.as_ref().is_some_and(|s| {
            !s.prepared.is_empty()
                && (s.prepared.len() >= batch_traces || s.opened.elapsed() >= interval)
        });
        if due {
            hand_over(segment.take().expect("due"), &lake);
        }
    }
}

fn fail(group: &mut Vec<Job>, message: &str) {
    eprintln!("jsprof serve: ingest: {message}");
    for job in group.drain(..) {
        let _ = job.done.send(Err(message.to_string()));
    }
}

fn hand_over(segment: Segment, lake: &mpsc::Sender<Batch>) {
    let Segment { path, prepared, .. } = segment;
    // If the lake thread is gone the segment stays and is replayed at the next start.
    let _ = lake.send(Batch {
        segment: path,
        prepared,
    });
}

/// Writes batches to the lake, then deletes their segments.
fn lake_thread(
    mut writer: jsprof_lake::Writer,
    batches: mpsc::Receiver<Batch>,
    spool_dir: PathBuf,
    max_bytes: u64,
) {
    for batch in batches {
        let n = batch.prepared.len();
        if n > 0 {
            match writer.append(batch.prepared) {
                Ok(_) => {}
                Err(e) if lake_failed(&e) => {
                    // The segment stays: the next start replays it.
                    eprintln!(
                        "jsprof serve: ingest: writing {n} traces to the lake failed ({e}); {} \
                         is kept and replayed at the next start",
                        batch.segment.display()
                    );
                    continue;
                }
                Err(e) => {
                    // A trace of the batch is at fault, not the lake: each one is tried alone
                    // from the segment, and the bad ones are set aside.
                    eprintln!(
                        "jsprof serve: ingest: a batch of {n} traces was refused ({e}); writing \
                         them one by one"
                    );
                    if let Err(e) =
                        write_segment(&mut writer, &batch.segment, &spool_dir, max_bytes, Some(n))
                    {
                        eprintln!(
                            "jsprof serve: ingest: {}: {e}; kept and replayed at the next start",
                            batch.segment.display()
                        );
                    }
                    continue;
                }
            }
        }
        if fs::remove_file(&batch.segment).is_ok() {
            let _ = sync_dir(&spool_dir);
        }
    }
}

/// Whether a write failed because of the lake (its disk, its files) rather than a trace in the
/// batch: then retrying trace by trace is pointless and the segment is kept for the next start.
fn lake_failed(e: &jsprof_lake::LakeError) -> bool {
    matches!(
        e,
        jsprof_lake::LakeError::Io { .. } | jsprof_lake::LakeError::NotALake(_)
    )
}

/// The folder of `LAKE/.ingest-spool/` where records the lake refuses are kept for the operator.
const REJECTED: &str = "rejected";

/// Keeps a record the lake refused in `SPOOL/rejected/NAME.rec` (the spool's record format, so
/// the header and the trace as posted) with the reason beside it in `NAME.txt`, durably: the
/// segment it came from is deleted next.
fn set_aside(
    spool_dir: &Path,
    name: &str,
    header: &SpoolHeader,
    body: &[u8],
    why: &str,
) -> std::io::Result<PathBuf> {
    let dir = spool_dir.join(REJECTED);
    jsprof_lake::private::create_dir_all(&dir)?;
    let mut record = Vec::with_capacity(body.len() + 256);
    encode_record(header, body, &mut record);
    let path = dir.join(format!("{name}.rec"));
    for (path, bytes) in [
        (&path, record.as_slice()),
        (
            &dir.join(format!("{name}.txt")),
            format!("{why}\n").as_bytes(),
        ),
    ] {
        let mut file = jsprof_lake::private::create_file(path)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    sync_dir(&dir)?;
    sync_dir(spool_dir)?;
    Ok(path)
}

/// Writes the whole records of `segment` (its first `acknowledged` ones, when given) to the lake
/// and deletes it; returns how many traces were written. A record that does not prepare, or that
/// the lake refuses for its own content (a partition name past the file system's limit, say), is
/// set aside and named on stderr: it never holds back the others, and never comes back. A
/// failure of the lake itself keeps the segment, for the next start.
fn write_segment(
    writer: &mut jsprof_lake::Writer,
    segment: &Path,
    spool_dir: &Path,
    max_bytes: u64,
    acknowledged: Option<usize>,
) -> Result<usize, String> {
    let bytes = fs::read(segment).map_err(|e| e.to_string())?;
    let (mut records, torn) = decode_records(&bytes);
    if let Some(n) = acknowledged {
        records.truncate(n);
    } else if let Some(note) = torn {
        eprintln!(
            "jsprof serve: ingest: {}: {note}; the records before it are replayed (a record \
             after the last fsync was never acknowledged)",
            segment.display()
        );
    }
    let stem = segment
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let aside = |i: usize, header: &SpoolHeader, body: &[u8], why: &str| -> Result<(), String> {
        let kept = set_aside(spool_dir, &format!("{stem}-{i:06}"), header, body, why)
            .map_err(|e| format!("cannot set a refused trace aside: {e}"))?;
        eprintln!(
            "jsprof serve: ingest: a spooled trace is refused ({why}); kept in {}",
            kept.display()
        );
        Ok(())
    };
    let mut batch = Vec::with_capacity(records.len());
    let mut indices = Vec::with_capacity(records.len());
    for (i, (header, body)) in records.iter().enumerate() {
        match prepare(header, body.to_vec(), max_bytes) {
            Ok(p) => {
                batch.push(p);
                indices.push(i);
            }
            Err(e) => aside(i, header, body, &e.to_string())?,
        }
    }
    let mut written = batch.len();
    match writer.append(batch) {
        Ok(_) => {}
        Err(e) if lake_failed(&e) => return Err(e.to_string()),
        Err(_) => {
            // One by one: prepared again from the record, as the batch was consumed.
            written = 0;
            for i in indices {
                let (header, body) = &records[i];
                let prepared =
                    prepare(header, body.to_vec(), max_bytes).map_err(|e| e.to_string())?;
                match writer.append(vec![prepared]) {
                    Ok(_) => written += 1,
                    Err(e) if lake_failed(&e) => return Err(e.to_string()),
                    Err(e) => aside(i, header, body, &e.to_string())?,
                }
            }
        }
    }
    fs::remove_file(segment).map_err(|e| e.to_string())?;
    sync_dir(spool_dir).map_err(|e| e.to_string())?;
    Ok(written)
}

/// Writes every segment a previous run left into the lake, then deletes it. Never fails the
/// start over a segment: a refused record is set aside, and a segment the lake cannot take now
/// stays for the next start (both said on stderr).
fn replay(
    writer: &mut jsprof_lake::Writer,
    spool_dir: &Path,
    max_bytes: u64,
) -> Result<usize, IngestError> {
    let mut segments: Vec<PathBuf> = fs::read_dir(spool_dir)
        .map_err(spool_err(spool_dir))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("seg-") && n.ends_with(".log"))
        })
        .collect();
    segments.sort();
    let mut total = 0;
    for segment in segments {
        match write_segment(writer, &segment, spool_dir, max_bytes, None) {
            Ok(n) => total += n,
            Err(e) => eprintln!(
                "jsprof serve: ingest: replaying {} failed ({e}); it is kept for the next start",
                segment.display()
            ),
        }
    }
    Ok(total)
}

// ---------------------------------------------------------------------------------------------
// The endpoint.

/// The running ingest: the route's state.
pub struct Ingest {
    config: IngestConfig,
    /// The lake's partition label besides the day: its value names a directory, checked at the
    /// door.
    partition_label: Option<String>,
    jobs: mpsc::SyncSender<Job>,
    /// Wrong keys per client address: a guesser gets 429 with `Retry-After` (the admin API's
    /// rule, counted apart from it).
    throttle: AuthThrottle,
}

impl Ingest {
    /// Opens (or creates) the lake, replays the spool a previous run left, and starts the
    /// spool and lake threads.
    pub fn start(config: IngestConfig) -> Result<Arc<Ingest>, IngestError> {
        let lake_err = |e: jsprof_lake::LakeError| IngestError::Lake {
            path: config.lake.clone(),
            message: e.to_string(),
        };
        let lake = if config.lake.join("lake.json").exists() {
            Lake::open(&config.lake).map_err(lake_err)?
        } else {
            Lake::init(&config.lake, None).map_err(lake_err)?
        };
        let partition_label = lake.meta.partition_label.clone();
        let spool_dir = config.lake.join(".ingest-spool");
        jsprof_lake::private::create_dir_all(&spool_dir).map_err(spool_err(&spool_dir))?;
        let mut writer = lake.writer();
        let replayed = replay(&mut writer, &spool_dir, config.max_bytes)?;
        if replayed > 0 {
            eprintln!(
                "jsprof serve: ingest: replayed {replayed} spooled traces into {}",
                config.lake.display()
            );
        }
        // Bounded: a burst waits in the HTTP layer instead of growing memory here.
        let (jobs, job_rx) = mpsc::sync_channel::<Job>(4096);
        let (batch_tx, batch_rx) = mpsc::channel::<Batch>();
        let spool = Spool {
            dir: spool_dir.clone(),
            stamp: format!("{:016x}-{}", now_us(), ids::random_hex(4)),
            seq: 0,
        };
        let (n, interval) = (config.batch_traces, config.batch_interval);
        std::thread::Builder::new()
            .name("ingest-spool".into())
            .spawn(move || spool_thread(spool, job_rx, batch_tx, n, interval))
            .map_err(spool_err(&spool_dir))?;
        let dir = spool_dir.clone();
        let max_bytes = config.max_bytes;
        std::thread::Builder::new()
            .name("ingest-lake".into())
            .spawn(move || lake_thread(writer, batch_rx, dir, max_bytes))
            .map_err(spool_err(&spool_dir))?;
        Ok(Arc::new(Ingest {
            config,
            partition_label,
            jobs,
            throttle: AuthThrottle::default(),
        }))
    }

    /// Connections posting at once (`--ingest-max-connections`).
    pub fn max_connections(&self) -> usize {
        self.config.max_connections
    }

    /// `Access-Control-Allow-Origin` for this request, when its `Origin` is allowed.
    fn allowed_origin(&self, headers: &HeaderMap) -> Option<HeaderValue> {
        let origin = headers.get(header::ORIGIN)?;
        let text = origin.to_str().ok()?.to_ascii_lowercase();
        self.config.origins.contains(&text).then(|| origin.clone())
    }

    /// Checks the post's key. A wrong one counts against the client's address; a right one
    /// does not clear the count (the keys are public, so a guesser could hold one and reset
    /// its count at will).
    fn key_ok(
        &self,
        headers: &HeaderMap,
        query: &[(String, String)],
        client: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok());
        match post_check::key_of(authorization, query) {
            // Every key is compared, so the time taken does not say which one was close.
            Some(k) => {
                let mut ok = false;
                for known in &self.config.keys {
                    ok |= ids::same_token(k, known);
                }
                if ok {
                    return Ok(());
                }
                if let Some(ip) = client {
                    self.throttle.failure(ip, Instant::now());
                }
                Err(ApiError::unauthorized("wrong ingest key"))
            }
            None => Err(ApiError::unauthorized(
                "an ingest key is required: `?key=KEY` or `Authorization: Bearer KEY` (a line of \
                 serve --ingest-key-file)",
            )),
        }
    }
}

/// The routes, with the ingest's own state; merged outside the service's checks.
pub fn routes(ingest: Arc<Ingest>) -> Router {
    let mut router = Router::new();
    for (path, endpoint) in [
        (SELFPROFILE_PATH, Endpoint::SelfProfile),
        (PROFILE_PATH, Endpoint::Profile),
    ] {
        let accept = move |state: State<Arc<Ingest>>, req: Request| accept(state, req, endpoint);
        router = router.route(path, post(accept).options(preflight));
    }
    router.with_state(ingest)
}

fn with_cors(mut response: Response, origin: Option<HeaderValue>) -> Response {
    let h = response.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = origin {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    response
}

async fn preflight(State(ingest): State<Arc<Ingest>>, headers: HeaderMap) -> Response {
    let Some(origin) = ingest.allowed_origin(&headers) else {
        return with_cors(
            ApiError::forbidden("this origin may not post traces (serve --ingest-origin)")
                .into_response(),
            None,
        );
    };
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("authorization, content-type"),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    with_cors(response, Some(origin))
}

/// A body is read as sent, gunzipped when its bytes are gzip: `Content-Encoding` may say `gzip`
/// (or `identity`), and any other coding is refused before the body is read.
fn content_encoding_ok(headers: &HeaderMap) -> Result<(), ApiError> {
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let text = value.to_str().unwrap_or("?");
        for coding in text.split(',').map(str::trim) {
            if !coding.eq_ignore_ascii_case("gzip") && !coding.eq_ignore_ascii_case("identity") {
                return Err(ApiError::bad_request(format!(
                    "Content-Encoding `{}`: the endpoint reads gzip or identity",
                    coding.escape_debug()
                )));
            }
        }
    }
    Ok(())
}

fn too_slow(deadline: Duration) -> ApiError {
    ApiError {
        status: StatusCode::REQUEST_TIMEOUT,
        code: "TIMEOUT",
        message: format!(
            "the body did not arrive within {} s (serve --ingest-body-timeout)",
            deadline.as_secs_f64()
        ),
    }
}

fn too_large(limit: u64) -> ApiError {
    refused(Refusal::TooLarge(limit))
}

/// Reads the body, refusing it as soon as it passes `limit`: never more than `limit` bytes
/// (plus one chunk) are held, and for no longer than `deadline` in all (a body trickling in
/// byte by byte never stalls long enough for the connection's idle limit).
async fn read_body(req: Request, limit: u64, deadline: Duration) -> Result<Vec<u8>, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok());
    post_check::check_length(declared, limit).map_err(refused)?;
    let mut body = Vec::new();
    let mut stream = req.into_body().into_data_stream();
    let until = tokio::time::Instant::now() + deadline;
    while let Some(chunk) = tokio::time::timeout_at(until, stream.next())
        .await
        .map_err(|_| too_slow(deadline))?
    {
        let chunk =
            chunk.map_err(|e| ApiError::bad_request(format!("the body was cut short: {e}")))?;
        if body.len() as u64 + chunk.len() as u64 > limit {
            return Err(too_large(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

async fn accept(State(ingest): State<Arc<Ingest>>, req: Request, endpoint: Endpoint) -> Response {
    let origin = ingest.allowed_origin(req.headers());
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    // Before the key is looked at: a blocked address learns nothing of a guess, right or wrong.
    if let Some(wait) = client.and_then(|ip| ingest.throttle.blocked(ip, Instant::now())) {
        return with_cors(
            crate::security::too_many(wait, "posts with a wrong ingest key"),
            origin,
        );
    }
    let result = accept_inner(&ingest, req, endpoint, origin.is_some(), client).await;
    let response = match result {
        Ok(body) => (
            StatusCode::ACCEPTED,
            [(header::CONTENT_TYPE, "application/json")],
            format!("{body}\n"),
        )
            .into_response(),
        Err(e) => {
            let close = e.status == StatusCode::REQUEST_TIMEOUT;
            let mut response = e.into_response();
            if close {
                // The rest of a trickling body is not waited for.
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            response
        }
    };
    with_cors(response, origin)
}

async fn accept_inner(
    ingest: &Arc<Ingest>,
    req: Request,
    endpoint: Endpoint,
    origin_allowed: bool,
    client: Option<IpAddr>,
) -> Result<serde_json::Value, ApiError> {
    // `sendBeacon` needs no preflight, so CORS alone would not keep other sites' pages out.
    if req.headers().contains_key(header::ORIGIN) && !origin_allowed {
        return Err(ApiError::forbidden(
            "this origin may not post traces (serve --ingest-origin)",
        ));
    }
    let query = post_check::query_pairs(req.uri().query().unwrap_or("")).map_err(refused)?;
    ingest.key_ok(req.headers(), &query, client)?;
    let user_agent = req
        .headers()
        .get(header::USER_AGENT)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let post = post_check::post(
        endpoint,
        &query,
        user_agent,
        ingest.partition_label.as_deref(),
    )
    .map_err(refused)?;
    content_encoding_ok(req.headers())?;
    let limit = ingest.config.max_bytes;
    let body = read_body(req, limit, ingest.config.body_deadline).await?;
    let received_us = now_us();
    let header = SpoolHeader {
        name: format!("ingest-{received_us}.json"),
        received_us,
        post,
    };
    let (header, body, prepared) = tokio::task::spawn_blocking(move || {
        let prepared = prepare(&header, body.clone(), limit);
        (header, body, prepared)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?;
    let prepared = prepared.map_err(refused)?;
    let (profile_id, kind) = (
        prepared.profiles[0].profile_id.clone(),
        prepared.profiles[0].kind,
    );
    let source_hash = prepared.source_hash.clone();
    let warnings: Vec<serde_json::Value> = prepared
        .warnings
        .iter()
        .map(|w| json!({"at": "body", "message": w}))
        .collect();
    let mut record = Vec::with_capacity(body.len() + 256);
    encode_record(&header, &body, &mut record);
    drop(body);
    let (done, wait) = oneshot::channel();
    let job = Job {
        record,
        prepared,
        done,
    };
    let stopped = || ApiError::internal("the ingest spool has stopped");
    match ingest.jobs.try_send(job) {
        Ok(()) => {}
        // The queue is full: wait for room off the async workers.
        Err(mpsc::TrySendError::Full(job)) => {
            let jobs = ingest.jobs.clone();
            tokio::task::spawn_blocking(move || jobs.send(job).map_err(|_| ()))
                .await
                .map_err(|e| ApiError::internal(e.to_string()))?
                .map_err(|_| stopped())?;
        }
        Err(mpsc::TrySendError::Disconnected(_)) => return Err(stopped()),
    }
    wait.await
        .map_err(|_| stopped())?
        .map_err(ApiError::internal)?;
    Ok(json!({
        "kind": kind,
        "accepted": true,
        "profile_id": profile_id,
        "source_hash": source_hash,
        "warnings": warnings,
    }))
}
