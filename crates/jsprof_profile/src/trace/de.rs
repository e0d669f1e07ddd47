//! The serde side of the trace reader: the event as parsed (borrowing from the text), the hints
//! found in its args where it is parsed, the typed args read for the events that need them, and
//! the seeds that walk the top object, the event array and a profile chunk's args.

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::state::State;
use crate::call_frame::{NodesSeed, TreeSink};
use crate::json::{
    self, deserialize_from_number, opt_cow_str, seed_visitor, Float, FromNumber, IdString,
    JsonPath, MicrosToNanos, NodeIds, Number,
};
use crate::model::clamp_time;

/// A process or thread id: a number (strings holding one tolerated).
#[derive(Clone, Copy, Default)]
pub(super) struct Pid(pub(super) u64);

impl Pid {
    fn of_str(s: &str) -> Pid {
        let s = s.trim();
        Pid(s
            .parse::<u64>()
            .or_else(|_| s.parse::<i64>().map(|v| v as u64))
            .or_else(|_| s.parse::<f64>().map(Pid::of_f64_bits))
            .unwrap_or(0))
    }

    fn of_f64_bits(v: f64) -> u64 {
        // An integral value within u64 is that value (as its decimal text would parse);
        // anything else goes through i64 (truncated, saturating; negatives wrap).
        if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
            v as u64
        } else {
            v as i64 as u64
        }
    }
}

// Read by a visitor of its own: going through a string (`IdString`) allocated twice an event.
impl FromNumber for Pid {
    const EXPECTING: &'static str = "a string or a number";
    fn from_number<E: de::Error>(n: Number) -> Result<Pid, E> {
        Ok(Pid(match n {
            Number::U64(v) => v,
            Number::I64(v) => v as u64,
            Number::F64(v) => Pid::of_f64_bits(v),
        }))
    }
    fn from_str(s: &str) -> Option<Pid> {
        Some(Pid::of_str(s))
    }
    fn from_unit() -> Option<Pid> {
        Some(Pid(0))
    }
}

deserialize_from_number!(Pid);

#[derive(Deserialize)]
pub(super) struct EventIn<'a> {
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    pub(super) cat: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_cow_str")]
    pub(super) ph: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) ts: Option<Float>,
    #[serde(default)]
    pub(super) dur: Option<Float>,
    #[serde(default)]
    pub(super) pid: Option<Pid>,
    #[serde(default)]
    pub(super) tid: Option<Pid>,
    #[serde(borrow, default)]
    pub(super) id: Option<IdString<'a>>,
    /// `{"local": …}` or `{"global": …}`: async events' scoped ids (user timing measures).
    #[serde(borrow, default)]
    pub(super) id2: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) args: Option<&'a RawValue>,
}

/// What an event's args hold that decides whether they are read: found where the event is
/// parsed (on a parsing thread, see [`crate::trace_segments`]), as a search through the args'
/// text costs about as much as the rest of applying the event.
#[derive(Clone, Copy, Default)]
pub(super) struct ArgsHints {
    /// `sampleTraceId` on an event kept without a detail.
    pub(super) sample_trace_id: bool,
    /// A `url` key on an event the trace engine keeps as a renderer entry (`X`, `B`, `I`): its
    /// URL may name the entity (third party) behind it ([`TraceThread::urls`]).
    pub(super) url: bool,
}

impl ArgsHints {
    fn of(e: &EventIn<'_>) -> ArgsHints {
        let Some(args) = e.args.map(RawValue::get) else {
            return ArgsHints::default();
        };
        let ph = phase(e);
        let name = e.name.as_deref().unwrap_or("");
        ArgsHints {
            sample_trace_id: matches!(ph, b'X' | b'B' | b'I' | b'i' | b'R')
                && detail_kind(name).is_none()
                && args.contains("sampleTraceId"),
            url: matches!(ph, b'X' | b'B' | b'I')
                && (args.contains("url\"") || args.contains("stylesheetUrl\"")),
        }
    }
}

