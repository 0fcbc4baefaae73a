//! Tests of `codegen::alu`.

use scopecheck_gpu::codegen::alu::*;
use scopecheck_model::litmus::{AluOp, Cmp};

#[test]
fn every_operation_guards_what_cpp_leaves_undefined() {
    assert_eq!(
        alu(AluOp::Div, "r_a", "(0)"),
        "((int)(0) == 0 ? -1 : (int)(0) == -1 ? (int)(0u - (u32)(int)r_a) : (int)r_a / (int)(0))"
    );
    assert!(alu(AluOp::Rem, "r_a", "r_b").contains("== -1 ? 0"));
    assert!(alu(AluOp::Shl, "r_a", "r_b").starts_with("((u32)(int)r_b >= 32u ? 0"));
    assert!(alu(AluOp::Shr, "r_a", "r_b").contains("? 31u"));
    assert_eq!(cmp(Cmp::Le, "r_a", "(3)"), "((int)r_a <= (int)(3))");
    for op in AluOp::ALL {
        assert!(!alu(op, "r_a", "r_b").is_empty());
    }
}
