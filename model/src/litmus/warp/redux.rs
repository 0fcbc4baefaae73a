//! `redux.sync` and `elect.sync`: their operations and types, and how the parser lowers them
//! (see the parent module for the lowering's scheme).

use super::{barrier, WarpOp, WEAK};
use crate::litmus::ir::*;
use crate::scope::{Order, Scope};
use serde::{Deserialize, Serialize};

/// The reduction `redux.sync` computes (PTX ISA, *redux.sync*, `.op`).
///
/// ```
/// use scopecheck_model::litmus::warp::ReduxOp;
/// assert_eq!(ReduxOp::from_name("xor"), Some(ReduxOp::Xor));
/// assert_eq!(ReduxOp::Min.apply(3, -2), -2);
/// assert!(ReduxOp::And.bitwise());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReduxOp {
    /// `.add`: the sum ("For the .add operation result is truncated to 32 bits").
    Add,
    /// `.min`: the smallest value.
    Min,
    /// `.max`: the largest value.
    Max,
    /// `.and`: bitwise and.
    And,
    /// `.or`: bitwise or.
    Or,
    /// `.xor`: bitwise exclusive or.
    Xor,
}

/// The type qualifier of `redux.sync` (PTX ISA, *redux.sync*: `.u32`/`.s32` for `.add`, `.min`,
/// `.max`; `.b32` for `.and`, `.or`, `.xor`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReduxType {
    /// `.u32`.
    U32,
    /// `.s32`.
    S32,
    /// `.b32`.
    B32,
}

impl ReduxOp {
    /// Every operation, in the order the PTX ISA lists them.
    pub const ALL: [ReduxOp; 6] = [
        ReduxOp::Add,
        ReduxOp::Min,
        ReduxOp::Max,
        ReduxOp::And,
        ReduxOp::Or,
        ReduxOp::Xor,
    ];

    /// The operation as PTX writes it (`add`, `min`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ReduxOp::Add => "add",
            ReduxOp::Min => "min",
            ReduxOp::Max => "max",
            ReduxOp::And => "and",
            ReduxOp::Or => "or",
            ReduxOp::Xor => "xor",
        }
    }

    /// The operation a PTX qualifier names.
    pub fn from_name(name: &str) -> Option<ReduxOp> {
        ReduxOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operation is bitwise (typed `.b32`), else arithmetic (`.u32`/`.s32`).
    pub fn bitwise(self) -> bool {
        matches!(self, ReduxOp::And | ReduxOp::Or | ReduxOp::Xor)
    }

    /// The atomic read-modify-write that folds one more value in (the lowering accumulates
    /// with it).
    pub fn rmw(self) -> RmwOp {
        match self {
            ReduxOp::Add => RmwOp::Add,
            ReduxOp::Min => RmwOp::Min,
            ReduxOp::Max => RmwOp::Max,
            ReduxOp::And => RmwOp::And,
            ReduxOp::Or => RmwOp::Or,
            ReduxOp::Xor => RmwOp::Xor,
        }
    }

    /// Fold `b` into `a`.
    pub fn apply(self, a: Value, b: Value) -> Value {
        self.rmw()
            .apply(a, b, 0)
            .expect("a reduction always writes")
    }
}

impl ReduxType {
    /// The type as PTX writes it.
    pub fn name(self) -> &'static str {
        match self {
            ReduxType::U32 => "u32",
            ReduxType::S32 => "s32",
            ReduxType::B32 => "b32",
        }
    }
}

/// `redux.sync`: store `src` to the lane's slot and to its accumulator (which only this lane
/// touches), meet; for each other member lane, load its slot into `dst` and fold it into the
/// accumulator with the operation's atomic reduction; load the accumulator into `dst`; meet
/// again (no lane overwrites its slot before every lane read it). PTX ISA, *redux.sync*: "The
/// result of the reduction operation is written to the 32 bit destination register dst" of
/// every participating thread.
pub(super) fn reduce(op: &WarpOp, (slot, acc): (LocId, LocId), others: &[LocId]) -> Vec<Instr> {
    let WarpOp::Redux {
        op: red, dst, src, ..
    } = op
    else {
        unreachable!("a reduction")
    };
    let mut out = vec![
        Instr::Store {
            access: WEAK,
            loc: slot,
            value: src.clone(),
        },
        Instr::Store {
            access: WEAK,
            loc: acc,
            value: src.clone(),
        },
        barrier(op),
    ];
    for &other in others {
        out.extend([
            Instr::Load {
                access: WEAK,
                dst: dst.clone(),
                loc: other,
            },
            Instr::Red {
                access: Access {
                    proxy: Proxy::Generic,
                    order: Order::Relaxed,
                    scope: Some(Scope::Cta),
                },
                op: red.rmw(),
                loc: acc,
                operand: Operand::Reg(dst.clone()),
            },
        ]);
    }
    out.extend([
        Instr::Load {
            access: WEAK,
            dst: dst.clone(),
            loc: acc,
        },
        barrier(op),
    ]);
    out
}

/// `elect.sync`: every member lane tries to write its lane id plus one into the mask's election
/// word with a compare-and-swap from 0, meet, load the word and subtract one, meet again. The
/// first election over a mask is won by whichever lane's CAS comes first in coherence order (any
/// member lane: the ISA does not say which); the word keeps its value, so every later election
/// over the same mask fails every CAS and elects that lane again ("the same leader thread is
/// elected for the same membermask every time").
pub(super) fn elect(op: &WarpOp, lane: u32, word: LocId) -> Vec<Instr> {
    let WarpOp::Elect { dst, .. } = op else {
        unreachable!("an election")
    };
    vec![
        Instr::Atom {
            access: Access {
                proxy: Proxy::Generic,
                order: Order::Relaxed,
                scope: Some(Scope::Cta),
            },
            op: RmwOp::Cas,
            dst: dst.clone(),
            loc: word,
            operand: Operand::Imm(0),
            new: Some(Operand::Imm(lane as Value + 1)),
        },
        barrier(op),
        Instr::Load {
            access: WEAK,
            dst: dst.clone(),
            loc: word,
        },
        Instr::Add {
            dst: dst.clone(),
            a: Operand::Reg(dst.clone()),
            b: Operand::Imm(-1),
        },
        barrier(op),
    ]
}
