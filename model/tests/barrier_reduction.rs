//! Partial-order reduction past named-barrier instances and mbarrier spins loses nothing.
//!
//! - Named barriers: arrivals at one barrier id and thread count commute when they join the same
//!   instance (`engine::dependence::dependent_in`). On generated kernel models whose threads
//!   store, load, `bar.sync` and `bar.arrive` at two ids, with thread counts below the block's
//!   size (so that one id runs several instances, and a thread that only arrives may arrive at
//!   the next instance before the current one completes), counts that mismatch (misuse) and
//!   counts never reached (hangs), the reduced DFS reaches exactly the final states and the
//!   failure kinds of the unreduced DFS, and explores no more executions.
//! - mbarrier spins in PTX (`L: mbarrier.try_wait.parity p, [bar], 0; @!p bra L`): a search that
//!   prunes spins keeps a failed iteration only for a hang (`Machine::mbar_spin`). On generated
//!   PTX kernels whose threads store, arrive, spin on the barrier's phase and check what they
//!   read (a trap at a line of its own for each value they may see), the reduced DFS finds the
//!   same failures — kinds, and the trap lines, which name the values read — as the unreduced.

use crate::search_support::{assert_same_outcomes, dfs_found, BodyFn, Found, Gen, Sink};
use scopecheck_model::engine::Dfs;
use scopecheck_model::kernel::*;
use scopecheck_model::ptx::launch::{check_ptx, Launch};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One operation of a generated thread.
#[derive(Copy, Clone, Debug)]
enum Op {
    /// A plain store of the thread's value to `g[k]`.
    Store(usize),
    /// A release (device-scope) store to `g[k]`.
    Release(usize),
    /// A plain load of `g[k]`, recorded.
    Load(usize),
    /// `bar.sync id, count`.
    Sync(u32),
    /// `bar.arrive id, count`.
    Arrive(u32),
}

/// A generated named-barrier program.
#[derive(Clone, Debug)]
struct Program {
    threads: u32,
    /// The thread count of each id (1 and 2); a thread in `odd` uses one more.
    count: [u32; 2],
    odd: Option<usize>,
    ops: Vec<Vec<Op>>,
}

fn generate(seed: u64) -> Program {
    let mut g = Gen(seed);
    let threads = 2 + g.below(3) as u32;
    let count = [
        1 + g.below(threads as u64) as u32,
        1 + g.below(threads as u64) as u32,
    ];
    let odd = (g.below(8) == 0).then(|| g.below(threads as u64) as usize);
    let ops = (0..threads)
        .map(|_| {
            let n = 2 + g.below(3) as usize;
            (0..n)
                .map(|_| match g.below(9) {
                    0 => Op::Store(g.below(2) as usize),
                    1 => Op::Release(g.below(2) as usize),
                    2 | 3 => Op::Load(g.below(2) as usize),
                    4..=6 => Op::Sync(1 + g.below(2) as u32),
                    _ => Op::Arrive(1 + g.below(2) as u32),
                })
                .collect()
        })
        .collect();
    Program {
        threads,
        count,
        odd,
        ops,
    }
}

/// The kernel of `p` (one block, warp size 1), recording every final state in `sink`.
fn build(p: &Program, sink: Sink) -> (Kernel, BodyFn) {
    let threads = p.threads as usize;
    let grid = Grid::new(1, p.threads).with_warp_size(1);
    let mut k = Kernel::new("named barriers", grid);
    let g = k.global::<i32>("g", 2);
    let out = k.global::<i32>("out", threads * 4);
    k.postcondition("records the final state", move |m| {
        let mut state: Vec<i32> = (0..2).map(|i| m.get(&g, i)).collect();
        state.extend((0..threads * 4).map(|i| m.get(&out, i)));
        sink.lock().unwrap().insert(state);
        true
    });
    let (ops, count, odd) = (p.ops.clone(), p.count, p.odd);
    let body = Arc::new(move |t: &ThreadCtx| {
        let i = t.tid() as usize;
        let value = 1 + i as i32;
        let count = |id: u32| count[id as usize - 1] + u32::from(odd == Some(i));
        for (j, &op) in ops[i].iter().enumerate() {
            match op {
                Op::Store(x) => t.store(&g, x, value),
                Op::Release(x) => {
                    t.atomic_store(&g, x, value, MemoryOrder::Release, MemoryScope::Device)
                }
                Op::Load(x) => {
                    let v = t.load(&g, x);
                    t.store(&out, i * 4 + j, v);
                }
                Op::Sync(id) => t.bar_sync(id, count(id)),
                Op::Arrive(id) => t.bar_arrive(id, count(id)),
            }
        }
    });
    (k, body)
}

