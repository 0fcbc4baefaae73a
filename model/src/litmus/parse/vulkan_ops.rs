//! Dat3M's Vulkan instructions.

use super::parser::{Ins, Result};
use crate::litmus::ir::*;
use crate::litmus::vulkan::{VulkanKind, VulkanOp, VulkanScope, STORAGE_CLASSES};
use crate::scope::{Order, Scope};

/// Dat3M's Vulkan instructions: `ld`, `st`, `rmw` (with `.atom`, an order, `.av`/`.vis`,
/// `.nonpriv`, a scope, a storage class `.scN` and semantics `.semscN`/`.semav`/`.semvis`),
/// `membar`, `cbar`, `avdevice`, `visdevice`.
impl<'a> Ins<'_, 'a> {
    /// Whether `ld` is Dartagnan's register move (`ld r0, 1`, `ld r0, r1`).
    pub(super) fn is_move(&self, parts: &[&str]) -> bool {
        let Some(src) = self.args.get(1) else {
            return false;
        };
        let src_is_imm = src
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        let src_is_loc = self.locations.iter().any(|l| l.name == src.text);
        src_is_imm || (parts.len() == 1 && !src_is_loc)
    }

    /// The qualifiers of a Vulkan mnemonic, each checked against what the opcode allows.
    pub(super) fn vulkan_qualifiers(&self, parts: &[&str]) -> Result<(VulkanOp, Option<RmwOp>)> {
        let opcode = parts[0];
        let mut op = VulkanOp::new(match opcode {
            "membar" => VulkanKind::MemoryBarrier,
            "cbar" => VulkanKind::ControlBarrier,
            "avdevice" => VulkanKind::AvDevice,
            "visdevice" => VulkanKind::VisDevice,
            _ => VulkanKind::Access,
        });
        let mut atom = false;
        let mut order = None;
        let mut rmw_op = None;
        let mut at = self.mnemonic.at + opcode.len();
        for q in &parts[1..] {
            let here = at + 1;
            at += q.len() + 1;
            let bad = |message: String| self.p.err(here, message);
            let access = op.kind == VulkanKind::Access;
            let barrier = matches!(
                op.kind,
                VulkanKind::MemoryBarrier | VulkanKind::ControlBarrier
            );
            let class = |prefix: &str| -> Option<u8> {
                q.strip_prefix(prefix)
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|&n| n < STORAGE_CLASSES && q.len() == prefix.len() + 1)
            };
            let new_order = match *q {
                "acq" => Some(Order::Acquire),
                "rel" => Some(Order::Release),
                "acq_rel" => Some(Order::AcqRel),
                _ => None,
            };
            if let Some(o) = new_order {
                if order.replace(o).is_some() {
                    return bad("a second memory order".into());
                }
                let fits = match opcode {
                    "ld" => o == Order::Acquire,
                    "st" => o == Order::Release,
                    "rmw" | "membar" | "cbar" => true,
                    _ => false,
                };
                if !fits {
                    return bad(format!("`{opcode}` cannot be `.{q}`"));
                }
            } else if *q == "atom" && access && !atom {
                atom = true;
            } else if *q == "av" && opcode == "st" && !op.av {
                op.av = true;
            } else if *q == "vis" && opcode == "ld" && !op.vis {
                op.vis = true;
            } else if *q == "nonpriv" && access && !op.nonpriv {
                op.nonpriv = true;
            } else if let Some(scope) = VulkanScope::from_name(q) {
                if op.scope.replace(scope).is_some() {
                    return bad("a second scope".into());
                }
            } else if let (Some(c), true) = (class("semsc"), access || barrier) {
                op.semantics |= 1 << c;
            } else if let (Some(c), true) = (class("sc"), access) {
                if op.storage_class.replace(c).is_some() {
                    return bad("a second storage class".into());
                }
            } else if *q == "semav" && (access || barrier) && !op.sem_av {
                op.sem_av = true;
            } else if *q == "semvis" && (access || barrier) && !op.sem_vis {
                op.sem_vis = true;
            } else if opcode == "rmw"
                && rmw_op.is_none()
                && matches!(*q, "add" | "sub" | "and" | "or" | "xor" | "exch")
            {
                // `operation : Period (Add | Sub | Mul | Div | And | Or | Xor)` (none: an
                // exchange).
                rmw_op = Some(match *q {
                    "add" => RmwOp::Add,
                    "sub" => RmwOp::Sub,
                    "and" => RmwOp::And,
                    "or" => RmwOp::Or,
                    "xor" => RmwOp::Xor,
                    _ => RmwOp::Exch,
                });
            } else if opcode == "rmw" && matches!(*q, "mul" | "div") {
                return bad(format!(
                    "`rmw.{q}` is not supported: the IR's read-modify-writes do not multiply or divide"
                ));
            } else {
                return bad(format!(
                    "unknown or repeated qualifier `.{q}` on `{}`",
                    self.mnemonic.text
                ));
            }
        }
        let end = self.end_of_mnemonic();
        if opcode == "rmw" && !atom {
            return self.p.err(end, "`rmw` is atomic: write `rmw.atom`");
        }
        op.order = match (atom, order) {
            (true, o) => o.unwrap_or(Order::Relaxed),
            (false, Some(_)) if op.kind == VulkanKind::Access => {
                return self
                    .p
                    .err(end, "only atomic accesses (`.atom`) have an order")
            }
            (false, o) if op.kind == VulkanKind::Access => {
                debug_assert!(o.is_none());
                Order::Weak
            }
            (false, o) => o.unwrap_or(Order::Relaxed),
        };
        let needs_scope = match op.kind {
            VulkanKind::Access => atom || op.av || op.vis,
            VulkanKind::MemoryBarrier | VulkanKind::ControlBarrier => true,
            VulkanKind::AvDevice | VulkanKind::VisDevice => false,
        };
        match (needs_scope, op.scope) {
            (true, None) => {
                return self.p.err(
                    end,
                    format!("`{}` needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)", opcode),
                )
            }
            (false, Some(_)) => {
                return self
                    .p
                    .err(end, format!("`{}` takes no scope here", self.mnemonic.text))
            }
            _ => {}
        }
        if op.kind == VulkanKind::Access && op.storage_class.is_none() {
            return self.p.err(
                end,
                "a Vulkan access names its storage class (`.sc0`, `.sc1`, …)",
            );
        }
        if op.sem_av && !op.order.is_release() {
            return self.p.err(end, "`.semav` needs release semantics");
        }
        if op.sem_vis && !op.order.is_acquire() {
            return self.p.err(end, "`.semvis` needs acquire semantics");
        }
        if op.kind == VulkanKind::MemoryBarrier && op.order == Order::Relaxed {
            return self
                .p
                .err(end, "`membar` needs `.acq`, `.rel` or `.acq_rel`");
        }
        Ok((op, rmw_op))
    }

    /// One Vulkan instruction: the IR's access, fence or barrier, and what it means in Vulkan.
    pub(super) fn vulkan(mut self, parts: &[&str]) -> Result<(Instr, VulkanOp)> {
        let (op, rmw_op) = self.vulkan_qualifiers(parts)?;
        let access = Access {
            proxy: Proxy::Generic,
            order: op.order,
            scope: op
                .scope
                .filter(|_| op.is_atomic())
                .map(VulkanScope::ptx_scope),
        };
        let scope = op.scope.map_or(Scope::Sys, VulkanScope::ptx_scope);
        let instr = match parts[0] {
            "ld" => {
                self.arity(2)?;
                Instr::Load {
                    access,
                    dst: self.reg(0)?,
                    loc: self.location(1)?,
                }
            }
            "st" => {
                self.arity(2)?;
                Instr::Store {
                    access,
                    loc: self.location(0)?,
                    value: self.operand(1)?,
                }
            }
            "rmw" => {
                self.arity(3)?;
                Instr::Atom {
                    access,
                    op: rmw_op.unwrap_or(RmwOp::Exch),
                    dst: self.reg(0)?,
                    loc: self.location(1)?,
                    operand: self.operand(2)?,
                    new: None,
                }
            }
            "cbar" => {
                let (id, quorum) = self.barrier_operands("a control barrier")?;
                Instr::Barrier {
                    op: BarrierOp::Sync,
                    id,
                    quorum,
                }
            }
            // `membar`, `avdevice`, `visdevice`.
            _ => {
                self.arity(0)?;
                Instr::Fence(Fence::AcqRel(scope))
            }
        };
        Ok((instr, op))
    }
}
