//! Tests of `ptx::value`.

use scopecheck_model::ptx::value::*;

#[test]
fn types_parse_and_normalise() {
    assert_eq!(Ty::parse("s8"), Some(Ty::S(8)));
    assert_eq!(Ty::parse("pred"), Some(Ty::Pred));
    assert_eq!(Ty::parse("u12"), None);
    assert_eq!(Ty::parse("x32"), None);
    assert_eq!(Ty::S(8).norm(0xff), u64::MAX);
    assert_eq!(Ty::U(8).norm(0x1ff), 0xff);
    assert_eq!(Ty::S(32).as_i64(0xffff_fffe), -2);
    assert_eq!(Ty::F(32).as_f64(1.5f32.to_bits() as u64), 1.5);
}

#[test]
fn comparisons_follow_the_isa() {
    let (s, u, f) = (Ty::S(32), Ty::U(32), Ty::F(32));
    let m1 = 0xffff_ffffu64;
    assert!(Cmp::Lt.eval(s, m1, 0));
    assert!(!Cmp::Lt.eval(u, m1, 0));
    assert!(Cmp::parse("hi").unwrap().eval(u, m1, 0));
    let nan = f32::NAN.to_bits() as u64;
    let one = 1f32.to_bits() as u64;
    assert!(!Cmp::Eq.eval(f, nan, nan));
    assert!(Cmp::parse("equ").unwrap().eval(f, nan, one));
    assert!(Cmp::Nan.eval(f, nan, one) && !Cmp::Num.eval(f, nan, one));
    assert!(Cmp::Num.eval(f, one, one));
    for (m, want) in [("le", true), ("ge", true), ("ne", false), ("gt", false)] {
        assert_eq!(Cmp::parse(m).unwrap().eval(s, 3, 3), want, "{m}");
    }
}
