//! The cluster barrier among the threads of one cluster.

use super::choose::stmt;
use super::limits::Limits;
use crate::litmus::ir::*;
use crate::scope::{Order, Placement};
use arbitrary::{Result, Unstructured};

/// The statements kept free for the cluster barrier: an arrive and a wait in two threads.
pub(super) const CLUSTER_BARRIER_ROOM: usize = 4;

/// The threads of one cluster meet at its barrier (PTX ISA, *barrier.cluster*).
/// Each thread of the cluster, as room allows, takes one of: `barrier.cluster.arrive` (`.release`
/// or `.relaxed`) and a later `barrier.cluster.wait.acquire`; that pair and a second arrive
/// (and wait: two phases); an arrive without a wait; the arrive (and the wait) only on the
/// branch where a register it loaded holds 0 (else it skips past them and exits without
/// arriving); or nothing (it exits without arriving). The
/// wait waits "for all non-exited threads of the cluster to perform barrier.cluster.arrive", so
/// a thread that never arrives holds its peers only until it exits; and "each thread must
/// arrive at the barrier only once before the barrier completes", so a thread arrives again only
/// after a wait. Nothing before a thread's first arrive blocks (no CTA or warp barrier in the
/// cluster), so every phase completes and every thread terminates.
pub(super) fn cluster_barrier(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    limits: &Limits,
) -> Result<()> {
    // The cluster with the most threads (the first such).
    let size = |p: &Placement| {
        let same = |q: &Placement| q.gpu == p.gpu && q.cluster == p.cluster;
        threads.iter().filter(|t| same(&t.placement)).count()
    };
    let Some(chosen) = threads
        .iter()
        .map(|t| t.placement)
        .filter(|p| p.cluster.is_some())
        .max_by_key(|p| (size(p), std::cmp::Reverse((p.gpu, p.cluster))))
    else {
        return Ok(());
    };
    let members = |p: &Placement| p.gpu == chosen.gpu && p.cluster == chosen.cluster;
    // A thread of the cluster that meets a CTA or warp barrier (exchanges lower to some) could
    // wait there for one that waits at the cluster barrier for it: a hang, so none of those.
    let blocking = threads
        .iter()
        .filter(|t| members(&t.placement))
        .flat_map(|t| &t.body)
        .any(|s| {
            s.warp.is_some() || matches!(s.instr, Instr::Barrier { .. } | Instr::WarpSync { .. })
        });
    if blocking {
        return Ok(());
    }
    let mut events: usize = threads.iter().map(|t| t.body.len()).sum();
    for (t, thread) in threads.iter_mut().enumerate() {
        if !members(&thread.placement) {
            continue;
        }
        let room = (limits.max_instrs.saturating_sub(thread.body.len()))
            .min(limits.max_events.saturating_sub(events));
        let loaded: Vec<(usize, Reg)> = thread
            .body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.instr {
                Instr::Load { dst, .. } => Some((i, dst.clone())),
                _ => None,
            })
            .collect();
        let arrive = Instr::Async(AsyncOp::ClusterArrive {
            order: *u.choose(&[Order::Release, Order::Release, Order::Relaxed])?,
        });
        let wait = Instr::Async(AsyncOp::ClusterWait);
        let len = thread.body.len();
        let mut kind = u.int_in_range(0..=7u8)?;
        let fits = match kind {
            0..=2 => room >= 2,
            3 => room >= 3,
            4 => room >= 1,
            5 | 6 => room >= 3 && !loaded.is_empty(),
            _ => true,
        };
        // What does not fit becomes the pair, or an arrive alone, or nothing.
        if !fits {
            kind = match room {
                0 => 7,
                1 => 4,
                _ => 0,
            };
        }
        let added = match kind {
            // The pair, the arrive at a random place and the wait after it.
            0..=2 => {
                let a = u.int_in_range(0..=len)?;
                let w = u.int_in_range(a + 1..=len + 1)?;
                thread.body.insert(a, stmt(arrive));
                thread.body.insert(w, stmt(wait));
                2
            }
            // Two phases: the pair, then an arrive and a wait again after the first wait.
            3 => {
                let a = u.int_in_range(0..=len)?;
                let w = u.int_in_range(a + 1..=len + 1)?;
                thread.body.insert(a, stmt(arrive.clone()));
                thread.body.insert(w, stmt(wait.clone()));
                let again = u.int_in_range(w + 1..=len + 2)?;
                thread.body.insert(again, stmt(arrive));
                if room >= 4 {
                    let w2 = u.int_in_range(again + 1..=len + 3)?;
                    thread.body.insert(w2, stmt(wait));
                }
                room.min(4)
            }
            // An arrive that nothing waits for.
            4 => {
                let a = u.int_in_range(0..=len)?;
                thread.body.insert(a, stmt(arrive));
                1
            }
            // The pair on one branch: `bne r, 0` past it, after the load of `r`.
            5 | 6 => {
                let (i, r) = u.choose(&loaded)?.clone();
                let at = u.int_in_range(i + 1..=len)?;
                let label = format!("LCB{t}");
                let branch = Instr::Branch {
                    cond: Some((Cmp::Ne, Operand::Reg(r), Operand::Imm(0))),
                    target: label.clone(),
                };
                let mut block = vec![branch, arrive];
                if room >= 4 {
                    block.push(wait);
                }
                block.push(Instr::Label(label));
                let added = block.len();
                for (k, instr) in block.into_iter().enumerate() {
                    thread.body.insert(at + k, stmt(instr));
                }
                added
            }
            // No arrive: the thread exits without one.
            _ => 0,
        };
        events += added;
    }
    Ok(())
}
