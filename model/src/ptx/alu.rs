//! What the arithmetic, logic and bit instructions compute (PTX ISA, *Integer Arithmetic*,
//! *Floating-Point*, *Logic and Shift* instructions). Each takes register values (see
//! [`super::value`]) and returns the destination's bits, normalised to the result type.

use super::value::Ty;

/// An arithmetic or logic operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AluOp {
    /// `add`: `d = a + b` (integers wrap; `.sat` on `.s32` clamps).
    Add {
        /// `.sat`.
        sat: bool,
    },
    /// `sub`: `d = a - b`.
    Sub {
        /// `.sat`.
        sat: bool,
    },
    /// `mul.lo` (and float `mul`): the low half of the product.
    MulLo,
    /// `mul.hi`: the high half of the double-width product.
    MulHi,
    /// `mul.wide`: the double-width product of two half-width operands.
    MulWide,
    /// `mad.lo` (and float `mad`/`fma`): `a * b + c`, low half.
    MadLo,
    /// `mad.hi`: high half of `a * b`, plus `c`.
    MadHi,
    /// `mad.wide`: double-width `a * b + c`.
    MadWide,
    /// `div`: integer division truncates toward zero; division by zero gives all ones
    /// (unsigned) as the hardware does; floats divide.
    Div,
    /// `rem`: the remainder with the dividend's sign.
    Rem,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `not`: bitwise complement (logical for predicates).
    Not,
    /// `cnot`: `d = (a == 0) ? 1 : 0`.
    Cnot,
    /// `shl`: shift amounts past the width give 0.
    Shl,
    /// `shr`: arithmetic for signed types (past the width: the sign), logical otherwise.
    Shr,
    /// `neg`.
    Neg,
    /// `abs`.
    Abs,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `popc`: number of one bits (result `.u32`).
    Popc,
    /// `clz`: leading zeros (result `.u32`).
    Clz,
    /// `brev`: bit reversal.
    Brev,
    /// `bfe d, a, pos, len`: extract `len` bits from `pos`, sign-extended for signed types.
    Bfe,
    /// `bfi d, f, b, pos, len`: insert the low `len` bits of `f` into `b` at `pos`.
    Bfi,
    /// `prmt.b32 d, a, b, c` (default mode): each result byte picks one of the 8 bytes of
    /// `{b, a}` by a selector nibble of `c`, replicating its sign bit when the nibble's bit 3 is
    /// set.
    Prmt,
    /// `sqrt` (floats).
    Sqrt,
    /// `rcp` (floats): `1 / a`.
    Rcp,
    /// `min.NaN` (`.f16`): a NaN operand gives the canonical NaN.
    MinNan,
    /// `max.NaN` (`.f16`).
    MaxNan,
}

/// `op` applied to `args` in type `ty` (`MulWide`/`MadWide`: `ty` is the operands' type, the
/// result twice as wide).
pub fn eval(op: AluOp, ty: Ty, args: &[u64]) -> u64 {
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let c = args.get(2).copied().unwrap_or(0);
    if ty.float() {
        return float(op, ty, a, b, c);
    }
    if ty == Ty::Pred {
        let r = match op {
            AluOp::And => a & b,
            AluOp::Or => a | b,
            AluOp::Xor => a ^ b,
            AluOp::Not => !a,
            _ => a,
        };
        return r & 1;
    }
    let n = ty.bits();
    let (sa, sb) = (ty.as_i64(a), ty.as_i64(b));
    let (ua, ub) = (ty.trunc(a), ty.trunc(b));
    let wide = |x: u64| -> i128 {
        if ty.signed() {
            ty.as_i64(x) as i128
        } else {
            ty.trunc(x) as i128
        }
    };
    let r: u64 = match op {
        AluOp::Add { sat: true } if ty.signed() => sat32(sa as i128 + sb as i128),
        AluOp::Sub { sat: true } if ty.signed() => sat32(sa as i128 - sb as i128),
        AluOp::Add { .. } => a.wrapping_add(b),
        AluOp::Sub { .. } => a.wrapping_sub(b),
        AluOp::MulLo => a.wrapping_mul(b),
        AluOp::MulHi => ((wide(a) * wide(b)) >> n) as u64,
        AluOp::MulWide => {
            return Ty::norm(double(ty), (wide(a) * wide(b)) as u64);
        }
        AluOp::MadLo => a.wrapping_mul(b).wrapping_add(c),
        AluOp::MadHi => (((wide(a) * wide(b)) >> n) as u64).wrapping_add(c),
        AluOp::MadWide => {
            let d = double(ty);
            return d.norm(((wide(a) * wide(b)) as u64).wrapping_add(c));
        }
        AluOp::Div if ty.signed() => match sb {
            0 => u64::MAX,
            _ => sa.wrapping_div(sb) as u64,
        },
        AluOp::Div => ua.checked_div(ub).unwrap_or(u64::MAX),
        AluOp::Rem if ty.signed() => match sb {
            0 => sa as u64,
            _ => sa.wrapping_rem(sb) as u64,
        },
        AluOp::Rem => ua.checked_rem(ub).unwrap_or(ua),
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Not => !a,
        AluOp::Cnot => (ua == 0) as u64,
        // "Shift amounts greater than the register width N are clamped to N."
        AluOp::Shl => match (b as u32).min(n) {
            s if s >= n => 0,
            s => a << s,
        },
        AluOp::Shr => {
            let s = (b as u32).min(n);
            if ty.signed() {
                (sa >> s.min(63)) as u64
            } else if s >= n {
                0
            } else {
                ua >> s
            }
        }
        AluOp::Neg => a.wrapping_neg(),
        AluOp::Abs => sa.unsigned_abs(),
        // `.NaN` is a float modifier: on integers it is plain min/max.
        AluOp::Min | AluOp::MinNan if ty.signed() => sa.min(sb) as u64,
        AluOp::Max | AluOp::MaxNan if ty.signed() => sa.max(sb) as u64,
        AluOp::Min | AluOp::MinNan => ua.min(ub),
        AluOp::Max | AluOp::MaxNan => ua.max(ub),
        AluOp::Popc => return ua.count_ones() as u64,
        AluOp::Clz => return (ua.leading_zeros() - (64 - n)) as u64,
        AluOp::Brev => ua.reverse_bits() >> (64 - n),
        AluOp::Bfe => return bfe(ty, a, b, c),
        AluOp::Bfi => {
            let (pos, len) = (
                c as u8 as u32,
                args.get(3).copied().unwrap_or(0) as u8 as u32,
            );
            let mut d = b;
            for i in 0..len {
                if pos + i >= n {
                    break;
                }
                let bit = (a >> i) & 1;
                d = (d & !(1 << (pos + i))) | (bit << (pos + i));
            }
            d
        }
        AluOp::Prmt => prmt(a as u32, b as u32, c as u32) as u64,
        AluOp::Sqrt | AluOp::Rcp => a,
    };
    ty.norm(r)
}

