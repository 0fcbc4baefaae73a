//! A location in one CTA's shared memory that its cluster reaches through `.shared::cluster`,
//! the mbarrier there, and bulk copies completing on it.

use super::choose::{fresh_reg, one_in, stmt};
use super::limits::Limits;
use crate::litmus::async_ops;
use crate::litmus::ir::*;
use crate::scope::{Order, Scope};
use arbitrary::{Result, Unstructured};

/// Now and then a location that only the threads of one cluster access (and no `ld.global.nc`,
/// which reads global memory, and no `cp.async`) moves into the shared memory of one of their CTAs; the threads of
/// the other CTAs then access it through `.shared::cluster` (PTX ISA, *State spaces*: a CTA's
/// shared memory "is also accessible to other CTAs in the cluster").
pub(super) fn shared_memory(
    u: &mut Unstructured<'_>,
    threads: &[Thread],
    locations: &mut [Location],
) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let l = u.choose_index(locations.len())?;
    let owner = threads[u.choose_index(threads.len())?].placement;
    let fits = threads.iter().all(|t| {
        t.body.iter().all(|s| {
            let texture =
                matches!(&s.instr, Instr::Load { access, .. } if access.proxy == Proxy::Texture);
            // The litmus `cp.async` form copies global to shared memory with no state-space
            // qualifiers of its own: its locations stay where the form says they are.
            let copied = matches!(&s.instr, Instr::CpAsync { dst, src } if *dst == l || *src == l);
            !copied
                && (s.instr.location() != Some(l)
                    || (!texture && Scope::Cluster.includes(&t.placement, &owner)))
        })
    });
    if fits {
        locations[l].shared = Some(async_ops::SharedOf {
            cta: owner.cta,
            gpu: owner.gpu,
        });
    }
    Ok(())
}

