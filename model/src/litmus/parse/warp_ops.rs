//! Warp-level instructions: `bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync` and `elect.sync`.

use super::parser::{Ins, Result};
use crate::litmus::ir::*;
use crate::litmus::warp::{ReduxOp, ReduxType, ShflMode, VoteMode, WarpOp};

/// Warp-level instructions: `bar.warp.sync membermask`, `shfl.sync`, `vote.sync`.
impl<'a> Ins<'_, 'a> {
    /// `shfl.sync.{up,down,bfly,idx}.b32 d, a, b, c, membermask` (`b`, `c` constants) and
    /// `vote.sync.{all,any,uni}.pred d, a, membermask`, `vote.sync.ballot.b32 d, a,
    /// membermask`, `match.any.sync.b32 d, a, membermask` and `match.all.sync.b32 d, a,
    /// membermask`, `redux.sync.{add,min,max}.{u32,s32} d, a, membermask`,
    /// `redux.sync.{and,or,xor}.b32 d, a, membermask` and `elect.sync d, membermask` (see
    /// [`crate::litmus::warp`]).
    pub(super) fn exchange(self, parts: &[&str]) -> Result<WarpOp> {
        let unknown = |what: &str| {
            self.p.err(
                self.mnemonic.at,
                format!("unknown instruction `{}`: write {what}", self.mnemonic.text),
            )
        };
        match parts {
            ["shfl", "sync", mode, "b32"] => {
                let mode = match *mode {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return unknown("`shfl.sync.MODE.b32 d, a, b, c, membermask` with MODE up, down, bfly or idx"),
                };
                self.arity(5)?;
                Ok(WarpOp::Shfl {
                    mode,
                    dst: self.reg(0)?,
                    src: self.operand(1)?,
                    b: self.lane_constant(2, "a lane or lane offset `b` (0 to 31)", 0x1f)?,
                    c: self.lane_constant(
                        3,
                        "a clamp and segment mask `c` (such as 0x1f)",
                        0x1f1f,
                    )?,
                    mask: self.member_mask(4)?,
                })
            }
            ["vote", "sync", mode, ty] => {
                let mode = match (*mode, *ty) {
                    ("all", "pred") => VoteMode::All,
                    ("any", "pred") => VoteMode::Any,
                    ("ballot", "b32") => VoteMode::Ballot,
                    ("uni", "pred") => VoteMode::Uni,
                    _ => return unknown("`vote.sync.all.pred`, `vote.sync.any.pred`, `vote.sync.uni.pred` or `vote.sync.ballot.b32` `d, a, membermask`"),
                };
                self.arity(3)?;
                Ok(WarpOp::Vote {
                    mode,
                    dst: self.reg(0)?,
                    pred: self.operand(1)?,
                    mask: self.member_mask(2)?,
                })
            }
            ["match", mode @ ("any" | "all"), "sync", "b32"] => {
                self.arity(3)?;
                let dst = self.reg(0)?;
                let src = self.operand(1)?;
                // The lowering (`warp::lower`) loads the other lanes' values into `d` while it
                // still compares them with `a`.
                if src == Operand::Reg(dst.clone()) {
                    return self.p.err(
                        self.args[1].at,
                        format!("match.sync's source `{dst}` is its destination: the litmus dialect needs another register for `a`"),
                    );
                }
                Ok(WarpOp::Match {
                    all: *mode == "all",
                    dst,
                    src,
                    mask: self.member_mask(2)?,
                })
            }
            ["redux", "sync", op, ty] => {
                // PTX ISA, *redux.sync*: ".op = {.and, .or, .xor}; .type = {.b32}" and ".op =
                // {.add, .min, .max}; .type = {.u32, .s32}".
                let op = ReduxOp::from_name(op);
                let ty = match (op, *ty) {
                    (Some(op), "b32") if op.bitwise() => ReduxType::B32,
                    (Some(op), "u32") if !op.bitwise() => ReduxType::U32,
                    (Some(op), "s32") if !op.bitwise() => ReduxType::S32,
                    _ => return unknown("`redux.sync.{add,min,max}.{u32,s32}` or `redux.sync.{and,or,xor}.b32` `d, a, membermask`"),
                };
                self.arity(3)?;
                Ok(WarpOp::Redux {
                    op: op.expect("matched above"),
                    ty,
                    dst: self.reg(0)?,
                    src: self.operand(1)?,
                    mask: self.member_mask(2)?,
                })
            }
            ["elect", "sync"] => {
                self.arity(2)?;
                Ok(WarpOp::Elect {
                    dst: self.reg(0)?,
                    mask: self.member_mask(1)?,
                })
            }
            ["redux", ..] => unknown("`redux.sync.OP.TYPE d, a, membermask`"),
            ["elect", ..] => unknown("`elect.sync d, membermask`"),
            ["match", ..] => unknown(
                "`match.any.sync.b32 d, a, membermask` or `match.all.sync.b32 d, a, membermask` (rows are split at `|`, so the optional predicate `d|p` of match.all is not written: it is `d != 0`)",
            ),
            _ => unknown(
                "`shfl.sync.MODE.b32 d, a, b, c, membermask` or `vote.sync.MODE d, a, membermask`",
            ),
        }
    }

    /// A constant operand of a `shfl.sync` whose bits outside `bits` PTX ignores: they must be 0.
    pub(super) fn lane_constant(&self, i: usize, what: &str, bits: u32) -> Result<u32> {
        let a = self.args[i];
        let parsed = match a.text.strip_prefix("0x").or(a.text.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => a.text.parse::<u32>(),
        };
        match parsed {
            Ok(v) if v & !bits == 0 => Ok(v),
            _ => self
                .p
                .err(a.at, format!("expected {what}, found `{}`", a.text)),
        }
    }

    pub(super) fn warp(self, parts: &[&str]) -> Result<Instr> {
        if parts != ["bar", "warp", "sync"] {
            return self.p.err(
                self.mnemonic.at,
                format!(
                    "unknown instruction `{}` (the warp barrier is `bar.warp.sync membermask`)",
                    self.mnemonic.text
                ),
            );
        }
        self.arity(1)?;
        Ok(Instr::WarpSync {
            mask: self.member_mask(0)?,
        })
    }

    /// A member mask: a 32-bit immediate, decimal or `0x` hexadecimal (one bit per lane).
    pub(super) fn member_mask(&self, i: usize) -> Result<u32> {
        let a = self.args[i];
        let parsed = match a.text.strip_prefix("0x").or(a.text.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => a.text.parse::<u32>(),
        };
        match parsed {
            Ok(0) => self.p.err(
                a.at,
                "a member mask names at least one lane (the executing one)",
            ),
            Ok(mask) => Ok(mask),
            Err(_) => self.p.err(
                a.at,
                format!(
                    "expected a member mask (a 32-bit constant such as `0x3`), found `{}`",
                    a.text
                ),
            ),
        }
    }
}