/// Rounding of `cvt` (PTX ISA, *Rounding Modifiers*).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// No modifier: integer-to-integer, or the default where one is allowed.
    None,
    /// `.rn`/`.rni`: to nearest, ties to even.
    Nearest,
    /// `.rz`/`.rzi`: toward zero.
    Zero,
    /// `.rm`/`.rmi`: toward minus infinity.
    Down,
    /// `.rp`/`.rpi`: toward plus infinity.
    Up,
}

impl Rnd {
    /// The rounding a modifier names.
    pub fn parse(m: &str) -> Option<Rnd> {
        Some(match m {
            "rn" | "rni" => Rnd::Nearest,
            "rz" | "rzi" => Rnd::Zero,
            "rm" | "rmi" => Rnd::Down,
            "rp" | "rpi" => Rnd::Up,
            _ => return None,
        })
    }

    fn round(self, x: f64) -> f64 {
        match self {
            Rnd::Nearest => x.round_ties_even(),
            Rnd::Zero | Rnd::None => x.trunc(),
            Rnd::Down => x.floor(),
            Rnd::Up => x.ceil(),
        }
    }
}

/// `cvt.dty.sty d, a` (PTX ISA, *cvt*): integer to integer "sign-extends or zero-extends
/// according to the source type, then truncates"; with `.sat` the value is clamped to the
/// destination range. Float to integer rounds by `rnd` (`.rzi` when none is written is an
/// error the decoder reports) and saturates, NaN giving 0. Integer to float and float to float
/// round to nearest (`.f32` from `.f64` with `.rn`, `.rz`, `.rm`, `.rp`; only `.rn` and the
/// exact cases are computed exactly here; the decoder refuses the others).
pub fn convert(dty: Ty, sty: Ty, a: u64, rnd: Rnd, sat: bool) -> u64 {
    if sty.float() || dty.float() {
        let x = if sty.float() {
            sty.as_f64(a)
        } else if sty.signed() {
            sty.as_i64(a) as f64
        } else {
            sty.trunc(a) as f64
        };
        if dty.float() {
            let x = if sty.float() && rnd != Rnd::None && rnd != Rnd::Nearest {
                // `cvt.rzi.f32.f32` and friends: round to an integral value.
                rnd.round(x)
            } else {
                x
            };
            return dty.from_f64(x);
        }
        if x.is_nan() {
            return 0;
        }
        let r = rnd.round(x);
        return if dty.signed() {
            let (lo, hi) = signed_range(dty.bits());
            dty.norm(r.clamp(lo as f64, hi as f64) as i64 as u64)
        } else {
            let hi = u64::MAX >> (64 - dty.bits());
            dty.norm(r.clamp(0.0, hi as f64) as u64)
        };
    }
    let v: i128 = if sty.signed() {
        sty.as_i64(a) as i128
    } else {
        sty.trunc(a) as i128
    };
    if sat {
        let (lo, hi) = if dty.signed() {
            let (lo, hi) = signed_range(dty.bits());
            (lo as i128, hi as i128)
        } else {
            (0, (u64::MAX >> (64 - dty.bits())) as i128)
        };
        return dty.norm(v.clamp(lo, hi) as u64);
    }
    dty.norm(v as u64)
}

