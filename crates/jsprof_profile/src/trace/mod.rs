//! Chrome traces (the Performance panel's JSON: an event array or `{"traceEvents": [...]}`).
//!
//! The events are visited one at a time from text in memory; each keeps only what jsprof needs
//! (name, category, phase, times, one type-specific datum), its `args` are looked at only for the
//! events that carry something jsprof uses. Samples come from `Profile` + `ProfileChunk` events,
//! gathered per `(pid, profile id)` as DevTools' `SamplesHandler` does (the `Profile` event's `ts`
//! is the start: `args.data.startTime` is on another clock), or from the old whole-profile
//! `CpuProfile` event.
//!
//! This module holds the entry points and the segment driver; [`de`] the serde seeds and
//! visitors that read the text, [`state`] what the events accumulate, [`lower`] how profiles
//! become model threads.

mod de;
mod lower;
mod state;

use std::io::Read;

use serde::de::DeserializeSeed;

use self::de::{Element, TopSeed};
use self::state::State;
use crate::error::ReadError;
use crate::json::{self, JsonPath, Source};
use crate::trace_events::TraceFile;
use crate::trace_segments::skip_blanks;

/// Reads a Chrome trace from decompressed JSON text.
pub fn read_trace<R: Read>(reader: R) -> Result<TraceFile, ReadError> {
    read_trace_from(Source::Reader(reader))
}

/// Like [`read_trace`], over text already in memory.
pub fn read_trace_from<R: Read>(source: Source<'_, R>) -> Result<TraceFile, ReadError> {
    match source {
        Source::Slice(bytes) => read_slice(bytes),
        Source::Reader(mut reader) => {
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes)?;
            read_slice(&bytes)
        }
    }
}

fn read_slice(bytes: &[u8]) -> Result<TraceFile, ReadError> {
    read_trace_slice(bytes, &mut |_| {})
}

/// How much of the event array one thread parses at a time.
const SEGMENT_BYTES: usize = 4 << 20;

/// The most threads that parse: past a few, applying the events in order is what waits.
const MAX_THREADS: usize = 4;

/// Like [`read_trace_from`] over text in memory, telling `consumed(n)` whenever the text before
/// offset `n` has been read: a caller holding a file mapping can let those pages go, so that the
/// file is not resident all at once. The reader may still read them again (it reads a damaged
/// trace a second time, in one pass, to report it exactly), so only pages that come back on
/// access may go.
pub fn read_trace_slice(
    bytes: &[u8],
    consumed: &mut dyn FnMut(usize),
) -> Result<TraceFile, ReadError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS));
    let state = match read_in_segments(bytes, SEGMENT_BYTES, threads, consumed) {
        Some(state) => state,
        None => read_in_one_pass(bytes)?,
    };
    let mut trace = state.finish();
    let event_times = trace.threads.iter().flat_map(|t| {
        t.events
            .iter()
            .flat_map(|e| [e.start, e.start.saturating_add(e.dur)])
    });
    json::warn_clamped(&mut trace.profile, "traceEvents", event_times);
    Ok(trace)
}

/// The whole text in one pass of the deserializer: any layout, and the exact error.
fn read_in_one_pass(bytes: &[u8]) -> Result<State, ReadError> {
    let path = JsonPath::default();
    let mut state = State::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let result = TopSeed {
        state: &mut state,
        path: &path,
    }
    .deserialize(&mut de);
    match result {
        Ok(repeated) => {
            if repeated {
                state.profile.warn("traceEvents", json::REPEATED_KEY);
            }
            json::warn_trailing(&mut state.profile, de.end().is_err());
        }
        // Chrome may leave the event array open (the format allows it); what was read stands.
        Err(e) if e.classify() == serde_json::error::Category::Eof && state.events_seen > 0 => {
            state.profile.warn(path.get(), CUT_SHORT);
        }
        Err(e) => return Err(ReadError::json(&path.get(), e)),
    }
    Ok(state)
}

const CUT_SHORT: &str =
    "the trace ends before its JSON does; the events before this point were loaded";

/// The event array parsed in segments on `threads` threads ([`crate::trace_segments`]) and
/// applied in order: the same state as [`read_in_one_pass`], or `None` where the text is not
/// laid out as Chrome writes it (the array first, no repeated `traceEvents`) or is damaged
/// anywhere but at its end, for the one pass to read and report.
fn read_in_segments(
    bytes: &[u8],
    every: usize,
    threads: usize,
    consumed: &mut dyn FnMut(usize),
) -> Option<State> {
    use crate::trace_segments::{guess_starts, in_order, read_segment, Stop};

    let (open, object) = event_array(bytes)?;
    let first = skip_blanks(bytes, open);
    if bytes.get(first) == Some(&b']') {
        return None;
    }
    let starts = guess_starts(bytes, first, every);
    let limit = |i: usize| starts.get(i + 1).copied().unwrap_or(usize::MAX);
    let threads = if starts.len() > 1 { threads } else { 1 };
    let path = JsonPath::default();
    let mut state = State::new();
    let mut expected = first;
    let mut index = 0;
    let mut last = None;
    in_order(
        starts.len(),
        threads,
        |i| read_segment::<Element>(bytes, starts[i], limit(i)),
        |i, segment| {
            // A guess that the segment before did not end on: read from where it did.
            let segment = if segment.start == expected {
                segment
            } else {
                read_segment(bytes, expected, limit(i))
            };
            for Element { event, hints } in segment.elements {
                path.set_indexed("traceEvents", index);
                if let Some(e) = event {
                    if state.event(e, hints, &path).is_err() {
                        return false;
                    }
                }
                index += 1;
            }
            expected = segment.end;
            consumed(segment.end);
            match segment.stop {
                Stop::Limit => true,
                stop => {
                    last = Some((stop, segment.end));
                    false
                }
            }
        },
    );
    match last? {
        (Stop::Close, close) => {
            let rest = &bytes[close + 1..];
            let trailing = if object {
                // The keys after the array (`metadata`), read as the one pass would.
                let mut tail = b"{\"traceEvents\":[]".to_vec();
                tail.extend_from_slice(rest);
                let mut de = serde_json::Deserializer::from_slice(&tail);
                let mut keys = State::new();
                let repeated = TopSeed {
                    state: &mut keys,
                    path: &JsonPath::default(),
                }
                .deserialize(&mut de)
                .ok()?;
                state.page.host_dpr = keys.page.host_dpr;
                state.page.scripts.metadata_maps = keys.page.scripts.metadata_maps;
                if repeated {
                    return None;
                }
                de.end().is_err()
            } else {
                skip_blanks(rest, 0) < rest.len()
            };
            json::warn_trailing(&mut state.profile, trailing);
        }
        (Stop::Eof, _) if state.events_seen > 0 => {
            path.set_indexed("traceEvents", index);
            state.profile.warn(path.get(), CUT_SHORT);
        }
        _ => return None,
    }
    Some(state)
}