/// Now and then an mbarrier `b` (count 1 or 2) in the shared memory of one thread's CTA (the CTA
/// of a shared location, if there is one): each thread of its cluster with room may arrive on it
/// (`.release` or `.relaxed`, `.cta` or `.cluster`, now and then `.expect_tx` of 16 bytes; a peer
/// CTA's thread through `.shared::cluster`), raise or lower its tx-count by 16 bytes
/// (`expect_tx`, `complete_tx`), issue a 16-byte bulk copy of a global location into the CTA's
/// shared memory that completes on it (into the shared location, or a new one, `d`), or a
/// `fence.proxy.async` of some state space; and each thread of its CTA may try_wait on a phase
/// parity, into a fresh register the condition may read.
pub(super) fn mbarrier(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    locations: &mut Vec<Location>,
    written: &mut [Vec<Reg>],
    limits: &Limits,
) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    // The CTA of a shared location, so that copies land where threads read.
    let shared = locations.iter().position(|l| l.shared.is_some());
    let owner = match shared.and_then(|l| locations[l].shared) {
        Some(of) => *threads
            .iter()
            .map(|t| &t.placement)
            .find(|p| of.is_own(p))
            .expect("a shared location's CTA runs a thread"),
        None => threads[u.choose_index(threads.len())?].placement,
    };
    let of_owner = async_ops::SharedOf {
        cta: owner.cta,
        gpu: owner.gpu,
    };
    let bar = locations.len();
    let count = u.int_in_range(1..=2)?;
    // Now and then a thread of its CTA initialises it (`mbarrier.init` first in its body), and
    // publishes the init to the cluster with `fence.mbarrier_init.release.cluster`.
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    let initialiser = match one_in(u, 3)? && events < limits.max_events {
        true => threads
            .iter()
            .position(|t| of_owner.is_own(&t.placement) && t.body.len() < limits.max_instrs),
        false => None,
    };
    locations.push(Location {
        name: "b".to_string(),
        kind: LocationKind::Plain {
            init: match initialiser {
                Some(_) => 0,
                None => async_ops::MbarrierState::init(count),
            },
        },
        span: Span::default(),
        shared: Some(of_owner),
    });
    if let Some(t) = initialiser {
        let mut init = vec![stmt(Instr::Async(AsyncOp::MbarrierInit {
            bar,
            count: Operand::Imm(count),
        }))];
        let room = threads[t].body.len() + 1 < limits.max_instrs && events + 1 < limits.max_events;
        if room && !one_in(u, 3)? {
            init.push(stmt(Instr::Async(AsyncOp::FenceMbarrierInit)));
        }
        threads[t].body.splice(0..0, init);
    }
    // A bulk copy's source: a global location; its destination: the shared location, or `d`.
    let source = (0..bar).find(|&l| locations[l].shared.is_none());
    let mut destination = shared;
    let mut copied = false;
    let mut events: usize = threads.iter().map(|t| t.body.len()).sum();
    for (t, thread) in threads.iter_mut().enumerate() {
        let p = thread.placement;
        let own = p.cta == owner.cta && p.gpu == owner.gpu;
        if !Scope::Cluster.includes(&p, &owner) {
            continue;
        }
        if events >= limits.max_events {
            break;
        }
        if thread.body.len() >= limits.max_instrs {
            continue;
        }
        let window = match own {
            true => async_ops::SharedWindow::Cta,
            false => async_ops::SharedWindow::Cluster,
        };
        let scope = *u.choose(&[Scope::Cta, Scope::Cluster])?;
        // Transactions of one size, so that an expect-tx and a complete-tx may balance.
        let bytes = Operand::Imm(16);
        // With bulk copies, the first thread issues one every other time (a copy is what the
        // proxy fences and the barrier's tx-count are about).
        let last = if limits.bulk_copies { 8 } else { 5 };
        let first_copy = limits.bulk_copies && !copied && source.is_some() && one_in(u, 2)?;
        let choice = match first_copy {
            true => 6,
            false => u.int_in_range(0..=last)?,
        };
        let instr = match choice {
            0..=2 if own => Instr::Async(AsyncOp::MbarrierTryWait {
                dst: fresh_reg(&mut written[t]),
                bar,
                order: *u.choose(&[Order::Acquire, Order::Relaxed])?,
                scope,
                parity: Operand::Imm(u.int_in_range(0..=1)?),
            }),
            4 => Instr::Async(AsyncOp::MbarrierExpectTx {
                bar,
                scope,
                window,
                bytes,
            }),
            5 => Instr::Async(AsyncOp::MbarrierCompleteTx {
                bar,
                scope,
                window,
                bytes,
            }),
            6 | 7 if source.is_some() => {
                copied = true;
                let dst = *destination.get_or_insert_with(|| {
                    locations.push(Location {
                        name: "d".to_string(),
                        kind: LocationKind::Plain { init: 0 },
                        span: Span::default(),
                        shared: Some(of_owner),
                    });
                    locations.len() - 1
                });
                Instr::Async(AsyncOp::BulkCopy {
                    dst,
                    src: source.expect("checked"),
                    size: 16,
                    completion: async_ops::BulkCompletion::Mbarrier(bar),
                })
            }
            8 => Instr::Fence(Fence::Proxy(*u.choose(&[
                ProxyFence::Async,
                ProxyFence::AsyncGlobal,
                ProxyFence::AsyncSharedCta,
                ProxyFence::AsyncSharedCluster,
            ])?)),
            _ => Instr::Async(AsyncOp::MbarrierArrive {
                bar,
                order: *u.choose(&[Order::Release, Order::Relaxed])?,
                scope,
                window,
                arrival: if one_in(u, 4)? {
                    async_ops::Arrival::ExpectTx(bytes)
                } else {
                    async_ops::Arrival::Count(Operand::Imm(1))
                },
            }),
        };
        // A try_wait's register is new, so it may go anywhere; it is read only by the condition.
        let at = u.int_in_range(0..=thread.body.len())?;
        thread.body.insert(at, stmt(instr));
        events += 1;
    }
    Ok(())
}

