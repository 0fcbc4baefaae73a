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

use super::ir::*;
use super::warp::{self, ReduxOp, ReduxType, ShflMode, VoteMode, WarpOp};
use crate::scope::{Order, Placement, Scope};
use arbitrary::{Arbitrary, Result, Unstructured};
use rand::{RngCore, SeedableRng};
use std::fmt;

/// Bounds on the generated programs' size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The fewest threads a program gets.
    pub min_threads: usize,
    /// The most threads a program gets.
    pub max_threads: usize,
    /// Instructions per thread (at least one each).
    pub max_instrs: usize,
    /// The most memory locations a program declares.
    pub max_locations: usize,
    /// Instructions in the whole program: exhaustive engines pay exponentially for each one.
    pub max_events: usize,
    /// `add`/`sub` read-modify-writes in the whole program. Each one makes new values out of
    /// old ones, and engines that guess the values loads return pay for every value reachable.
    pub max_arith_rmws: usize,
    /// Whether an `add`/`sub` may take its operand from a register (a value loaded earlier), which
    /// lets values multiply fastest.
    pub arith_register_operands: bool,
    /// Threads may run on a second GPU (reached only by `.sys`).
    pub multi_gpu: bool,
    /// Pairs of CTAs may share a cluster.
    pub clusters: bool,
    /// The threads of one CTA may meet at a `bar.cta.sync`.
    pub barriers: bool,
    /// Loads may be `ld.global.nc` (through the non-coherent texture path) of locations no
    /// instruction writes.
    pub noncoherent: bool,
    /// Lanes of one CTA's warp may meet at a `bar.warp.sync` over a member mask, and two lanes
    /// may exchange a value by `shfl.sync` or `vote.sync`.
    pub warps: bool,
    /// Threads may copy one location into another with `cp.async`, committing groups and
    /// waiting for them (`cp.async.commit_group`, `cp.async.wait_group n`,
    /// `cp.async.wait_all`).
    pub cp_async: bool,
    /// An mbarrier in one CTA's shared memory that threads of its cluster arrive on (remotely
    /// through `.shared::cluster`), expect and complete transaction bytes on, and threads of its
    /// CTA try_wait on.
    pub mbarriers: bool,
    /// A location only the threads of one cluster access may lie in the shared memory of one of
    /// its CTAs (the others reach it through `.shared::cluster`).
    pub shared_memory: bool,
    /// With an mbarrier: bulk copies (`cp.async.bulk...mbarrier::complete_tx::bytes`) of a
    /// global location into the barrier CTA's shared memory, and `fence.proxy.async{,.global,
    /// .shared::cta,.shared::cluster}`.
    pub bulk_copies: bool,
    /// With clusters: the threads of one cluster meet at the cluster barrier
    /// (`barrier.cluster.arrive{.release,.relaxed}` / `barrier.cluster.wait.acquire`), some
    /// arriving without waiting, some only on one branch, some not at all.
    pub cluster_barriers: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            min_threads: 2,
            max_threads: 4,
            max_instrs: 4,
            max_locations: 3,
            max_events: 16,
            max_arith_rmws: 2,
            arith_register_operands: true,
            multi_gpu: true,
            clusters: true,
            barriers: true,
            noncoherent: true,
            warps: true,
            cp_async: true,
            mbarriers: true,
            shared_memory: true,
            bulk_copies: true,
            cluster_barriers: true,
        }
    }
}

impl Limits {
    /// Programs both engines answer in milliseconds, for the engine differential: at most six
    /// instructions and one `add`/`sub`, with a constant operand. Arithmetic multiplies the
    /// distinct values the axiomatic engine computes along reads-from and the executions the
    /// runtime explores; `scopecheck fuzz --arith N --arith-registers --max-events N` widens this.
    pub fn differential() -> Limits {
        Limits {
            max_events: 6,
            max_arith_rmws: 1,
            arith_register_operands: false,
            ..Limits::default()
        }
    }

    /// The differential's programs, within what the GPU harness runs: one GPU, no clusters, no
    /// barriers (many test instances share a block). Warp-level instructions stay (the harness
    /// runs them on adjacent lanes of one warp), with room for the two lanes of a `vote.sync` or
    /// `match.sync` beside one instruction each: only the axiomatic engine judges these programs,
    /// and ten instructions keep it at milliseconds.
    pub fn gpu() -> Limits {
        Limits {
            max_events: 10,
            multi_gpu: false,
            clusters: false,
            barriers: false,
            noncoherent: false,
            // The harness has no shared-memory destination for a `cp.async`.
            cp_async: false,
            mbarriers: false,
            shared_memory: false,
            bulk_copies: false,
            cluster_barriers: false,
            ..Limits::differential()
        }
    }
}

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
                vulkan: None,
                opencl: None,
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
        vulkan: None,
        opencl: None,
        condition,
    })
}

