//! The profile lake: sampled profiles as Parquet files (schema version 1, `docs/lake.md`), written
//! by many writers without coordination and queried in-process with DataFusion.
//!
//! - [`prepare`] turns one input's bytes (any sampled format jsprof reads, or a heap snapshot)
//!   into [`Prepared`] rows, through the same pipeline as `jsprof top`;
//! - [`Lake`] and [`Writer`] append batches of them durably (temporary name, fsync, rename,
//!   directory fsync);
//! - [`read`] opens a DataFusion session over the lake's valid files with the documented views,
//!   and [`query`] answers the `lake` commands from it.

pub mod compact;
pub mod layout;
pub mod prepare;
pub mod query;
pub mod read;
pub mod schema;
pub mod selection;
pub mod write;

#[cfg(test)]
mod tests;

#[cfg(feature = "load")]
pub use prepare::{prepare, PrepareOptions};
pub use prepare::{Prepared, PreparedProfile};
pub use read::{LakeReader, ReadWarning};
pub use selection::Selection;
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

impl From<datafusion::error::DataFusionError> for LakeError {
    fn from(e: datafusion::error::DataFusionError) -> Self {
        LakeError::Query(e.to_string())
    }
}

impl From<arrow::error::ArrowError> for LakeError {
    fn from(e: arrow::error::ArrowError) -> Self {
        LakeError::Parquet(e.to_string())
    }
}

impl From<parquet::errors::ParquetError> for LakeError {
    fn from(e: parquet::errors::ParquetError) -> Self {
        LakeError::Parquet(e.to_string())
    }
}
