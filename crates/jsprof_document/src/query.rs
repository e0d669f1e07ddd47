//! One typed query per document, defined once for every front door (pprof's `config.go` pattern,
//! as [`crate::filters::FilterSpec`]): each derives clap's arguments (with the `clap` feature) for
//! the CLI, serde for the service's query parameters and the MCP tools' arguments, and
//! `JsonSchema` for the MCP input schemas and for the service's list of known parameters
//! ([`param_names`]). One name per concept at every door: `thread`, `range`, `event`; an old
//! spelling an existing client may send stays accepted as a serde alias ([`Query::ALIASES`]).
//!
//! `START..END` has one type, [`TimeRange`], and one parser, [`parse_range`]; `--by` has one,
//! [`By`]'s `FromStr`.

use jsprof_analysis::{DiffKey, EventQuery, EventType, Mode, TimeRange};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use crate::load::ViewSpec;
use crate::tree::TreeOptions;

/// A document's query: what a front door fills from its own syntax.
pub trait Query: serde::de::DeserializeOwned + JsonSchema {
    /// Old spellings still accepted (serde aliases), as (old, current) pairs: known beside the
    /// schema's names, and read as the current name where values arrive as text.
    const ALIASES: &'static [(&'static str, &'static str)] = &[];
    /// Whether the question also takes the filters ([`crate::filters::PARAMS`]).
    const FILTERED: bool = false;
}

/// The names a query takes (its schema's properties, then its aliases).
pub fn param_names<Q: Query>() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(Q)).expect("schemas serialize");
    let mut names: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    names.extend(Q::ALIASES.iter().map(|(old, _)| old.to_string()));
    names
}

/// Parses `START..END` in milliseconds from the input's time origin (either side may be empty):
/// every `--range` and `range=`.
pub fn parse_range(text: &str) -> Result<TimeRange, String> {
    TimeRange::parse_ms(text).map_err(|e| e.to_string())
}

/// Parses a mode name for `--mode` / `mode=`.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| {
        format!("unknown mode `{s}`: expected all, unique-types, unique-events or reduce-all")
    })
}

/// Parses an event type name for `--type` / `types=`.
pub fn parse_type(s: &str) -> Result<EventType, String> {
    EventType::parse(s).ok_or_else(|| {
        format!(
            "unknown event type `{s}`: expected one of {}",
            EventType::ALL.map(|t| t.as_str()).join(", ")
        )
    })
}

/// Deserializes an optional `START..END`.
pub(crate) fn de_range<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TimeRange>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|t| parse_range(&t).map_err(serde::de::Error::custom))
        .transpose()
}

fn de_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Mode, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(Mode::All),
        Some(m) => parse_mode(&m).map_err(serde::de::Error::custom),
    }
}

/// Texts as a JSON list (`["a", "b"]`) or one text (`a`, as a query parameter sends it).
pub(crate) fn de_texts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Texts {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Option::<Texts>::deserialize(d)? {
        None => Vec::new(),
        Some(Texts::List(list)) => list,
        Some(Texts::Text(text)) => vec![text],
    })
}

/// Event types as a list (`["JS_CALL", "GC"]`) or one comma-separated text (`JS_CALL,GC`).
fn de_types<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<EventType>, D::Error> {
    de_texts(d)?
        .iter()
        .flat_map(|t| t.split(','))
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .map(|t| parse_type(t).map_err(serde::de::Error::custom))
        .collect()
}

fn de_pattern<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|p| crate::filters::check_pattern(&p).map_err(serde::de::Error::custom))
        .transpose()
}

/// The text side of an option whose value is one of a few names (`by`, `sort`, `key`), written
/// once for all of them: the names (`NAMES`, `as_str`), the one parser (`FromStr`, whose error
/// names the option and lists the names), serde's reading (absent: the type's `Default`) and the
/// JSON Schema (the names as an `enum`). clap's `ValueEnum` stays a derive on the type.
macro_rules! named_values {
    ($ty:ident, option = $option:literal, schema = $schema:literal, description = $description:literal,
     [$($name:literal => $variant:ident),+ $(,)?]) => {
        impl $ty {
            /// The names every door spells the values with.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The value's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<$ty, String> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    v => Err($crate::query::bad_name($option, v, Self::NAMES)),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                match <Option<String> as serde::Deserialize>::deserialize(d)? {
                    None => Ok($ty::default()),
                    Some(s) => s.parse().map_err(serde::de::Error::custom),
                }
            }
        }

        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $schema.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "enum": Self::NAMES,
                    "description": $description
                })
            }
        }
    };
}
pub(crate) use named_values;

/// `bad `OPTION` `VALUE`: expected A, B or C`, the value cut at 64 characters and escaped.
pub(crate) fn bad_name(option: &str, value: &str, names: &[&str]) -> String {
    let expected = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "bad `{option}` `{}`: expected {expected}",
        shown_value(value)
    )
}

