//! `jsprof events --json` and the service's `GET …/events`: a timeline's events, the classic
//! profiler service's GetEvents (modes, subtree, depth, types and a time window).

use jsprof_analysis::{get_events, EventData, EventQuery, EventRow, EventType, EventsAnswer};
use jsprof_analysis::{QueryError, Timeline};
use jsprof_profile::{Profile, StringTable};
use schemars::JsonSchema;
use serde::ser::SerializeStruct;
use serde::Serialize;
use serde_json::{json, Value};

use crate::load::CpuInput;
pub use crate::query::{parse_mode, parse_type, EventsQuery};
use crate::{ms, warnings_json, JsonWarning, ReportError, Result};

/// The `data` object of an event.
pub fn data_json(profile: &Profile, kind: EventType, data: EventData) -> Value {
    match data {
        EventData::None => json!({}),
        EventData::Frame(f) => {
            let frame = profile.frames.get(f);
            json!({"url": profile.strings.get(frame.url), "line": frame.line, "column": frame.column})
        }
        EventData::Detail(s) if s == StringTable::EMPTY => json!({}),
        EventData::Detail(s) => {
            let text = profile.strings.get(s);
            match kind {
                EventType::ScriptThreadEvaluation if !text.contains(':') => json!({"event": text}),
                _ => json!({"url": text}),
            }
        }
    }
}

/// One event of a timeline, as the service's GetEvents and `jsprof events --json` give it.
#[derive(Serialize, JsonSchema)]
pub struct EventJson {
    pub id: Option<u32>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub name: String,
    pub start_ms: Option<f64>,
    pub end_ms: Option<f64>,
    pub self_ms: f64,
    pub total_ms: f64,
    pub hits: u64,
    pub parent_id: Option<u32>,
    pub child_count: Option<u32>,
    pub data: Value,
}

/// The smallest window covering the returned real events.
#[derive(Serialize, JsonSchema)]
pub struct RangeJson {
    pub start_ms: Option<f64>,
    pub end_ms: Option<f64>,
}

/// The whole answer.
#[derive(Serialize, JsonSchema)]
pub struct EventsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub timeline_id: u32,
    pub mode: &'static str,
    pub range: RangeJson,
    pub events: Vec<EventJson>,
}

fn event_json(profile: &Profile, r: &EventRow) -> EventJson {
    EventJson {
        id: r.id,
        kind: r.kind.as_str(),
        name: profile.strings.get(r.name).to_string(),
        start_ms: r.start.map(ms),
        end_ms: r.end.map(ms),
        self_ms: ms(r.self_time),
        total_ms: ms(r.total_time),
        hits: r.hits,
        parent_id: r.parent_id,
        child_count: r.child_count,
        data: data_json(profile, r.kind, r.data),
    }
}

/// Runs `query` over `timeline` (an unknown event id is `NotFound`).
pub fn answer(loaded: &CpuInput, timeline: &Timeline, query: &EventQuery) -> Result<EventsAnswer> {
    get_events(timeline, query).map_err(|e| match e {
        QueryError::NoSuchEvent(_) => ReportError::NotFound(format!("{}: {e}", loaded.name)),
    })
}

/// The JSON document for an answer.
pub fn report_of(
    loaded: &CpuInput,
    timeline: &Timeline,
    query: &EventQuery,
    answer: &EventsAnswer,
) -> EventsReport {
    report_window(loaded, timeline, query, answer, 0..answer.rows.len())
}

/// [`report_of`] with only `window` of the answer's rows as its events: a door that pages the
/// answer (MCP) turns each page's rows into JSON, not the millions a large profile has.
pub fn report_window(
    loaded: &CpuInput,
    timeline: &Timeline,
    query: &EventQuery,
    answer: &EventsAnswer,
    window: std::ops::Range<usize>,
) -> EventsReport {
    let profile = &loaded.profile();
    EventsReport {
        kind: profile.kind.as_str(),
        warnings: warnings_json(loaded.warnings()),
        timeline_id: timeline.id,
        mode: query.mode.as_str(),
        range: RangeJson {
            start_ms: answer.range.map(|r| ms(r.0)),
            end_ms: answer.range.map(|r| ms(r.1)),
        },
        events: answer.rows[window]
            .iter()
            .map(|r| event_json(profile, r))
            .collect(),
    }
}