/// Where the event array's elements begin (just past its `[`), and whether it is the value of
/// `traceEvents` (true) or the whole text: only when it comes first, as Chrome writes it.
fn event_array(bytes: &[u8]) -> Option<(usize, bool)> {
    let at = skip_blanks(bytes, 0);
    match bytes.get(at)? {
        b'[' => Some((at + 1, false)),
        b'{' => {
            let key = b"\"traceEvents\"";
            let at = skip_blanks(bytes, at + 1);
            bytes.get(at..at + key.len()).filter(|k| k == key)?;
            let at = skip_blanks(bytes, at + key.len());
            (bytes.get(at) == Some(&b':')).then_some(())?;
            let at = skip_blanks(bytes, at + 1);
            (bytes.get(at) == Some(&b'[')).then_some((at + 1, true))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded traces, decompressed.
    fn recorded() -> Vec<(String, Vec<u8>)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/trace");
        let mut traces = Vec::new();
        for name in [
            "page",
            "primes",
            "pageload",
            "pageload-shifts",
            "pageload-bgimage",
        ] {
            let gz = std::fs::read(format!("{dir}/{name}.trace.json.gz")).unwrap();
            let mut text = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut text)
                .unwrap();
            traces.push((name.to_string(), text));
        }
        traces
    }

    fn one_pass(bytes: &[u8]) -> String {
        format!("{:?}", read_in_one_pass(bytes).unwrap().finish())
    }

    fn in_segments(bytes: &[u8], every: usize, threads: usize) -> Option<String> {
        let state = read_in_segments(bytes, every, threads, &mut |_| {})?;
        Some(format!("{:?}", state.finish()))
    }

    #[test]
    fn segments_read_what_one_pass_reads() {
        for (name, text) in recorded() {
            let expected = one_pass(&text);
            // Small segments: many guesses, some inside `ProfileChunk` node arrays.
            for (every, threads) in [(usize::MAX, 1), (40_000, 2), (3_000, 3)] {
                let got = in_segments(&text, every, threads);
                assert!(got.is_some(), "{name}: {every} B segments fell back");
                assert!(
                    got.as_deref() == Some(&*expected),
                    "{name}: {every} B segments"
                );
            }
        }
    }

    #[test]
    fn segments_read_other_layouts_and_damage_as_one_pass_does() {
        let (_, page) = recorded().swap_remove(0);
        let page = String::from_utf8(page).unwrap();
        let close = page.find("],\"metadata\"").unwrap();
        let events = &page[page.find('[').unwrap()..close + 1];
        let one_line = page.replace(",\n{", ",{");
        let mut cases: Vec<Vec<u8>> = [
            one_line.clone(),
            events.to_string(),
            format!("{events} \n"),
            format!("{events} x"),
            format!(
                "{}, \"traceEvents\": []}}",
                &page[..page.rfind('}').unwrap()]
            ),
            page.replace(",\n{", " ,\r\n\t{"),
        ]
        .map(String::into_bytes)
        .into();
        // Cut short anywhere: mid-event, after a comma, after an event, in the metadata.
        let bytes = page.as_bytes();
        for cut in [bytes.len() / 3, page.find("},\n{").unwrap() + 2, close] {
            cases.push(bytes[..cut].to_vec());
            cases.push(bytes[..cut + 1].to_vec());
        }
        cases.push(bytes[..bytes.len() - 10].to_vec());
        for (i, text) in cases.iter().enumerate() {
            let expected = match read_in_one_pass(text) {
                Ok(state) => format!("{:?}", state.finish()),
                Err(e) => format!("{e}"),
            };
            for (every, threads) in [(usize::MAX, 1), (5_000, 2)] {
                // A fall back is the one pass itself; what is read without one must equal it.
                if let Some(got) = in_segments(text, every, threads) {
                    assert!(got == expected, "case {i}, {every} B segments");
                }
            }
        }
        // The layouts Chrome writes and a cut-short trace need no second pass.
        for text in [bytes, one_line.as_bytes(), &bytes[..bytes.len() / 3]] {
            assert!(in_segments(text, 5_000, 2).is_some());
        }
    }

    #[test]
    fn consumed_offsets_grow_to_the_array_end() {
        let (_, page) = recorded().swap_remove(0);
        let mut seen = Vec::new();
        read_in_segments(&page, 10_000, 2, &mut |n| seen.push(n)).unwrap();
        assert!(seen.len() > 10);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        let close = String::from_utf8(page)
            .unwrap()
            .find("],\"metadata\"")
            .unwrap();
        assert_eq!(*seen.last().unwrap(), close);
    }
}