fn signed_range(bits: u32) -> (i64, i64) {
    let hi = (u64::MAX >> (65 - bits)) as i64;
    (-hi - 1, hi)
}

/// The type twice as wide (`mul.wide.s32` gives `.s64`).
pub fn double(ty: Ty) -> Ty {
    match ty {
        Ty::S(n) => Ty::S(2 * n),
        Ty::U(n) => Ty::U(2 * n),
        Ty::B(n) => Ty::B(2 * n),
        other => other,
    }
}

fn sat32(x: i128) -> u64 {
    x.clamp(i32::MIN as i128, i32::MAX as i128) as i64 as u64
}

/// `bfe`: "Extract bit field from a and place the zero or sign-extended result in d. Source b
/// gives the bit field starting bit position, and source c gives the bit field length in bits.
/// Operands a and d have the same type as the instruction type. Operands b and c are type .u32,
/// but are restricted to the 8-bit value range 0..255." The sign bit is bit
/// `min(pos + len - 1, msb)` of `a` (0 when `len` is 0).
fn bfe(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let n = ty.bits();
    let (pos, len) = (b as u8 as u32, c as u8 as u32);
    let msb = n - 1;
    let sbit = if ty.signed() && len > 0 {
        (a >> (pos + len - 1).min(msb)) & 1 == 1
    } else {
        false
    };
    let mut d = 0u64;
    for i in 0..n {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1 == 1
        } else {
            sbit
        };
        d |= (bit as u64) << i;
    }
    ty.norm(d)
}

/// `prmt.b32` default mode: "the bytes of `{b, a}` are numbered 0..7 from `a`'s low byte;
/// each 4-bit selector `c[4i+3:4i]` picks byte `c[4i+2:4i]` for result byte `i`, and when
/// `c[4i+3]` is set the result byte replicates the sign (msb) of the picked byte".
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (b as u64) << 32 | a as u64;
    let mut d = 0u32;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (bytes >> (8 * (sel & 7))) as u8;
        let out = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d |= (out as u32) << (8 * i);
    }
    d
}

/// `op` on each half of `.f16x2` operands: "the operation is performed on the upper and lower
/// halves" independently (PTX ISA, *Half Precision Floating-Point Instructions*), each an
/// `.f16` operation.
pub fn eval_x2(op: AluOp, args: &[u64]) -> u64 {
    let half = |shift: u32| -> u64 {
        let h: Vec<u64> = args.iter().map(|a| (a >> shift) & 0xFFFF).collect();
        eval(op, Ty::F(16), &h)
    };
    half(0) | half(16) << 16
}

/// `.f16` operations ([`super::half`]): exact, rounded once to nearest even.
fn half_op(op: AluOp, a: u64, b: u64, c: u64) -> u64 {
    use super::half;
    let (a, b, c) = (a as u16, b as u16, c as u16);
    let r = match op {
        AluOp::Add { .. } => half::add(a, b),
        AluOp::Sub { .. } => half::sub(a, b),
        AluOp::MulLo => half::mul(a, b),
        AluOp::MadLo => half::fma(a, b, c),
        AluOp::Neg => half::neg(a),
        AluOp::Abs => half::abs(a),
        AluOp::Min => half::min(a, b, false),
        AluOp::Max => half::max(a, b, false),
        AluOp::MinNan => half::min(a, b, true),
        AluOp::MaxNan => half::max(a, b, true),
        // The decoder admits no other operation on `.f16`.
        _ => unreachable!("{op:?} on .f16"),
    };
    r as u64
}

/// Floating-point operations, computed in `f64` and rounded to the type (round to nearest even,
/// the default rounding `.rn`).
fn float(op: AluOp, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    if ty.bits() == 16 {
        return half_op(op, a, b, c);
    }
    let (x, y, z) = (ty.as_f64(a), ty.as_f64(b), ty.as_f64(c));
    let r = match op {
        AluOp::Add { .. } => x + y,
        AluOp::Sub { .. } => x - y,
        AluOp::MulLo => x * y,
        AluOp::MadLo => x.mul_add(y, z),
        AluOp::Div => x / y,
        AluOp::Neg => -x,
        AluOp::Abs => x.abs(),
        // "If either value is NaN, then the result is the other value."
        AluOp::Min => x.min(y),
        AluOp::Max => x.max(y),
        AluOp::Sqrt => x.sqrt(),
        AluOp::Rcp => 1.0 / x,
        _ => x,
    };
    if ty.bits() == 32 {
        // Compute `.f32` sums and products in f32 so that rounding matches the hardware's.
        let (x, y, zf) = (x as f32, y as f32, z as f32);
        let r32 = match op {
            AluOp::Add { .. } => x + y,
            AluOp::Sub { .. } => x - y,
            AluOp::MulLo => x * y,
            AluOp::MadLo => x.mul_add(y, zf),
            AluOp::Div => x / y,
            _ => r as f32,
        };
        return r32.to_bits() as u64;
    }
    ty.from_f64(r)
}
