//! Timelines written back as a Chrome trace (Trace Event Format, `{"traceEvents": [...]}`) that
//! DevTools' Performance panel and Perfetto open: one `X` event per timeline event (µs relative
//! to the timeline's origin), `thread_name`/`process_name` metadata, and `args` carrying the
//! event's type and data (`url`, `line`, `column` for JS calls).

use std::io::{self, Write};

use jsprof_profile::Profile;

use crate::timeline::{EventData, Timeline};

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `timelines` as one Chrome trace.
pub fn write_chrome_trace(
    profile: &Profile,
    timelines: &[&Timeline],
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(out, "{{\"traceEvents\":[")?;
    let mut first = true;
    let mut sep = |out: &mut dyn Write| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        Ok(())
    };
    for t in timelines {
        let pid = t.pid.unwrap_or(1);
        let tid = t.tid.unwrap_or(t.id as u64);
        let name = if t.name.is_empty() {
            format!("timeline {}", t.id)
        } else {
            t.name.clone()
        };
        sep(out)?;
        write!(
            out,
            r#"{{"ph":"M","name":"thread_name","pid":{pid},"tid":{tid},"ts":0,"args":{{"name":{}}}}}"#,
            json_str(&name)
        )?;
        for e in &t.events {
            sep(out)?;
            let n = profile.strings.get(e.name);
            let ts = (e.start - t.origin) as f64 / 1e3;
            let dur = e.duration() as f64 / 1e3;
            let data = match e.data {
                EventData::Frame(f) => {
                    let fr = profile.frames.get(f);
                    format!(
                        r#","url":{},"line":{},"column":{}"#,
                        json_str(profile.strings.get(fr.url)),
                        fr.line.map_or("null".to_string(), |l| l.to_string()),
                        fr.column.map_or("null".to_string(), |c| c.to_string()),
                    )
                }
                EventData::Detail(d) => {
                    format!(r#","detail":{}"#, json_str(profile.strings.get(d)))
                }
                EventData::None => String::new(),
            };
            write!(
                out,
                r#"{{"ph":"X","cat":"jsprof","name":{},"pid":{pid},"tid":{tid},"ts":{ts},"dur":{dur},"args":{{"type":"{}"{data}}}}}"#,
                json_str(if n.is_empty() { "(anonymous)" } else { n }),
                e.kind.as_str(),
            )?;
        }
    }
    writeln!(out, "\n]}}")
}
