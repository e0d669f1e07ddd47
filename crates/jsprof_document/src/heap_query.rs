//! The heap views' typed queries, defined once for every front door as [`crate::query`] does for
//! the CPU documents: `jsprof heap summary|retainers|diff|strings|detached|leaks` flatten them
//! into their clap arguments, the service reads its `…/heap/…` query parameters into them, and
//! the MCP heap tools take them as arguments (their schemas included). One parser per value:
//! `sort` is [`HeapSort`]'s, an object id is [`parse_object_id`].

use jsprof_heap::SortBy;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use crate::query::{named_values, Query};

/// The order of the Summary's classes, largest first: `retained` (the default), `self` or
/// `count`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum HeapSort {
    #[default]
    Retained,
    #[cfg_attr(feature = "clap", value(name = "self"))]
    SelfSize,
    Count,
}

impl From<HeapSort> for SortBy {
    fn from(sort: HeapSort) -> SortBy {
        match sort {
            HeapSort::Retained => SortBy::Retained,
            HeapSort::SelfSize => SortBy::SelfSize,
            HeapSort::Count => SortBy::Count,
        }
    }
}

named_values!(HeapSort, option = "sort", schema = "HeapSort",
    description = "`retained` (default), `self` or `count`.",
    ["retained" => Retained, "self" => SelfSize, "count" => Count]);

/// Parses an object id as DevTools shows it, `297807` or `@297807`: every door's one reading.
pub fn parse_object_id(text: &str) -> Result<u32, String> {
    let digits = text.trim().strip_prefix('@').unwrap_or(text.trim());
    digits.parse().map_err(|_| {
        format!(
            "bad node id `{}`: expected a number such as 297807 or @297807",
            crate::query::shown_value(text)
        )
    })
}

/// An object id as a JSON argument: `123` or `"@123"`, as the tables print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectId(pub u32);

impl<'de> Deserialize<'de> for ObjectId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ObjectId, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Id {
            Number(u32),
            Text(String),
        }
        match Id::deserialize(d)? {
            Id::Number(n) => Ok(ObjectId(n)),
            Id::Text(t) => parse_object_id(&t)
                .map(ObjectId)
                .map_err(serde::de::Error::custom),
        }
    }
}

impl JsonSchema for ObjectId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ObjectId".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": ["integer", "string"],
            "description": "An object id: 297807 or \"@297807\"."
        })
    }
}

/// Whose objects a Summary shows, by JavaScript context (DevTools' Summary filter "JavaScript
/// context"): one native context's (its object id, as `jsprof heap contexts` lists it),
/// `shared` (reached from several contexts) or `none` (from no context).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapContext {
    Id(u32),
    Shared,
    None,
}

impl HeapContext {
    /// The parameter's text, as every door reads it: `shared`, `none`, or an id (`@` allowed).
    pub fn parse(text: &str) -> Result<HeapContext, String> {
        match text.trim() {
            "shared" => Ok(HeapContext::Shared),
            "none" => Ok(HeapContext::None),
            id => parse_object_id(id).map(HeapContext::Id).map_err(|_| {
                format!(
                    "bad `context` `{}`: expected a native context's id (as `heap contexts` \
                     lists it, such as 6045 or @6045), shared or none",
                    crate::query::shown_value(text)
                )
            }),
        }
    }
}

impl std::fmt::Display for HeapContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeapContext::Id(id) => write!(f, "@{id}"),
            HeapContext::Shared => f.write_str("shared"),
            HeapContext::None => f.write_str("none"),
        }
    }
}

impl<'de> Deserialize<'de> for HeapContext {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeapContext, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Number(u32),
            Text(String),
        }
        match Given::deserialize(d)? {
            Given::Number(n) => Ok(HeapContext::Id(n)),
            Given::Text(t) => HeapContext::parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

impl JsonSchema for HeapContext {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HeapContext".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A native context's id as `heap contexts` lists it (\"6045\" or \"@6045\"), \"shared\" or \"none\"."
        })
    }
}

fn default_limit() -> usize {
    20
}

/// `jsprof heap summary`: DevTools' Summary, one row per class.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct HeapSummaryQuery {
    /// Order of the rows (largest first).
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value = "retained"))]
    #[serde(default)]
    pub sort: HeapSort,
    /// How many classes to list; 0 lists all.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 20))]
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Only the objects of one JavaScript context (DevTools' "JavaScript context" filter): a
    /// native context's id as `heap contexts` lists it (`@` allowed), `shared` (objects reached
    /// from several contexts) or `none` (from none).
    #[cfg_attr(feature = "clap", arg(long, value_name = "ID|shared|none", value_parser = HeapContext::parse))]
    #[serde(default)]
    pub context: Option<HeapContext>,
}

