//! A spin on an mbarrier wait is one blocking wait (issues 30 and 31; the await reduction of
//! Jonsson, Lång and Sagonas, "Awaiting for Godot" (Optimal-DPOR-Await), and of GenMC's
//! Awamoche): `L: mbarrier.try_wait p, [bar], parity; ...; @!p bra L` costs the search one
//! execution per phase the loop can see completed, not one per failed round.
//!
//! A *round* runs from a loop head (the target of a backward branch across an mbarrier wait,
//! [`crate::ptx::program::Func::loop_heads`]) to the backward branch back to it. At a `try_wait`
//! or `test_wait` that is the round's first operation on the machine, the interpreter checks,
//! on a copy of the thread's private state and running only instructions that touch nothing
//! but registers ([`private`]), what a failed test would lead to:
//! 1. the rest of the round, with the predicate false, ends at the backward branch to the head
//!    in a state `S1` (no other operation on the machine, no other backward branch, no call,
//!    return or exit);
//! 2. either `S1` is the state `S0` the round began in, or it differs from it only in registers
//!    of the running frame, and a second failed round from `S1` ends in `S1` again (so any
//!    number of failed rounds leaves `S1`);
//! 3. in the second case, a successful round from `S1` (the same instructions, the predicate
//!    true at the wait) writes every register in which `S1` differs from `S0` before it reads
//!    it, with no other operation on the machine, no backward branch and no call in between.
//!
//! Then every execution in which the loop fails `k >= 1` rounds and then succeeds is, for every
//! other thread and for this thread from the moment those registers are written, the execution
//! in which it succeeded at once, later: a failed round changed nothing another thread reads
//! (PTX ISA, *mbarrier.test_wait/try_wait*: they "test for the completion of the current or the
//! immediately preceding phase", change nothing of the barrier, and a failed test acquires
//! nothing), and from `S1` the successful round computes what it computes from `S0` (the only
//! registers that differ are written before they are read). An execution in which every round
//! fails is a hang, and so is the blocking wait's that never returns. So a search that prunes
//! spins runs the wait as one blocking wait ([`crate::runtime::Ctx::mbar_await`]): the thread
//! is not offered to the scheduler until the awaited phase completed, and the wait then
//! succeeds. A loop that reads memory, counts its rounds, or does anything else in a round
//! fails the check and keeps its rounds (issue 29: every round whose reads could differ).

use super::Thread;
use crate::ptx::decode::{AsyncOp, Dst, Op};
use crate::ptx::program::Func;

/// Instructions the check runs at most per round before it gives up.
const ROUND_LIMIT: usize = 10_000;

/// The registers (of the running frame) in which a failed round's state differs from the
/// state the round began in and that the successful round has not written yet, and whether it
/// read one of them first.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    regs: Vec<u32>,
    read: bool,
}

/// Whether executing `op` only computes registers from registers and constants: nothing on
/// the machine, no failure, no change of the program counter but the next instruction.
fn private(op: &Op) -> bool {
    matches!(
        op,
        Op::Alu { .. }
            | Op::Setp { .. }
            | Op::Selp { .. }
            | Op::Slct { .. }
            | Op::Mov { .. }
            | Op::Cvt { .. }
            | Op::Isspacep { .. }
            | Op::Nop
    )
}

/// How far a simulated round runs.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Until {
    /// To the backward branch to the loop head.
    Head,
    /// Until every tracked register was written (the successful round).
    Written,
}

