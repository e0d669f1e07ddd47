//! Timelines written back as a Chrome trace (Trace Event Format, `{"traceEvents": [...]}`) that
//! DevTools' Performance panel and Perfetto open: one `X` event per timeline event (µs relative
//! to the timeline's origin), `thread_name` metadata, and `args` carrying the event's type and
//! data (`url`, `line`, `column` for JS calls; `detail` for a trace event's datum).
//!
//! Every record is serialized by serde_json; only the array around them is written by hand, one
//! record per line, so that a large export streams instead of being built in memory.

use std::io::{self, Write};

use jsprof_analysis::{EventData, Timeline, TimelineEvent};
use jsprof_profile::display::display_name;
use jsprof_profile::Profile;
use serde::Serialize;

/// One record of `traceEvents`.
#[derive(Serialize)]
#[serde(tag = "ph")]
enum Record<'a> {
    /// Metadata: the thread's name.
    #[serde(rename = "M")]
    Metadata {
        name: &'static str,
        pid: u64,
        tid: u64,
        ts: u32,
        args: NameArgs<'a>,
    },
    /// A complete event (start and duration).
    #[serde(rename = "X")]
    Complete {
        cat: &'static str,
        name: &'a str,
        pid: u64,
        tid: u64,
        ts: f64,
        dur: f64,
        args: EventArgs<'a>,
    },
}

#[derive(Serialize)]
struct NameArgs<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct EventArgs<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    data: Data<'a>,
}

/// The event's datum, flattened into `args`.
#[derive(Serialize)]
#[serde(untagged)]
enum Data<'a> {
    /// A JS call's position; `null` where unknown, so that every call carries the three keys.
    Frame {
        url: &'a str,
        line: Option<u32>,
        column: Option<u32>,
    },
    Detail {
        detail: &'a str,
    },
    None {},
}

/// Writes `timelines` as one Chrome trace.
pub fn write_chrome_trace(
    profile: &Profile,
    timelines: &[&Timeline],
    out: &mut impl Write,
) -> io::Result<()> {
    out.write_all(b"{\"traceEvents\":[\n")?;
    let mut first = true;
    let mut record = |out: &mut dyn Write, record: &Record| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, record).map_err(io::Error::from)
    };
    for t in timelines {
        let pid = t.pid.unwrap_or(1);
        let tid = t.tid.unwrap_or(u64::from(t.id));
        let fallback;
        let name = if t.name.is_empty() {
            fallback = format!("timeline {}", t.id);
            &fallback
        } else {
            &t.name
        };
        record(
            out,
            &Record::Metadata {
                name: "thread_name",
                pid,
                tid,
                ts: 0,
                args: NameArgs { name },
            },
        )?;
        for e in &t.events {
            record(out, &complete(profile, t, e, pid, tid))?;
        }
    }
    out.write_all(b"\n]}\n")
}

fn complete<'a>(
    profile: &'a Profile,
    t: &Timeline,
    e: &TimelineEvent,
    pid: u64,
    tid: u64,
) -> Record<'a> {
    let data = match e.data {
        EventData::Frame(f) => {
            let fr = profile.frames.get(f);
            Data::Frame {
                url: profile.strings.get(fr.url),
                line: fr.line,
                column: fr.column,
            }
        }
        EventData::Detail(d) => Data::Detail {
            detail: profile.strings.get(d),
        },
        EventData::None => Data::None {},
    };
    Record::Complete {
        cat: "jsprof",
        name: display_name(profile.strings.get(e.name)),
        pid,
        tid,
        ts: (e.start - t.origin) as f64 / 1e3,
        dur: e.duration() as f64 / 1e3,
        args: EventArgs {
            kind: e.kind.as_str(),
            data,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_analysis::profile_timelines;
    use jsprof_profile::{ProfileKind, Thread, WeightUnit};
    use serde_json::{json, Value};

    #[test]
    fn writes_one_parsable_record_per_line() {
        // A name that needs JSON escaping, an anonymous function with no known position.
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let a = p.intern_frame("say \"hi\"\n\\", "x.js", Some(1), Some(2), "1");
        let b = p.intern_frame("", "", None, None, "1");
        let sa = p.stacks.push(None, a, 2);
        let sb = p.stacks.push(Some(sa), b, 3);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        t.set_samples_end(Some(3_000));
        t.samples_mut().push(0, Some(sa));
        t.samples_mut().push(1_000, Some(sb));
        p.threads.push(t);
        let timelines = profile_timelines(&p);
        let mut out = Vec::new();
        write_chrome_trace(&p, &timelines.iter().collect::<Vec<_>>(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();

        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.first(), Some(&r#"{"traceEvents":["#));
        assert_eq!(lines.last(), Some(&"]}"));
        let records: Vec<Value> = lines[1..lines.len() - 1]
            .iter()
            .map(|l| serde_json::from_str(l.trim_end_matches(',')).unwrap())
            .collect();
        let whole: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(whole["traceEvents"].as_array().unwrap(), &records);
        assert_eq!(
            records,
            [
                json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "ts": 0,
                       "args": {"name": "timeline 1"}}),
                json!({"ph": "X", "cat": "jsprof", "name": "say \"hi\"\n\\", "pid": 1, "tid": 1,
                       "ts": 0.0, "dur": 3.0,
                       "args": {"type": "JS_CALL", "url": "x.js", "line": 1, "column": 2}}),
                json!({"ph": "X", "cat": "jsprof", "name": "(anonymous)", "pid": 1, "tid": 1,
                       "ts": 1.0, "dur": 2.0,
                       "args": {"type": "JS_CALL", "url": "", "line": null, "column": null}}),
            ]
        );
    }
}
