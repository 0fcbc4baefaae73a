//! `redux.sync` and `elect.sync`: how the parser lowers them (see the parent module for the
//! lowering's scheme; their operations and types are the IR's plain data, `ir/warp_op.rs`).

use super::{barrier, WarpOp, WEAK};
use crate::litmus::ir::*;
use crate::scope::{Order, Scope};

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
        Instr::Alu {
            op: AluOp::Add,
            dst: dst.clone(),
            a: Operand::Reg(dst.clone()),
            b: Operand::Imm(-1),
        },
        barrier(op),
    ]
}
