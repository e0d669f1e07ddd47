//! Reading: a DataFusion session over the lake's valid files, with the documented views.
//!
//! Files are listed per table, pruned by partition directory (`--where`), and each file's footer
//! is checked before the engine sees it: a file that does not parse as Parquet, whose column
//! chunks reach past its end (a truncated copy), or whose columns are not the table's is skipped
//! with a warning naming it. Names starting with `.` (`.tmp-…` of a writer at work or killed)
//! or not ending in `.parquet` are ignored.
//!
//! Compaction writes a file that names the files it replaces (key-value metadata
//! `jsprof.replaces`); a listing that holds both the new file and an old one it replaces drops
//! the old one, so a reader never counts rows twice while `lake compact` runs.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use parquet::file::metadata::ParquetMetaDataReader;

use crate::layout;
use crate::limits::{self, Limits};
use crate::schema::{self, TABLES};
use crate::selection::Selection;
use crate::write::Lake;
use crate::{LakeError, Result};

/// The metadata key of a compacted file: the file names (relative to the lake) it replaces,
/// separated by newlines.
pub const REPLACES_KEY: &str = "jsprof.replaces";

/// A file skipped while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadWarning {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: skipped: {}", self.path.display(), self.message)
    }
}

/// A file's footer, checked; `Err` says why it is not readable data.
fn check_file(path: &Path, table: &str) -> std::result::Result<Vec<String>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|e| format!("not a whole Parquet file ({e})"))?;
    for (i, rg) in meta.row_groups().iter().enumerate() {
        for col in rg.columns() {
            let (start, size) = col.byte_range();
            if start.saturating_add(size) > len {
                return Err(format!(
                    "row group {i} reaches byte {} of a {len}-byte file (truncated)",
                    start.saturating_add(size)
                ));
            }
        }
    }
    let want: Vec<String> = schema::of(table)
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let have: Vec<String> = meta
        .file_metadata()
        .schema_descr()
        .root_schema()
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    if want != have {
        return Err(format!(
            "its columns are {have:?}, not the {table} table's {want:?}"
        ));
    }
    let replaces = meta
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == REPLACES_KEY))
        .and_then(|k| k.value.clone())
        .map(|v| v.lines().map(str::to_string).collect())
        .unwrap_or_default();
    Ok(replaces)
}

/// Each table's files.
pub type TableFiles = BTreeMap<&'static str, Vec<PathBuf>>;

/// The valid files of every table for a selection, with warnings for the skipped ones.
pub fn valid_files(lake: &Lake, selection: &Selection) -> Result<(TableFiles, Vec<ReadWarning>)> {
    let mut warnings = Vec::new();
    let mut out = BTreeMap::new();
    for table in TABLES {
        let mut files = Vec::new();
        let mut replaced: HashSet<PathBuf> = HashSet::new();
        for file in layout::table_files(&lake.root, table)? {
            let (day, label) = layout::partition_of(&lake.root, table, &file);
            let label = label.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
            if !selection.keeps_partition(day.as_deref(), label) {
                continue;
            }
            match check_file(&file, table) {
                Ok(replaces) => {
                    for r in replaces {
                        replaced.insert(lake.root.join(r));
                    }
                    files.push(file);
                }
                Err(message) => warnings.push(ReadWarning {
                    path: file,
                    message,
                }),
            }
        }
        files.retain(|f| !replaced.contains(f));
        out.insert(table, files);
    }
    Ok((out, warnings))
}

/// A DataFusion session over a lake.
pub struct LakeReader {
    pub lake: Lake,
    pub ctx: SessionContext,
    /// Files skipped (corrupt, truncated, foreign).
    pub warnings: Vec<ReadWarning>,
    /// The files each table reads.
    pub files: BTreeMap<&'static str, Vec<PathBuf>>,
    /// The user's queries' limits, when opened for them ([`sql`]).
    limits: Option<Limits>,
}

/// The views over the raw tables: the dictionaries deduplicated (their rows repeat across files
/// by design; equal ids are equal content, so any row of an id is the row).
const VIEWS: &[(&str, &str)] = &[
    ("profiles", "SELECT * FROM _profiles"),
    ("samples", "SELECT * FROM _samples"),
    ("profile_functions", "SELECT * FROM _profile_functions"),
    ("classes", "SELECT * FROM _classes"),
    ("page_metrics", "SELECT * FROM _page_metrics"),
    (
        "functions",
        "SELECT function_id, min(name) AS name, min(url) AS url, min(line) AS line, \
         min(\"column\") AS \"column\" FROM _functions GROUP BY function_id",
    ),
    (
        "stacks",
        "SELECT stack_id, min(parent_id) AS parent_id, min(function_id) AS function_id, \
         min(depth) AS depth FROM _stacks GROUP BY stack_id",
    ),
];

impl LakeReader {
    /// Opens `lake` for queries over the profiles `selection` may select (partitions it rules
    /// out are not read at all).
    pub async fn open(lake: &Lake, selection: &Selection) -> Result<LakeReader> {
        LakeReader::open_with(lake, selection, None).await
    }