fn search(p: &Program, reduction: bool, budget: u64) -> Found {
    let sink: Sink = Arc::default();
    let (k, body) = build(p, Arc::clone(&sink));
    dfs_found(&k, body, &sink, reduction, budget)
}

/// The unreduced search's budget: a program whose unreduced search does not finish within it is
/// not compared (at 20,000, 129 of the 150 programs finish, 175,267 executions in all; at 5,000
/// most of them still do, at a fraction of the cost).
const UNREDUCED_BUDGET: u64 = 5_000;

#[test]
fn generated_named_barrier_kernels_reach_the_same_outcomes() {
    let (mut compared, mut reduced, mut full) = (0, 0, 0);
    let mut kinds: BTreeSet<String> = BTreeSet::new();
    for seed in 0..150u64 {
        let p = generate(seed);
        let unreduced = search(&p, false, UNREDUCED_BUDGET);
        if !unreduced.complete {
            continue;
        }
        let por = search(&p, true, UNREDUCED_BUDGET);
        assert_same_outcomes(&format!("seed {seed}: {p:?}"), &por, &unreduced);
        kinds.extend(unreduced.failures.iter().cloned());
        if unreduced.failures.is_empty() {
            kinds.insert("Pass".into());
        }
        compared += 1;
        reduced += por.executions;
        full += unreduced.executions;
    }
    println!(
        "{compared} programs: {reduced} executions reduced, {full} unreduced; outcomes seen: \
         {kinds:?}"
    );
    assert!(compared >= 90, "only {compared} programs compared");
    for kind in ["Pass", "DataRace", "Hang", "BarrierMisuse"] {
        assert!(kinds.contains(kind), "no program ended {kind}: {kinds:?}");
    }
}

/// A producer/consumer block as the corpus kernel `named_barrier.cu` has it: `n` producers
/// write their slot and `bar.arrive 1, 2n`, `n` consumers `bar.sync 1, 2n` and read a slot.
/// The arrivals form one instance, so their `2n!` orders are one trace: the reduced DFS runs a
/// single execution, and the unreduced one (at small `n`) agrees with it.
#[test]
fn one_instance_of_many_arrivals_is_one_trace() {
    for n in [1u32, 2, 3, 8, 16] {
        let mut k = Kernel::new("producer/consumer", Grid::new(1, 2 * n).with_warp_size(1));
        let buf = k.shared::<u32>("buf", n as usize);
        let body = move |t: &ThreadCtx| {
            let i = t.tid();
            if i < n {
                t.store(&buf, i as usize, i + 1);
                t.bar_arrive(1, 2 * n);
            } else {
                t.bar_sync(1, 2 * n);
                let v = t.load(&buf, (i - n) as usize);
                scopecheck_model::check!(v == i - n + 1);
            }
        };
        let reduced = Checker::dfs().check(&k, body);
        assert!(reduced.passed() && reduced.complete, "{reduced}");
        assert_eq!(reduced.executions, 1, "{n} producers: {reduced}");
        if n <= 2 {
            let full = Checker::new(Dfs {
                max_executions: 100_000,
                reduction: false,
            })
            .check(&k, body);
            assert!(full.passed() && full.complete, "{full}");
        }
    }
    // The same with the store after the arrival: the race is found.
    let mut k = Kernel::new("early arrive", Grid::new(1, 4).with_warp_size(1));
    let buf = k.shared::<u32>("buf", 2);
    let report = Checker::dfs().check(&k, move |t| {
        let i = t.tid();
        if i < 2 {
            t.bar_arrive(1, 4);
            t.store(&buf, i as usize, 1);
        } else {
            t.bar_sync(1, 4);
            t.load(&buf, (i - 2) as usize);
        }
    });
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::DataRace),
        "{report}"
    );
}

/// One operation of a generated PTX thread.
#[derive(Copy, Clone, Debug)]
enum PtxOp {
    /// `st.shared.u32 [data + 4k]` of the thread's value (its id + 1).
    Store(usize),
    /// `mbarrier.arrive.shared::cta.b64 _, [bar]`.
    Arrive,
    /// A spin `L: mbarrier.try_wait.parity p, [bar], parity; @!p bra L`.
    Spin(u32),
    /// One `mbarrier.try_wait.parity` whose result the thread observes.
    Test(u32),
    /// A spin as `nvcc` compiles `while (!done) done = try_wait(...)`: the wait's predicate
    /// goes through `selp` and `setp` into the branch's, so a failed round changes registers
    /// the next round writes again (an await).
    SpinCompiled(u32),
    /// A spin whose failed round leaves a mark (`mov %r8, 1` before branching back) that the
    /// thread reads after the loop: the rounds it fails are not an await.
    SpinMarked(u32),
    /// `mbarrier.arrive` keeping the state, whose pending count the thread observes
    /// (`mbarrier.pending_count`).
    ArriveObserved,
    /// `ld.shared.u32 [data + 4k]`, observed.
    Load(usize),
}

