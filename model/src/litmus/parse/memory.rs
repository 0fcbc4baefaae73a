//! Memory instructions: `ld`, `st`, `atom`, `red`, `fence`/`membar`, `cp.async` and `bar`.

use super::parser::{Ins, Result};
use crate::litmus::ir::*;
use crate::scope::{Order, Scope};

impl<'a> Ins<'_, 'a> {
    pub(super) fn load(mut self, parts: &[&str]) -> Result<Instr> {
        // `ld.global.nc`: PTX ISA, *ld.global.nc*: "Load register variable d from the location
        // specified by the source address operand a in the global state space, and optionally
        // cache in non-coherent read-only cache", and *Memory Consistency Model*: "The memory
        // consistency model does not apply to texture (including ld.global.nc) and surface
        // accesses". The model reads it as a weak load through the texture proxy: nothing but a
        // proxy fence orders a generic write before it, so it may return stale data.
        let nc = parts[0] == "ld" && parts.contains(&"nc");
        if nc && !parts.contains(&"global") {
            return self.p.err(
                self.mnemonic.at,
                "`.nc` loads read global memory through the read-only cache: write `ld.global.nc`",
            );
        }
        let proxy = match parts[0] {
            _ if nc => Proxy::Texture,
            "ld" => Proxy::Generic,
            "suld" => Proxy::Surface,
            "tld" => Proxy::Texture,
            _ => Proxy::Constant,
        };
        self.arity(2)?;
        // Dartagnan writes register moves as `ld r0, 1` (and `ld r0, r1`).
        let src = self.args[1];
        let src_is_imm = src
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        let src_is_loc = self.locations.iter().any(|l| l.name == src.text);
        if parts[0] == "ld" && !nc && (src_is_imm || (parts.len() == 1 && !src_is_loc)) {
            return Ok(Instr::Mov {
                dst: self.reg(0)?,
                src: self.operand(1)?,
            });
        }
        let (access, _) = self.access(proxy, &parts[1..], false)?;
        if nc && (access.order != Order::Weak || access.scope.is_some()) {
            return self.p.err(
                self.mnemonic.at,
                "`ld.global.nc` takes no memory order or scope: it is a weak load",
            );
        }
        if access.order.is_release() {
            return self.p.err(self.mnemonic.at, "a load cannot be `.release`");
        }
        Ok(Instr::Load {
            access,
            dst: self.reg(0)?,
            loc: self.location(1)?,
        })
    }

    pub(super) fn store(mut self, parts: &[&str]) -> Result<Instr> {
        let proxy = if parts[0] == "st" {
            Proxy::Generic
        } else {
            Proxy::Surface
        };
        self.arity(2)?;
        let (access, _) = self.access(proxy, &parts[1..], false)?;
        if access.order.is_acquire() {
            return self.p.err(self.mnemonic.at, "a store cannot be `.acquire`");
        }
        Ok(Instr::Store {
            access,
            loc: self.location(0)?,
            value: self.operand(1)?,
        })
    }

    pub(super) fn rmw(mut self, parts: &[&str]) -> Result<Instr> {
        let (access, op) = self.access(Proxy::Generic, &parts[1..], true)?;
        let Some(op) = op.and_then(RmwOp::from_name) else {
            return self.p.err(
                self.end_of_mnemonic(),
                format!(
                    "`{}` needs an operation (`.add`, `.sub`, `.exch`, `.cas`, `.inc`, `.dec`, \
                     `.min`, `.max`, `.and`, `.or`, `.xor`)",
                    self.mnemonic.text
                ),
            );
        };
        if parts[0] == "red" {
            if !op.reduces() {
                return self.p.err(
                    self.mnemonic.at,
                    format!("`red` has no `.{}`; use `atom`", op.name()),
                );
            }
            self.arity(2)?;
            return Ok(Instr::Red {
                access,
                op,
                loc: self.location(0)?,
                operand: self.operand(1)?,
            });
        }
        self.arity(if op == RmwOp::Cas { 4 } else { 3 })?;
        let new = if op == RmwOp::Cas {
            Some(self.operand(3)?)
        } else {
            None
        };
        Ok(Instr::Atom {
            access,
            op,
            dst: self.reg(0)?,
            loc: self.location(1)?,
            operand: self.operand(2)?,
            new,
        })
    }

    pub(super) fn fence(self, parts: &[&str]) -> Result<Instr> {
        self.arity(0)?;
        let fence = match parts.get(1..) {
            Some(["proxy", kind @ ..]) if !kind.is_empty() => {
                let kind = kind.join(".");
                match ProxyFence::from_name(&kind) {
                    Some(k) => Fence::Proxy(k),
                    None => {
                        return self.p.err(
                            self.mnemonic.at,
                            format!("unknown proxy fence `.proxy.{kind}`"),
                        )
                    }
                }
            }
            Some(["sc"]) => Fence::Sc(Scope::Sys),
            Some(["acq_rel"]) => Fence::AcqRel(Scope::Sys),
            Some([order, scope]) if matches!(*order, "sc" | "acq_rel") => {
                match Scope::from_name(scope) {
                    Some(s) if *order == "sc" => Fence::Sc(s),
                    Some(s) => Fence::AcqRel(s),
                    None => {
                        return self
                            .p
                            .err(self.mnemonic.at, format!("unknown fence scope `.{scope}`"))
                    }
                }
            }
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!("unknown fence `{}`", self.mnemonic.text),
                )
            }
        };
        Ok(Instr::Fence(fence))
    }

    /// `cp.async.ca.shared.global dst, src[, cp-size]` (also `.cg`, `.shared::cta`),
    /// `cp.async.commit_group`, `cp.async.wait_group n`, `cp.async.wait_all`. A litmus location
    /// holds one value, so the copy moves that value; a `cp-size` operand, when given, must be
    /// one PTX allows (4, 8 or 16 bytes).
    pub(super) fn cp_async(mut self, parts: &[&str]) -> Result<Instr> {
        match parts.get(1..) {
            Some(["async", "commit_group"]) => {
                self.arity(0)?;
                return Ok(Instr::CpAsyncCommit);
            }
            Some(["async", "wait_all"]) => {
                self.arity(0)?;
                return Ok(Instr::CpAsyncWait { n: 0, all: true });
            }
            Some(["async", "wait_group"]) => {
                self.arity(1)?;
                let a = self.args[0];
                let n = self.p.integer(a)?;
                let Ok(n) = u32::try_from(n) else {
                    return self.p.err(
                        a.at,
                        "`cp.async.wait_group` takes a number of groups (0 or more)",
                    );
                };
                return Ok(Instr::CpAsyncWait { n, all: false });
            }
            Some(["async", rest @ ..])
                if !rest.is_empty()
                    && rest.iter().all(|q| {
                        matches!(*q, "ca" | "cg" | "shared" | "shared::cta" | "global")
                    })
                    && rest.contains(&"global")
                    && rest.iter().any(|q| q.starts_with("shared")) => {}
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!(
                        "unknown instruction `{}`: write `cp.async.ca.shared.global dst, src`, \
                         `cp.async.commit_group`, `cp.async.wait_group n` or `cp.async.wait_all`",
                        self.mnemonic.text
                    ),
                )
            }
        }
        if self.args.len() == 3 {
            let size = self.args[2];
            if !matches!(self.p.integer(size)?, 4 | 8 | 16) {
                return self
                    .p
                    .err(size.at, "`cp.async` copies 4, 8 or 16 bytes (its cp-size)");
            }
        } else {
            self.arity(2)?;
        }
        let dst = self.location(0)?;
        let src = self.location(1)?;
        if dst == src {
            return self.p.err(
                self.args[1].at,
                "`cp.async` copies global memory into shared memory: its source and destination \
                 are different locations",
            );
        }
        Ok(Instr::CpAsync { dst, src })
    }

    pub(super) fn barrier(self, parts: &[&str]) -> Result<Instr> {
        let op = match parts.get(1..) {
            Some(["cta", "sync"]) | Some(["sync"]) => BarrierOp::Sync,
            Some(["cta", "arrive"]) | Some(["arrive"]) => BarrierOp::Arrive,
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!("unknown barrier `{}`", self.mnemonic.text),
                )
            }
        };
        let (id, quorum) = self.barrier_operands("a barrier")?;
        Ok(Instr::Barrier { op, id, quorum })
    }
}
