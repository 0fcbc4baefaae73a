//! How fast correct kernel models come back *verified*: executions and seconds to a complete
//! verdict under our DFS (partial-order reduction, spin loops as awaits), beside the unreduced
//! DFS and loom on the same model, for a family of synchronization patterns at 2, 3, 4, 6 and 8
//! blocks. Prints a table; asserts nothing.
//!
//! `cargo run --release -p scopecheck-model --features loom --example verify_bench [-- MAX_BLOCKS [BUDGET [SECONDS [FILTER [JOBS]]]]]`
//!
//! FILTER runs only the families whose name contains it (`all`: every family); JOBS (default
//! 2) is the number of workers of the parallel DFS column (the same search on JOBS cores).
//!
//! Every model runs one thread per block (the stencil: one block of that many threads; the
//! TMA pipeline: one producer, one consumer and the copy agent, 3 stages over 3 points). Our DFS
//! stops at BUDGET executions (default 2,000,000); the unreduced DFS and loom, which take much
//! longer, stop at BUDGET executions or SECONDS seconds (default 20), and loom runs at most 4
//! GPU threads. A run that stopped early is marked *bounded*; `-` = not run.

#[path = "../../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

use scopecheck_model::check;
use scopecheck_model::engine::parallel::ParallelDfs;
use scopecheck_model::engine::{Dfs, Engine, Exploration, Flow, Loom, RunOne, Shape};
use scopecheck_model::kernel::*;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

type BodyFn = Arc<dyn Fn(&ThreadCtx) + Send + Sync>;

/// A family of models: build one with this many blocks.
type Family = fn(u32) -> (Kernel, BodyFn);

const DEV: MemoryScope = MemoryScope::Device;

fn acquire(t: &ThreadCtx, g: &Global<i32>, i: usize) -> i32 {
    t.atomic_load(g, i, MemoryOrder::Acquire, DEV)
}

fn release(t: &ThreadCtx, g: &Global<i32>, i: usize, v: i32) {
    t.atomic_store(g, i, v, MemoryOrder::Release, DEV)
}

/// Every block publishes a value, arrives (acq_rel) and waits until all arrived, then reads its
/// neighbour's value.
fn grid_barrier(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("grid_barrier", Grid::new(n, 1));
    let data = k.global::<i32>("data", n as usize);
    let count = k.global::<i32>("count", 1);
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as usize;
        t.store(&data, b, b as i32 + 1);
        t.atomic_add(&count, 0, 1, MemoryOrder::AcqRel, DEV);
        while acquire(t, &count, 0) < n as i32 {
            t.spin_loop();
        }
        let next = (b + 1) % n as usize;
        check!(t.load(&data, next) == next as i32 + 1);
    });
    (k, body)
}

/// Take a ticket, wait to be served, increment a plain counter, serve the next ticket.
fn ticket_lock(n: u32) -> (Kernel, BodyFn) {
    ticket_lock_on(Grid::new(n, 1))
}

/// The ticket lock with its blocks declared symmetric (no block reads its id).
fn ticket_lock_symmetric(n: u32) -> (Kernel, BodyFn) {
    ticket_lock_on(Grid::new(n, 1).symmetric_blocks())
}

fn ticket_lock_on(grid: Grid) -> (Kernel, BodyFn) {
    let n = grid.blocks;
    let mut k = Kernel::new("ticket_lock", grid);
    let next = k.global::<i32>("next", 1);
    let serving = k.global::<i32>("serving", 1);
    let counter = k.global::<i32>("counter", 1);
    k.postcondition("counter == blocks", move |m| m.get(&counter, 0) == n as i32);
    let body = Arc::new(move |t: &ThreadCtx| {
        let ticket = t.atomic_add(&next, 0, 1, MemoryOrder::Relaxed, DEV);
        while acquire(t, &serving, 0) != ticket {
            t.spin_loop();
        }
        let v = t.load(&counter, 0);
        t.store(&counter, 0, v + 1);
        release(t, &serving, 0, ticket + 1);
    });
    (k, body)
}

/// The cuTile guide's spinlock: acq_rel exchange to take it, release store to drop it.
fn spinlock(n: u32) -> (Kernel, BodyFn) {
    spinlock_on(Grid::new(n, 1))
}

/// The spinlock with its blocks declared symmetric.
fn spinlock_symmetric(n: u32) -> (Kernel, BodyFn) {
    spinlock_on(Grid::new(n, 1).symmetric_blocks())
}

