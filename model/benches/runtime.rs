//! Executions per second of the runtime on 2-message message passing (2 blocks × 1 thread):
//! our runtime under loom and under our DFS, next to the same program written directly on loom's
//! own Release/Acquire atomics (and `UnsafeCell` data, so loom checks the data accesses too).
//!
//! `cargo bench -p scopecheck-model --bench runtime`

use scopecheck_model::kernel::{
    Checker, Grid, Kernel, MemoryOrder, MemoryScope, Report, ThreadCtx,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Run `explore` (one full exploration, returning its execution count) repeatedly for at least
/// `budget`; returns (executions per exploration, executions per second).
fn measure(budget: Duration, mut explore: impl FnMut() -> u64) -> (u64, f64) {
    let per_run = explore(); // warm-up, and the count
    let start = Instant::now();
    let mut total = 0;
    while start.elapsed() < budget {
        total += explore();
    }
    (per_run, total as f64 / start.elapsed().as_secs_f64())
}

fn message_passing() -> (Kernel, impl Fn(&ThreadCtx) + Send + Sync + Clone + 'static) {
    let mut k = Kernel::new("mp2", Grid::new(2, 1));
    let data = k.global::<i32>("data", 2);
    let flag = k.global::<i32>("flag", 2);
    let body = move |t: &ThreadCtx| {
        let (rel, acq, dev) = (
            MemoryOrder::Release,
            MemoryOrder::Acquire,
            MemoryScope::Device,
        );
        if t.bid() == 0 {
            t.store(&data, 0, 1);
            t.atomic_store(&flag, 0, 1, rel, dev);
            t.store(&data, 1, 2);
            t.atomic_store(&flag, 1, 1, rel, dev);
        } else {
            for i in 0..2 {
                if t.atomic_load(&flag, i, acq, dev) == 1 {
                    assert_eq!(t.load(&data, i), i as i32 + 1);
                }
            }
        }
    };
    (k, body)
}

fn ours(checker: &Checker) -> u64 {
    let (k, body) = message_passing();
    let r: Report = checker.check(&k, body);
    assert!(r.passed() && r.complete, "{r}");
    r.executions + r.infeasible
}

// loom's `UnsafeCell` is shared between loom threads by design: loom checks every access.
#[allow(clippy::arc_with_non_send_sync)]
fn raw_loom() -> u64 {
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::AtomicI32;
    let count = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&count);
    loom::model::Builder::new().check(move || {
        c.fetch_add(1, Ordering::Relaxed);
        let data = Arc::new([UnsafeCell::new(0i32), UnsafeCell::new(0i32)]);
        let flag = Arc::new([AtomicI32::new(0), AtomicI32::new(0)]);
        let (d, f) = (Arc::clone(&data), Arc::clone(&flag));
        let producer = loom::thread::spawn(move || {
            d[0].with_mut(|p| unsafe { *p = 1 });
            f[0].store(1, loom::sync::atomic::Ordering::Release);
            d[1].with_mut(|p| unsafe { *p = 2 });
            f[1].store(1, loom::sync::atomic::Ordering::Release);
        });
        let consumer = loom::thread::spawn(move || {
            for i in 0..2 {
                if flag[i].load(loom::sync::atomic::Ordering::Acquire) == 1 {
                    assert_eq!(data[i].with(|p| unsafe { *p }), i as i32 + 1);
                }
            }
        });
        producer.join().unwrap();
        consumer.join().unwrap();
    });
    count.load(Ordering::Relaxed)
}

fn main() {
    let budget = Duration::from_secs_f64(
        std::env::args()
            .skip_while(|a| a != "--seconds")
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(3.0),
    );
    println!("2-message message passing, 2 blocks x 1 thread; each row explores every execution");
    println!(
        "{:<34} {:>12} {:>14} {:>10}",
        "engine", "executions", "executions/s", "vs loom"
    );
    let (loom_n, loom_rate) = measure(budget, raw_loom);
    let rows: Vec<(&str, u64, f64)> = vec![
        ("raw loom (Release/Acquire atomics)", loom_n, loom_rate),
        {
            let (n, rate) = measure(budget, || ours(&Checker::loom()));
            ("scopecheck runtime under loom", n, rate)
        },
        {
            let (n, rate) = measure(budget, || ours(&Checker::dfs()));
            ("scopecheck runtime under DFS", n, rate)
        },
    ];
    for (name, n, rate) in &rows {
        println!("{name:<34} {n:>12} {rate:>14.0} {:>9.2}x", rate / loom_rate);
    }
    let (_, _, dfs_rate) = rows[2];
    let (_, _, our_loom_rate) = rows[1];
    println!(
        "ratio DFS / raw loom            = {:.2}",
        dfs_rate / loom_rate
    );
    println!(
        "ratio runtime-on-loom / raw loom = {:.2}",
        our_loom_rate / loom_rate
    );
    println!("(executions of the runtime under loom include infeasible ones, which are cut short)");
}
