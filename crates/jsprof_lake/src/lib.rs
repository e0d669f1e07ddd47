//! The profile lake: sampled profiles as Parquet files (schema version 1, `docs/lake.md`), written
//! by many writers without coordination and queried in-process with DataFusion.
//!
//! - [`prepare`] turns one input's bytes (any sampled format jsprof reads, or a heap snapshot)
//!   into [`Prepared`] rows, through the same pipeline as `jsprof top`;
//! - [`Lake`] and [`Writer`] append batches of them durably (temporary name, fsync, rename,
//!   directory fsync);
//! - [`read`] opens a DataFusion session over the lake's valid files with the documented views,
//!   and [`query`] answers the `lake` commands from it, within [`Limits`] for the user's SQL ([`read::sql`]);
//! - [`ingest`] checks what a browser posts to `jsprof serve --lake`.
//!
//! Features: `engine` (default) is everything that needs DataFusion, Arrow and Parquet — the
//! writer's files, reading, queries, compaction; `load` reads inputs through jsprof's pipeline
//! ([`prepare`], [`ingest`]). Without `engine` the crate is the rows a write is made of and the
//! ingest checks: what the fuzz targets `lake_rows` and `ingest_body` build, in seconds rather
//! than DataFusion's minutes.

#[cfg(feature = "engine")]
pub mod compact;
#[cfg(feature = "load")]
pub mod ingest;
pub mod layout;
#[cfg(feature = "engine")]
pub mod limits;
pub mod prepare;
pub mod private;
#[cfg(feature = "engine")]
pub mod query;
#[cfg(feature = "engine")]
pub mod read;
#[cfg(feature = "engine")]
pub mod schema;
pub mod selection;
#[cfg(feature = "engine")]
pub mod write;

#[cfg(all(test, feature = "engine"))]
mod tests;

#[cfg(feature = "engine")]
pub use limits::Limits;
#[cfg(feature = "load")]
pub use prepare::{prepare, PrepareOptions};
pub use prepare::{Prepared, PreparedProfile};
#[cfg(feature = "engine")]
pub use read::{LakeReader, ReadWarning};
pub use selection::Selection;
#[cfg(feature = "engine")]
pub use write::{AppendOutcome, Lake, Writer};

use std::path::PathBuf;

use thiserror::Error;

/// Why a lake operation failed.
#[derive(Debug, Error)]
pub enum LakeError {
    /// An input file cannot be read as a profile (names the file and what is wrong).
    #[error("{0}")]
    Input(String),
    /// A file system operation failed on `path`.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The directory is not a lake, or a lake of another version.
    #[error("{0}")]
    NotALake(String),
    /// A `--where` term, label or time that does not parse.
    #[error("{0}")]
    Usage(String),
    /// An input is larger than the limit it is read under (`PrepareOptions::max_bytes`).
    #[error("{name}: larger than the limit of {limit} bytes")]
    TooLarge { name: String, limit: u64 },
    /// The user's query passed a limit ([`Limits`]); the message names it and its flag.
    #[error("{0}")]
    Limit(String),
    /// Parquet or Arrow refused to write or read.
    #[error("{0}")]
    Parquet(String),
    /// The query engine failed.
    #[error("{0}")]
    Query(String),
}

pub type Result<T, E = LakeError> = std::result::Result<T, E>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> LakeError {
    let path = path.into();
    move |source| LakeError::Io { path, source }
}

#[cfg(feature = "engine")]
impl From<datafusion::error::DataFusionError> for LakeError {
    fn from(e: datafusion::error::DataFusionError) -> Self {
        LakeError::Query(e.to_string())
    }
}

#[cfg(feature = "engine")]
impl From<arrow::error::ArrowError> for LakeError {
    fn from(e: arrow::error::ArrowError) -> Self {
        LakeError::Parquet(e.to_string())
    }
}

#[cfg(feature = "engine")]
impl From<parquet::errors::ParquetError> for LakeError {
    fn from(e: parquet::errors::ParquetError) -> Self {
        LakeError::Parquet(e.to_string())
    }
}