fn spinlock_on(grid: Grid) -> (Kernel, BodyFn) {
    let n = grid.blocks;
    let mut k = Kernel::new("spinlock", grid);
    let lock = k.global::<i32>("lock", 1);
    let counter = k.global::<i32>("counter", 1);
    k.postcondition("counter == blocks", move |m| m.get(&counter, 0) == n as i32);
    let body = Arc::new(move |t: &ThreadCtx| {
        while t.atomic_exchange(&lock, 0, 1, MemoryOrder::AcqRel, DEV) != 0 {
            t.spin_loop();
        }
        let v = t.load(&counter, 0);
        t.store(&counter, 0, v + 1);
        release(t, &lock, 0, 0);
    });
    (k, body)
}

/// Decoupled look-back: block `b` publishes its aggregate (flag 1), looks back over its
/// predecessors' aggregates until an inclusive prefix (flag 2), publishes its own prefix.
fn look_back(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("look_back_scan", Grid::new(n, 1));
    let flag = k.global::<i32>("flag", n as usize);
    let agg = k.global::<i32>("aggregate", n as usize);
    let incl = k.global::<i32>("inclusive", n as usize);
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as usize;
        let input = b as i32 + 1;
        let mut prefix = 0;
        if b > 0 {
            t.store(&agg, b, input);
            release(t, &flag, b, 1);
            let mut j = b - 1;
            loop {
                match acquire(t, &flag, j) {
                    0 => t.spin_loop(),
                    1 => {
                        prefix += t.load(&agg, j);
                        j -= 1;
                    }
                    _ => {
                        prefix += t.load(&incl, j);
                        break;
                    }
                }
            }
        }
        let total = prefix + input;
        check!(total == (b as i32 + 1) * (b as i32 + 2) / 2);
        t.store(&incl, b, total);
        release(t, &flag, b, 2);
    });
    (k, body)
}

/// The CUDA sample's threadfence reduction (one thread per block) with the counter reset.
fn threadfence_reduction(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("threadfence_reduction", Grid::new(n, 1));
    let partial = k.global::<i32>("partial", n as usize);
    let count = k.global::<u32>("count", 1);
    let result = k.global::<i32>("result", 1);
    let sum = (n * (n + 1) / 2) as i32;
    k.postcondition("result is the sum, counter reset", move |m| {
        m.get(&result, 0) == sum && m.get(&count, 0) == 0
    });
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as usize;
        t.store(&partial, b, b as i32 + 1);
        t.fence(MemoryOrder::AcqRel, DEV);
        let ticket = t.atomic_add(&count, 0, 1, MemoryOrder::Relaxed, DEV);
        if ticket == n - 1 {
            t.fence(MemoryOrder::AcqRel, DEV);
            let s = (0..n as usize).map(|i| t.load(&partial, i)).sum::<i32>();
            t.store(&result, 0, s);
            t.store(&count, 0, 0);
        }
    });
    (k, body)
}

/// Split-K: block `b` waits for the semaphore to reach `b`, adds its partial tile, bumps it.
fn split_k(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("split_k_semaphore", Grid::new(n, 1));
    let sem = k.global::<i32>("semaphore", 1);
    let out = k.global::<i32>("out", 2);
    let sum = (n * (n + 1) / 2) as i32;
    k.postcondition("out is the sum of the partials", move |m| {
        m.get(&out, 0) == sum && m.get(&out, 1) == 2 * sum
    });
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as i32;
        while acquire(t, &sem, 0) != b {
            t.spin_loop();
        }
        for i in 0..2 {
            let v = t.load(&out, i);
            t.store(&out, i, v + (b + 1) * (i as i32 + 1));
        }
        release(t, &sem, 0, b + 1);
    });
    (k, body)
}

/// A 1-D three-point stencil in shared memory with two `syncthreads` (one block, `n` threads).
fn stencil(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("stencil", Grid::new(1, n));
    let s = k.shared::<i32>("s", n as usize);
    let out = k.global::<i32>("out", n as usize);
    let body = Arc::new(move |t: &ThreadCtx| {
        let i = t.tid() as usize;
        let n = n as usize;
        t.store(&s, i, i as i32);
        t.syncthreads();
        let v = t.load(&s, (i + n - 1) % n) + t.load(&s, i) + t.load(&s, (i + 1) % n);
        t.syncthreads();
        t.store(&s, i, v);
        t.store(&out, i, v);
    });
    (k, body)
}

/// Blocks that share nothing but each load one element by TMA (a bulk copy completing on the
/// block's mbarrier) and wait for it: independent CTAs, which must commute past their copies.
fn tma_blocks(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("tma_blocks", Grid::new(n, 1));
    let input: Vec<i32> = (0..n as i32).map(|b| 10 + b).collect();
    let src = k.global_from::<i32>("src", &input);
    let tile = k.shared::<i32>("tile", 1);
    let full = k.mbarriers("full", 1);
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as usize;
        let bar = full.at(0);
        bar.init(t, 1);
        let token = bar.arrive_expect_tx(t, 4);
        t.bulk_copy_global_to_shared(&tile, 0, &src, b, 4, &bar);
        bar.wait(t, token);
        check!(t.load(&tile, 0) == 10 + b as i32);
    });
    (k, body)
}

