//! IEEE 754 binary16 (`.f16`, and the two halves of `.f16x2`) as bits: conversions and the
//! half-precision arithmetic of the PTX ISA (*Half Precision Floating-Point Instructions*:
//! `add`, `sub`, `mul`, `fma`, `neg`, `abs`, `min`, `max`), each computed exactly and rounded
//! once.
//!
//! PTX ISA: "`.rn` mantissa LSB rounds to nearest even" is the only rounding these instructions
//! take ("`add{.rnd}{.ftz}{.sat}.f16 … .rnd = { .rn }`", the default); "subnormal numbers are
//! supported" (without `.ftz`); a NaN result is the canonical NaN of the type, `0x7FFF`
//! (*min/max*: "if both values are NaN, the result is canonical NaN"). binary16: 1 sign bit,
//! 5 exponent bits (bias 15), 10 fraction bits; the largest finite value is 65504 and the
//! smallest subnormal 2^-24, so every half value is an integer multiple of 2^-24, and every
//! product of two an integer multiple of 2^-48: sums, products and fused multiply-adds are
//! exact in 128-bit integers before the one rounding.

/// The canonical NaN.
pub const CANONICAL_NAN: u16 = 0x7FFF;

/// The sign bit of a binary16.
pub const SIGN: u16 = 0x8000;

/// Whether `h` is a NaN (all exponent bits set, a non-zero fraction).
pub fn is_nan(h: u16) -> bool {
    h & 0x7C00 == 0x7C00 && h & 0x03FF != 0
}

/// Whether `h` is an infinity.
fn is_inf(h: u16) -> bool {
    h & 0x7FFF == 0x7C00
}

/// The exact value of `h`.
pub fn to_f64(h: u16) -> f64 {
    let sign = if h & SIGN != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1F;
    let frac = (h & 0x03FF) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        0x1F if frac == 0.0 => f64::INFINITY,
        0x1F => return f64::NAN,
        e => (1024.0 + frac) * 2f64.powi(e as i32 - 25),
    }
}

/// `(-1)^negative × m × 2^e` rounded to the nearest binary16, ties to an even fraction; past
/// the largest finite value (by at least half an ulp of it) the result is infinity.
pub fn round(negative: bool, m: u128, e: i32) -> u16 {
    let sign = if negative { SIGN } else { 0 };
    if m == 0 {
        return sign;
    }
    // The value's leading bit is 2^top.
    let top = 127 - m.leading_zeros() as i32 + e;
    // The unit of the last place where the value falls: 2^(top - 10) for normal numbers,
    // 2^-24 for subnormal ones.
    let ulp = (top - 10).max(-24);
    let shift = ulp - e;
    let q: u128 = if shift <= 0 {
        m << (-shift) as u32
    } else if shift >= 128 {
        // Far below half of the smallest subnormal: rounds to zero.
        0
    } else {
        let q = m >> shift as u32;
        let rest = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        match rest.cmp(&half) {
            std::cmp::Ordering::Greater => q + 1,
            std::cmp::Ordering::Equal => q + (q & 1),
            std::cmp::Ordering::Less => q,
        }
    };
    // `q × 2^ulp`, with q < 2^11 (or exactly 2^11 after rounding up).
    let (q, ulp) = if q == 1 << 11 {
        (1 << 10, ulp + 1)
    } else {
        (q, ulp)
    };
    if q < 1 << 10 {
        // Subnormal (ulp is -24) or zero.
        return sign | q as u16;
    }
    let exp = ulp + 25;
    if exp >= 0x1F {
        return sign | 0x7C00;
    }
    sign | (exp as u16) << 10 | (q as u16 & 0x03FF)
}

/// `x` rounded to the nearest binary16, ties to even (`cvt.rn.f16.f32`, `cvt.rn.f16.f64`: the
/// source's exact value, one rounding); NaN gives the canonical NaN.
pub fn from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return CANONICAL_NAN;
    }
    if x.is_infinite() {
        return if x < 0.0 { SIGN | 0x7C00 } else { 0x7C00 };
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = match exp {
        0 => (frac, -1074),
        _ => (frac | 1 << 52, exp - 1075),
    };
    round(x.is_sign_negative(), m as u128, e)
}

