//! Tests of `ptx::half`.

use scopecheck_model::ptx::half::*;

/// Round to nearest even by brute force over every finite binary16: the nearest value,
/// ties to the one with an even fraction, overflow as IEEE 754 has it (a value at or past
/// 65520, the midpoint between 65504 and 2^16, is infinity).
fn nearest(x: f64) -> u16 {
    if x.abs() >= 65520.0 {
        return if x < 0.0 { 0xFC00 } else { 0x7C00 };
    }
    let mut best = 0u16;
    let mut best_d = f64::INFINITY;
    for h in 0..0x7C00u16 {
        let d = (to_f64(h) - x.abs()).abs();
        if d < best_d || (d == best_d && h & 1 == 0) {
            best = h;
            best_d = d;
        }
    }
    if x.is_sign_negative() {
        best | SIGN
    } else {
        best
    }
}

#[test]
fn every_half_round_trips_through_f64() {
    for h in 0..=u16::MAX {
        let x = to_f64(h);
        if is_nan(h) {
            assert!(x.is_nan());
            assert_eq!(from_f64(x), CANONICAL_NAN);
        } else {
            assert_eq!(from_f64(x), h, "{h:#06x} = {x}");
        }
    }
}

/// The exact integer paths agree with rounding the exact `f64` result (every sum and
/// product of two halves is exact in `f64`) over a spread of finite and special values.
#[test]
fn arithmetic_agrees_with_the_exact_f64_result() {
    let values: Vec<u16> = (0..=u16::MAX)
        .step_by(331)
        .chain([0, 0x8000, 1, 0x7BFF, 0x7C00, 0xFC00, 0x7E00])
        .collect();
    let canon = |x: f64| {
        if x.is_nan() {
            CANONICAL_NAN
        } else {
            from_f64(x)
        }
    };
    for &a in &values {
        for &b in &values {
            let (x, y) = (to_f64(a), to_f64(b));
            let zero_ok = |r: u16, want: u16| r == want || (r & 0x7FFF == 0 && want & 0x7FFF == 0);
            assert!(zero_ok(add(a, b), canon(x + y)), "{a:#x} + {b:#x}");
            assert!(zero_ok(sub(a, b), canon(x - y)), "{a:#x} - {b:#x}");
            assert!(zero_ok(mul(a, b), canon(x * y)), "{a:#x} * {b:#x}");
            assert_eq!(
                fma(a, b, 0x0000) & 0x7FFF,
                canon(x * y) & 0x7FFF,
                "{a:#x} * {b:#x} + 0"
            );
        }
    }
    // Signed zeros exactly: IEEE 754 (x + y is -0 only for -0 + -0 in round to nearest).
    assert_eq!(add(0x8000, 0x8000), 0x8000);
    assert_eq!(add(0x8000, 0), 0);
    assert_eq!(add(0x3C00, 0xBC00), 0);
    assert_eq!(mul(0x8000, 0x3C00), 0x8000);
    assert_eq!(fma(0x3C00, 0x8000, 0x8000), 0x8000);
    assert_eq!(fma(0x3C00, 0x8000, 0), 0);
}

#[test]
fn rounding_matches_the_brute_force_reference() {
    // Midpoints (ties), near-midpoints, subnormals, overflow, across the range.
    let mut xs = vec![
        0.0,
        -0.0,
        1.0,
        1.0 + 2f64.powi(-11),
        1.0 + 3.0 * 2f64.powi(-11),
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        65504.0,
        65519.99,
        65520.0,
        1e6,
        2f64.powi(-24),
        2f64.powi(-25),
        2f64.powi(-25) + 2f64.powi(-60),
        3.0 * 2f64.powi(-26),
        2f64.powi(-14) - 2f64.powi(-25),
        0.1,
        -0.1,
        1.0 / 3.0,
        1e-8,
        6.1e-5,
    ];
    for i in 0..2000 {
        let t = (i as f64 * 0.7371).sin() * 70000.0 * (i as f64 * 1.3).cos().powi(9);
        xs.push(t);
    }
    for x in xs {
        assert_eq!(from_f64(x), nearest(x), "{x}");
        assert_eq!(from_f64(-x), nearest(-x), "{}", -x);
    }
}
