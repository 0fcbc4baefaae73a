//! Checks over a whole thread table: labels, tokens, registers read before written, and warp
//! member masks.

use super::parser::{Parser, Result};
use crate::litmus::ir::*;
use crate::litmus::warp::WarpPart;
use std::collections::BTreeSet;

impl<'a> Parser<'a> {
    pub(super) fn check_labels(&self, thread: &Thread) -> Result<()> {
        let mut labels = BTreeSet::new();
        // Exchanges not lowered yet stand as empty labels (see `warp::placeholder`).
        for stmt in thread.body.iter().filter(|s| s.warp.is_none()) {
            if let Instr::Label(l) = &stmt.instr {
                if !labels.insert(l.clone()) {
                    return Err(self.error_at(
                        stmt.span,
                        format!("label `{l}` defined twice in this thread"),
                    ));
                }
            }
        }
        for stmt in &thread.body {
            if let Instr::Branch { target, .. } = &stmt.instr {
                if !labels.contains(target) {
                    return Err(
                        self.error_at(stmt.span, format!("branch to undefined label `{target}`"))
                    );
                }
            }
        }
        Ok(())
    }

    /// Tile IR tokens are SSA values ("Token represents a memory ordering token that can be used
    /// to control the ordering of memory operations", Tile IR *Operations*, 8.1.3; a memory
    /// operation takes tokens as operands and yields a new one as its result): a token an
    /// instruction waits for must be the result of an earlier instruction of its tile block
    /// (thread), and never of the instruction itself (an operand is defined before the
    /// operation that uses it). A wait for a token nobody produced would order nothing.
    pub(super) fn check_tokens(&self, thread: &Thread) -> Result<()> {
        let mut produced = BTreeSet::new();
        for stmt in &thread.body {
            let Some(tok) = &stmt.token else {
                continue;
            };
            for waited in &tok.after {
                if tok.produces.as_ref() == Some(waited) && !produced.contains(waited) {
                    return Err(self.error_at(
                        stmt.span,
                        format!(
                            "token `{waited}` is waited for by the instruction that produces it"
                        ),
                    ));
                }
                if !produced.contains(waited) {
                    return Err(self.error_at(
                        stmt.span,
                        format!(
                            "token `{waited}` is not produced by an earlier instruction of this thread"
                        ),
                    ));
                }
            }
            produced.extend(tok.produces.iter().cloned());
        }
        Ok(())
    }

    /// A register read must have a value: an initialisation or an earlier write in its thread.
    pub(super) fn check_registers(&self, p: &Program) -> Result<()> {
        for (t, thread) in p.threads.iter().enumerate() {
            let mut defined: BTreeSet<&Reg> = p
                .reg_init
                .iter()
                .filter(|i| i.thread == t)
                .map(|i| &i.reg)
                .collect();
            // Loops may read a register written later in the text: collect all writes first.
            defined.extend(thread.body.iter().filter_map(|s| s.instr.written_reg()));
            for stmt in &thread.body {
                for reg in stmt.instr.read_regs() {
                    // A location first used in a later row is declared only then, so an earlier
                    // operand of that name was taken for a register: reject it here, wherever it is.
                    if p.location_named(&reg.0).is_some() {
                        return Err(self.error_at(
                            stmt.span,
                            format!(
                                "`{reg}` is a location; a value operand must be a register or an integer"
                            ),
                        ));
                    }
                    if !defined.contains(reg) {
                        return Err(self.error_at(
                            stmt.span,
                            format!(
                                "register `{reg}` of P{t} is read but never initialised or written"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Each warp-level instruction's member mask names its own lane and only lanes that exist:
    /// the threads of a CTA are its first warp's lanes `0, 1, ...` in program order (see
    /// [`Program::lane`]). PTX ISA, *bar.warp.sync*: "The behavior of bar.warp.sync is
    /// undefined if the executing thread is not in the membermask"; a lane without a thread
    /// never arrives, so the others would wait forever.
    pub(super) fn check_warps(&self, threads: &[Thread]) -> Result<()> {
        let cta = |t: &Thread| (t.placement.gpu, t.placement.cta);
        for (t, thread) in threads.iter().enumerate() {
            let lane = threads[..t]
                .iter()
                .filter(|u| cta(u) == cta(thread))
                .count();
            let lanes = threads.iter().filter(|u| cta(u) == cta(thread)).count();
            for stmt in &thread.body {
                let mask = match (&stmt.instr, &stmt.warp) {
                    (Instr::WarpSync { mask }, _) => *mask,
                    (_, Some(WarpPart::Start(op))) => op.mask(),
                    _ => continue,
                };
                if lanes > 32 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("a warp has 32 lanes, but this thread's CTA has {lanes} threads"),
                    ));
                }
                if mask & (1 << lane) == 0 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("P{t} is lane {lane} of its warp, which its member mask {mask:#x} leaves out"),
                    ));
                }
                if lanes < 32 && mask >> lanes != 0 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("member mask {mask:#x} names lane {}, past the {lanes} threads of this CTA", 31 - mask.leading_zeros()),
                    ));
                }
                // PTX ISA, *shfl.sync*: "results are undefined if a thread sources a register
                // from an inactive thread or a thread that is not in membermask".
                let source = match &stmt.warp {
                    Some(WarpPart::Start(op)) => op.source_lane(lane as u32),
                    _ => None,
                };
                if let Some(j) = source.filter(|&j| mask & (1 << j) == 0) {
                    return Err(self.error_at(
                        stmt.span,
                        format!("P{t} (lane {lane}) would read lane {j}, which its member mask {mask:#x} leaves out (undefined in PTX)"),
                    ));
                }
            }
        }
        Ok(())
    }
}