/// A value a user gave, for an error message: at most 64 characters, control and non-ASCII
/// characters escaped.
pub(crate) fn shown_value(value: &str) -> String {
    value
        .chars()
        .take(64)
        .flat_map(char::escape_default)
        .collect()
}

/// The order of `top`'s rows: `self` (the default) or `total`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum By {
    #[default]
    #[cfg_attr(feature = "clap", value(name = "self"))]
    SelfWeight,
    Total,
}

named_values!(By, option = "by", schema = "By", description = "`self` (default) or `total`.",
    ["self" => SelfWeight, "total" => Total]);

/// How a comparison matches the functions of its two sides (`jsprof diff --key`,
/// `flamegraph --diff --key`, MCP's `cpu_diff`): `name-url` (the default: survives line numbers
/// moving between builds) or `function` (name, URL, line and column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum KeyArg {
    /// (name, url)
    #[default]
    NameUrl,
    /// (name, url, line, column)
    Function,
}

impl KeyArg {
    /// The engine's key.
    pub fn key(self) -> DiffKey {
        match self {
            KeyArg::NameUrl => DiffKey::NameUrl,
            KeyArg::Function => DiffKey::Function,
        }
    }
}

named_values!(KeyArg, option = "key", schema = "DiffKey",
    description = "`name-url` (default: survives moved lines) or `function` (name, url, line, column).",
    ["name-url" => NameUrl, "function" => Function]);

fn default_top_limit() -> usize {
    25
}

/// `jsprof top`: the functions that take the most time (or allocate the most bytes).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TopQuery {
    /// Order by self or total time.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value = "self"))]
    #[serde(default)]
    pub by: By,
    /// How many functions to list; 0 lists all.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 25))]
    #[serde(default = "default_top_limit")]
    pub limit: usize,
    #[cfg_attr(feature = "clap", command(flatten))]
    #[serde(flatten)]
    pub view: ViewSpec,
}

impl Default for TopQuery {
    fn default() -> Self {
        TopQuery {
            by: By::SelfWeight,
            limit: default_top_limit(),
            view: ViewSpec::default(),
        }
    }
}

impl Query for TopQuery {
    const FILTERED: bool = true;
}

/// `jsprof tree`: the call tree (top-down), the Bottom-up tree, or one function's sandwich.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TreeQuery {
    /// Functions as roots with their callers beneath (DevTools' Bottom-up tab).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub bottom_up: bool,
    /// Speedscope's sandwich of the function whose name or URL matches RE (the heaviest when
    /// several do; the others are listed): the functions that called it, then those it called.
    #[cfg_attr(feature = "clap", arg(long, value_name = "RE", conflicts_with = "bottom_up",
          value_parser = crate::filters::check_pattern))]
    #[serde(default, deserialize_with = "de_pattern")]
    pub sandwich: Option<String>,
    /// Show this many levels (1 = the roots only); 0 shows all.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    #[serde(default)]
    pub max_depth: u32,
    /// Hide nodes whose total is under this percentage of the profile (and what is beneath them).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.0))]
    #[serde(default)]
    pub min_percent: f64,
    #[cfg_attr(feature = "clap", command(flatten))]
    #[serde(flatten)]
    pub view: ViewSpec,
}

impl TreeQuery {
    /// The tree's options.
    pub fn options(&self) -> TreeOptions {
        TreeOptions {
            bottom_up: self.bottom_up,
            max_depth: self.max_depth,
            min_percent: self.min_percent,
        }
    }
}

impl Query for TreeQuery {
    const FILTERED: bool = true;
}

/// `jsprof events`: a timeline's events, the profiler service's `GetEvents` (modes, subtree,
/// depth, types and a time range).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct EventsQuery {
    /// The timeline: a timeline_id from `jsprof threads`, a tid or a unique thread name.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub thread: Option<String>,
    /// all | unique-types | unique-events | reduce-all.
    #[cfg_attr(feature = "clap", arg(long, default_value = "all", value_parser = parse_mode))]
    #[serde(default, deserialize_with = "de_mode")]
    #[schemars(with = "Option<String>")]
    pub mode: Mode,
    /// Events overlapping START..END (ms; either side may be empty) are returned whole.
    #[cfg_attr(feature = "clap", arg(long, value_parser = parse_range, allow_hyphen_values = true))]
    #[serde(default, deserialize_with = "de_range")]
    #[schemars(with = "Option<String>")]
    pub range: Option<TimeRange>,
    /// Iterate from this event id instead of the timeline's root (the event itself is left out).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default, alias = "event_id")]
    pub event: Option<u32>,
    /// 1 = top-level events only (with --event: its children).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// Only these types (comma-separated), e.g. `JS_CALL,GC`.
    #[cfg_attr(feature = "clap", arg(long = "type", value_delimiter = ',', value_parser = parse_type))]
    #[serde(default, deserialize_with = "de_types")]
    #[schemars(with = "Vec<String>")]
    pub types: Vec<EventType>,
}

