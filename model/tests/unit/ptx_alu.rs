//! Tests of `ptx::alu`.

use scopecheck_model::ptx::alu::*;
use scopecheck_model::ptx::value::Ty;
const S32: Ty = Ty::S(32);
const U32: Ty = Ty::U(32);

fn s(x: i64) -> u64 {
    x as u64
}

#[test]
fn integer_arithmetic() {
    assert_eq!(eval(AluOp::Add { sat: false }, U32, &[0xffff_ffff, 1]), 0);
    assert_eq!(
        eval(AluOp::Add { sat: true }, S32, &[s(i32::MAX as i64), 1]),
        i32::MAX as u64
    );
    assert_eq!(
        eval(AluOp::Sub { sat: true }, S32, &[s(i32::MIN as i64), 1]),
        s(i32::MIN as i64)
    );
    assert_eq!(eval(AluOp::MulHi, U32, &[0x8000_0000, 4]), 2);
    assert_eq!(eval(AluOp::MulHi, S32, &[s(-2), 3]), s(-1));
    assert_eq!(eval(AluOp::MulWide, S32, &[s(-2), 3]), s(-6));
    assert_eq!(eval(AluOp::MulWide, U32, &[0xffff_ffff, 2]), 0x1_ffff_fffe);
    assert_eq!(eval(AluOp::MadLo, U32, &[3, 4, 5]), 17);
    assert_eq!(eval(AluOp::MadHi, U32, &[0x8000_0000, 4, 1]), 3);
    assert_eq!(
        eval(AluOp::MadWide, U32, &[0xffff_ffff, 2, 2]),
        0x2_0000_0000
    );
    assert_eq!(eval(AluOp::Div, S32, &[s(-7), 2]), s(-3));
    assert_eq!(eval(AluOp::Rem, S32, &[s(-7), 2]), s(-1));
    assert_eq!(eval(AluOp::Div, U32, &[7, 0]), 0xffff_ffff);
    assert_eq!(eval(AluOp::Rem, U32, &[7, 3]), 1);
    assert_eq!(eval(AluOp::Neg, S32, &[5]), s(-5));
    assert_eq!(eval(AluOp::Abs, S32, &[s(-5)]), 5);
    assert_eq!(eval(AluOp::Min, S32, &[s(-1), 1]), s(-1));
    assert_eq!(eval(AluOp::Min, U32, &[0xffff_ffff, 1]), 1);
    assert_eq!(eval(AluOp::Max, S32, &[s(-1), 1]), 1);
    assert_eq!(eval(AluOp::Max, U32, &[0xffff_ffff, 1]), 0xffff_ffff);
}

#[test]
fn logic_and_bits() {
    let b32 = Ty::B(32);
    assert_eq!(eval(AluOp::And, b32, &[0b1100, 0b1010]), 0b1000);
    assert_eq!(eval(AluOp::Or, b32, &[0b1100, 0b1010]), 0b1110);
    assert_eq!(eval(AluOp::Xor, b32, &[0b1100, 0b1010]), 0b0110);
    assert_eq!(eval(AluOp::Not, b32, &[0]), 0xffff_ffff);
    assert_eq!(eval(AluOp::Not, Ty::Pred, &[1]), 0);
    assert_eq!(eval(AluOp::Xor, Ty::Pred, &[1, 1]), 0);
    assert_eq!(eval(AluOp::Cnot, b32, &[0]), 1);
    assert_eq!(eval(AluOp::Cnot, b32, &[7]), 0);
    assert_eq!(eval(AluOp::Shl, b32, &[1, 31]), 0x8000_0000);
    assert_eq!(eval(AluOp::Shl, b32, &[1, 40]), 0);
    assert_eq!(eval(AluOp::Shr, U32, &[0x8000_0000, 31]), 1);
    assert_eq!(eval(AluOp::Shr, S32, &[s(-8), 1]), s(-4));
    assert_eq!(eval(AluOp::Shr, S32, &[s(-8), 40]), s(-1));
    assert_eq!(eval(AluOp::Popc, b32, &[0xf0f0]), 8);
    assert_eq!(eval(AluOp::Clz, b32, &[1]), 31);
    assert_eq!(eval(AluOp::Clz, Ty::B(64), &[1]), 63);
    assert_eq!(eval(AluOp::Brev, b32, &[1]), 0x8000_0000);
    assert_eq!(eval(AluOp::Bfe, U32, &[0xabcd, 4, 8]), 0xbc);
    assert_eq!(eval(AluOp::Bfe, S32, &[0x80, 4, 4]), s(-8));
    assert_eq!(eval(AluOp::Bfi, b32, &[0xf, 0, 4, 4]), 0xf0);
    assert_eq!(
        eval(AluOp::Prmt, b32, &[0x4433_2211, 0x8877_6655, 0x3210]),
        0x4433_2211
    );
    assert_eq!(
        eval(AluOp::Prmt, b32, &[0x4433_2211, 0x8877_6655, 0x7654]),
        0x8877_6655
    );
    assert_eq!(
        eval(AluOp::Prmt, b32, &[0x0000_0080, 0, 0x0008]),
        0x8080_80ff
    );
}

