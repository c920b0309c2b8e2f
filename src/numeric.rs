//! Floating-point operations with the exact semantics the kernels are written against.
//!
//! The kernels were first written in Python's and NumPy's terms, and their results are defined to
//! the bit by those: `min(a, b)` keeps `a` unless `b` is strictly smaller (so a NaN second argument
//! is ignored and `min(0.0, -0.0)` is `0.0`), NumPy's `minimum`/`maximum` propagate NaN, `rint`
//! rounds half to even. Rust's `f64::min`/`max` differ on NaN and signed zeros, so the kernels use
//! these instead. No operation here is fused or reassociated.

/// Python's `min(a, b)` on floats: `b` if `b < a`, else `a`.
#[inline(always)]
pub fn min(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// Python's `max(a, b)` on floats: `b` if `b > a`, else `a`.
#[inline(always)]
pub fn max(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// NumPy's `minimum`: NaN if either is NaN (the first NaN), else `a` if `a <= b`, else `b`.
#[inline(always)]
pub fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        if a.is_nan() { a } else { b }
    } else if a <= b {
        a
    } else {
        b
    }
}

/// NumPy's `maximum`: NaN if either is NaN (the first NaN), else `a` if `a >= b`, else `b`.
#[inline(always)]
pub fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        if a.is_nan() { a } else { b }
    } else if a >= b {
        a
    } else {
        b
    }
}

/// `min(max(value, low), high)` with Python's `min` and `max`.
#[inline(always)]
pub fn clamp(value: f64, low: f64, high: f64) -> f64 {
    min(max(value, low), high)
}

/// C's `frexp`: `(m, e)` with `x = m · 2^e` and `0.5 <= |m| < 1`; `(x, 0)` for 0, infinities and NaN.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first (exact).
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, biased - 1022)
}

/// C's `ldexp` (`scalbn`): `x · 2^e`, rounded once (exact unless the result leaves the normal range).
pub fn ldexp(x: f64, e: i32) -> f64 {
    let mut y = x;
    let mut n = e;
    if n > 1023 {
        y *= power_of_two(1023);
        n -= 1023;
        if n > 1023 {
            y *= power_of_two(1023);
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        // Steps of 2^(-1022 + 53) keep the intermediate normal, so the last product rounds once.
        y *= power_of_two(-1022 + 53);
        n += 1022 - 53;
        if n < -1022 {
            y *= power_of_two(-1022 + 53);
            n = (n + 1022 - 53).max(-1022);
        }
    }
    y * power_of_two(n)
}

/// `2^e` for `-1022 <= e <= 1023` (a normal float), built from its bits.
fn power_of_two(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// NumPy's `rint`: the nearest integer, halves to even.
#[inline(always)]
pub fn rint(x: f64) -> f64 {
    x.round_ties_even()
}

/// C's and numba's `int(x)` of a float, which the mask and raster loops' bits depend on: truncation toward zero, and
/// x86's "integer indefinite" (the smallest integer) for NaN and values beyond the integers' range, as
/// its conversion instruction gives (Rust's `as` saturates instead).
#[inline(always)]
pub fn truncated(x: f64) -> i64 {
    const LIMIT: f64 = (1u64 << 63) as f64;
    // A NaN is in no range.
    if (-LIMIT..LIMIT).contains(&x) { x as i64 } else { i64::MIN }
}

/// The z component of the cross product `u × v`.
#[inline(always)]
pub fn cross(ux: f64, uy: f64, vx: f64, vy: f64) -> f64 {
    ux * vy - uy * vx
}

/// NumPy's `nextafter(x, inf)`: the least float above `x` (`x` itself for NaN and +inf). The
/// crate supports Rust 1.85, before `f64::next_up`.
#[inline(always)]
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1); // above either zero: the least subnormal
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

/// NumPy's `nextafter(x, -inf)`: the greatest float below `x`.
#[inline(always)]
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_integer_of_a_float_truncates_and_is_the_smallest_beyond_range() {
        assert_eq!(truncated(-2.7), -2);
        assert_eq!(truncated(f64::NAN), i64::MIN);
        assert_eq!(truncated(1e300), i64::MIN);
        assert_eq!(truncated(-((1u64 << 63) as f64)), i64::MIN); // -2^63 itself converts
        assert_eq!(truncated((1u64 << 63) as f64), i64::MIN); // 2^63 does not: beyond the integers
    }

    #[test]
    fn python_min_and_max_keep_the_first_unless_the_second_is_strictly_beyond() {
        assert_eq!(min(0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(min(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(max(1.0, f64::NAN), 1.0);
        assert!(max(f64::NAN, 1.0).is_nan());
        assert_eq!(min(2.0, 1.0), 1.0);
    }

    #[test]
    fn numpy_minimum_and_maximum_propagate_nan() {
        assert!(minimum(1.0, f64::NAN).is_nan());
        assert!(maximum(f64::NAN, 1.0).is_nan());
        assert_eq!(maximum(-0.0, 0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(minimum(3.0, 2.0), 2.0);
    }

    #[test]
    fn frexp_splits_normal_subnormal_and_special_values() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(0.0), (0.0, 0));
        assert_eq!(frexp(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
        assert_eq!(frexp(5e-324), (0.5, -1073));
        assert_eq!(frexp(f64::MAX).1, 1024);
        assert!(frexp(f64::NAN).0.is_nan());
    }

    #[test]
    fn ldexp_reaches_every_power_of_two_and_overflows_to_infinity() {
        assert_eq!(ldexp(1.0, 10), 1024.0);
        assert_eq!(ldexp(1.0, -1074), 5e-324);
        assert_eq!(ldexp(1.0, -1075), 0.0);
        assert_eq!(ldexp(1.0, 1023), 2f64.powi(1023));
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp(3.0, -1073), 6.0 * 5e-324);
        assert_eq!(ldexp(1.5, -1074), 2.0 * 5e-324); // 1.5 units of the last place: halves to even
        for e in -1074..=1023 {
            let (m, exponent) = frexp(ldexp(1.0, e));
            assert_eq!((m, exponent), (0.5, e + 1));
        }
    }

    #[test]
    fn rint_rounds_halves_to_even() {
        assert_eq!(rint(2.5), 2.0);
        assert_eq!(rint(-0.5).to_bits(), (-0.0f64).to_bits());
        assert_eq!(rint(3.5), 4.0);
    }

    #[test]
    fn next_up_and_down_step_to_the_neighbouring_floats() {
        assert_eq!(next_up(1.0), 1.0 + f64::EPSILON);
        assert_eq!(next_down(1.0), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(next_up(-0.0), 5e-324);
        assert_eq!(next_down(0.0), -5e-324);
        assert_eq!(next_down(f64::INFINITY), f64::MAX);
        assert_eq!(next_up(f64::NEG_INFINITY), f64::MIN);
        assert_eq!(next_down(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert!(next_up(f64::NAN).is_nan());
    }
}
