//! CTA barriers (`bar.cta.sync`, `bar.cta.arrive`) with several instances per block.
//!
//! PTX ISA, *bar/barrier*: "Each CTA instance has sixteen barriers numbered 0..15"; "Operand b
//! specifies the number of threads participating in the barrier ... b must be a multiple of the
//! warp size"; and (sm_70 and later) "barrier{.cta} instruction causes executing thread to wait
//! for all non-exited threads from its warp and marks warps' arrival at barrier". A barrier thus
//! counts whole warps. The harness gives each litmus thread of a program with CTA barriers a warp
//! of its own (lane 0; the other lanes exit at once), each instance of the block its own hardware
//! barriers (`1 + jl * ids + k` for the instance's `k`-th litmus barrier; barrier 0 stays the
//! harness's `__syncthreads`), and passes `b = 32 × the litmus thread count`. So at most
//! `15 / ids` instances share a block.

use super::unsupported::{unsupported, Unsupported};
use scopecheck_model::litmus::{BarrierOp, Instr, Operand, Program, ThreadId, Value};

/// The litmus barriers of a program and how many instances a block may hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CtaBarriers {
    /// Each litmus barrier: its id operands (in first-use order).
    pub ids: Vec<Vec<Value>>,
    /// The most instances per block (log2) that leave every instance its own barriers.
    pub ipb_log2: u32,
}

impl CtaBarriers {
    /// Whether the program uses CTA barriers.
    pub fn any(&self) -> bool {
        !self.ids.is_empty()
    }
}

fn imm(o: &Operand) -> Option<Value> {
    match o {
        Operand::Imm(v) => Some(*v),
        Operand::Reg(_) => None,
    }
}

/// The CTA barriers of `p` (empty when it has none), or why the GPU cannot run them as written.
/// Played out per CTA like the hardware does: a `bar.cta.arrive` counts and goes on, a
/// `bar.cta.sync` counts and waits; a barrier completes once its thread count has arrived. A
/// program whose arrivals leave some thread waiting forever is refused (the GPU would hang: PTX
/// ISA, bar.sync: "the executing thread waits until all threads ... have arrived").
pub(super) fn cta_barriers(
    p: &Program,
    roles: &[Vec<ThreadId>],
) -> Result<CtaBarriers, Unsupported> {
    let mut ids: Vec<Vec<Value>> = Vec::new();
    let mut counts: Vec<Value> = Vec::new();
    // One list of litmus barriers for all CTAs (each block uses the hardware barriers of its
    // role's own).
    for role in roles {
        // Each thread's barrier operations in program order: (sync?, barrier index, count).
        let mut queues: Vec<Vec<(bool, usize, Value)>> = Vec::new();
        // A warp exchange's lowering (`s.warp`) has barriers and branches of its own; the
        // harness runs the exchange as one instruction, so only the thread's own count.
        let uses = role.iter().any(|&t| {
            p.threads[t]
                .body
                .iter()
                .any(|s| s.warp.is_none() && matches!(s.instr, Instr::Barrier { .. }))
        });
        if !uses {
            continue;
        }
        for &tid in role {
            let t = &p.threads[tid];
            if t.body
                .iter()
                .any(|s| s.warp.is_none() && matches!(s.instr, Instr::Branch { .. }))
            {
                return unsupported(format!(
                    "P{tid}: a branch in a CTA with barriers (the harness runs a CTA barrier \
                     only where it can show that every barrier completes, or the GPU would hang)"
                ));
            }
            let mut q = Vec::new();
            for s in t.body.iter().filter(|s| s.warp.is_none()) {
                if let Instr::Barrier { op, id, quorum } = &s.instr {
                    let at = format!("P{tid} at {}", s.span);
                    let Some(key) = id.iter().map(imm).collect::<Option<Vec<Value>>>() else {
                        return unsupported(format!(
                            "{at}: a barrier id in a register (the harness maps each litmus \
                             barrier to per-instance hardware barriers when it writes the kernel)"
                        ));
                    };
                    let count = match quorum {
                        None => role.len() as Value,
                        Some(o) => match imm(o) {
                            Some(v) if (1..=role.len() as Value).contains(&v) => v,
                            _ => {
                                return unsupported(format!(
                                    "{at}: a barrier count that is not a constant from 1 to the \
                                     CTA's {} threads",
                                    role.len()
                                ))
                            }
                        },
                    };
                    let k = match ids.iter().position(|i| *i == key) {
                        Some(k) => k,
                        None => {
                            ids.push(key);
                            counts.push(count);
                            ids.len() - 1
                        }
                    };
                    if counts[k] != count {
                        return unsupported(format!(
                            "{at}: one barrier with thread counts {} and {count} (PTX ISA, bar: \
                             \"all threads ... must use the same thread count\" for a barrier)",
                            counts[k]
                        ));
                    }
                    q.push((*op == BarrierOp::Sync, k, count));
                }
            }
            q.reverse();
            queues.push(q);
        }
        play_out(role, &mut queues)?;
    }
    if ids.len() > 15 {
        return unsupported(format!(
            "{} CTA barriers (PTX ISA, bar: \"Each CTA instance has sixteen barriers\", and the \
             harness keeps barrier 0)",
            ids.len()
        ));
    }
    let per_block = if ids.is_empty() { 1 } else { 15 / ids.len() };
    Ok(CtaBarriers {
        ipb_log2: per_block.ilog2(),
        ids,
    })
}

/// Run the barrier operations of one CTA's threads (`queues`, last first) to the end, or refuse.
fn play_out(
    role: &[ThreadId],
    queues: &mut [Vec<(bool, usize, Value)>],
) -> Result<(), Unsupported> {
    let n = queues.len();
    // Per thread: the barrier it waits at, if any. Per barrier: arrivals so far in its phase.
    let mut waiting: Vec<Option<usize>> = vec![None; n];
    let mut arrived: std::collections::BTreeMap<usize, (Value, Vec<usize>)> = Default::default();
    loop {
        let mut moved = false;
        for t in 0..n {
            if waiting[t].is_some() {
                continue;
            }
            let Some((sync, k, count)) = queues[t].pop() else {
                continue;
            };
            moved = true;
            let e = arrived.entry(k).or_insert((0, Vec::new()));
            e.0 += 1;
            if sync {
                e.1.push(t);
                waiting[t] = Some(k);
            }
            if e.0 == count {
                for w in std::mem::take(&mut e.1) {
                    waiting[w] = None;
                }
                e.0 = 0;
            }
        }
        if !moved {
            break;
        }
    }
    if let Some(t) = (0..n).find(|&t| waiting[t].is_some()) {
        return unsupported(format!(
            "P{}: waits at a CTA barrier that never completes (the GPU would hang: PTX ISA, \
             bar.sync: the executing thread waits until the barrier's thread count has arrived)",
            role[t]
        ));
    }
    if arrived.values().any(|(c, _)| *c != 0) {
        return unsupported(
            "a CTA barrier phase with arrivals that never completes (undefined on the GPU: the \
             hardware barrier would still count them when the block's next user starts)",
        );
    }
    Ok(())
}
