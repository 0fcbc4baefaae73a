//! Tests of `litmus::ir::alu`.

use scopecheck_model::litmus::ir::alu::*;
use scopecheck_model::litmus::Value;

#[test]
fn every_operation_follows_c_and_ptx() {
    let min = Value::from(i32::MIN);
    let max = Value::from(i32::MAX);
    let cases: [(AluOp, Value, Value, Value); 30] = [
        (AluOp::Add, 3, -5, -2),
        (AluOp::Add, max, 1, min),
        (AluOp::Sub, -3, 5, -8),
        (AluOp::Sub, min, 1, max),
        (AluOp::Mul, -3, 5, -15),
        (AluOp::Mul, 0x10000, 0x10000, 0),
        (AluOp::Div, 7, 2, 3),
        (AluOp::Div, -7, 2, -3),
        (AluOp::Div, 7, -2, -3),
        (AluOp::Div, -7, -2, 3),
        (AluOp::Div, 5, 0, -1),
        (AluOp::Div, min, -1, min),
        (AluOp::Rem, 7, 2, 1),
        (AluOp::Rem, -7, 2, -1),
        (AluOp::Rem, 7, -2, 1),
        (AluOp::Rem, -7, 0, -7),
        (AluOp::Rem, min, -1, 0),
        (AluOp::And, -4, 6, 4),
        (AluOp::Or, -4, 1, -3),
        (AluOp::Xor, -1, 5, -6),
        (AluOp::Shl, 1, 31, min),
        (AluOp::Shl, -1, 4, -16),
        (AluOp::Shl, 1, 32, 0),
        (AluOp::Shl, 1, -1, 0),
        (AluOp::Shr, -16, 2, -4),
        (AluOp::Shr, 16, 2, 4),
        (AluOp::Shr, -16, 32, -1),
        (AluOp::Shr, 16, 99, 0),
        (AluOp::Add, 1 << 32, 1, 1),
        (AluOp::Shr, min, 31, -1),
    ];
    for (op, a, b, want) in cases {
        assert_eq!(op.apply(a, b), want, "{a} {} {b}", op.name());
    }
}

#[test]
fn names_and_comparisons_round_trip() {
    for op in AluOp::ALL {
        assert_eq!(AluOp::from_name(op.name()), Some(op));
    }
    for c in Cmp::ALL {
        assert_eq!(Cmp::from_name(c.name()), Some(c));
        for (a, b) in [(-1, 0), (0, 0), (1, 0)] {
            assert_eq!(c.negate().holds(a, b), !c.holds(a, b));
        }
    }
    assert!(Cmp::Lt.holds(-1, 0) && !Cmp::Lt.holds(0, 0) && Cmp::Le.holds(0, 0));
    assert!(Cmp::Gt.holds(0, -1) && !Cmp::Gt.holds(0, 0) && Cmp::Ge.holds(0, 0));
}
