//! `jsprof events --json` and the service's `GET …/events`: a timeline's events, the classic
//! profiler service's GetEvents (modes, subtree, depth, types and a time window).

use jsprof_analysis::{get_events, EventData, EventQuery, EventRow, EventType, EventsAnswer};
use jsprof_analysis::{QueryError, Timeline};
use jsprof_profile::{Profile, StringTable};
use schemars::JsonSchema;
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