/// A generated PTX kernel: one block of `threads`, an mbarrier initialised by thread 0 with
/// `count`, two shared words, and each thread's operations. Thread 0 observes: each value it
/// loads or tests goes into a code (base 4), and its last instruction loads `out[1 + code]`,
/// outside `out` (one word): an out-of-bounds failure whose address names the code, so that
/// the distinct failures of a search name everything thread 0 can see.
#[derive(Clone, Debug)]
struct PtxProgram {
    threads: u32,
    count: u32,
    ops: Vec<Vec<PtxOp>>,
}

fn generate_ptx(seed: u64) -> PtxProgram {
    let mut g = Gen(seed);
    let threads = 2 + g.below(2) as u32;
    let count = 1 + g.below(threads as u64) as u32;
    let ops = (0..threads)
        .map(|t| {
            let n = 1 + g.below(3) as usize;
            let mut ops: Vec<PtxOp> = (0..n)
                .map(|_| match g.below(12) {
                    0 | 1 => PtxOp::Store(g.below(2) as usize),
                    2 | 3 => PtxOp::Arrive,
                    4 | 5 => PtxOp::Spin(u32::from(g.below(4) == 0)),
                    6 => PtxOp::Test(g.below(2) as u32),
                    7 | 8 => PtxOp::SpinCompiled(u32::from(g.below(4) == 0)),
                    9 => PtxOp::SpinMarked(u32::from(g.below(4) == 0)),
                    10 => PtxOp::ArriveObserved,
                    _ => PtxOp::Load(g.below(2) as usize),
                })
                .collect();
            if t == 0 && !ops.iter().any(|o| matches!(o, PtxOp::Load(_))) {
                ops.push(PtxOp::Load(g.below(2) as usize));
            }
            ops
        })
        .collect();
    PtxProgram {
        threads,
        count,
        ops,
    }
}

/// The PTX text of `p`.
fn ptx(p: &PtxProgram) -> String {
    let mut s = format!(
        "// scopecheck: --block {} --arg out=u32[1]\n.version 8.0\n.target sm_90\n\
         .address_size 64\n.visible .entry gen(.param .u64 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n\
         .shared .align 8 .b8 bar[8];\n.shared .align 4 .b8 data[8];\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\nmov.u32 %r2, bar;\nmov.u32 %r3, data;\nmov.u32 %r9, 0;\n\
         setp.ne.s32 %p1, %r1, 0;\n@%p1 bra $SYNC;\nmov.u32 %r4, {};\n\
         mbarrier.init.shared::cta.b64 [%r2], %r4;\nmov.u32 %r5, 0;\n\
         st.shared.u32 [%r3], %r5;\nst.shared.u32 [%r3+4], %r5;\n$SYNC:\nbar.sync 0;\n",
        p.threads, p.count
    );
    for t in 1..p.threads {
        s += &format!("setp.eq.s32 %p1, %r1, {t};\n@%p1 bra $T{t};\n");
    }
    for (t, ops) in p.ops.iter().enumerate() {
        if t > 0 {
            s += &format!("$T{t}:\n");
        }
        for (j, op) in ops.iter().enumerate() {
            s += &match *op {
                PtxOp::Store(k) => format!(
                    "mov.u32 %r5, {};\nst.shared.u32 [%r3+{}], %r5;\n",
                    t + 1,
                    4 * k
                ),
                PtxOp::Arrive => "mbarrier.arrive.shared::cta.b64 _, [%r2];\n".into(),
                PtxOp::Spin(parity) => format!(
                    "mov.u32 %r6, {parity};\n$W{t}_{j}:\n\
                     mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r6;\n\
                     @!%p2 bra $W{t}_{j};\n"
                ),
                PtxOp::SpinCompiled(parity) => format!(
                    "$W{t}_{j}:\nmov.u32 %r6, {parity};\n\
                     mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], %r6;\n\
                     selp.u32 %r8, 1, 0, %p3;\nsetp.eq.s32 %p2, %r8, 0;\n@%p2 bra $W{t}_{j};\n"
                ),
                PtxOp::SpinMarked(parity) => format!(
                    "mov.u32 %r6, {parity};\nmov.u32 %r8, 0;\n$W{t}_{j}:\n\
                     mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r6;\n\
                     @%p2 bra $D{t}_{j};\nmov.u32 %r8, 1;\nbra $W{t}_{j};\n$D{t}_{j}:\n\
                     mad.lo.u32 %r9, %r9, 4, %r8;\n"
                ),
                PtxOp::ArriveObserved => "mbarrier.arrive.shared::cta.b64 %rd2, [%r2];\n\
                     mbarrier.pending_count.b64 %r7, %rd2;\nmad.lo.u32 %r9, %r9, 4, %r7;\n"
                    .into(),
                PtxOp::Test(parity) => format!(
                    "mov.u32 %r6, {parity};\n\
                     mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r6;\n\
                     selp.u32 %r7, 1, 0, %p2;\nmad.lo.u32 %r9, %r9, 4, %r7;\n"
                ),
                PtxOp::Load(k) => {
                    format!(
                        "ld.shared.u32 %r7, [%r3+{}];\nmad.lo.u32 %r9, %r9, 4, %r7;\n",
                        4 * k
                    )
                }
            };
        }
        if t == 0 {
            s += "mul.wide.u32 %rd2, %r9, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
                  ld.global.u32 %r10, [%rd3+4];\n";
        }
        s += "ret;\n";
    }
    s + "}\n"
}

