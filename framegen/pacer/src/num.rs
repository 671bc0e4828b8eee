//! The few float operations the pacer needs, written for `core` (whose `f64`
//! has no `floor` or `round` without std).

/// `x` rounded to the nearest whole number, for `x >= 0`; negative and NaN
/// give 0, values past `u32::MAX` saturate.
pub(crate) fn round_u32(x: f64) -> u32 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        // `as` saturates at u32::MAX.
        (x + 0.5) as u32
    }
}

/// The largest whole number not above `x`, for `x >= 0`; negative and NaN
/// give 0.
pub(crate) fn floor_u32(x: f64) -> u32 {
    if x.is_nan() || x <= 0.0 { 0 } else { x as u32 }
}

/// The largest whole number not above `x` as a u64, for `x >= 0`.
pub(crate) fn floor_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 { 0 } else { x as u64 }
}

/// A rate in Hz or fps that can be used: finite and above zero.
pub(crate) fn valid_rate(hz: f64) -> bool {
    hz.is_finite() && hz > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(round_u32(1.998), 2);
        assert_eq!(round_u32(2.4999), 2);
        assert_eq!(round_u32(2.5), 3);
        assert_eq!(round_u32(-1.0), 0);
        assert_eq!(round_u32(f64::NAN), 0);
        assert_eq!(round_u32(1e20), u32::MAX);
        assert_eq!(floor_u32(3.996), 3);
        assert_eq!(floor_u64(7.0), 7);
        assert!(!valid_rate(0.0) && !valid_rate(f64::INFINITY) && valid_rate(59.94));
    }
}
