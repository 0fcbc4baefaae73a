//! The DFS on several workers ([`ParallelDfs`]) is the one-thread DFS: on generated litmus
//! programs and on spin-wait kernel models it reaches the same final states, races and cut
//! executions, with the same completeness and exactly the same number of executions, with and
//! without partial-order reduction, at 2 and 3 workers.

use scopecheck_model::check;
use scopecheck_model::engine::parallel::ParallelDfs;
use scopecheck_model::engine::Dfs;
use scopecheck_model::kernel::*;
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::runtime::litmus::{explore_with, Options, Outcomes};
use std::sync::Arc;

fn dfs(reduction: bool) -> Dfs {
    Dfs {
        max_executions: 200_000,
        reduction,
    }
}

/// Everything an exploration reached, as comparable values.
fn summary(o: &Outcomes) -> impl PartialEq + std::fmt::Debug {
    (
        o.states.clone(),
        o.racy_states.clone(),
        o.racy,
        o.cut,
        o.executions,
        o.complete,
        o.error.clone(),
    )
}

#[test]
fn workers_reach_what_one_thread_reaches_on_generated_programs() {
    let opts = Options::default();
    let (mut compared, mut executions) = (0, 0);
    for seed in 0..150u64 {
        let limits = if seed % 3 == 2 {
            Limits {
                max_events: 8,
                ..Limits::default()
            }
        } else {
            Limits::differential()
        };
        let p = from_seed_with(seed, &limits);
        for reduction in [true, false] {
            if !reduction && seed % 5 != 0 {
                continue;
            }
            let one = explore_with(&p, &dfs(reduction), &opts);
            if !one.complete {
                continue;
            }
            for jobs in [2, 3] {
                let many = explore_with(
                    &p,
                    &ParallelDfs {
                        dfs: dfs(reduction),
                        jobs,
                    },
                    &opts,
                );
                assert_eq!(
                    summary(&many),
                    summary(&one),
                    "seed {seed}, reduction {reduction}, {jobs} workers"
                );
            }
            compared += 1;
            executions += one.executions + one.cut;
        }
    }
    println!("{compared} searches compared, {executions} executions each way");
    assert!(compared >= 150, "only {compared} searches compared");
}

/// A ticket lock and a grid barrier (correct), and the grid barrier with a relaxed wait (a
/// race): the same verdict at 1, 2 and 3 workers, and the same executions when it passes.
#[test]
fn workers_reach_the_verdicts_of_one_thread_on_kernels() {
    const DEV: MemoryScope = MemoryScope::Device;
    for order in [MemoryOrder::Acquire, MemoryOrder::Relaxed] {
        for blocks in [2u32, 3] {
            let mut k = Kernel::new("grid_barrier", Grid::new(blocks, 1));
            let data = k.global::<i32>("data", blocks as usize);
            let count = k.global::<i32>("count", 1);
            let n = blocks as i32;
            let body = Arc::new(move |t: &ThreadCtx| {
                let b = t.bid() as usize;
                t.store(&data, b, b as i32 + 1);
                t.atomic_add(&count, 0, 1, MemoryOrder::AcqRel, DEV);
                while t.atomic_load(&count, 0, order, DEV) < n {
                    t.spin_loop();
                }
                let next = (b + 1) % n as usize;
                check!(t.load(&data, next) == next as i32 + 1);
            });
            let run = |checker: Checker| {
                let body = Arc::clone(&body);
                checker.check(&k, move |t| body(t))
            };
            let one = run(Checker::new(dfs(true)));
            for jobs in [1, 2, 3] {
                let many = run(Checker::new(ParallelDfs {
                    dfs: dfs(true),
                    jobs,
                }));
                assert_eq!(
                    many.verdict(),
                    one.verdict(),
                    "{blocks} blocks, {jobs} jobs"
                );
                assert_eq!(many.complete, one.complete, "{blocks} blocks, {jobs} jobs");
                if one.passed() {
                    assert_eq!(
                        (many.executions, many.infeasible),
                        (one.executions, one.infeasible),
                        "{blocks} blocks, {jobs} jobs"
                    );
                }
            }
            assert_eq!(one.passed(), order == MemoryOrder::Acquire, "{one}");
        }
    }
}