/// What one search of a PTX kernel found: its distinct failures, by kind and headline (an
/// out-of-bounds one names thread 0's observations) for the kinds that name no thread order,
/// by kind alone for the others (a race's headline names its two accesses in the order found).
fn search_ptx(p: &PtxProgram, reduction: bool, budget: u64) -> (BTreeSet<String>, u64, bool) {
    let checker = Checker::new(Dfs {
        max_executions: budget,
        reduction,
    })
    .all_failures();
    let report = check_ptx(&ptx(p), "gen.ptx", &Launch::default(), &[], checker)
        .unwrap_or_else(|e| panic!("{e}\n{}", ptx(p)));
    assert!(report.error.is_none(), "{report}");
    let failures = (report.failures.iter())
        .map(|f| match f.kind {
            FailureKind::OutOfBounds => format!("{:?}: {}", f.kind, f.headline),
            kind => format!("{kind:?}"),
        })
        .collect();
    (
        failures,
        report.executions + report.infeasible,
        report.complete,
    )
}

#[test]
fn generated_ptx_mbarrier_spins_reach_the_same_outcomes() {
    let (mut compared, mut reduced, mut full) = (0, 0, 0);
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for seed in 0..60u64 {
        let p = generate_ptx(seed);
        let (unreduced, n_full, complete) = search_ptx(&p, false, 5_000);
        if !complete {
            continue;
        }
        let (por, n_por, por_complete) = search_ptx(&p, true, 5_000);
        assert!(por_complete, "seed {seed}: {p:?}");
        assert_eq!(
            por,
            unreduced,
            "seed {seed}: failures differ: {p:?}\n{}",
            ptx(&p)
        );
        assert!(
            n_por <= n_full,
            "seed {seed}: the reduction explored more ({n_por} > {n_full}): {p:?}"
        );
        seen.extend(
            unreduced
                .iter()
                .map(|f| f.split(':').next().unwrap_or("").to_string()),
        );
        compared += 1;
        reduced += n_por;
        full += n_full;
    }
    println!("{compared} PTX programs: {reduced} executions reduced, {full} unreduced; {seen:?}");
    assert!(compared >= 40, "only {compared} programs compared");
    for kind in ["OutOfBounds", "Hang", "DataRace"] {
        assert!(
            seen.contains(kind),
            "no program failed with {kind}: {seen:?}"
        );
    }
}

/// Rules 2 and 3 on two fixed kernels: thread 0 spins while thread 1 arrives (count 1). A spin whose
/// failed round only changes registers the next round writes again (`SpinCompiled`) is one
/// blocking wait: one outcome, fewer executions than the unreduced search's rounds. A spin whose
/// failed round leaves a mark the thread reads after the loop (`SpinMarked`) is not: both
/// outcomes (the wait succeeds at once, or after a failed round) stay, as unreduced, which also
/// needs the failed wait to conflict with the arrival that completes the phase.
#[test]
fn a_failed_round_is_dropped_only_when_nothing_reads_what_it_left() {
    for (spin, outcomes) in [(PtxOp::SpinCompiled(0), 1), (PtxOp::SpinMarked(0), 2)] {
        let p = PtxProgram {
            threads: 2,
            count: 1,
            ops: vec![vec![spin], vec![PtxOp::Arrive]],
        };
        let (unreduced, n_full, complete) = search_ptx(&p, false, 5_000);
        let (por, n_por, por_complete) = search_ptx(&p, true, 5_000);
        println!("{spin:?}: {n_por} executions reduced, {n_full} unreduced; {por:?}");
        assert!(complete && por_complete, "{spin:?}");
        assert_eq!(por, unreduced, "{spin:?}: failures differ\n{}", ptx(&p));
        assert_eq!(por.len(), outcomes, "{spin:?}: {por:?}");
        assert!(
            n_por < n_full,
            "{spin:?}: {n_por} executions, {n_full} unreduced"
        );
    }
}