/// `n` independent CTAs, each running the 3-stage TMA ring of the corpus (a producer and a
/// consumer over 3 points, full/empty mbarriers per stage).
fn tma_ring_blocks(n: u32) -> (Kernel, BodyFn) {
    const STAGES: usize = 3;
    const POINTS: usize = 3;
    let mut k = Kernel::new("tma_ring_blocks", Grid::new(n, 2));
    let input: Vec<i32> = (0..n as usize * POINTS).map(|i| 100 + i as i32).collect();
    let src = k.global_from::<i32>("src", &input);
    let tile = k.shared::<i32>("tile", STAGES);
    let full = k.mbarriers("full", STAGES);
    let empty = k.mbarriers("empty", STAGES);
    let body = Arc::new(move |t: &ThreadCtx| {
        let base = t.bid() as usize * POINTS;
        if t.tid() == 0 {
            for s in 0..STAGES {
                full.at(s).init(t, 1);
                empty.at(s).init(t, 1);
            }
        }
        t.syncthreads();
        let (mut stage, mut phase) = (0, if t.tid() == 0 { 1 } else { 0 });
        for p in 0..POINTS {
            if t.tid() == 0 {
                empty.at(stage).wait_parity(t, phase);
                let bar = full.at(stage);
                bar.arrive_expect_tx(t, 4);
                t.bulk_copy_global_to_shared(&tile, stage, &src, base + p, 4, &bar);
            } else {
                full.at(stage).wait_parity(t, phase);
                check!(t.load(&tile, stage) == input[base + p]);
                t.fence_proxy_async();
                empty.at(stage).arrive(t);
            }
            stage += 1;
            if stage == STAGES {
                stage = 0;
                phase ^= 1;
            }
        }
    });
    (k, body)
}

/// Blocks that each stage two elements with `cp.async` (two groups), wait for them one group at
/// a time and read them.
fn cp_async_blocks(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("cp_async_blocks", Grid::new(n, 1));
    k.bulk_copies();
    let input: Vec<i32> = (0..2 * n as i32).collect();
    let src = k.global_from::<i32>("src", &input);
    let tile = k.shared::<i32>("tile", 2);
    let body = Arc::new(move |t: &ThreadCtx| {
        let b = t.bid() as usize;
        for s in 0..2 {
            t.cp_async(&tile, s, &src, 2 * b + s, 4);
            t.cp_async_commit_group();
        }
        t.cp_async_wait_group(1);
        check!(t.load(&tile, 0) == 2 * b as i32);
        t.cp_async_wait_group(0);
        check!(t.load(&tile, 1) == 2 * b as i32 + 1);
    });
    (k, body)
}

/// One warp of `n` lanes exchanging through shared memory with `__syncwarp`: every lane writes
/// its slot, syncs, reads its neighbour's, syncs, and writes the sum back.
fn syncwarp_exchange(n: u32) -> (Kernel, BodyFn) {
    let mut k = Kernel::new("syncwarp_exchange", Grid::new(1, n).with_warp_size(n));
    let s = k.shared::<i32>("s", n as usize);
    let body = Arc::new(move |t: &ThreadCtx| {
        let i = t.lane() as usize;
        let n = n as usize;
        t.store(&s, i, i as i32);
        t.syncwarp(t.warp_mask());
        let v = t.load(&s, (i + 1) % n);
        check!(v == ((i + 1) % n) as i32);
        t.syncwarp(t.warp_mask());
        t.store(&s, i, v + i as i32);
    });
    (k, body)
}

/// An engine stopped after `max` executions or `limit` of wall time (reported as bounded).
struct Budgeted<E> {
    inner: E,
    max: u64,
    limit: Duration,
}

impl<E: Engine> Engine for Budgeted<E> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn max_threads(&self) -> Option<usize> {
        self.inner.max_threads()
    }

    fn prunes_spins(&self) -> bool {
        self.inner.prunes_spins()
    }

    fn explore(&self, shape: Shape, run: RunOne) -> Exploration {
        let (start, max, limit) = (Instant::now(), self.max, self.limit);
        let count = AtomicU64::new(0);
        let budgeted: RunOne = Arc::new(move |sched| {
            let flow = run(sched);
            let n = count.fetch_add(1, Ordering::Relaxed) + 1;
            if n >= max || start.elapsed() >= limit {
                return Flow::Stop;
            }
            flow
        });
        self.inner.explore(shape, budgeted)
    }
}

