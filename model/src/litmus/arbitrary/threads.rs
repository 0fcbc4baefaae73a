//! Where threads run (CTA, cluster, GPU) and the passes over whole threads: the CTA barrier,
//! `cp.async` groups and read-only `ld.global.nc` loads.

use super::choose::{cta_of, insert_in_each, one_in, stmt};
use super::limits::Limits;
use crate::litmus::ir::*;
use crate::scope::Placement;
use arbitrary::{Result, Unstructured};

/// Same or different CTA of GPU 0; one thread in eight runs on GPU 1, where only `.sys`
/// reaches it.
pub(super) fn placement(
    u: &mut Unstructured<'_>,
    n_threads: usize,
    limits: &Limits,
) -> Result<Placement> {
    let cta = u.int_in_range(0..=n_threads as u32 - 1)?;
    let gpu = if limits.multi_gpu && one_in(u, 8)? {
        1
    } else {
        0
    };
    Ok(Placement::new(cta, gpu))
}

/// Now and then every thread of one CTA meets at `bar.cta.sync 0`, each at a random point of its
/// body, when all of them have room for one more instruction.
pub(super) fn barrier(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    limits: &Limits,
) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let members = cta_of(threads, u.choose_index(threads.len())?);
    if members.len() < 2 {
        return Ok(());
    }
    let barrier = Instr::Barrier {
        op: BarrierOp::Sync,
        id: vec![Operand::Imm(0)],
        quorum: None,
    };
    insert_in_each(u, threads, &members, barrier, limits)
}

/// The group instructions around a thread's `cp.async` copies: now and then a
/// `cp.async.commit_group` after a copy, and a `cp.async.wait_group n` (n = 0 or 1) or a
/// `cp.async.wait_all` somewhere after the last copy, or no wait at all.
/// A thread never grows past `max_instrs` statements, nor the program past `max_events`.
pub(super) fn cp_async_groups(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    limits: &Limits,
) -> Result<()> {
    let max_instrs = limits.max_instrs;
    let mut room = limits
        .max_events
        .saturating_sub(threads.iter().map(|t| t.body.len()).sum());
    let stmt = |instr| stmt(instr);
    for t in threads {
        let copies: Vec<usize> = (0..t.body.len())
            .filter(|&i| matches!(t.body[i].instr, Instr::CpAsync { .. }))
            .collect();
        let Some(&last) = copies.last() else {
            continue;
        };
        let mut end_of_copies = last + 1;
        for &i in copies.iter().rev() {
            if t.body.len() < max_instrs && room > 0 && one_in(u, 2)? {
                room -= 1;
                t.body.insert(i + 1, stmt(Instr::CpAsyncCommit));
                if i == last {
                    end_of_copies += 1;
                }
            }
        }
        let wait = match u.int_in_range(0..=3u8)? {
            _ if t.body.len() >= max_instrs || room == 0 => continue,
            0 => continue,
            1 => Instr::CpAsyncWait { n: 0, all: true },
            _ => Instr::CpAsyncWait {
                n: u.int_in_range(0..=1)?,
                all: false,
            },
        };
        let at = u.int_in_range(end_of_copies..=t.body.len())?;
        t.body.insert(at, stmt(wait));
        room -= 1;
    }
    Ok(())
}

/// `ld.global.nc` is for data "read-only for the lifetime of the kernel" (CUDA Programming
/// Guide, *Global Memory*); the runtime reports every other use as a bug and reaches no final
/// state, so an `ld.global.nc` of a location some instruction writes becomes a weak `ld`.
pub(super) fn read_only_nc(threads: &mut [Thread]) {
    let written: Vec<LocId> = threads
        .iter()
        .flat_map(|t| &t.body)
        .filter(|s| !matches!(s.instr, Instr::Load { .. }))
        .filter_map(|s| s.instr.location())
        .collect();
    for s in threads.iter_mut().flat_map(|t| &mut t.body) {
        if let Instr::Load { access, loc, .. } = &mut s.instr {
            if access.proxy == Proxy::Texture && written.contains(loc) {
                access.proxy = Proxy::Generic;
            }
        }
    }
}