/// `h` as a signed multiple of 2^-24 (finite values only).
fn units(h: u16) -> i128 {
    let exp = ((h >> 10) & 0x1F) as u32;
    let frac = (h & 0x03FF) as i128;
    let mag = match exp {
        0 => frac,
        e => (1024 + frac) << (e - 1),
    };
    if h & SIGN != 0 {
        -mag
    } else {
        mag
    }
}

/// `v × 2^e` rounded; `zero_sign` is the sign an exact zero takes (IEEE 754: "the sum of two
/// operands with opposite signs … is +0" in round to nearest, `-0 + -0 = -0`).
fn round_signed(v: i128, e: i32, zero_sign: bool) -> u16 {
    match v {
        0 if zero_sign => SIGN,
        0 => 0,
        _ => round(v < 0, v.unsigned_abs(), e),
    }
}

/// The special cases of `a op b` with an infinity or NaN operand: `None` when both are finite.
fn special(a: u16, b: u16, f: impl Fn(f64, f64) -> f64) -> Option<u16> {
    if is_nan(a) || is_nan(b) || is_inf(a) || is_inf(b) {
        let r = f(to_f64(a), to_f64(b));
        return Some(if r.is_nan() {
            CANONICAL_NAN
        } else {
            from_f64(r)
        });
    }
    None
}

/// `add.rn.f16 d, a, b`.
pub fn add(a: u16, b: u16) -> u16 {
    if let Some(r) = special(a, b, |x, y| x + y) {
        return r;
    }
    let both_negative = a & SIGN != 0 && b & SIGN != 0;
    round_signed(units(a) + units(b), -24, both_negative)
}

/// `sub.rn.f16 d, a, b`: `a + (-b)`.
pub fn sub(a: u16, b: u16) -> u16 {
    add(a, neg(b))
}

/// `mul.rn.f16 d, a, b`.
pub fn mul(a: u16, b: u16) -> u16 {
    if let Some(r) = special(a, b, |x, y| x * y) {
        return r;
    }
    let negative = (a ^ b) & SIGN != 0;
    match units(a) * units(b) {
        0 if negative => SIGN,
        p => round_signed(p, -48, false),
    }
}

/// `fma.rn.f16 d, a, b, c`: `a × b + c` "computed in infinite precision and then rounded" once.
pub fn fma(a: u16, b: u16, c: u16) -> u16 {
    if is_nan(a) || is_nan(b) || is_nan(c) || is_inf(a) || is_inf(b) || is_inf(c) {
        let r = to_f64(a).mul_add(to_f64(b), to_f64(c));
        return if r.is_nan() {
            CANONICAL_NAN
        } else {
            from_f64(r)
        };
    }
    let product = units(a) * units(b);
    let sum = product + (units(c) << 24);
    let product_negative = (a ^ b) & SIGN != 0;
    round_signed(sum, -48, product_negative && c & SIGN != 0)
}

/// `neg.f16 d, a`: the sign bit flipped ("Negate the sign of a").
pub fn neg(a: u16) -> u16 {
    a ^ SIGN
}

/// `abs.f16 d, a`: the sign bit cleared ("Take the absolute value of a").
pub fn abs(a: u16) -> u16 {
    a & !SIGN
}

/// `min{.NaN}.f16 d, a, b` ("if one value is NaN the result is the other value; if both are
/// NaN, the canonical NaN"; with `.NaN`, "the result is canonical NaN if either input is NaN");
/// -0 is less than +0.
pub fn min(a: u16, b: u16, nan: bool) -> u16 {
    pick(a, b, nan, std::cmp::Ordering::Less)
}

/// `max{.NaN}.f16 d, a, b` (as [`min`]); +0 is greater than -0.
pub fn max(a: u16, b: u16, nan: bool) -> u16 {
    pick(a, b, nan, std::cmp::Ordering::Greater)
}

fn pick(a: u16, b: u16, nan: bool, want: std::cmp::Ordering) -> u16 {
    match (is_nan(a), is_nan(b)) {
        (true, true) => CANONICAL_NAN,
        (true, false) | (false, true) if nan => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            // Total order of non-NaN values with -0 below +0: compare signed magnitudes.
            let key = |h: u16| -> i32 {
                let mag = (h & 0x7FFF) as i32;
                if h & SIGN != 0 {
                    -mag - 1
                } else {
                    mag
                }
            };
            if key(a).cmp(&key(b)) == want {
                a
            } else {
                b
            }
        }
    }
}
