//! Replay tokens: every engine's failing execution replays deterministically, with the same
//! failure and the same interleaving.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn kernel() -> (Kernel, impl Fn(&ThreadCtx) + Send + Sync + Clone + 'static) {
    let mut k = Kernel::new("replayed", Grid::new(2, 2));
    let data = k.global::<i32>("data", 2);
    let flag = k.global::<i32>("flag", 1);
    let body = move |t: &ThreadCtx| {
        let me = (t.bid() * 2 + t.tid()) as usize;
        match me {
            0 => {
                t.store(&data, 0, 1);
                t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Block);
            }
            1 => {
                t.atomic_add(&flag, 0, 1, MemoryOrder::AcqRel, MemoryScope::Device);
            }
            _ => {
                let f = t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device);
                if f >= 2 {
                    check!(t.load(&data, 0) == 1);
                }
            }
        }
    };
    (k, body)
}

#[test]
fn every_engines_failure_replays_exactly() {
    let (k, body) = kernel();
    for c in Checker::every_engine(&k) {
        let r = c.check(&k, body.clone());
        let failure = r
            .failure
            .as_ref()
            .unwrap_or_else(|| panic!("{} found no failure:\n{r}", r.engine));
        let token = failure.token.to_string();
        let again = Checker::replay(&token, &k, body.clone());
        println!("{r}\nreplayed:\n{again}");
        let replayed = again.failure.expect("the replay fails the same way");
        assert_eq!(replayed.kind, failure.kind);
        assert_eq!(replayed.trace, failure.trace);
        assert_eq!(replayed.token, failure.token);
        assert_eq!(again.executions, 1);
    }
}

#[test]
fn a_token_for_another_kernel_is_refused() {
    let (k, body) = kernel();
    let r = Checker::dfs().check(&k, body.clone());
    let token = r.failure.unwrap().token.to_string();
    let mut other = Kernel::new("other", Grid::new(2, 2));
    other.global::<i32>("x", 1);
    let again = Checker::replay(&token, &other, |_| {});
    assert!(matches!(again.verdict(), Verdict::Error(e) if e.contains("another kernel")));
    let garbage = Checker::replay("sc1-zz", &k, body);
    assert!(matches!(garbage.verdict(), Verdict::Error(e) if e.contains("invalid replay token")));
}

#[test]
fn a_token_that_does_not_fit_the_schedule_is_an_error() {
    let (k, body) = kernel();
    let r = Checker::dfs().check(&k, body.clone());
    let mut token = r.failure.unwrap().token;
    token.decisions.truncate(1);
    token
        .decisions
        .push(scopecheck_model::runtime::Decision::Pick(7));
    let again = Checker::replay(&token.to_string(), &k, body);
    println!("{again}");
    assert!(matches!(
        again.verdict(),
        Verdict::Error(_) | Verdict::Fail(_)
    ));
    assert!(again.error.is_some(), "{again}");
}
