use scopecheck_model::kernel::*;
use scopecheck_model::scope::Scope;

/// Block 0 writes `data` and raises `flag`; block 1 waits for the flag and reads `data`.
fn message_passing(scope: MemoryScope) -> Report {
    let mut k = Kernel::new("message passing", Grid::new(2, 1)); // 2 blocks × 1 thread
    let data = k.global::<i32>("data", 1);
    let flag = k.global::<i32>("flag", 1);
    Checker::dfs().check(&k, move |t| {
        if t.bid() == 0 {
            t.store(&data, 0, 42);
            t.atomic_store(&flag, 0, 1, MemoryOrder::Release, scope);
        } else {
            while t.atomic_load(&flag, 0, MemoryOrder::Acquire, scope) == 0 {
                t.spin_loop();
            }
            scopecheck_model::check!(t.load(&data, 0) == 42);
        }
    })
}

#[test]
fn device_scope_flag_publishes_the_data() {
    let report = message_passing(MemoryScope::Device);
    println!("{report}");
    assert!(report.passed(), "{report}");
}

#[test]
fn block_scope_flag_is_a_scoped_race() {
    let report = message_passing(MemoryScope::Block);
    println!("{report}");
    assert_eq!(
        report.verdict(),
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}