/// [`report_of`]'s document written as it is serialized: each row's JSON is made when it is
/// written and dropped after, so `jsprof events --json` on a profile of millions of calls holds
/// no `EventJson` per row (the same bytes as [`EventsReport`]: the service's `GET …/events`,
/// built from `report_of`, is checked equal to the CLI's byte for byte).
pub struct EventsStream<'a> {
    loaded: &'a CpuInput,
    timeline: &'a Timeline,
    query: &'a EventQuery,
    answer: &'a EventsAnswer,
}

/// [`EventsStream`] of an answer.
pub fn stream<'a>(
    loaded: &'a CpuInput,
    timeline: &'a Timeline,
    query: &'a EventQuery,
    answer: &'a EventsAnswer,
) -> EventsStream<'a> {
    EventsStream {
        loaded,
        timeline,
        query,
        answer,
    }
}

impl Serialize for EventsStream<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        /// The rows, each turned into its JSON as the sequence is written.
        struct Rows<'a>(&'a Profile, &'a [EventRow]);
        impl Serialize for Rows<'_> {
            fn serialize<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                serializer.collect_seq(self.1.iter().map(|r| event_json(self.0, r)))
            }
        }
        // The head of `report_window`'s document, with no events, then the rows in its place.
        let head = report_window(self.loaded, self.timeline, self.query, self.answer, 0..0);
        let profile = self.loaded.profile();
        let mut map = serializer.serialize_struct("EventsReport", 6)?;
        map.serialize_field("kind", &head.kind)?;
        map.serialize_field("warnings", &head.warnings)?;
        map.serialize_field("timeline_id", &head.timeline_id)?;
        map.serialize_field("mode", &head.mode)?;
        map.serialize_field("range", &head.range)?;
        map.serialize_field("events", &Rows(profile, &self.answer.rows))?;
        map.end()
    }
}

/// `answer` then `report_of`.
pub fn report(loaded: &CpuInput, timeline: &Timeline, query: &EventQuery) -> Result<EventsReport> {
    let answer = answer(loaded, timeline, query)?;
    Ok(report_of(loaded, timeline, query, &answer))
}

/// The document for `query` on its thread's timeline: the one answer every front door gives.
pub fn document(loaded: &CpuInput, query: &EventsQuery) -> Result<EventsReport> {
    let timeline = loaded.select(query.thread.as_deref())?;
    report(loaded, timeline, &query.event_query())
}

#[cfg(test)]
mod tests {
    use jsprof_analysis::{EventQuery, Mode};

    use crate::load::{read_cpu, Pipeline};

    /// The streamed document is `report_of`'s, byte for byte, in every mode.
    #[test]
    fn the_stream_writes_report_ofs_bytes() {
        let text: &[u8] = br#"{"nodes":[
            {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
            {"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":0},"children":[4]},
            {"id":3,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
            {"id":4,"callFrame":{"functionName":"b","scriptId":"1","url":"a.js","lineNumber":5,"columnNumber":2}}],
            "startTime":0,"endTime":6000,"samples":[2,4,4,3,2,4],"timeDeltas":[1000,1000,1000,1000,1000,1000]}"#;
        let loaded = read_cpu("t.cpuprofile".into(), text, &Pipeline::default()).unwrap();
        let timeline = loaded.select(None).unwrap();
        for mode in [
            Mode::All,
            Mode::UniqueTypes,
            Mode::UniqueEvents,
            Mode::ReduceAll,
        ] {
            let query = EventQuery {
                mode,
                ..EventQuery::default()
            };
            let answer = super::answer(&loaded, timeline, &query).unwrap();
            assert!(!answer.rows.is_empty());
            let whole = super::report_of(&loaded, timeline, &query, &answer);
            let streamed = super::stream(&loaded, timeline, &query, &answer);
            assert_eq!(
                serde_json::to_string(&streamed).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "{mode:?}"
            );
        }
    }
}