/// The group instructions around a thread's `cp.async` copies: now and then a
/// `cp.async.commit_group` after a copy, and a `cp.async.wait_group n` (n = 0 or 1) or a
/// `cp.async.wait_all` somewhere after the last copy, or no wait at all.
/// A thread never grows past `max_instrs` statements, nor the program past `max_events`.
fn cp_async_groups(
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
fn read_only_nc(threads: &mut [Thread]) {
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

/// Same or different CTA of GPU 0; one thread in eight runs on GPU 1, where only `.sys`
/// reaches it.
fn placement(u: &mut Unstructured<'_>, n_threads: usize, limits: &Limits) -> Result<Placement> {
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
fn barrier(u: &mut Unstructured<'_>, threads: &mut [Thread], limits: &Limits) -> Result<()> {
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

/// The threads in the CTA of thread `t`, in program order (its warp's lanes).
fn cta_of(threads: &[Thread], t: usize) -> Vec<usize> {
    let cta = threads[t].placement;
    (0..threads.len())
        .filter(|&i| {
            let p = threads[i].placement;
            p.gpu == cta.gpu && p.cta == cta.cta
        })
        .collect()
}

/// `instr` once in each of `members`, at random places, if every one has room for it.
fn insert_in_each(
    u: &mut Unstructured<'_>,
    threads: &mut [Thread],
    members: &[usize],
    instr: Instr,
    limits: &Limits,
) -> Result<()> {
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    let room = members
        .iter()
        .all(|&i| threads[i].body.len() < limits.max_instrs);
    if !room || events + members.len() > limits.max_events {
        return Ok(());
    }
    for &i in members {
        let at = u.int_in_range(0..=threads[i].body.len())?;
        threads[i].body.insert(at, stmt(instr.clone()));
    }
    Ok(())
}

/// Now and then a `bar.warp.sync` over some lanes of one CTA's warp (the CTA's threads in
/// program order, see [`Program::lane`]), which every lane in its mask executes once.
fn warp_sync(u: &mut Unstructured<'_>, threads: &mut [Thread], limits: &Limits) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let chosen = u.choose_index(threads.len())?;
    let mut members = Vec::new();
    let mut mask = 0u32;
    for (lane, i) in cta_of(threads, chosen).into_iter().enumerate() {
        if i == chosen || u.arbitrary::<bool>()? {
            members.push(i);
            mask |= 1 << lane;
        }
    }
    insert_in_each(u, threads, &members, Instr::WarpSync { mask }, limits)
}

/// Now and then a `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` or `elect.sync` between
/// two lanes of one CTA's warp, which both execute once, each at a random place: a shuffle whose
/// source lanes lie in the mask (`.idx` of one lane, `.bfly` across the two, `.down`/`.up` to the
/// other lane clamped there), a vote, a match, a reduction (any operation and type) or an
/// election; the value is a register loaded before (else a constant: distinct ones for
/// a shuffle or a vote, 1 for a match, so that constants match). Two lanes at most: a wider
/// vote multiplies the axiomatic engine's executions (its counters' reductions are ordered in
/// every way).
fn warp_exchange(u: &mut Unstructured<'_>, threads: &mut [Thread], limits: &Limits) -> Result<()> {
    if !one_in(u, 3)? {
        return Ok(());
    }
    let cta = cta_of(threads, u.choose_index(threads.len())?);
    if cta.len() < 2 {
        return Ok(());
    }
    let (a, b) = (u.choose_index(cta.len())?, u.choose_index(cta.len())?);
    let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
    if lo == hi {
        return Ok(());
    }
    let members = [cta[lo as usize], cta[hi as usize]];
    let mask = (1 << lo) | (1 << hi);
    // Kinds 10 to 15 are `redux.sync`, 16 `elect.sync`. The operation and an arithmetic
    // reduction's type also follow the lanes' program lengths, so that no further byte is drawn
    // (the bytes often run out by now) and every operation comes with each type.
    let kind = u.int_in_range(0..=16u8)?;
    let salt = members
        .iter()
        .map(|&i| threads[i].body.len())
        .sum::<usize>() as u32;
    let redux = ReduxOp::ALL[((kind.clamp(10, 15) - 10) as u32 + salt) as usize % 6];
    let redux_ty = match (redux.bitwise(), (kind as u32 + hi + salt / 6) % 2) {
        (true, _) => ReduxType::B32,
        (false, 0) => ReduxType::U32,
        (false, _) => ReduxType::S32,
    };
    // What a lane's exchange costs the exhaustive engines, in instructions: a shuffle is a store,
    // a load and two barriers; a vote adds one reduction per lane; a match loads the other
    // lane's slot, may add to its counter, and loads and clears the counter; a reduction stores
    // twice, loads the other lane's slot, folds it in and loads the result; an election is a
    // CAS, a load and an add.
    let cost = match kind {
        0..=3 => 2,
        4..=7 | 16 => 3,
        _ => 4,
    };
    let events: usize = threads.iter().map(|t| t.body.len()).sum();
    if events + 2 * cost > limits.max_events
        || members
            .iter()
            .any(|&i| threads[i].body.len() >= limits.max_instrs)
    {
        return Ok(());
    }
    // Where both lanes meet at a `bar.warp.sync` too, the exchange goes on the same side of it
    // in both: in opposite orders each lane would wait for the other at a different instruction
    // (PTX ISA, shfl.sync: the executing thread waits "until all non-exited threads
    // corresponding to membermask have executed shfl.sync with the same qualifiers and same
    // membermask value"), a hang the GPU harness refuses to run.
    let syncs: Vec<Option<usize>> = members
        .iter()
        .map(|&i| {
            threads[i]
                .body
                .iter()
                .position(|s| matches!(s.instr, Instr::WarpSync { .. }))
        })
        .collect();
    let both = syncs.iter().all(Option::is_some);
    let before_sync = both && u.arbitrary::<bool>()?;
    for (k, &i) in members.iter().enumerate() {
        let len = threads[i].body.len();
        let at = match syncs[k] {
            Some(sync) if both && before_sync => u.int_in_range(0..=sync)?,
            Some(sync) if both => u.int_in_range(sync + 1..=len)?,
            _ => u.int_in_range(0..=len)?,
        };
        let loaded: Vec<Reg> = threads[i].body[..at]
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Load { dst, .. } => Some(dst.clone()),
                _ => None,
            })
            .collect();
        let value = match loaded.is_empty() {
            true => Operand::Imm(k as Value + 1),
            false => Operand::Reg(u.choose(&loaded)?.clone()),
        };
        let dst = Reg(format!(
            "s{}",
            threads[i].body.iter().filter(|s| s.warp.is_some()).count()
        ));
        let shfl = |mode, b, c| WarpOp::Shfl {
            mode,
            dst: dst.clone(),
            src: value.clone(),
            b,
            c,
            mask,
        };
        let vote = |mode| WarpOp::Vote {
            mode,
            dst: dst.clone(),
            pred: value.clone(),
            mask,
        };
        let matching = |all| WarpOp::Match {
            all,
            dst: dst.clone(),
            src: match &value {
                Operand::Imm(_) => Operand::Imm(1),
                reg => reg.clone(),
            },
            mask,
        };
        let op = match kind {
            0 => shfl(ShflMode::Idx, lo, 0x1f),
            1 => shfl(ShflMode::Bfly, lo ^ hi, 0x1f),
            2 => shfl(ShflMode::Down, hi - lo, hi),
            3 => shfl(ShflMode::Up, hi - lo, lo),
            4 => vote(VoteMode::All),
            5 => vote(VoteMode::Any),
            6 => vote(VoteMode::Ballot),
            7 => vote(VoteMode::Uni),
            8 => matching(false),
            9 => matching(true),
            10..=15 => WarpOp::Redux {
                op: redux,
                ty: redux_ty,
                dst: dst.clone(),
                src: value.clone(),
                mask,
            },
            _ => WarpOp::Elect {
                dst: dst.clone(),
                mask,
            },
        };
        threads[i]
            .body
            .insert(at, warp::placeholder(op, Span::default()));
    }
    Ok(())
}

/// Now and then a location that only the threads of one cluster access (and no `ld.global.nc`,
/// which reads global memory, and no `cp.async`) moves into the shared memory of one of their CTAs; the threads of
/// the other CTAs then access it through `.shared::cluster` (PTX ISA, *State spaces*: a CTA's
/// shared memory "is also accessible to other CTAs in the cluster").
fn shared_memory(
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
        locations[l].shared = Some(super::async_ops::SharedOf {
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
fn mbarrier(
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
    let of_owner = super::async_ops::SharedOf {
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
                None => super::async_ops::MbarrierState::init(count),
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
            true => super::async_ops::SharedWindow::Cta,
            false => super::async_ops::SharedWindow::Cluster,
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
                    completion: super::async_ops::BulkCompletion::Mbarrier(bar),
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
                    super::async_ops::Arrival::ExpectTx(bytes)
                } else {
                    super::async_ops::Arrival::Count(Operand::Imm(1))
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

/// A statement of the generated kind (no token, dialect annotation or warp).
fn stmt(instr: Instr) -> Stmt {
    Stmt {
        instr,
        span: Span::default(),
        token: None,
        vulkan: None,
        opencl: None,
        warp: None,
    }
}

/// Now and then a TMA store in one thread: `cp.async.bulk.global.shared::cta.bulk_group g, s, 16`
/// from a location `s` of its CTA's shared memory (a shared location of that CTA, else a new
/// one, `s`, which the thread may first write through the generic proxy) to a global location
/// `g`; before it, now and then, `fence.proxy.async.shared::cta`; after it, now and then,
/// `cp.async.bulk.commit_group`, then `cp.async.bulk.wait_group{.read} n` (n = 0 or 1), and
/// sometimes a generic write of `s` (the staging buffer reused).
fn bulk_store(
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
                shared: Some(super::async_ops::SharedOf {
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
        completion: super::async_ops::BulkCompletion::BulkGroup,
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

/// The statements kept free for the cluster barrier: an arrive and a wait in two threads.
const CLUSTER_BARRIER_ROOM: usize = 4;

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
fn cluster_barrier(
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

/// True once in `n` draws; false when the bytes have run out, so that exhausted input leans to
/// the plain case (unlike `Unstructured::ratio`, which then answers true).
fn one_in(u: &mut Unstructured<'_>, n: u8) -> Result<bool> {
    Ok(u.int_in_range(1..=n)? == n)
}

fn scope(u: &mut Unstructured<'_>) -> Result<Scope> {
    u.choose(&Scope::ALL).copied()
}

/// A strong order from `orders` with a scope, or a weak access (no scope) when `Weak` is drawn.
fn access(u: &mut Unstructured<'_>, orders: &[Order]) -> Result<Access> {
    let order = *u.choose(orders)?;
    let scope = if order == Order::Weak {
        None
    } else {
        Some(scope(u)?)
    };
    Ok(Access {
        proxy: Proxy::Generic,
        order,
        scope,
    })
}

fn fresh_reg(regs: &mut Vec<Reg>) -> Reg {
    let r = Reg(format!("r{}", regs.len()));
    regs.push(r.clone());
    r
}

/// A small constant, or now and then a register written earlier (a data dependency).
fn value(u: &mut Unstructured<'_>, regs: &[Reg], lo: Value, hi: Value) -> Result<Operand> {
    if !regs.is_empty() && one_in(u, 4)? {
        return Ok(Operand::Reg(u.choose(regs)?.clone()));
    }
    Ok(Operand::Imm(u.int_in_range(lo..=hi)?))
}

fn instr(
    u: &mut Unstructured<'_>,
    n_locations: usize,
    regs: &mut Vec<Reg>,
    arith_left: &mut usize,
    limits: &Limits,
) -> Result<Instr> {
    use Order::*;
    let arith_regs: &[Reg] = if limits.arith_register_operands {
        regs
    } else {
        &[]
    };
    let loc = u.choose_index(n_locations)?;
    let kind = u.int_in_range(0..=9u8)?;
    // `add`/`sub` make new values out of old ones without bound; the other operations stay
    // within the values already there (`min`/`max`/`and`/`or`/`xor` of small values, `inc`/`dec`
    // between 0 and their bound), so only `add`/`sub` draw on the arithmetic budget.
    let unbounded = |op: &RmwOp| matches!(op, RmwOp::Add | RmwOp::Sub);
    let mut pick = |u: &mut Unstructured<'_>, red: bool| -> Result<RmwOp> {
        let ops: Vec<RmwOp> = RmwOp::ALL
            .into_iter()
            .filter(|op| (*arith_left > 0 || !unbounded(op)) && (!red || op.reduces()))
            .collect();
        let op = *u.choose(&ops)?;
        if unbounded(&op) {
            *arith_left -= 1;
        }
        Ok(op)
    };
    Ok(match kind {
        0..=2 if limits.noncoherent && one_in(u, 8)? => Instr::Load {
            // `ld.global.nc`: weak, through the texture path.
            access: Access {
                proxy: Proxy::Texture,
                order: Weak,
                scope: None,
            },
            dst: fresh_reg(regs),
            loc,
        },
        0..=2 => Instr::Load {
            access: access(u, &[Weak, Relaxed, Acquire])?,
            dst: fresh_reg(regs),
            loc,
        },
        3..=5 => Instr::Store {
            access: access(u, &[Weak, Relaxed, Release])?,
            loc,
            value: value(u, regs, 1, 3)?,
        },
        6 => {
            let access = access(u, &[Relaxed, Acquire, Release, AcqRel])?;
            let op = pick(u, false)?;
            let (operand, new) = match op {
                RmwOp::Cas => (value(u, regs, 0, 2)?, Some(value(u, regs, 1, 3)?)),
                RmwOp::Add | RmwOp::Sub => (value(u, arith_regs, 1, 3)?, None),
                RmwOp::Exch => (value(u, regs, 1, 3)?, None),
                // A constant operand keeps the values the others make few (an engine that
                // guesses every value a load returns pays for each one).
                _ => (value(u, &[], 1, 3)?, None),
            };
            Instr::Atom {
                access,
                op,
                dst: fresh_reg(regs),
                loc,
                operand,
                new,
            }
        }
        7 => {
            // PTX `red` is relaxed or release.
            let access = access(u, &[Relaxed, Release])?;
            let op = pick(u, true)?;
            let operand = if unbounded(&op) {
                value(u, arith_regs, 1, 3)?
            } else {
                value(u, &[], 1, 3)?
            };
            Instr::Red {
                access,
                op,
                loc,
                operand,
            }
        }
        _ if limits.cp_async && n_locations > 1 && one_in(u, 3)? => {
            let src = (loc + u.int_in_range(1..=n_locations - 1)?) % n_locations;
            Instr::CpAsync { dst: loc, src }
        }
        _ => {
            let s = scope(u)?;
            Instr::Fence(if one_in(u, 2)? {
                Fence::Sc(s)
            } else {
                Fence::AcqRel(s)
            })
        }
    })
}

/// A proposition over final registers (over a location when no thread writes a register).
fn condition(
    u: &mut Unstructured<'_>,
    written: &[Vec<Reg>],
    n_locations: usize,
) -> Result<Condition> {
    let quantifier = *u.choose(&[
        Quantifier::Exists,
        Quantifier::Exists,
        Quantifier::NotExists,
        Quantifier::Forall,
    ])?;
    let n_atoms = u.int_in_range(1..=3)?;
    let mut prop = atom(u, written, n_locations)?;
    for _ in 1..n_atoms {
        let next = atom(u, written, n_locations)?;
        prop = match u.int_in_range(0..=5u8)? {
            0 => Prop::Or(Box::new(prop), Box::new(next)),
            1 => Prop::And(Box::new(prop), Box::new(Prop::Not(Box::new(next)))),
            _ => Prop::And(Box::new(prop), Box::new(next)),
        };
    }
    Ok(Condition {
        quantifier,
        prop,
        span: Span::default(),
    })
}

fn atom(u: &mut Unstructured<'_>, written: &[Vec<Reg>], n_locations: usize) -> Result<Prop> {
    let regs: Vec<(ThreadId, &Reg)> = written
        .iter()
        .enumerate()
        .flat_map(|(t, rs)| rs.iter().map(move |r| (t, r)))
        .collect();
    let term = if regs.is_empty() {
        Term::Loc(u.choose_index(n_locations)?)
    } else {
        let (t, r) = *u.choose(&regs)?;
        Term::Reg(t, r.clone())
    };
    let cmp = if one_in(u, 6)? { Cmp::Ne } else { Cmp::Eq };
    Ok(Prop::Cmp(cmp, term, Term::Const(u.int_in_range(0..=3)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_gives_the_smallest_valid_program() {
        let p = program(&mut Unstructured::new(&[]), &Limits::default()).unwrap();
        assert_eq!(p.threads.len(), 2);
        assert_eq!(p.locations.len(), 1);
        assert!(p.threads.iter().all(|t| t.body.len() == 1));
    }

    #[test]
    fn seeds_are_stable() {
        assert_eq!(from_seed(7), from_seed(7));
        assert_ne!(from_seed(7), from_seed(8));
    }
}
