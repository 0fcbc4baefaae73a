//! Small random litmus programs, for fuzzing the parser, the engines and the GPU.
//!
//! The generator reads its choices from an [`arbitrary::Unstructured`] byte stream, so
//! cargo-fuzz mutates programs through their bytes and a fixed seed always yields the same
//! program. Every program it builds is *valid*: it prints in the litmus dialect and parses back
//! to itself, every register it reads was written before, and every instruction is one the PTX
//! memory model gives a meaning to (no proxies other than generic, no backward branches, and a
//! barrier only where every thread of its CTA meets it, so every thread terminates).
//!
//! Shape (the defaults; [`Limits::differential`] and [`Limits::gpu`] narrow it for the engines):
//! 2–4 threads of 1–4 instructions over 1–3 locations; loads, stores, `atom` and `red` (every
//! operation: `add`, `sub`, `exch`, `cas`, `inc`, `dec`, `min`, `max`, `and`, `or`, `xor`) and fences
//! with random orders and scopes; threads in the same or different CTAs (sometimes pairs of CTAs
//! in one cluster, rarely another GPU); now and then a `bar.cta.sync` that every thread of one CTA
//! meets; now and then a location in one CTA's shared memory that the other CTAs of its cluster
//! reach through `.shared::cluster` (distributed shared memory), and an mbarrier there that
//! threads of its cluster arrive on (with or without transaction bytes), raise and lower the
//! tx-count of, and threads of its CTA try_wait on, with bulk copies of a global location into
//! that CTA's shared memory completing on it and `fence.proxy.async` (of every state space)
//! among the threads' statements (none of these for the GPU harness); now and then the cluster
//! barrier among the threads of one cluster, on a forward branch of some (see
//! [`Limits::cluster_barriers`]); and a condition over the final registers.

mod choose;
mod cluster_barrier;
mod instr;
mod limits;
mod shared;
mod threads;
mod warp_ops;

pub use self::limits::Limits;

use self::choose::one_in;
use self::cluster_barrier::{cluster_barrier, CLUSTER_BARRIER_ROOM};
use self::instr::{condition, instr};
use self::shared::{bulk_store, mbarrier, shared_memory};
use self::threads::{barrier, cp_async_groups, placement, read_only_nc};
use self::warp_ops::{warp_exchange, warp_sync};
use super::ir::*;
use super::warp;
use arbitrary::{Arbitrary, Result, Unstructured};
use rand::{RngCore, SeedableRng};
use std::fmt;

const LOCATION_NAMES: [&str; 4] = ["x", "y", "z", "w"];

/// A generated program. `Debug` prints it as litmus text, which is what cargo-fuzz shows for a
/// failing input.
#[derive(Clone, PartialEq, Eq)]
pub struct Generated(pub Program);

impl<'a> Arbitrary<'a> for Generated {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Generated> {
        program(u, &Limits::default()).map(Generated)
    }
}

impl fmt::Debug for Generated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", super::print(&self.0))
    }
}

/// How many random bytes [`from_seed`] feeds the generator: enough for the largest program.
const SEED_BYTES: usize = 512;

/// The program a 64-bit seed stands for (stable across runs and machines).
pub fn from_seed(seed: u64) -> Program {
    from_seed_with(seed, &Limits::default())
}

/// [`from_seed`] within other limits.
pub fn from_seed_with(seed: u64, limits: &Limits) -> Program {
    let mut bytes = [0u8; SEED_BYTES];
    rand::rngs::StdRng::seed_from_u64(seed).fill_bytes(&mut bytes);
    program(&mut Unstructured::new(&bytes), limits)
        .expect("the generator falls back to defaults when bytes run out")
}

/// Reads one program from `u`. Running out of bytes is not an error: every choice then takes its
/// smallest value, so any input, even an empty one, gives a valid program.
pub fn program(u: &mut Unstructured<'_>, limits: &Limits) -> Result<Program> {
    let n_locations = u.int_in_range(1..=limits.max_locations.clamp(1, LOCATION_NAMES.len()))?;
    let mut locations = Vec::new();
    for name in &LOCATION_NAMES[..n_locations] {
        // A non-zero initial value now and then tells "read the initial value" from "read 0".
        let init = if one_in(u, 8)? { 1 } else { 0 };
        locations.push(Location {
            name: name.to_string(),
            kind: LocationKind::Plain { init },
            span: Span::default(),
            shared: None,
        });
    }
    let n_threads = u.int_in_range(limits.min_threads.max(1)..=limits.max_threads.max(1))?;
    let mut threads = Vec::new();
    // Registers each thread writes, in order: the pool the condition draws from.
    let mut written: Vec<Vec<Reg>> = Vec::new();
    let mut arith_left = limits.max_arith_rmws;
    // Now and then the threads share clusters and meet at the cluster barrier, whose
    // statements get room kept for them.
    let cluster_sync = limits.clusters && limits.cluster_barriers && one_in(u, 6)?;
    let kept = if cluster_sync {
        CLUSTER_BARRIER_ROOM
    } else {
        0
    };
    let mut events_left = limits.max_events.saturating_sub(kept).max(n_threads);
    for t in 0..n_threads {
        let placement = placement(u, n_threads, limits)?;
        let mut regs = Vec::new();
        // Leave at least one instruction for each thread still to come.
        // With the cluster barrier, two of a thread's statements are kept for it.
        let own = match cluster_sync {
            true => limits.max_instrs.saturating_sub(2),
            false => limits.max_instrs,
        };
        let most = own.min(events_left - (n_threads - t - 1)).max(1);
        let n_instrs = u.int_in_range(1..=most)?;
        events_left -= n_instrs;
        let mut body = Vec::new();
        for _ in 0..n_instrs {
            body.push(Stmt {
                instr: instr(u, n_locations, &mut regs, &mut arith_left, limits)?,
                span: Span::default(),
                token: None,
                qualifiers: None,
                warp: None,
            });
        }
        threads.push(Thread {
            placement,
            body,
            span: Span::default(),
        });
        written.push(regs);
    }
    read_only_nc(&mut threads);
    if limits.cp_async {
        cp_async_groups(u, &mut threads, limits)?;
    }
    // Now and then pairs of CTAs share a cluster, so that `.cluster` differs from `.cta`/`.gpu`.
    if limits.clusters && (cluster_sync || one_in(u, 4)?) {
        for t in &mut threads {
            t.placement.cluster = Some(t.placement.cta / 2);
        }
    }
    if limits.barriers {
        barrier(u, &mut threads, limits)?;
    }
    if limits.warps {
        warp_sync(u, &mut threads, limits)?;
        warp_exchange(u, &mut threads, limits)?;
    }
    if cluster_sync {
        cluster_barrier(u, &mut threads, limits)?;
    }
    if limits.shared_memory {
        shared_memory(u, &threads, &mut locations)?;
    }
    if limits.bulk_copies {
        bulk_store(u, &mut threads, &mut locations, limits)?;
    }
    if limits.mbarriers {
        mbarrier(u, &mut threads, &mut locations, &mut written, limits)?;
    }
    // Last: the slots of the exchanges follow every location of the test, as parsing puts them.
    warp::lower(&mut threads, &mut locations);
    let condition = condition(u, &written, n_locations)?;
    Ok(Program {
        name: "generated".to_string(),
        comments: Vec::new(),
        locations,
        reg_init: Vec::new(),
        threads,
        observed: Vec::new(),
        filter: None,
        front: None,
        groups: None,
        relations: Default::default(),
        condition,
    })
}
