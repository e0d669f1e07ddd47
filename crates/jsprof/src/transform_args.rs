//! The flags of the load pipeline and of the views, shared by every CPU command through clap's
//! `flatten`: the filters (`jsprof_document::filters::FilterSpec`, the one definition the service
//! and the UI read from query parameters too), the source maps (`--sourcemap`,
//! `--no-sourcemaps`), and the view (`--thread`, `--range`, `--samples`: `jsprof_document::load::ViewSpec`). The pipeline itself is
//! `jsprof_document::load`.

use std::path::PathBuf;

use jsprof_document::filters::FilterSpec;
use jsprof_document::load::Pipeline;
use jsprof_document::source_maps::SourceMaps;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct TransformArgs {
    #[command(flatten)]
    pub filters: FilterSpec,
    #[command(flatten)]
    pub source_maps: SourceMapArgs,
}

/// `--sourcemap` and `--no-sourcemaps`: the CPU commands' and the heap views' (`heap summary`)
/// one definition.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SourceMapArgs {
    /// A source map, or a folder of them, for scripts whose own sourceMappingURL comment does
    /// not lead to one; matched to scripts by file name (repeatable).
    #[arg(long, value_name = "FILE|DIR")]
    pub sourcemap: Vec<PathBuf>,
    /// Show generated positions: do not apply source maps.
    #[arg(long, conflicts_with = "sourcemap")]
    pub no_sourcemaps: bool,
}

impl SourceMapArgs {
    /// The policy these flags ask for: the script's own map or the given ones, on this machine.
    pub fn policy(&self) -> SourceMaps {
        if self.no_sourcemaps {
            SourceMaps::off()
        } else {
            SourceMaps {
                explicit: self.sourcemap.clone(),
                ..SourceMaps::default()
            }
        }
    }
}

impl TransformArgs {
    /// The pipeline these flags ask for.
    pub fn pipeline(&self) -> Pipeline {
        Pipeline {
            source_maps: self.source_maps.policy(),
            filters: self.filters.clone(),
        }
    }

    /// A short description for subtitles (`focus ^render$, idle hidden`), `None` without filters.
    pub fn describe(&self) -> Option<String> {
        self.filters.describe()
    }
}

/// Which thread and time range a view shows: `--thread`, `--range`, `--samples`, defined once
/// with the service's and MCP's parameters of the same names.
pub use jsprof_document::load::ViewSpec as ViewArgs;
