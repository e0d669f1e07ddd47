#![no_main]
//! Arbitrary bytes into the Chrome trace reader, then everything `jsprof events` does with a trace:
//! the DevTools timing, the timelines (samples integrated into calls, trace events nested by time)
//! and GetEvents' unique-events reduction on each. Errors are fine; panics, hangs and runaway
//! allocation are not.
use jsprof_analysis::{EventQuery, Mode};
use jsprof_profile::Source;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut trace) = jsprof_profile::read_trace_from(Source::<std::io::Empty>::Slice(data))
    else {
        return;
    };
    jsprof_analysis::apply_devtools_timing(&mut trace.profile);
    for timeline in jsprof_analysis::trace_timelines(&trace) {
        let unique = EventQuery {
            mode: Mode::UniqueEvents,
            ..EventQuery::default()
        };
        let _ = jsprof_analysis::get_events(&timeline, &unique);
        // A window and a subtree too: the overlap test and the subtree bounds are where
        // arithmetic on hostile times would go wrong.
        let windowed = EventQuery {
            mode: Mode::All,
            start: Some(0),
            end: Some(1_000_000),
            event_id: Some(1),
            max_depth: Some(2),
            types: Vec::new(),
        };
        let _ = jsprof_analysis::get_events(&timeline, &windowed);
    }
});
