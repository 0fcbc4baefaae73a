//! Tests of `runtime::hooks`.

use scopecheck_model::runtime::machine::{Access, Halt, Hooks, Machine, Setup, Status, ThreadInfo};
use scopecheck_model::runtime::memory::{ElemKind, LocInfo};
use scopecheck_model::runtime::report::{BarrierKey, FailureKind, Site};
use scopecheck_model::scope::{Order, Placement, Scope};
use std::sync::Arc;

/// Two threads of one block, one global location `x`.
fn machine(hooks: &'static Hooks) -> Machine {
    let thread = |tid: u32| ThreadInfo {
        placement: Placement::new(0, 0),
        block: 0,
        tid,
        name: format!("T{tid}"),
        agent: false,
    };
    let setup = Setup {
        name: "hooks".to_string(),
        threads: vec![thread(0), thread(1)],
        locs: vec![LocInfo {
            name: "x".to_string(),
            init: 0,
            kind: ElemKind::I32,
            shared: None,
        }],
        blocks: vec![vec![0, 1]],
        max_steps: 100,
        stop_on_race: true,
        mbarriers: Vec::new(),
        agents: Vec::new(),
        resident_blocks: None,
        starts_after: Vec::new(),
        exchange_slots: Arc::new([]),
    };
    Machine::new(Arc::new(setup), hooks)
}

fn noted(m: &Machine) -> Vec<&str> {
    m.observed.iter().map(|(k, _)| k.as_str()).collect()
}

fn store(m: &mut Machine) -> Result<(), Halt> {
    m.store(0, 0, 7, Order::Relaxed, Some(Scope::Gpu), Site::caller())
}

#[test]
fn access_hooks_run_in_order_and_the_first_failure_stops_the_access() {
    fn first(m: &mut Machine, a: &Access) -> Result<(), Halt> {
        assert!(a.write && a.thread == 0 && a.loc == 0 && a.event == 1);
        m.record("first".to_string(), 1);
        Ok(())
    }
    fn refuse(m: &mut Machine, _: &Access) -> Result<(), Halt> {
        m.fail(FailureKind::Assertion, "refused".to_string(), vec![]);
        Err(Halt)
    }
    fn third(m: &mut Machine, _: &Access) -> Result<(), Halt> {
        m.record("third".to_string(), 3);
        Ok(())
    }
    static HOOKS: Hooks = Hooks {
        on_access: &[first, refuse, third],
        ..Hooks::NONE
    };
    let mut m = machine(&HOOKS);
    assert!(store(&mut m).is_err());
    assert_eq!(
        m.failure.as_ref().map(|f| f.headline.as_str()),
        Some("refused")
    );
    assert_eq!(noted(&m), ["first"]);
    assert_eq!(
        m.locs[0].stores.len(),
        1,
        "the refused store was not appended"
    );
    let mut m = machine(&Hooks::NONE);
    assert!(store(&mut m).is_ok());
    assert_eq!(m.final_value(0), 7);
}

#[test]
fn read_and_store_hooks_hear_of_every_read_and_appended_store() {
    fn read(m: &mut Machine, t: usize, loc: usize, value: u64, wrote: bool) {
        m.record(format!("read {t} {loc} {value} {wrote}"), 0);
    }
    fn stored(m: &mut Machine, t: usize, loc: usize) {
        m.record(format!("stored {t} {loc}"), 0);
    }
    static HOOKS: Hooks = Hooks {
        on_read: &[read],
        on_store: &[stored],
        ..Hooks::NONE
    };
    let mut m = machine(&HOOKS);
    store(&mut m).unwrap();
    let site = Site::caller();
    let value = m.load(1, 0, Order::Relaxed, Some(Scope::Gpu), site, None, &|_| 0);
    assert_eq!(value.unwrap(), 7);
    let add = |v: u64| Some(v + 1);
    m.rmw(
        1,
        0,
        scopecheck_model::runtime::report::RmwKind::Add,
        &add,
        Order::Relaxed,
        Scope::Gpu,
        site,
    )
    .unwrap();
    assert_eq!(
        noted(&m),
        [
            "stored 0 0",
            "read 1 0 7 false",
            "read 1 0 7 true",
            "stored 1 0"
        ]
    );
}

#[test]
fn a_failing_exit_hook_ends_the_exit_before_barriers_settle() {
    fn exit_ok(m: &mut Machine, t: usize) -> Result<(), Halt> {
        m.record(format!("exit {t}"), 0);
        Ok(())
    }
    fn exit_fails(m: &mut Machine, _: usize) -> Result<(), Halt> {
        m.fail(FailureKind::Assertion, "exit refused".to_string(), vec![]);
        Err(Halt)
    }
    fn settle(m: &mut Machine, block: usize) {
        m.record(format!("settle {block}"), 0);
    }
    static GOOD: Hooks = Hooks {
        on_exit: &[exit_ok],
        on_barrier_settle: &[settle],
        ..Hooks::NONE
    };
    static BAD: Hooks = Hooks {
        on_exit: &[exit_fails, exit_ok],
        on_barrier_settle: &[settle],
        ..Hooks::NONE
    };
    let mut m = machine(&GOOD);
    m.exit(1);
    assert_eq!(noted(&m), ["exit 1", "settle 0"]);
    let mut m = machine(&BAD);
    m.exit(1);
    assert!(noted(&m).is_empty());
    assert_eq!(m.status(1), &Status::Done);
}

#[test]
fn a_hang_report_words_a_wait_by_the_first_hook_that_knows_it() {
    fn not_mine(_: &Machine, _: usize, _: &Status) -> Option<String> {
        None
    }
    fn barrier(m: &Machine, u: usize, s: &Status) -> Option<String> {
        (*s == Status::AtBarrier)
            .then(|| format!("{} waits at the test barrier", u))
            .filter(|_| m.setup.threads[u].tid == 1)
    }
    fn later(_: &Machine, _: usize, _: &Status) -> Option<String> {
        Some("never asked".to_string())
    }
    static HOOKS: Hooks = Hooks {
        describe_wait: &[not_mine, barrier, later],
        ..Hooks::NONE
    };
    for (hooks, why) in [
        (&HOOKS, "1 waits at the test barrier"),
        (&Hooks::NONE, "T1 waits at a barrier"),
    ] {
        let mut m = machine(hooks);
        let blocks = m
            .barrier_op(1, Site::caller(), BarrierKey::Id(1), Some(2), true)
            .expect("an arrival");
        assert!(blocks && *m.status(1) == Status::AtBarrier);
        m.exit(0);
        let failure = m.failure.as_ref().expect("a hang");
        assert_eq!(failure.kind, FailureKind::Hang);
        assert_eq!(failure.details, [why]);
    }
}
