//! Wall-clock times for the catalogue: RFC 3339 in UTC with milliseconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-22T19:43:02.123Z`.
pub fn now_rfc3339() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_rfc3339(since.as_secs() as i64, since.subsec_millis())
}

fn format_rfc3339(secs: i64, millis: u32) -> String {
    let t = jsprof_cdp::utc(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_dates() {
        assert_eq!(super::format_rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::format_rfc3339(1_709_210_096, 7),
            "2024-02-29T12:34:56.007Z"
        );
    }
}