struct Run {
    executions: u64,
    seconds: f64,
    complete: bool,
    verdict: Verdict,
}

fn run(checker: &Checker, k: &Kernel, body: &BodyFn) -> Run {
    let body = Arc::clone(body);
    let t0 = Instant::now();
    let r = checker.check(k, move |t| body(t));
    Run {
        executions: r.executions + r.infeasible,
        seconds: t0.elapsed().as_secs_f64(),
        complete: r.complete,
        verdict: r.verdict(),
    }
}

fn cell(r: &Run) -> String {
    let mark = match (&r.verdict, r.complete) {
        (Verdict::Pass, true) => "",
        (Verdict::Pass, false) => " bounded",
        (_, _) => " FAILED",
    };
    format!("{} / {:.2} s{mark}", r.executions, r.seconds)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let max_blocks: u32 = args.next().map_or(8, |a| a.parse().expect("MAX_BLOCKS"));
    let budget: u64 = args
        .next()
        .map_or(2_000_000, |a| a.parse().expect("BUDGET"));
    let seconds: u64 = args.next().map_or(20, |a| a.parse().expect("SECONDS"));
    let filter = args.next().filter(|f| f != "all");
    let jobs: usize = args.next().map_or(2, |a| a.parse().expect("JOBS"));
    let families: [(&str, Family); 13] = [
        ("grid barrier", grid_barrier),
        ("ticket lock", ticket_lock),
        ("ticket lock, symmetric blocks", ticket_lock_symmetric),
        ("spinlock", spinlock),
        ("spinlock, symmetric blocks", spinlock_symmetric),
        ("look-back scan", look_back),
        ("threadfence reduction", threadfence_reduction),
        ("split-K semaphore", split_k),
        ("stencil (threads)", stencil),
        ("TMA load + wait per block", tma_blocks),
        ("3-stage TMA ring per block", tma_ring_blocks),
        ("cp.async 2 groups per block", cp_async_blocks),
        ("syncwarp exchange (lanes)", syncwarp_exchange),
    ];
    let ours = Checker::new(Dfs {
        max_executions: budget,
        reduction: true,
    });
    let parallel = Checker::new(ParallelDfs {
        dfs: Dfs {
            max_executions: budget,
            reduction: true,
        },
        jobs,
    });
    let limit = Duration::from_secs(seconds);
    let unreduced = Checker::new(Budgeted {
        inner: Dfs {
            max_executions: budget,
            reduction: false,
        },
        max: budget,
        limit,
    });
    let loom = Checker::new(Budgeted {
        inner: Loom::default(),
        max: budget,
        limit,
    });
    println!("| model | blocks | DFS (POR) | DFS (POR), {jobs} jobs | DFS (unreduced) | loom |");
    println!("|---|---:|---:|---:|---:|---:|");
    let wanted = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
    for (name, build) in families.into_iter().filter(|(name, _)| wanted(name)) {
        // The warp family also at a full warp (16 and 32 lanes) when MAX_BLOCKS allows.
        let sizes = [2u32, 3, 4, 6, 8, 16, 32];
        let sizes = sizes.iter().filter(|&&n| n <= 8 || name.contains("lanes"));
        for n in sizes.copied().filter(|&n| n <= max_blocks) {
            let (k, body) = build(n);
            let dfs = run(&ours, &k, &body);
            let par = run(&parallel, &k, &body);
            // The slower engines only where they may still finish.
            let (unreduced, loom) = if n <= 3 && !k.grid.symmetric_blocks {
                let loom = if k.model_threads() <= 4 {
                    cell(&run(&loom, &k, &body))
                } else {
                    "-".to_string()
                };
                (cell(&run(&unreduced, &k, &body)), loom)
            } else {
                ("-".to_string(), "-".to_string())
            };
            println!(
                "| {name} | {n} | {} | {} | {unreduced} | {loom} |",
                cell(&dfs),
                cell(&par)
            );
            std::io::stdout().flush().expect("stdout");
        }
    }
    if !wanted("3-stage TMA pipeline") {
        return;
    }
    let (k, body) = corpus::mbarrier::cutlass_pipeline(3, 3, 1, 0);
    let corpus::Body::Threads(body) = body else {
        unreachable!("the pipeline is a thread-level kernel")
    };
    let dfs = run(&ours, &k, &body);
    let par = run(&parallel, &k, &body);
    println!(
        "| 3-stage TMA pipeline, 3 points | 1 (2 threads + copy agent) | {} | {} | {} | {} |",
        cell(&dfs),
        cell(&par),
        cell(&run(&unreduced, &k, &body)),
        cell(&run(&loom, &k, &body))
    );
}