pub(super) fn phase(e: &EventIn<'_>) -> u8 {
    e.ph.as_deref().and_then(|p| p.bytes().next()).unwrap_or(0)
}

/// An element of the event array (an event or `null`) and its args' hints.
pub(super) struct Element<'a> {
    pub(super) event: Option<EventIn<'a>>,
    pub(super) hints: ArgsHints,
}

impl<'de> Deserialize<'de> for Element<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Element<'de>, D::Error> {
        let event = Option::<EventIn<'de>>::deserialize(d)?;
        let hints = event.as_ref().map(ArgsHints::of).unwrap_or_default();
        Ok(Element { event, hints })
    }
}

/// The args fields read for typed events.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ArgsIn<'a> {
    #[serde(borrow)]
    pub(super) data: Option<DataIn<'a>>,
    #[serde(rename = "sampleTraceId", deserialize_with = "lenient_id")]
    pub(super) sample_trace_id: Option<u64>,
    #[serde(borrow, rename = "beginData")]
    pub(super) begin_data: Option<DataIn<'a>>,
    #[serde(borrow, rename = "fileName", deserialize_with = "opt_cow_str")]
    pub(super) file_name: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    pub(super) name: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct DataIn<'a> {
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    pub(super) url: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "styleSheetUrl", deserialize_with = "opt_cow_str")]
    pub(super) style_sheet_url: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "type", deserialize_with = "opt_cow_str")]
    pub(super) type_: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "opt_cow_str")]
    pub(super) source: Option<Cow<'a, str>>,
    #[serde(rename = "sampleTraceId", deserialize_with = "lenient_id")]
    pub(super) sample_trace_id: Option<u64>,
}

/// A sample trace id as V8 writes it (an integer); anything else reads as none.
fn lenient_id<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n.as_u64(),
        _ => None,
    })
}

/// The trace engine's `extractSampleTraceId`: `beginData`'s when the args have `beginData`,
/// else the args' own or `data`'s.
pub(super) fn sample_trace_id(args: &ArgsIn<'_>) -> u64 {
    let id = match &args.begin_data {
        Some(b) => b.sample_trace_id,
        None => args
            .sample_trace_id
            .or(args.data.as_ref().and_then(|d| d.sample_trace_id)),
    };
    id.unwrap_or(0)
}

pub(super) fn ns(us: f64) -> i64 {
    if us.is_finite() {
        clamp_time((us * 1000.0).round() as i64)
    } else {
        0
    }
}

/// A `lines` or `columns` array: `Some(Ok(numbers))`, `None` for `null`, `Some(Err(why))` for
/// anything that is not an array of integers from 0 to 2^32 − 1.
struct PositionList;

seed_visitor! {
    PositionList => Option<Result<Vec<u32>, String>>, deserialize_any,
        "an array of line or column numbers";
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut bad = None;
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            match v.as_u64().and_then(|v| u32::try_from(v).ok()) {
                Some(v) => out.push(v),
                None => {
                    bad.get_or_insert_with(|| {
                        // Shown cut: a hostile item may be a huge string.
                        let shown: String = v.to_string().chars().take(40).collect();
                        format!("item {} is {shown}, not a line or column number", out.len())
                    });
                    out.push(0);
                }
            }
        }
        Ok(Some(bad.map_or(Ok(out), Err)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Some(Err("an object, not an array".into())))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Some(Err("not an array".into())))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Some(Err("a string, not an array".into())))
    }
}

/// What a chunk's args add to its profile.
#[derive(Default)]
pub(super) struct Chunk {
    pub(super) samples: Option<Vec<u32>>,
    pub(super) deltas: Option<Vec<i64>>,
    pub(super) start: Option<i64>,
    pub(super) end: Option<i64>,
    pub(super) source: Option<String>,
    pub(super) trace_ids: Vec<(u64, u64)>,
    /// `args.data.lines` / `args.data.columns` (where DevTools reads them, not in `cpuProfile`).
    pub(super) lines: Option<Result<Vec<u32>, String>>,
    pub(super) columns: Option<Result<Vec<u32>, String>>,
}

