//! The profiler service's `GetEvents` over a [`Timeline`]: a subtree, a depth limit, a type
//! filter and a time window select events; a mode returns them as they are or reduced.
//!
//! - `All`: the selected events in depth-first pre-order.
//! - `UniqueTypes`: one virtual event per type (every type listed, zeros included).
//! - `UniqueEvents`: one virtual event per (type, name, data).
//! - `ReduceAll`: one virtual `GENERIC` event.
//!
//! Virtual events sum self time and hits; their total counts only the outermost of nested
//! events with the same key (so recursion is not counted twice, as in DevTools' Bottom-up).

use rustc_hash::FxHashMap as HashMap;

use crate::timeline::{EventData, EventType, Timeline};
use jsprof_profile::{StringId, StringTable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    All,
    UniqueTypes,
    UniqueEvents,
    ReduceAll,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        Some(
            match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
                "all" => Mode::All,
                "unique-types" | "reduce-unique-types" => Mode::UniqueTypes,
                "unique-events" | "reduce-unique-events" => Mode::UniqueEvents,
                "reduce-all" => Mode::ReduceAll,
                _ => return None,
            },
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::All => "all",
            Mode::UniqueTypes => "unique-types",
            Mode::UniqueEvents => "unique-events",
            Mode::ReduceAll => "reduce-all",
        }
    }
}

/// What to select. Times are nanoseconds relative to the timeline's origin.
#[derive(Clone, Debug, Default)]
pub struct EventQuery {
    pub mode: Mode,
    /// Events overlapping the closed window `[start, end]`; a missing side is open.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// Iterate from this event (1-based id) instead of the root; the event itself is excluded.
    pub event_id: Option<u32>,
    /// 1 = top level (or the event's children).
    pub max_depth: Option<u32>,
    /// Empty: all types.
    pub types: Vec<EventType>,
}

/// A returned event. Real events have an id; virtual (reduced) ones do not.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub id: Option<u32>,
    pub kind: EventType,
    pub name: StringId,
    /// Relative to the origin (ns); `None` for virtual events.
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub self_time: i64,
    pub total_time: i64,
    pub hits: u64,
    pub parent_id: Option<u32>,
    pub child_count: Option<u32>,
    pub data: EventData,
}

/// The answer: rows, and the smallest window covering the matched real events (relative ns).
#[derive(Clone, Debug, Default)]
pub struct EventsAnswer {
    pub rows: Vec<EventRow>,
    pub range: Option<(i64, i64)>,
}

/// Why a query cannot be answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    NoSuchEvent(u32),
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            QueryError::NoSuchEvent(id) => write!(f, "no event with id {id} in this timeline"),
        }
    }
}

/// Runs `query` over `timeline`.
#[allow(clippy::needless_range_loop)] // indices are the event ids
pub fn get_events(timeline: &Timeline, query: &EventQuery) -> Result<EventsAnswer, QueryError> {
    let events = &timeline.events;
    let origin = timeline.origin;
    let (lo, hi, base_depth) = match query.event_id {
        Some(id) => {
            let i = id
                .checked_sub(1)
                .filter(|&i| (i as usize) < events.len())
                .ok_or(QueryError::NoSuchEvent(id))? as usize;
            (i + 1, events[i].subtree_end as usize, events[i].depth + 1)
        }
        None => (0, events.len(), 0),
    };
    let selected = |i: usize| -> bool {
        let e = &events[i];
        if let Some(max) = query.max_depth {
            if e.depth - base_depth + 1 > max {
                return false;
            }
        }
        if !query.types.is_empty() && !query.types.contains(&e.kind) {
            return false;
        }
        let (s, t) = (e.start - origin, e.end - origin);
        query.end.is_none_or(|end| s <= end) && query.start.is_none_or(|start| t >= start)
    };

    let mut answer = EventsAnswer::default();
    let mut cover = |s: i64, t: i64| {
        answer.range = Some(match answer.range {
            Some((a, b)) => (a.min(s), b.max(t)),
            None => (s, t),
        });
    };
    match query.mode {
        Mode::All => {
            let mut rows = Vec::new();
            for i in lo..hi {
                if !selected(i) {
                    continue;
                }
                let e = &events[i];
                cover(e.start - origin, e.end - origin);
                rows.push(EventRow {
                    id: Some(i as u32 + 1),
                    kind: e.kind,
                    name: e.name,
                    start: Some(e.start - origin),
                    end: Some(e.end - origin),
                    self_time: e.self_time,
                    total_time: e.duration(),
                    hits: 1,
                    parent_id: e.parent.map(|p| p + 1),
                    child_count: Some(e.child_count),
                    data: e.data,
                });
            }
            answer.rows = rows;
        }
        mode => {
            type Key = (EventType, StringId, EventData);
            let key_of = |i: usize| -> Key {
                let e = &events[i];
                match mode {
                    Mode::UniqueTypes => (e.kind, StringTable::EMPTY, EventData::None),
                    Mode::UniqueEvents => (e.kind, e.name, e.data),
                    _ => (EventType::Generic, StringTable::EMPTY, EventData::None),
                }
            };
            let mut slots: HashMap<Key, usize> = HashMap::default();
            let mut rows: Vec<EventRow> = Vec::new();
            if mode == Mode::UniqueTypes {
                let types: Vec<EventType> = if query.types.is_empty() {
                    EventType::ALL.to_vec()
                } else {
                    query.types.clone()
                };
                for t in types {
                    slots.insert((t, StringTable::EMPTY, EventData::None), rows.len());
                    rows.push(virtual_row(t, StringTable::EMPTY, EventData::None));
                }
            }
            // Selected ancestors on the walk: (subtree end, key).
            let mut open: Vec<(usize, Key)> = Vec::new();
            let mut on_stack: HashMap<Key, u32> = HashMap::default();
            for i in lo..hi {
                while let Some(&(end, key)) = open.last() {
                    if end <= i {
                        open.pop();
                        *on_stack.get_mut(&key).unwrap() -= 1;
                    } else {
                        break;
                    }
                }
                if !selected(i) {
                    continue;
                }
                let e = &events[i];
                cover(e.start - origin, e.end - origin);
                let key = key_of(i);
                let slot = *slots.entry(key).or_insert_with(|| {
                    rows.push(virtual_row(key.0, key.1, key.2));
                    rows.len() - 1
                });
                let row = &mut rows[slot];
                row.self_time += e.self_time;
                row.hits += 1;
                let depth = on_stack.entry(key).or_insert(0);
                if *depth == 0 {
                    row.total_time += e.duration();
                }
                *depth += 1;
                open.push((e.subtree_end as usize, key));
            }
            if mode == Mode::ReduceAll && rows.is_empty() {
                rows.push(virtual_row(
                    EventType::Generic,
                    StringTable::EMPTY,
                    EventData::None,
                ));
            }
            if mode == Mode::UniqueEvents {
                rows.sort_by(|a, b| {
                    b.self_time
                        .cmp(&a.self_time)
                        .then(b.total_time.cmp(&a.total_time))
                        .then(a.kind.cmp(&b.kind))
                        .then(a.name.cmp(&b.name))
                });
            }
            answer.rows = rows;
        }
    }
    Ok(answer)
}

fn virtual_row(kind: EventType, name: StringId, data: EventData) -> EventRow {
    EventRow {
        id: None,
        kind,
        name,
        start: None,
        end: None,
        self_time: 0,
        total_time: 0,
        hits: 0,
        parent_id: None,
        child_count: None,
        data,
    }
}
