//! The lake's typed queries (`jsprof lake ls|top|tree|flamegraph|trend`), defined once in the
//! document layer as [`crate::query`] defines the CPU documents' and [`crate::heap_query`] the
//! heap views': the CLI flattens them into its clap arguments (with the `clap` feature), and a
//! door that reads JSON or query parameters takes the same fields with serde and a JSON Schema.
//! The lake engine (`jsprof_lake`, behind the `lake` feature) reads [`LakeSelection`]'s terms.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::query::{By, Query};
use crate::tree::TreeOptions;

/// Which of a lake's profiles a question is over.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LakeSelection {
    /// Which profiles: NAME=VALUE, NAME=V1|V2, NAME!=VALUE, since=TIME, until=TIME (comma
    /// separated; repeat for more; all must hold). `kind`, `thread`, `source_name` name columns.
    #[cfg_attr(feature = "clap", arg(long = "where", short = 'w'))]
    #[serde(default, rename = "where", deserialize_with = "crate::query::de_texts")]
    #[schemars(with = "Vec<String>")]
    pub wheres: Vec<String>,
    /// Profiles that started (else were added) at or after this day or RFC 3339 time.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub since: Option<String>,
    /// Profiles that started (else were added) before this day or RFC 3339 time.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub until: Option<String>,
}

impl Query for LakeSelection {}

/// Which weights a lake question adds up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LakeUnit {
    /// Time in nanoseconds (CPU profiles, self-profiling, traces).
    Ns,
    /// Allocated bytes (.heapprofile).
    Bytes,
}

impl LakeUnit {
    /// The unit as the lake's files name it.
    pub fn as_str(self) -> &'static str {
        match self {
            LakeUnit::Ns => "ns",
            LakeUnit::Bytes => "bytes",
        }
    }
}

fn default_top_limit() -> usize {
    25
}

/// `jsprof lake top`: the functions of the selection's merged profiles.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LakeTopQuery {
    #[cfg_attr(feature = "clap", command(flatten))]
    #[serde(flatten)]
    pub selection: LakeSelection,
    /// Order by self or total.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value = "self"))]
    #[serde(default)]
    pub by: By,
    /// How many functions to list; 0 lists all.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 25))]
    #[serde(default = "default_top_limit")]
    pub limit: usize,
    /// Which weights to add up (default: the selection's one unit; time when it has both).
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default)]
    pub unit: Option<LakeUnit>,
}

impl Query for LakeTopQuery {}

/// `jsprof lake tree`: the call tree of the selection's merged stacks.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LakeTreeQuery {
    #[cfg_attr(feature = "clap", command(flatten))]
    #[serde(flatten)]
    pub selection: LakeSelection,
    /// Functions as roots with their callers beneath (DevTools' Bottom-up tab).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub bottom_up: bool,
    /// Show this many levels (1 = the roots only); 0 shows all.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    #[serde(default)]
    pub max_depth: u32,
    /// Hide nodes whose total is under this percentage (and what is beneath them).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.0))]
    #[serde(default)]
    pub min_percent: f64,
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    #[serde(default)]
    pub unit: Option<LakeUnit>,
}

impl LakeTreeQuery {
    /// The tree's options.
    pub fn options(&self) -> TreeOptions {
        TreeOptions {
            bottom_up: self.bottom_up,
            max_depth: self.max_depth,
            min_percent: self.min_percent,
        }
    }
}

impl Query for LakeTreeQuery {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_lake_queries_read_json_as_the_cli_reads_flags() {
        let q: LakeTopQuery = serde_json::from_value(
            json!({"where": ["kind=cpu", "page=/"], "by": "total", "unit": "bytes"}),
        )
        .unwrap();
        assert_eq!(q.selection.wheres, ["kind=cpu", "page=/"]);
        assert_eq!(
            (q.by, q.limit, q.unit),
            (By::Total, 25, Some(LakeUnit::Bytes))
        );
        let q: LakeTreeQuery =
            serde_json::from_value(json!({"where": "kind=cpu", "max_depth": 2})).unwrap();
        assert_eq!(q.selection.wheres, ["kind=cpu"]);
        assert_eq!(q.options().max_depth, 2);
        assert!(serde_json::from_value::<LakeTopQuery>(json!({"unit": "ms"})).is_err());
        let names = crate::query::param_names::<LakeTopQuery>();
        for want in ["where", "since", "until", "by", "limit", "unit"] {
            assert!(names.contains(&want.to_string()), "{names:?}");
        }
    }
}
