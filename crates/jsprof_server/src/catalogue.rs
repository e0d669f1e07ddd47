//! The session catalogue: one SQLite database (`catalogue.sqlite` in the data directory) with a
//! row per session and per artifact. Artifact files live beside it, under `sessions/<id>/`, and
//! are named by the catalogue, never by a request.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, ToSql};
use serde::{Deserialize, Serialize};

/// A session's life: recording until stopped (or failed: the target went away, the recording
/// could not be collected, or the server died while it ran).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Recording,
    Stopped,
    Failed,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Recording => "recording",
            State::Stopped => "stopped",
            State::Failed => "failed",
        }
    }

    fn parse(s: &str) -> State {
        match s {
            "recording" => State::Recording,
            "stopped" => State::Stopped,
            _ => State::Failed,
        }
    }
}

/// One timeline of a session (a thread of its trace or CPU profile).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TimelineInfo {
    pub timeline_id: u32,
    pub name: String,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
}

/// A session as stored.
#[derive(Clone, Debug)]
pub struct SessionRow {
    pub id: String,
    /// `recorded` or `imported`.
    pub source: String,
    pub target: String,
    pub ws_url: Option<String>,
    pub pid: Option<u32>,
    pub state: State,
    pub record: Vec<String>,
    pub started_at: String,
    pub stopped_at: Option<String>,
    pub error: Option<String>,
    pub timelines: Vec<TimelineInfo>,
    /// The artifact the timelines come from.
    pub timeline_artifact: Option<u32>,
    /// What the recording skipped (heap snapshots past the session quota).
    pub warnings: Vec<String>,
}

/// A file of a session.
#[derive(Clone, Debug)]
pub struct ArtifactRow {
    pub artifact_id: u32,
    pub kind: ArtifactKind,
    /// What the file holds (`cpuprofile`, `selfprofile`, `trace`, `heapprofile`, `heapsnapshot`).
    pub format: String,
    /// The file's name inside the session's directory.
    pub file: String,
    pub bytes: u64,
    /// The name it was uploaded under, for imports.
    pub original_name: Option<String>,
}

/// What an artifact is, a closed set: stored as its name and parsed once where rows are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// A CPU profile or JS Self-Profiling trace.
    Cpu,
    /// A sampling heap profile.
    HeapSampling,
    HeapSnapshot,
    /// A Chrome trace.
    Trace,
}

impl ArtifactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Cpu => "cpu",
            ArtifactKind::HeapSampling => "heap-sampling",
            ArtifactKind::HeapSnapshot => "heap-snapshot",
            ArtifactKind::Trace => "trace",
        }
    }

    pub fn parse(s: &str) -> Option<ArtifactKind> {
        [
            ArtifactKind::Cpu,
            ArtifactKind::HeapSampling,
            ArtifactKind::HeapSnapshot,
            ArtifactKind::Trace,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// The catalogue, shared by every request.
pub struct Catalogue {
    db: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    ws_url TEXT,
    pid INTEGER,
    state TEXT NOT NULL,
    record TEXT NOT NULL,
    started_at TEXT NOT NULL,
    stopped_at TEXT,
    error TEXT,
    timelines TEXT NOT NULL DEFAULT '[]',
    timeline_artifact INTEGER,
    warnings TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS artifacts (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    artifact_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    format TEXT NOT NULL,
    file TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    original_name TEXT,
    PRIMARY KEY (session_id, artifact_id)
);
";

fn session_of(row: &Row) -> rusqlite::Result<SessionRow> {
    let record: String = row.get("record")?;
    let timelines: String = row.get("timelines")?;
    let state: String = row.get("state")?;
    let warnings: String = row.get("warnings")?;
    Ok(SessionRow {
        id: row.get("id")?,
        source: row.get("source")?,
        target: row.get("target")?,
        ws_url: row.get("ws_url")?,
        pid: row.get("pid")?,
        state: State::parse(&state),
        record: serde_json::from_str(&record).unwrap_or_default(),
        started_at: row.get("started_at")?,
        stopped_at: row.get("stopped_at")?,
        error: row.get("error")?,
        timelines: serde_json::from_str(&timelines).unwrap_or_default(),
        timeline_artifact: row.get("timeline_artifact")?,
        warnings: serde_json::from_str(&warnings).unwrap_or_default(),
    })
}

fn artifact_of(row: &Row) -> rusqlite::Result<ArtifactRow> {
    Ok(ArtifactRow {
        artifact_id: row.get("artifact_id")?,
        kind: {
            let text: String = row.get("kind")?;
            ArtifactKind::parse(&text).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    2,
                    rusqlite::types::Type::Text,
                    format!("unknown artifact kind `{text}`").into(),
                )
            })?
        },
        format: row.get("format")?,
        file: row.get("file")?,
        bytes: row.get::<_, i64>("bytes")? as u64,
        original_name: row.get("original_name")?,
    })
}