#[test]
fn conversions() {
    let (u8t, s8, u64t, s64) = (Ty::U(8), Ty::S(8), Ty::U(64), Ty::S(64));
    assert_eq!(convert(s64, S32, s(-1), Rnd::None, false), u64::MAX);
    assert_eq!(
        convert(u64t, U32, 0xffff_ffff, Rnd::None, false),
        0xffff_ffff
    );
    assert_eq!(convert(u8t, U32, 0x1ff, Rnd::None, false), 0xff);
    assert_eq!(convert(u8t, U32, 0x1ff, Rnd::None, true), 0xff);
    assert_eq!(convert(s8, S32, 300, Rnd::None, true), 127);
    assert_eq!(convert(s8, S32, s(-300), Rnd::None, true), s(-128));
    assert_eq!(convert(U32, S32, s(-5), Rnd::None, true), 0);
    let f = Ty::F(32);
    let v = |x: f32| x.to_bits() as u64;
    assert_eq!(convert(f, S32, s(-3), Rnd::Nearest, false), v(-3.0));
    assert_eq!(convert(S32, f, v(-2.5), Rnd::Nearest, false), s(-2));
    assert_eq!(convert(S32, f, v(-2.5), Rnd::Zero, false), s(-2));
    assert_eq!(convert(S32, f, v(-2.5), Rnd::Down, false), s(-3));
    assert_eq!(convert(S32, f, v(2.5), Rnd::Up, false), 3);
    assert_eq!(convert(U32, f, v(-2.5), Rnd::Zero, false), 0);
    assert_eq!(convert(S32, f, v(f32::NAN), Rnd::Zero, false), 0);
    assert_eq!(
        convert(Ty::F(64), f, v(1.5), Rnd::None, false),
        1.5f64.to_bits()
    );
    assert_eq!(convert(f, f, v(2.7), Rnd::Zero, false), v(2.0));
}

#[test]
fn floats() {
    let f = Ty::F(32);
    let v = |x: f32| x.to_bits() as u64;
    assert_eq!(
        eval(AluOp::Add { sat: false }, f, &[v(1.5), v(2.0)]),
        v(3.5)
    );
    assert_eq!(eval(AluOp::MulLo, f, &[v(1.5), v(2.0)]), v(3.0));
    assert_eq!(eval(AluOp::MadLo, f, &[v(1.5), v(2.0), v(1.0)]), v(4.0));
    assert_eq!(eval(AluOp::Div, f, &[v(1.0), v(4.0)]), v(0.25));
    assert_eq!(eval(AluOp::Neg, f, &[v(1.0)]), v(-1.0));
    assert_eq!(eval(AluOp::Min, f, &[v(f32::NAN), v(2.0)]), v(2.0));
    assert_eq!(eval(AluOp::Sqrt, f, &[v(4.0)]), v(2.0));
    let d = Ty::F(64);
    assert_eq!(
        eval(
            AluOp::Sub { sat: false },
            d,
            &[2.5f64.to_bits(), 1f64.to_bits()]
        ),
        1.5f64.to_bits()
    );
}