pub(super) struct ArgsSeed<'s, 'a> {
    pub(super) sink: &'s mut TreeSink<'a>,
    pub(super) chunk: &'s mut Chunk,
}

seed_visitor! {
    ArgsSeed<'_, '_> => (), deserialize_map, "an args object";
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "data" {
                map.next_value_seed(DataSeed {
                    sink: &mut *self.sink,
                    chunk: &mut *self.chunk,
                    profile_level: false,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `args.data` (`profile_level` false) or `args.data.cpuProfile` (true): the same fields, except
/// that `startTime`/`endTime` are believed only inside `cpuProfile`.
struct DataSeed<'s, 'a> {
    sink: &'s mut TreeSink<'a>,
    chunk: &'s mut Chunk,
    profile_level: bool,
}

seed_visitor! {
    DataSeed<'_, '_> => (), deserialize_any, "a profile data object";
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "cpuProfile" if !self.profile_level => map.next_value_seed(DataSeed {
                    sink: &mut *self.sink,
                    chunk: &mut *self.chunk,
                    profile_level: true,
                })?,
                "nodes" if self.profile_level => map.next_value_seed(NodesSeed(&mut *self.sink))?,
                // Appended in place (a chunk's arrays repeated add up, as they always did).
                "samples" if self.profile_level => {
                    let samples = self.chunk.samples.get_or_insert_with(Vec::new);
                    map.next_value_seed(NodeIds(samples))?;
                }
                "timeDeltas" => {
                    let deltas = self.chunk.deltas.get_or_insert_with(Vec::new);
                    map.next_value_seed(MicrosToNanos(deltas))?;
                }
                "lines" if !self.profile_level => {
                    self.chunk.lines = map.next_value_seed(PositionList)?;
                }
                "columns" if !self.profile_level => {
                    self.chunk.columns = map.next_value_seed(PositionList)?;
                }
                "startTime" if self.profile_level => {
                    self.chunk.start = json::next_f64(&mut map)?.map(ns);
                }
                "endTime" if self.profile_level => {
                    self.chunk.end = json::next_f64(&mut map)?.map(ns);
                }
                "trace_ids" if self.profile_level => {
                    let ids =
                        map.next_value::<Option<HashMap<Cow<'de, str>, serde_json::Value>>>()?;
                    for (k, v) in ids.into_iter().flatten() {
                        if let (Ok(k), Some(v)) = (k.parse::<u64>(), v.as_u64()) {
                            self.chunk.trace_ids.push((k, v));
                        }
                    }
                }
                "source" => {
                    self.chunk.source = map
                        .next_value::<Option<Cow<'de, str>>>()?
                        .map(|s| s.into_owned());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
pub(super) enum DetailKind {
    Url,
    BeginUrl,
    StyleSheet,
    EventType,
}

pub(super) fn detail_kind(name: &str) -> Option<DetailKind> {
    Some(match name {
        "ParseHTML" => DetailKind::BeginUrl,
        "ParseAuthorStyleSheet" => DetailKind::StyleSheet,
        "v8.compile" | "v8.compileModule" | "CompileScript" | "CompileCode" | "EvaluateScript"
        | "v8.evaluateModule" | "FunctionCall" => DetailKind::Url,
        "EventDispatch" => DetailKind::EventType,
        _ => return None,
    })
}

pub(super) fn detail_of<'a>(kind: DetailKind, args: &'a ArgsIn<'a>) -> Option<&'a str> {
    let data = args.data.as_ref();
    let s = match kind {
        DetailKind::Url => data
            .and_then(|d| d.url.as_deref())
            .or(args.file_name.as_deref()),
        DetailKind::BeginUrl => args
            .begin_data
            .as_ref()
            .and_then(|d| d.url.as_deref())
            .or(data.and_then(|d| d.url.as_deref())),
        DetailKind::StyleSheet => data.and_then(|d| d.style_sheet_url.as_deref()),
        DetailKind::EventType => data.and_then(|d| d.type_.as_deref()),
    };
    s.filter(|s| !s.is_empty())
}

/// The URL DevTools' trace engine attributes an event to when it maps events to entities
/// (`getNonResolvedURL` without the handlers' data): a style sheet parse's
/// `args.data.stylesheetUrl` (a key Chrome does not write: it spells it `styleSheetUrl`), else
/// the top frame of `args.data.stackTrace`, else for `ParseHTML` `args.beginData.url`, else
/// `args.data.url`. `None` for an empty or missing URL, and for args that are not JSON.
pub(super) fn entity_url(name: &str, args: Option<&RawValue>) -> Option<String> {
    use serde_json::Value;
    let args: Value = serde_json::from_str(args?.get()).ok()?;
    let data = args.get("data");
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if name == "ParseAuthorStyleSheet" {
        return text(data.and_then(|d| d.get("stylesheetUrl")));
    }
    if let Some(stack) = data
        .and_then(|d| d.get("stackTrace"))
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    {
        return text(stack[0].get("url"));
    }
    if name == "ParseHTML" {
        return text(args.get("beginData").and_then(|b| b.get("url")));
    }
    text(data.and_then(|d| d.get("url")))
}

pub(super) fn parse_args(raw: Option<&RawValue>) -> Option<ArgsIn<'_>> {
    serde_json::from_str(raw?.get()).ok()
}

/// `metadata.hostDPR`: the device pixel ratio of the machine that recorded (DevTools' saved
/// traces); a value that is not a number reads as none.
#[derive(Deserialize)]
struct HostDpr {
    #[serde(rename = "hostDPR", default, deserialize_with = "lenient_f64")]
    host_dpr: Option<f64>,
}

fn lenient_f64<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(serde_json::Value::deserialize(d)?.as_f64())
}

pub(super) struct TopSeed<'s> {
    pub(super) state: &'s mut State,
    pub(super) path: &'s JsonPath,
}

seed_visitor! {
    /// The value is whether `traceEvents` was repeated (the last one wins, as in `JSON.parse`).
    TopSeed<'_> => bool, deserialize_any, "a trace event array or an object with `traceEvents`";
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        EventsSeed {
            state: self.state,
            path: self.path,
        }
        .visit_seq(seq)?;
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        let mut repeated = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "traceEvents" {
                if found {
                    // Only the last array counts: what the earlier ones built is dropped.
                    let host_dpr = self.state.page.host_dpr;
                    let maps = std::mem::take(&mut self.state.page.scripts.metadata_maps);
                    *self.state = State::new();
                    self.state.page.host_dpr = host_dpr;
                    self.state.page.scripts.metadata_maps = maps;
                    repeated = true;
                }
                map.next_value_seed(EventsSeed {
                    state: &mut *self.state,
                    path: self.path,
                })?;
                found = true;
                self.path.set("");
            } else if key == "metadata" {
                // DevTools' saved traces carry the host's device pixel ratio and the source
                // maps it saved with the trace here; the rest is not read.
                self.path.set("metadata");
                let raw = map.next_value::<&'de RawValue>()?;
                self.state.page.host_dpr = serde_json::from_str::<HostDpr>(raw.get())
                    .ok()
                    .and_then(|m| m.host_dpr);
                self.state.page.scripts.read_metadata(raw.get());
            } else {
                self.path.set(&*key);
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(de::Error::missing_field("traceEvents"));
        }
        Ok(repeated)
    }
}

struct EventsSeed<'s> {
    state: &'s mut State,
    path: &'s JsonPath,
}

seed_visitor! {
    EventsSeed<'_> => (), deserialize_seq, "an array of trace events";
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            self.path.set_indexed("traceEvents", i);
            match seq.next_element::<Option<EventIn<'de>>>()? {
                None => break,
                Some(None) => {}
                Some(Some(e)) => {
                    let hints = ArgsHints::of(&e);
                    self.state
                        .event(e, hints, self.path)
                        .map_err(de::Error::custom)?
                }
            }
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The URL an event is attributed to, in the engine's order of places to look.
    #[test]
    fn entity_urls_follow_the_engines_order() {
        let url = |name: &str, args: &str| {
            let raw: Box<RawValue> = serde_json::from_str(args).unwrap();
            entity_url(name, Some(&raw))
        };
        let stack = r#"{"data":{"url":"https://d/","stackTrace":[{"url":"https://top/"},{"url":"https://next/"}]}}"#;
        assert_eq!(url("EventDispatch", stack).as_deref(), Some("https://top/"));
        // An empty stack does not count; an empty top URL is no URL (not the data's).
        let empty = r#"{"data":{"url":"https://d/","stackTrace":[]}}"#;
        assert_eq!(url("X", empty).as_deref(), Some("https://d/"));
        let blank_top = r#"{"data":{"url":"https://d/","stackTrace":[{"url":""}]}}"#;
        assert_eq!(url("X", blank_top), None);
        let html = r#"{"beginData":{"url":"https://page/"},"data":{"url":"https://d/"}}"#;
        assert_eq!(url("ParseHTML", html).as_deref(), Some("https://page/"));
        assert_eq!(url("Other", html).as_deref(), Some("https://d/"));
        // Chrome's `styleSheetUrl` is not the `stylesheetUrl` the engine reads.
        let css = r#"{"data":{"styleSheetUrl":"https://s.css","url":"https://d/"}}"#;
        assert_eq!(url("ParseAuthorStyleSheet", css), None);
        let css = r#"{"data":{"stylesheetUrl":"https://s.css"}}"#;
        assert_eq!(
            url("ParseAuthorStyleSheet", css).as_deref(),
            Some("https://s.css")
        );
        assert_eq!(url("X", r#"{"data":{"url":5}}"#), None);
        assert_eq!(url("X", r#"{"data":"text"}"#), None);
        assert_eq!(entity_url("X", None), None);
    }

    /// Names, categories and phases borrow from the text unless escaped; process and thread
    /// ids read from numbers and strings as before (an integral float is its value, others go
    /// through i64, a string is trimmed and parsed the same way).
    #[test]
    fn events_borrow_their_strings_and_ids_read_any_number() {
        let text = r#"{"name":"RunTask","cat":"toplevel","ph":"X","pid":7,"tid":" 9 "}"#;
        let e: EventIn = serde_json::from_str(text).unwrap();
        assert!(matches!(e.name, Some(Cow::Borrowed("RunTask"))));
        assert!(matches!(e.cat, Some(Cow::Borrowed("toplevel"))));
        assert_eq!((e.pid.unwrap().0, e.tid.unwrap().0), (7, 9));
        let e: EventIn = serde_json::from_str(r#"{"name":"a\"b","ph":null}"#).unwrap();
        assert!(matches!(e.name.as_deref(), Some("a\"b")));
        assert!(e.ph.is_none());
        assert!(serde_json::from_str::<EventIn>(r#"{"name":5}"#).is_err());
        let pid = |v: &str| serde_json::from_str::<Pid>(v).unwrap().0;
        assert_eq!(pid("-3"), -3i64 as u64);
        assert_eq!(pid("3.0"), 3);
        assert_eq!(pid("3.7"), 3);
        assert_eq!(pid("-2.5"), -2i64 as u64);
        assert_eq!(pid("1e19"), 10_000_000_000_000_000_000);
        assert_eq!(pid("1e20"), i64::MAX as u64);
        assert_eq!(pid("\"12\""), 12);
        assert_eq!(pid("\"-12\""), -12i64 as u64);
        assert_eq!(pid("\"x\""), 0);
        assert_eq!(pid("null"), 0);
    }
}