impl Thread<'_> {
    /// The thread is at instruction `pc` of its running function: at a loop head a round
    /// starts.
    pub(super) fn round_head(&mut self, pc: usize) {
        let func: &Func = self.func();
        if func.loop_heads.get(pc).copied().unwrap_or(false) {
            self.head = Some((pc, self.st.clone()));
            self.round_ops = 0;
        }
    }

    /// The thread is about to run `op`: an operation on the machine counts in the round.
    pub(super) fn round_op(&mut self, op: &Op) {
        if !matches!(op, Op::Bra(_)) && !private(op) {
            self.round_ops += 1;
        }
    }

    /// The value of register `r` of the running frame (a read the check notes).
    pub(super) fn read_reg(&self, r: u32) -> u64 {
        if let Some(t) = self.tracked.borrow_mut().as_mut() {
            if t.regs.contains(&r) {
                t.read = true;
            }
        }
        self.frame().regs[r as usize]
    }

    /// Register `r` of the running frame was written (the check notes it).
    pub(super) fn wrote_reg(&mut self, r: u32) {
        if let Some(t) = self.tracked.get_mut() {
            t.regs.retain(|&q| q != r);
        }
    }

    /// At the wait at instruction `at`, whose predicate is `p` (the thread's program counter
    /// is past it): is the loop around it one blocking wait (module documentation)? The
    /// thread's state is left as it was.
    pub(super) fn awaits(&mut self, at: usize, p: &Dst) -> bool {
        let (&Dst::Reg(p), Some((head, start))) = (p, self.head.clone()) else {
            return false;
        };
        if self.round_ops != 1 || head > at {
            return false;
        }
        let now = self.st.clone();
        let proved = self.prove_await(head, &start, at, p);
        self.st = now;
        *self.tracked.get_mut() = None;
        proved
    }

    fn prove_await(&mut self, head: usize, start: &super::Private, at: usize, p: u32) -> bool {
        // 1. The rest of a failed round.
        self.frame_mut().regs[p as usize] = 0;
        if !self.simulate(head, at, p, false, Until::Head) {
            return false;
        }
        let failed = self.st.clone();
        if failed == *start {
            return true;
        }
        // 2. Only registers of the running frame differ, and a second failed round repeats it.
        let Some(regs) = changed_registers(start, &failed) else {
            return false;
        };
        if !self.simulate(head, at, p, false, Until::Head) || self.st != failed {
            return false;
        }
        // 3. The successful round writes them before it reads them.
        self.st = failed;
        *self.tracked.get_mut() = Some(Tracked { regs, read: false });
        self.simulate(head, at, p, true, Until::Written)
    }

    /// Run the round on from the thread's state, with the wait at `at` writing `result` to
    /// `p`, until `until`; `false` when it does anything else first (module documentation).
    fn simulate(&mut self, head: usize, at: usize, p: u32, result: bool, until: Until) -> bool {
        for _ in 0..ROUND_LIMIT {
            if until == Until::Written {
                match self.tracked.get_mut() {
                    Some(t) if t.read => return false,
                    Some(t) if t.regs.is_empty() => return true,
                    _ => {}
                }
            }
            let pc = self.frame().pc;
            let Some(step) = self.func().code.get(pc) else {
                return false;
            };
            let (op, guard, site) = (step.op.clone(), step.guard, step.site);
            self.frame_mut().pc += 1;
            if let Some((g, negated)) = guard {
                if (self.read_reg(g) & 1 == 1) == negated {
                    continue;
                }
            }
            match op {
                Op::Bra(target) if target > pc => self.frame_mut().pc = target,
                Op::Bra(target) if target == head && until == Until::Head => {
                    self.frame_mut().pc = target;
                    return true;
                }
                Op::Async(AsyncOp::MbarWait { .. }) if pc == at => {
                    self.frame_mut().regs[p as usize] = result as u64;
                    self.wrote_reg(p);
                }
                op if private(&op) => {
                    self.exec(&op, site);
                }
                _ => return false,
            }
        }
        false
    }
}

/// The registers of the running frame in which `b` differs from `a`, when nothing else does.
fn changed_registers(a: &super::Private, b: &super::Private) -> Option<Vec<u32>> {
    let depth = a.frames.len();
    if depth == 0 || depth != b.frames.len() || a.local != b.local {
        return None;
    }
    if a.frames[..depth - 1] != b.frames[..depth - 1] {
        return None;
    }
    let (x, y) = (&a.frames[depth - 1], &b.frames[depth - 1]);
    let same_frame = x.func == y.func
        && x.pc == y.pc
        && x.params == y.params
        && x.local_base == y.local_base
        && x.rets == y.rets
        && x.regs.len() == y.regs.len();
    same_frame.then(|| {
        (0..x.regs.len() as u32)
            .filter(|&r| x.regs[r as usize] != y.regs[r as usize])
            .collect()
    })
}
