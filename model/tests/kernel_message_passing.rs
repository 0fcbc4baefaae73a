//! Message passing: the producer/consumer example of the cuTile memory-model guide.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn producer_consumer(scope: MemoryScope) -> (Kernel, impl Fn(&ThreadCtx) + Send + Sync + 'static) {
    let mut k = Kernel::new("producer_consumer", Grid::new(2, 1));
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    let body = move |t: &ThreadCtx| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, scope);
        } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, scope) == 1 {
            check!(t.load(&data, 0) == 42);
        }
    };
    (k, body)
}

#[test]
fn device_scope_passes_under_every_engine() {
    let (k, body) = producer_consumer(MemoryScope::Device);
    for r in Checker::check_all(&k, body) {
        println!("{r}");
        assert_eq!(r.verdict(), Verdict::Pass, "{r}");
        assert!(r.executions > 0);
    }
}

#[test]
fn block_scope_across_blocks_is_a_scoped_race_fixed_by_device() {
    let (k, body) = producer_consumer(MemoryScope::Block);
    for r in Checker::check_all(&k, body) {
        println!("{r}");
        assert_eq!(r.verdict(), Verdict::Fail(FailureKind::ScopedRace { fix: scopecheck_model::scope::Scope::Gpu }), "{r}");
    }
}