/// Now and then a TMA store in one thread: `cp.async.bulk.global.shared::cta.bulk_group g, s, 16`
/// from a location `s` of its CTA's shared memory (a shared location of that CTA, else a new
/// one, `s`, which the thread may first write through the generic proxy) to a global location
/// `g`; before it, now and then, `fence.proxy.async.shared::cta`; after it, now and then,
/// `cp.async.bulk.commit_group`, then `cp.async.bulk.wait_group{.read} n` (n = 0 or 1), and
/// sometimes a generic write of `s` (the staging buffer reused).
pub(super) fn bulk_store(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    locations: &mut Vec<Location>,
    limits: &Limits,
) -> Result<()> {
    // Within the limits: statements in all (`max_events`) and per thread (`max_instrs`).
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    let roomy: Vec<usize> = (0..threads.len())
        .filter(|&t| threads[t].body.len() < limits.max_instrs)
        .collect();
    if events >= limits.max_events || roomy.is_empty() || !one_in(u, 4)? {
        return Ok(());
    }
    let t = *u.choose(&roomy)?;
    let p = threads[t].placement;
    // Not one an `ld.global.nc` reads (the non-coherent path is for data no one writes), nor a
    // `cp.async` destination (which PTX puts in shared memory, where a TMA store never writes).
    let excluded = |l: usize| {
        threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| match &s.instr {
                Instr::Load { access, loc, .. } => *loc == l && access.proxy == Proxy::Texture,
                Instr::CpAsync { dst, .. } => *dst == l,
                _ => false,
            })
    };
    let global: Vec<usize> = (0..locations.len())
        .filter(|&l| locations[l].shared.is_none() && !excluded(l))
        .collect();
    if global.is_empty() {
        return Ok(());
    }
    let dst = *u.choose(&global)?;
    let own = locations
        .iter()
        .position(|l| l.shared.is_some_and(|of| of.is_own(&p)));
    let (src, fresh) = match own {
        Some(l) => (l, false),
        None => {
            locations.push(Location {
                name: "s".to_string(),
                kind: LocationKind::Plain { init: 0 },
                span: Span::default(),
                shared: Some(async_ops::SharedOf {
                    cta: p.cta,
                    gpu: p.gpu,
                }),
            });
            (locations.len() - 1, true)
        }
    };
    let generic_write = |v: Value| {
        stmt(Instr::Store {
            access: Access {
                proxy: Proxy::Generic,
                order: Order::Weak,
                scope: None,
            },
            loc: src,
            value: Operand::Imm(v),
        })
    };
    // The copy is two events; the rest as room allows (the runtime explores each with the
    // copy's agent).
    let mut room =
        (limits.max_events - events - 1).min(limits.max_instrs - threads[t].body.len() - 1);
    let mut take = |wanted: bool| {
        let yes = wanted && room > 0;
        room -= usize::from(yes);
        yes
    };
    let commit = take(!one_in(u, 3)?);
    let waits = take(commit && !one_in(u, 3)?);
    let (wait, read) = (u.int_in_range(0..=1)?, one_in(u, 3)?);
    let fence = take(one_in(u, 2)?);
    let before = take(fresh && one_in(u, 2)?);
    let after = take(one_in(u, 4)?);
    let mut added = Vec::new();
    if before {
        added.push(generic_write(2));
    }
    if fence {
        added.push(stmt(Instr::Fence(Fence::Proxy(ProxyFence::AsyncSharedCta))));
    }
    added.push(stmt(Instr::Async(AsyncOp::BulkCopy {
        dst,
        src,
        size: 16,
        completion: async_ops::BulkCompletion::BulkGroup,
    })));
    if commit {
        added.push(stmt(Instr::Async(AsyncOp::BulkCommitGroup)));
    }
    if waits {
        added.push(stmt(Instr::Async(AsyncOp::BulkWaitGroup {
            pending: wait,
            read,
        })));
    }
    if after {
        added.push(generic_write(3));
    }
    let body = &mut threads[t].body;
    let at = u.int_in_range(0..=body.len())?;
    body.splice(at..at, added);
    Ok(())
}