    /// [`open`](Self::open), within `limits` when given: a memory pool of their size and the
    /// size-choosing functions bounded (see [`crate::limits`]).
    pub async fn open_with(
        lake: &Lake,
        selection: &Selection,
        limits: Option<&Limits>,
    ) -> Result<LakeReader> {
        let (files, warnings) = valid_files(lake, selection)?;
        // Two partitions: the machine the lake is made for has two cores, and more only adds
        // repartitioning work to small lakes.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
        let config = SessionConfig::new()
            .with_target_partitions(threads)
            .with_information_schema(true);
        let ctx = match limits {
            Some(l) => SessionContext::new_with_config_rt(config, limits::runtime(l)?),
            None => SessionContext::new_with_config(config),
        };
        for table in TABLES {
            let schema = schema::of(table);
            let list = &files[table];
            let raw = format!("_{table}");
            if list.is_empty() {
                let empty = MemTable::try_new(schema, vec![vec![]])?;
                ctx.register_table(raw.as_str(), Arc::new(empty))?;
                continue;
            }
            let urls = list
                .iter()
                .map(|p| {
                    ListingTableUrl::parse(p.to_string_lossy())
                        .map_err(|e| LakeError::Query(format!("{}: {e}", p.display())))
                })
                .collect::<Result<Vec<_>>>()?;
            let options = ListingOptions::new(Arc::new(ParquetFormat::default()))
                .with_file_extension(".parquet");
            let config = ListingTableConfig::new_with_multi_paths(urls)
                .with_listing_options(options)
                .with_schema(schema);
            let table_provider = ListingTable::try_new(config)?;
            ctx.register_table(raw.as_str(), Arc::new(table_provider))?;
        }
        for (name, sql) in VIEWS {
            ctx.sql(&format!("CREATE VIEW {name} AS {sql}")).await?;
        }
        if let Some(l) = limits {
            limits::bound_functions(&ctx, l.max_memory)?;
        }
        Ok(LakeReader {
            lake: lake.clone(),
            ctx,
            warnings,
            files,
            limits: limits.copied(),
        })
    }

    /// Runs one query (trusted SQL the crate builds) to completion.
    pub async fn query(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        let df = self.ctx.sql(sql).await?;
        Ok(df.collect().await?)
    }

    /// Runs the user's SQL read-only: DDL, DML (`INSERT`, `COPY`) and statements (`SET`, …)
    /// are refused before anything runs. Within the memory limit the reader was opened with;
    /// [`sql`] adds the time limit.
    pub async fn query_read_only(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        let options = datafusion::execution::context::SQLOptions::new()
            .with_allow_ddl(false)
            .with_allow_dml(false)
            .with_allow_statements(false);
        let limited = |e: datafusion::error::DataFusionError| match &self.limits {
            Some(l) => limits::limit_error(e, l),
            None => LakeError::from(e),
        };
        let df = self
            .ctx
            .sql_with_options(sql, options)
            .await
            .map_err(|e| match limited(e) {
                LakeError::Query(m) => LakeError::Usage(format!("lake sql: {m}")),
                other => other,
            })?;
        let Some(l) = &self.limits else {
            return df.collect().await.map_err(limited);
        };
        // The result is held whole: its batches count against the same pool as the operators.
        use futures_util::StreamExt;
        let pool = self.ctx.runtime_env().memory_pool.clone();
        let mut reservation =
            datafusion::execution::memory_pool::MemoryConsumer::new("lake sql's result")
                .register(&pool);
        let mut stream = df.execute_stream().await.map_err(limited)?;
        let mut out = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(limited)?;
            reservation
                .try_grow(batch.get_array_memory_size())
                .map_err(|e| limits::limit_error(e, l))?;
            out.push(batch);
        }
        Ok(out)
    }
}

/// Runs the user's `sql` read-only over the whole of `lake` within `limits` (memory and time;
/// see [`crate::limits`]): every door that takes SQL from a user calls this. Returns the rows
/// and the files skipped while reading. A file that vanished under the query (a compaction
/// removed it after the listing) makes it list again and run once more, within the same
/// deadline.
pub fn sql(
    lake: &Lake,
    sql: &str,
    limits: &Limits,
) -> Result<(Vec<RecordBatch>, Vec<ReadWarning>)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LakeError::Query(format!("cannot start the query runtime: {e}")))?;
    let (done, answer) = std::sync::mpsc::channel();
    let (lake, sql, l) = (lake.clone(), sql.to_string(), *limits);
    let task = runtime.spawn(async move {
        let mut retried = false;
        let result = loop {
            let reader = match LakeReader::open_with(&lake, &Selection::default(), Some(&l)).await {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            match reader.query_read_only(&sql).await {
                Err(e) if !retried && is_vanished_file(&e) => retried = true,
                Err(e) => break Err(e),
                Ok(batches) => break Ok((batches, reader.warnings)),
            }
        };
        let _ = done.send(result);
    });
    let result = match answer.recv_timeout(limits.timeout) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            task.abort();
            Err(limits::timeout_error(limits))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(LakeError::Query(
            "lake sql: the query engine stopped without an answer".into(),
        )),
    };
    // Not waiting for a plan that does not yield: the caller has its answer.
    runtime.shutdown_background();
    result
}

/// Whether a query failed because a file disappeared under it (compaction removed it after the
/// listing): the caller lists again and retries once.
pub fn is_vanished_file(e: &LakeError) -> bool {
    let text = e.to_string();
    text.contains("No such file") || text.contains("not found") || text.contains("NotFound")
}