/// The `sessions` columns a row writes, each with its value: declared once for the insert
/// that starts a session and the update that finishes it ([`FINISHED`]).
fn session_values(s: &SessionRow) -> [(&'static str, Box<dyn ToSql + '_>); 13] {
    [
        ("id", Box::new(&s.id)),
        ("source", Box::new(&s.source)),
        ("target", Box::new(&s.target)),
        ("ws_url", Box::new(&s.ws_url)),
        ("pid", Box::new(s.pid)),
        ("state", Box::new(s.state.as_str())),
        ("record", Box::new(json(&s.record))),
        ("started_at", Box::new(&s.started_at)),
        ("stopped_at", Box::new(&s.stopped_at)),
        ("error", Box::new(&s.error)),
        ("timelines", Box::new(json(&s.timelines))),
        ("timeline_artifact", Box::new(s.timeline_artifact)),
        ("warnings", Box::new(json(&s.warnings))),
    ]
}

/// A list column's text.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// What finishing a session writes again of its row.
const FINISHED: [&str; 6] = [
    "state",
    "stopped_at",
    "error",
    "timelines",
    "timeline_artifact",
    "warnings",
];

fn insert_row(db: &Connection, s: &SessionRow) -> rusqlite::Result<()> {
    let values = session_values(s);
    let names: Vec<&str> = values.iter().map(|(name, _)| *name).collect();
    let slots: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
    db.execute(
        &format!(
            "INSERT INTO sessions ({}) VALUES ({})",
            names.join(", "),
            slots.join(", ")
        ),
        params_from_iter(values.iter().map(|(_, v)| v)),
    )?;
    Ok(())
}

fn insert_artifacts(
    db: &Connection,
    session: &str,
    artifacts: &[ArtifactRow],
) -> rusqlite::Result<()> {
    for a in artifacts {
        db.execute(
            "INSERT OR REPLACE INTO artifacts (session_id, artifact_id, kind, format, file,
                bytes, original_name) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                session,
                a.artifact_id,
                a.kind.as_str(),
                a.format,
                a.file,
                a.bytes as i64,
                a.original_name
            ],
        )?;
    }
    Ok(())
}

impl Catalogue {
    /// Opens (or creates) the catalogue. Every commit is synced (WAL, `synchronous=FULL`), so
    /// an answered request survives a crash.
    pub fn open(path: &Path) -> rusqlite::Result<Catalogue> {
        let db = Connection::open(path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "FULL")?;
        db.pragma_update(None, "foreign_keys", "ON")?;
        db.execute_batch(SCHEMA)?;
        // Catalogues written before `warnings` existed.
        let has_warnings: bool = db.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('sessions') WHERE name = 'warnings'",
            [],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )?;
        if !has_warnings {
            db.execute_batch(
                "ALTER TABLE sessions ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]'",
            )?;
        }
        Ok(Catalogue { db: Mutex::new(db) })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (statements are atomic).
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `work` in one transaction, committed when it succeeds.
    fn in_transaction<T>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let mut db = self.db();
        let tx = db.transaction()?;
        let out = work(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    pub fn insert_session(&self, s: &SessionRow) -> rusqlite::Result<()> {
        insert_row(&self.db(), s)
    }

    /// Records a finished session (an import) with its artifacts in one transaction.
    pub fn insert_finished(
        &self,
        s: &SessionRow,
        artifacts: &[ArtifactRow],
    ) -> rusqlite::Result<()> {
        self.in_transaction(|tx| {
            insert_row(tx, s)?;
            insert_artifacts(tx, &s.id, artifacts)
        })
    }

    /// Records the end of a session and its artifacts in one transaction.
    pub fn finish_session(
        &self,
        s: &SessionRow,
        artifacts: &[ArtifactRow],
    ) -> rusqlite::Result<()> {
        self.in_transaction(|tx| {
            // `id` first (`?1`), then the columns a finished session writes again.
            let values: Vec<_> = session_values(s)
                .into_iter()
                .filter(|(name, _)| *name == "id" || FINISHED.contains(name))
                .collect();
            let set: Vec<String> = values[1..]
                .iter()
                .enumerate()
                .map(|(i, (name, _))| format!("{name} = ?{}", i + 2))
                .collect();
            tx.execute(
                &format!("UPDATE sessions SET {} WHERE id = ?1", set.join(", ")),
                params_from_iter(values.iter().map(|(_, v)| v)),
            )?;
            insert_artifacts(tx, &s.id, artifacts)
        })
    }

    pub fn session(&self, id: &str) -> rusqlite::Result<Option<(SessionRow, Vec<ArtifactRow>)>> {
        let db = self.db();
        let session = db
            .query_row("SELECT * FROM sessions WHERE id = ?1", [id], session_of)
            .optional()?;
        let Some(session) = session else {
            return Ok(None);
        };
        let mut stmt =
            db.prepare("SELECT * FROM artifacts WHERE session_id = ?1 ORDER BY artifact_id")?;
        let artifacts = stmt
            .query_map([id], artifact_of)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some((session, artifacts)))
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> rusqlite::Result<Vec<(SessionRow, Vec<ArtifactRow>)>> {
        let ids: Vec<String> = {
            let db = self.db();
            let mut stmt = db.prepare("SELECT id FROM sessions ORDER BY seq")?;
            let ids = stmt
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            ids
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(s) = self.session(&id)? {
                out.push(s);
            }
        }
        Ok(out)
    }

    pub fn delete_session(&self, id: &str) -> rusqlite::Result<bool> {
        self.in_transaction(|tx| {
            tx.execute("DELETE FROM artifacts WHERE session_id = ?1", [id])?;
            Ok(tx.execute("DELETE FROM sessions WHERE id = ?1", [id])? > 0)
        })
    }
}
