//! Tests of `diff`.

use scopecheck_gpu::codegen::generate;
use scopecheck_gpu::diff::*;
use scopecheck_gpu::outcome::encode;
use scopecheck_gpu::runner::Counts;
use scopecheck_gpu::runner::RunResult;
use scopecheck_model::litmus::parse;
use scopecheck_model::litmus::Value;
use std::collections::BTreeSet;

const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

fn run(states: &[(&[Value], u64)]) -> RunResult {
    let keys = states.iter().map(|(v, c)| (encode(v), *c)).collect();
    RunResult {
        counts: Counts { keys, lost: 0 },
        instances: 0,
        seconds: 1.0,
        error: None,
    }
}

#[test]
fn a_forbidden_observation_is_a_violation_and_unseen_allowed_states_are_listed() {
    let p = parse(MP, "mp.litmus").unwrap();
    let h = generate(&p).unwrap();
    let sc: BTreeSet<Vec<Value>> = [vec![0, 0], vec![0, 1], vec![1, 1]].into_iter().collect();
    let allowed = Allowed {
        model: "test".into(),
        states: Some(sc),
        bounded: false,
    };
    let d = diff(&p, &h, &allowed, &run(&[(&[0, 0], 10), (&[1, 0], 3)]));
    assert_eq!(d.violations, 3);
    let weak = d.observed.iter().find(|r| r.state["P1:r0"] == 1).unwrap();
    assert_eq!(
        (weak.allowed, weak.condition, weak.count),
        (Some(false), true, 3)
    );
    assert_eq!(
        d.not_seen.len(),
        2,
        "(0,1) and (1,1) were allowed but not seen"
    );
    assert_eq!(d.condition_count(), 3);
}

#[test]
fn observations_the_filter_rejects_are_left_out() {
    // The filter keeps the runs where P1 saw the flag; the model's allowed states (here
    // only the message-passing outcome) are filtered the same way.
    let text = MP.replace(
        "exists (P1:r0 == 1 /\\ P1:r1 == 0)",
        "filter (P1:r0 == 1)\nexists (P1:r1 == 0)",
    );
    let p = parse(&text, "mp-filter.litmus").unwrap();
    let h = generate(&p).unwrap();
    assert_eq!(
        h.observables.len(),
        2,
        "the filter's register is observed too"
    );
    // Values in the observables' order: the condition's P1:r1, then the filter's P1:r0.
    assert_eq!(h.observables[0].name(&p), "P1:r1");
    let state = |r0: Value, r1: Value| vec![r1, r0];
    let allowed = Allowed {
        model: "test".into(),
        states: Some([state(1, 1)].into_iter().collect()),
        bounded: false,
    };
    // (r0, r1) = (0, 0) and (0, 1) fail the filter: not violations, not counted.
    let d = diff(
        &p,
        &h,
        &allowed,
        &run(&[(&state(0, 0), 7), (&state(0, 1), 5), (&state(1, 1), 2)]),
    );
    assert_eq!((d.violations, d.filtered), (0, 12));
    assert_eq!(d.observed.len(), 1);
    assert_eq!(d.condition_count(), 0);
    // An admitted observation the model forbids is still a violation.
    let d = diff(&p, &h, &allowed, &run(&[(&state(1, 0), 3)]));
    assert_eq!((d.violations, d.filtered), (3, 0));
    assert_eq!(d.condition_count(), 3);
}

#[test]
fn a_bounded_enumeration_never_produces_violations() {
    let p = parse(MP, "mp.litmus").unwrap();
    let h = generate(&p).unwrap();
    let allowed = Allowed {
        model: "test".into(),
        states: Some(BTreeSet::new()),
        bounded: true,
    };
    let d = diff(&p, &h, &allowed, &run(&[(&[1, 0], 3)]));
    assert_eq!(d.violations, 0);
    assert_eq!(d.observed[0].allowed, None);
}
