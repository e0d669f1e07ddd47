//! The engine's units, decided once: every conversion between them goes through here.
//!
//! jsprof's trace model (`jsprof_profile`) keeps times as nanoseconds on the trace clock in
//! `i64`. DevTools' trace engine keeps them as microseconds in a JavaScript number, and its
//! network timings arrive in seconds (`requestTime`, `finishTime`) and in milliseconds from
//! `requestTime` (`dnsStart`, `sendEnd`, …); Lantern works in milliseconds and seconds. To
//! reproduce its numbers to the last bit, the engine takes each nanosecond time into µs `f64`
//! once ([`ns_to_us`], at the trace model's boundary) and then converts with exactly the
//! operations the engine's JavaScript performs: the same operator (`/ 1000` is not `* 0.001`)
//! in the same order. The documents (`jsprof_document`) turn the µs into milliseconds from the
//! trace's origin.
//!
//! JavaScript's `Math.round`, `Math.max` and `Math.min` live here too: the engine's rounding of
//! the converted numbers is part of reproducing them.

/// Nanoseconds on the trace clock (the trace model's unit) to the engine's microseconds.
pub fn ns_to_us(ns: i64) -> f64 {
    ns as f64 / 1000.0
}

/// Microseconds to milliseconds, as the engine divides them.
pub fn us_to_ms(us: f64) -> f64 {
    us / 1000.0
}

/// Milliseconds to microseconds, as the engine multiplies them.
pub fn ms_to_us(ms: f64) -> f64 {
    ms * 1000.0
}

/// Seconds (a network event's `requestTime` or `finishTime`) to microseconds.
pub fn s_to_us(s: f64) -> f64 {
    s * 1e6
}

/// Microseconds to seconds.
pub fn us_to_s(us: f64) -> f64 {
    us / 1e6
}

/// Seconds to milliseconds.
pub fn s_to_ms(s: f64) -> f64 {
    s * 1000.0
}

/// Milliseconds to seconds.
pub fn ms_to_s(ms: f64) -> f64 {
    ms / 1000.0
}

/// JavaScript's `Math.round`: the nearest integer, halves up (also below zero). Not
/// `(x + 0.5).floor()`, which rounds 0.49999999999999994 to 1.
pub fn js_round(x: f64) -> f64 {
    let f = x.floor();
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// JavaScript's `Math.max` of two numbers (NaN wins).
pub fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// JavaScript's `Math.min` of two numbers (NaN wins).
pub fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_round_rounds_halves_up() {
        assert_eq!(js_round(2.5), 3.0);
        assert_eq!(js_round(-2.5), -2.0);
        assert_eq!(js_round(49.6), 50.0);
        assert_eq!(js_round(0.49999999999999994), 0.0);
        assert_eq!(js_round(-0.5000000000000001), -1.0);
        assert!(js_round(f64::NAN).is_nan());
        assert_eq!(js_round(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn js_max_and_min_let_nan_win() {
        assert_eq!(js_max(1.0, 2.0), 2.0);
        assert_eq!(js_min(1.0, 2.0), 1.0);
        assert!(js_max(f64::NAN, 2.0).is_nan());
        assert!(js_min(1.0, f64::NAN).is_nan());
    }

    #[test]
    fn conversions_keep_the_engines_operations() {
        assert_eq!(ns_to_us(1_234_567), 1234.567);
        // `/ 1000` and `* 0.001` differ in the last bit; the engine divides.
        assert_eq!(us_to_ms(20.35), 0.02035);
        assert_ne!(20.35 * 0.001, 0.02035);
        assert_eq!(ms_to_us(1.5), 1500.0);
        assert_eq!(s_to_us(2.5), 2_500_000.0);
        assert_eq!(us_to_s(2_500_000.0), 2.5);
        assert_eq!(s_to_ms(0.25), 250.0);
        assert_eq!(ms_to_s(250.0), 0.25);
    }
}
