//! The read-modify-write operations of `atom` and `red` (PTX ISA, *atom*, *red*). A leaf of the
//! IR: the IR, the warp reductions and the front ends' syntax trees import it.

use super::operand::Value;
use serde::{Deserialize, Serialize};

/// Read-modify-write operations of `atom` and `red`.
///
/// Litmus values are signed 64-bit integers and the type suffix of an instruction (`.u32`,
/// `.s32`, `.b64`, ...) is ignored, so every operation below is defined on `i64`: `min`/`max`
/// compare as signed integers (PTX's `.s64`), `inc`/`dec` compare as unsigned ones (PTX defines
/// them only for `.u32`), and for values that fit in 32 bits both agree with the 32-bit forms a
/// GPU runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RmwOp {
    /// `atom.add`/`red.add`: `old + b`.
    Add,
    /// `old - b` (CUDA's `atomicSub`; PTX spells it as `atom.add` of `-b`).
    Sub,
    /// `atom.exch`: `b`.
    Exch,
    /// Compare-and-swap: `atom.cas r, x, expected, new`.
    Cas,
    /// `atom.inc`: PTX ISA, *atom*: "inc: `((a >= b) ? 0 : a+1)`" (unsigned; a wrapping counter
    /// with bound `b`).
    Inc,
    /// `atom.dec`: PTX ISA, *atom*: "dec: `(((a == 0) || (a > b)) ? b : a-1)`" (unsigned).
    Dec,
    /// `atom.min`: the smaller of `old` and `b`.
    Min,
    /// `atom.max`: the larger of `old` and `b`.
    Max,
    /// `atom.and` (`.b32`/`.b64`): bitwise and.
    And,
    /// `atom.or`: bitwise or.
    Or,
    /// `atom.xor`: bitwise exclusive or.
    Xor,
}

impl RmwOp {
    /// Every operation, in the order the dialect lists them.
    pub const ALL: [RmwOp; 11] = [
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::Exch,
        RmwOp::Cas,
        RmwOp::Inc,
        RmwOp::Dec,
        RmwOp::Min,
        RmwOp::Max,
        RmwOp::And,
        RmwOp::Or,
        RmwOp::Xor,
    ];

    /// The PTX qualifier naming the operation (`add`, `inc`, ...).
    ///
    /// ```
    /// use scopecheck_model::litmus::RmwOp;
    /// assert_eq!(RmwOp::Inc.name(), "inc");
    /// assert_eq!(RmwOp::from_name("xor"), Some(RmwOp::Xor));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            RmwOp::Add => "add",
            RmwOp::Sub => "sub",
            RmwOp::Exch => "exch",
            RmwOp::Cas => "cas",
            RmwOp::Inc => "inc",
            RmwOp::Dec => "dec",
            RmwOp::Min => "min",
            RmwOp::Max => "max",
            RmwOp::And => "and",
            RmwOp::Or => "or",
            RmwOp::Xor => "xor",
        }
    }

    /// The operation a PTX qualifier names.
    pub fn from_name(name: &str) -> Option<RmwOp> {
        RmwOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether `red` has the operation: PTX's `red` has every `atom` operation but `exch` and
    /// `cas` (PTX ISA, *red*: ".op = { .and, .or, .xor, .add, .inc, .dec, .min, .max }"; `sub`
    /// is this dialect's spelling of an add of the negated operand).
    pub fn reduces(self) -> bool {
        !matches!(self, RmwOp::Exch | RmwOp::Cas)
    }

    /// The value written, given the old value and the operand(s); `None` when a CAS fails.
    ///
    /// ```
    /// use scopecheck_model::litmus::RmwOp;
    /// // atomicInc wraps to 0 once the old value reaches the bound.
    /// assert_eq!(RmwOp::Inc.apply(3, 3, 0), Some(0));
    /// assert_eq!(RmwOp::Inc.apply(2, 3, 0), Some(3));
    /// // atomicDec wraps to the bound from 0 (and from above it).
    /// assert_eq!(RmwOp::Dec.apply(0, 3, 0), Some(3));
    /// assert_eq!(RmwOp::Cas.apply(1, 0, 5), None);
    /// ```
    pub fn apply(self, old: Value, operand: Value, cas_new: Value) -> Option<Value> {
        let (a, b) = (old as u64, operand as u64);
        match self {
            RmwOp::Add => Some(old.wrapping_add(operand)),
            RmwOp::Sub => Some(old.wrapping_sub(operand)),
            RmwOp::Exch => Some(operand),
            RmwOp::Cas => (old == operand).then_some(cas_new),
            RmwOp::Inc => Some(if a >= b { 0 } else { old.wrapping_add(1) }),
            RmwOp::Dec => Some(if a == 0 || a > b {
                operand
            } else {
                old.wrapping_sub(1)
            }),
            RmwOp::Min => Some(old.min(operand)),
            RmwOp::Max => Some(old.max(operand)),
            RmwOp::And => Some(old & operand),
            RmwOp::Or => Some(old | operand),
            RmwOp::Xor => Some(old ^ operand),
        }
    }
}
