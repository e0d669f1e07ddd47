//! The flags that transform a profile before any view sees it — `--focus`, `--exclude`,
//! `--hide-idle`, `--collapse-packages`, `--collapse-recursion` — shared by every CPU command
//! through one clap struct, and the one place that applies them
//! (`jsprof_analysis::filter`), after `--range` — and source maps (`--sourcemap`,
//! `--no-sourcemaps`, `crate::source_maps`), which come before the filters so that patterns
//! match the original names.

use anyhow::Result;
use jsprof_analysis::Filters;
use jsprof_profile::Profile;
use regex::Regex;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct TransformArgs {
    /// Only stacks through a function whose name or URL matches RE, re-rooted at the outermost
    /// match (repeatable: any pattern).
    #[arg(long, value_name = "RE", value_parser = parse_regex)]
    pub focus: Vec<Regex>,
    /// Drop frames whose function name or URL matches RE, charging their time to the caller
    /// (repeatable).
    #[arg(long, value_name = "RE", value_parser = parse_regex)]
    pub exclude: Vec<Regex>,
    /// Leave out `(idle)` samples.
    #[arg(long)]
    pub hide_idle: bool,
    /// One frame per `node_modules` package.
    #[arg(long)]
    pub collapse_packages: bool,
    /// One frame per function per stack (recursive calls merge into the outer one).
    #[arg(long)]
    pub collapse_recursion: bool,
    /// A source map, or a folder of them, for scripts whose own sourceMappingURL comment does
    /// not lead to one; matched to scripts by file name (repeatable).
    #[arg(long, value_name = "FILE|DIR")]
    pub sourcemap: Vec<std::path::PathBuf>,
    /// Show generated positions: do not apply source maps.
    #[arg(long, conflicts_with = "sourcemap")]
    pub no_sourcemaps: bool,
}

pub(crate) fn parse_regex(text: &str) -> Result<Regex, String> {
    Regex::new(text).map_err(|e| format!("bad regular expression `{text}`: {e}"))
}

impl TransformArgs {
    pub fn filters(&self) -> Filters {
        Filters {
            focus: self.focus.clone(),
            exclude: self.exclude.clone(),
            hide_idle: self.hide_idle,
            collapse_packages: self.collapse_packages,
            collapse_recursion: self.collapse_recursion,
        }
    }

    /// The profile with source maps (unless `--no-sourcemaps`) and then the filters applied.
    pub fn apply(&self, name: &str, profile: Profile) -> Result<Profile> {
        let profile = if self.no_sourcemaps {
            profile
        } else {
            crate::source_maps::apply(name, profile, &self.sourcemap)?
        };
        let filters = self.filters();
        if filters.is_empty() {
            return Ok(profile);
        }
        Ok(jsprof_analysis::filter(&profile, &filters))
    }

    /// A short description for subtitles (`focus ^render$, idle hidden`), `None` without filters.
    pub fn describe(&self) -> Option<String> {
        self.filters().describe()
    }
}