impl EventsQuery {
    /// The engine's query.
    pub fn event_query(&self) -> EventQuery {
        let range = self.range.unwrap_or_default();
        EventQuery {
            mode: self.mode,
            start: range.start,
            end: range.end,
            event_id: self.event,
            max_depth: self.max_depth,
            types: self.types.clone(),
        }
    }
}

impl Query for EventsQuery {
    const ALIASES: &'static [(&'static str, &'static str)] = &[("event_id", "event")];
    const FILTERED: bool = true;
}

/// The flame chart of one thread over a time range: `jsprof flamechart` draws it, MCP's
/// `flame_chart` lists its calls.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct FlameChartQuery {
    /// The timeline: a timeline_id from `jsprof threads`, a tid or a unique thread name.
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub thread: Option<String>,
    /// Draw only START..END (ms; either side may be empty).
    #[cfg_attr(feature = "clap", arg(long, value_parser = parse_range, allow_hyphen_values = true))]
    #[serde(default, alias = "window", deserialize_with = "de_range")]
    #[schemars(with = "Option<String>")]
    pub range: Option<TimeRange>,
    /// Levels of nesting shown (1 = the outermost calls).
    #[cfg_attr(feature = "clap", arg(skip))]
    #[serde(default)]
    pub max_depth: Option<u32>,
}

impl FlameChartQuery {
    /// The calls of the chart as an events query: every event, depth-first.
    pub fn event_query(&self) -> EventQuery {
        let range = self.range.unwrap_or_default();
        EventQuery {
            mode: Mode::All,
            start: range.start,
            end: range.end,
            max_depth: self.max_depth,
            ..EventQuery::default()
        }
    }
}

impl Query for FlameChartQuery {
    const ALIASES: &'static [(&'static str, &'static str)] = &[("window", "range")];
    const FILTERED: bool = true;
}

/// `jsprof summary`: a thread's summary with its heaviest functions.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct SummaryQuery {
    /// The thread (default: the main thread).
    #[serde(default)]
    pub thread: Option<String>,
    /// How many top functions to list.
    #[serde(default = "default_summary_limit")]
    pub limit: usize,
}

fn default_summary_limit() -> usize {
    10
}

impl Query for SummaryQuery {}

/// The question of a document that takes no parameters (`threads`, `insights`, `network`,
/// `timings`).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
pub struct NoQuery {}

impl Query for NoQuery {}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_json<Q: Query>(v: serde_json::Value) -> Result<Q, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn names_come_from_the_types() {
        let top = param_names::<TopQuery>();
        for want in ["by", "limit", "thread", "range", "samples"] {
            assert!(top.contains(&want.to_string()), "{top:?}");
        }
        let events = param_names::<EventsQuery>();
        assert!(events.contains(&"event".to_string()), "{events:?}");
        assert!(events.contains(&"event_id".to_string()), "{events:?}");
        assert!(param_names::<NoQuery>().is_empty());
    }

    #[test]
    fn old_spellings_stay_accepted() {
        let q: EventsQuery = from_json(serde_json::json!({"event_id": 7})).unwrap();
        assert_eq!(q.event, Some(7));
        let q: FlameChartQuery = from_json(serde_json::json!({"window": "1..2"})).unwrap();
        assert_eq!(q.range.unwrap().end, Some(2_000_000));
    }

    #[test]
    fn one_parser_per_value() {
        let q: TopQuery = from_json(serde_json::json!({"by": "total", "range": "..3"})).unwrap();
        assert_eq!((q.by, q.limit), (By::Total, 25));
        assert_eq!(q.view.range, Some(TimeRange::parse_ms("..3").unwrap()));
        assert_eq!(
            from_json::<TopQuery>(serde_json::json!({"by": "x"})).unwrap_err(),
            "bad `by` `x`: expected self or total"
        );
        assert!(from_json::<TopQuery>(serde_json::json!({"range": "4..3"})).is_err());
        let q: EventsQuery =
            from_json(serde_json::json!({"types": "JS_CALL, GC", "mode": "reduce-all"})).unwrap();
        assert_eq!(q.types, [EventType::JsCall, EventType::Gc]);
        assert_eq!(q.mode, Mode::ReduceAll);
        let q: EventsQuery = from_json(serde_json::json!({"types": ["GC"]})).unwrap();
        assert_eq!(q.types, [EventType::Gc]);
    }
}
