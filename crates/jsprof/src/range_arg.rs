//! `--range START..END`: parsing for clap, and the words subtitles use. Applying it is the
//! pipeline's view step (`jsprof_document::load::CpuInput::weighted`).

use jsprof_analysis::TimeRange;

/// clap's value parser for `--range`: the one `START..END` parser.
pub use jsprof_document::query::parse_range as parse;

/// `range 12 ms..30 ms`-style description for subtitles.
pub fn describe(range: Option<TimeRange>) -> Option<String> {
    let r = range?;
    let side = |v: Option<i64>| {
        v.map_or(String::new(), |ns| {
            format!("{} ms", jsprof_profile::ns_to_ms(ns))
        })
    };
    Some(format!("range {}..{}", side(r.start), side(r.end)))
}
