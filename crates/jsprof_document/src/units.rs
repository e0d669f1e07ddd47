//! Units for people: the one byte formatter and the one duration formatter of every text answer
//! (the CLI's tables, MCP's text and the UI's `format.js` agree: 1 KB = 1,024 B).

/// Bytes with a binary-prefixed unit: `512 B`, `12.3 KB`, `4.56 MB`, `1.23 GB` (1 KB = 1024 B).
pub fn fmt_bytes(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes.abs() < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut value = bytes / 1024.0;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

/// A duration as every door's text writes it: `123.4 ms`, `1.23 ms` below 10 ms, `12.34 s` from
/// 10 s up.
pub fn fmt_ms(ms: f64) -> String {
    if ms.abs() >= 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms.abs() >= 10.0 || ms == 0.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_bytes;

    #[test]
    fn a_kilobyte_is_1024_bytes() {
        assert_eq!(fmt_bytes(1023.0), "1023 B");
        assert_eq!(fmt_bytes(1536.0), "1.50 KB");
        assert_eq!(fmt_bytes(-2048.0), "-2.00 KB");
        assert_eq!(fmt_bytes(12.5 * 1024.0 * 1024.0), "12.5 MB");
    }
}
