//! The flags of the load pipeline and of the views, shared by every CPU command through clap's
//! `flatten`: the filters (`jsprof_document::filters::FilterSpec`, the one definition the service
//! and the UI read from query parameters too), the source maps (`--sourcemap`,
//! `--no-sourcemaps`), and the view (`--thread`, `--range`, `--samples`). The pipeline itself is
//! `jsprof_document::load`.

use std::path::PathBuf;

use jsprof_analysis::TimeRange;
use jsprof_document::filters::FilterSpec;
use jsprof_document::load::{Pipeline, ViewSpec};
use jsprof_document::source_maps::SourceMaps;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct TransformArgs {
    #[command(flatten)]
    pub filters: FilterSpec,
    /// A source map, or a folder of them, for scripts whose own sourceMappingURL comment does
    /// not lead to one; matched to scripts by file name (repeatable).
    #[arg(long, value_name = "FILE|DIR")]
    pub sourcemap: Vec<PathBuf>,
    /// Show generated positions: do not apply source maps.
    #[arg(long, conflicts_with = "sourcemap")]
    pub no_sourcemaps: bool,
}

impl TransformArgs {
    /// The pipeline these flags ask for.
    pub fn pipeline(&self) -> Pipeline {
        Pipeline {
            source_maps: if self.no_sourcemaps {
                SourceMaps::off()
            } else {
                SourceMaps {
                    explicit: self.sourcemap.clone(),
                    ..SourceMaps::default()
                }
            },
            filters: self.filters.clone(),
        }
    }

    /// A short description for subtitles (`focus ^render$, idle hidden`), `None` without filters.
    pub fn describe(&self) -> Option<String> {
        self.filters.describe()
    }
}

/// Which thread and time range a view shows.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ViewArgs {
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// Only time within START..END (ms from the profile's start — a trace's first timestamp;
    /// either side may be empty), clipped as DevTools' range selection does.
    #[arg(long, value_name = "START..END", value_parser = crate::range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<TimeRange>,
    /// For a trace: weigh the thread's CPU samples instead of its entries (the Performance panel's
    /// JS calls and trace events, the default).
    #[arg(long)]
    pub samples: bool,
}

impl ViewArgs {
    pub fn spec(&self) -> ViewSpec {
        ViewSpec {
            thread: self.thread.clone(),
            range: self.range,
            samples: self.samples,
        }
    }
}
