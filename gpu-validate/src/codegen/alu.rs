//! Register arithmetic and comparisons as CUDA C++ expressions on the harness's `int`
//! registers, computing exactly [`AluOp::apply`] and [`Cmp::holds`]: C++ leaves signed
//! overflow, division by zero and shifts by 32 or more undefined, so each operation is written
//! through `u32` arithmetic or guarded where the IR defines what C++ does not.

use scopecheck_model::litmus::{AluOp, Cmp};

/// The C++ expression of `a op b`, `a` and `b` being side-effect-free C++ operands.
pub fn alu(op: AluOp, a: &str, b: &str) -> String {
    // The IR takes each operand modulo 2^32 as an `int`.
    let (a, b) = (format!("(int){a}"), format!("(int){b}"));
    match op {
        AluOp::Add => format!("(int)((u32){a} + (u32){b})"),
        AluOp::Sub => format!("(int)((u32){a} - (u32){b})"),
        AluOp::Mul => format!("(int)((u32){a} * (u32){b})"),
        // `a / 0` is -1; `a / -1` is the wrapping negation (`INT_MIN / -1` is `INT_MIN`).
        AluOp::Div => format!("({b} == 0 ? -1 : {b} == -1 ? (int)(0u - (u32){a}) : {a} / {b})"),
        // `a % 0` is `a`; `a % -1` is 0 (`INT_MIN % -1` overflows in C++).
        AluOp::Rem => format!("({b} == 0 ? {a} : {b} == -1 ? 0 : {a} % {b})"),
        AluOp::And => format!("({a} & {b})"),
        AluOp::Or => format!("({a} | {b})"),
        AluOp::Xor => format!("({a} ^ {b})"),
        // The amount, read as unsigned, is clamped to 32 (PTX `shl`/`shr`).
        AluOp::Shl => format!("((u32){b} >= 32u ? 0 : (int)((u32){a} << (u32){b}))"),
        // NVCC shifts a negative `int` right arithmetically (filling with the sign bit).
        AluOp::Shr => format!("({a} >> ((u32){b} >= 32u ? 31u : (u32){b}))"),
    }
}

/// The C++ condition `a cmp b` on `int`s.
pub fn cmp(c: Cmp, a: &str, b: &str) -> String {
    format!("((int){a} {} (int){b})", c.symbol())
}