impl Default for HeapSummaryQuery {
    fn default() -> Self {
        HeapSummaryQuery {
            sort: HeapSort::default(),
            limit: default_limit(),
            context: None,
        }
    }
}

impl Query for HeapSummaryQuery {}

fn default_paths() -> usize {
    5
}

fn default_max_depth() -> usize {
    100
}

/// `jsprof heap retainers`: how many retaining paths, and how long.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct RetainersOptions {
    /// How many distinct paths to show, shortest first.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 5))]
    #[serde(default = "default_paths")]
    pub paths: usize,
    /// The most steps a path may have.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 100))]
    #[serde(default = "default_max_depth")]
    pub max_depth: usize,
}

impl Default for RetainersOptions {
    fn default() -> Self {
        RetainersOptions {
            paths: default_paths(),
            max_depth: default_max_depth(),
        }
    }
}

impl Query for RetainersOptions {}

/// `jsprof heap diff`: DevTools' Comparison, one row per class.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct HeapDiffQuery {
    /// How many classes to list (largest size delta first); 0 lists all. With --class: how many
    /// new and how many deleted objects.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 20))]
    #[serde(default = "default_limit")]
    pub limit: usize,
}

impl Query for HeapDiffQuery {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_parser_per_value() {
        let q: HeapSummaryQuery = serde_json::from_value(json!({"sort": "self"})).unwrap();
        assert_eq!((q.sort, q.limit), (HeapSort::SelfSize, 20));
        let q: HeapSummaryQuery = serde_json::from_value(json!({})).unwrap();
        assert_eq!(q.sort, HeapSort::Retained);
        let err = serde_json::from_value::<HeapSummaryQuery>(json!({"sort": "size\u{1b}"}))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "bad `sort` `size\\u{1b}`: expected retained, self or count"
        );
        assert_eq!(SortBy::from(HeapSort::Count), SortBy::Count);
        let o: RetainersOptions = serde_json::from_value(json!({"paths": 2})).unwrap();
        assert_eq!((o.paths, o.max_depth), (2, 100));
    }

    #[test]
    fn contexts_read_as_ids_or_names_at_every_door() {
        let q = |v| serde_json::from_value::<HeapSummaryQuery>(v).map(|q| q.context);
        assert_eq!(q(json!({})).unwrap(), None);
        assert_eq!(
            q(json!({"context": "@6045"})).unwrap(),
            Some(HeapContext::Id(6045))
        );
        assert_eq!(
            q(json!({"context": 6045})).unwrap(),
            Some(HeapContext::Id(6045))
        );
        assert_eq!(
            q(json!({"context": "shared"})).unwrap(),
            Some(HeapContext::Shared)
        );
        assert_eq!(HeapContext::parse(" none"), Ok(HeapContext::None));
        assert_eq!(
            HeapContext::parse("main").unwrap_err(),
            "bad `context` `main`: expected a native context's id (as `heap contexts` lists it, \
             such as 6045 or @6045), shared or none"
        );
        assert_eq!(HeapContext::Id(7).to_string(), "@7");
    }

    #[test]
    fn object_ids_read_as_the_tables_print_them() {
        let id = |v| serde_json::from_value::<ObjectId>(v).map_err(|e| e.to_string());
        assert_eq!(id(json!(7)), Ok(ObjectId(7)));
        assert_eq!(id(json!("@7")), Ok(ObjectId(7)));
        assert_eq!(id(json!(" 7 ")), Ok(ObjectId(7)));
        assert_eq!(
            id(json!("x")),
            Err("bad node id `x`: expected a number such as 297807 or @297807".to_string())
        );
        assert_eq!(parse_object_id("@297807"), Ok(297807));
        // What a user typed reaches a message escaped, whichever door it came through.
        assert_eq!(
            parse_object_id("\u{1b}[2J"),
            Err("bad node id `\\u{1b}[2J`: expected a number such as 297807 or @297807".into())
        );
    }

    #[test]
    fn names_come_from_the_types() {
        use crate::query::param_names;
        assert_eq!(
            param_names::<HeapSummaryQuery>(),
            ["context", "limit", "sort"]
        );
        assert_eq!(param_names::<RetainersOptions>(), ["max_depth", "paths"]);
        assert_eq!(param_names::<HeapDiffQuery>(), ["limit"]);
    }
}
