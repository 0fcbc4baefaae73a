//! The engine differential over a fixed set of generated programs, so CI runs the fuzzer's
//! check without nightly: on every program the runtime reaches only states ptx-v7.5 allows.

use scopecheck_model::differential::{
    check, finding_file, sc, shrink, uses_cluster_barriers, Finding, Options,
};
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::{parse, Fence, Instr, Prop};

const SEEDS: std::ops::Range<u64> = 0..1000;

/// Every fourth program comes from the generator's full shape (up to 4 threads of 4 instructions)
/// cut to 8 instructions; the others from the fuzz targets' narrower shape.
fn limits(seed: u64) -> Limits {
    if seed % 4 == 3 {
        Limits {
            max_events: 8,
            ..Limits::default()
        }
    } else {
        Limits::differential()
    }
}

#[test]
fn runtime_states_are_allowed_on_fixed_seeds() {
    let mut failures = Vec::new();
    let mut reached = 0;
    let (mut racy, mut race_free, mut cluster) = (0, 0, 0);
    for seed in SEEDS {
        let p = from_seed_with(seed, &limits(seed));
        // Cluster barriers never hang a generated program (every run finishes: `reached`).
        cluster += usize::from(uses_cluster_barriers(&p));
        match check(&p, &Options::default()) {
            Ok(a) => {
                match a.races_compared {
                    Some(true) => racy += 1,
                    Some(false) => race_free += 1,
                    None => {}
                }
                assert!(a.reached >= 1, "seed {seed}: the runtime reached no state");
                assert!(
                    a.runtime_complete,
                    "seed {seed}: the runtime ran out of budget"
                );
                assert!(a.sequentially_consistent <= a.reached, "seed {seed}");
                reached += a.reached;
            }
            Err(f) => failures.push(format!("seed {seed}: {f}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{} programs ({cluster} with cluster barriers), {reached} reached states in all; race \
         verdicts agree on {racy} racy and {race_free} race-free programs",
        SEEDS.end
    );
    assert!(cluster >= 30, "{cluster} programs with cluster barriers");
    // Race verdicts are compared on most programs, and both verdicts occur.
    assert!((racy + race_free) * 10 >= SEEDS.end as usize * 9);
    assert!(
        racy > 0 && race_free > 0,
        "{racy} racy, {race_free} race-free"
    );
}

/// The check can fail: a runtime state the axioms forbid is reported with both sets.
#[test]
fn a_forbidden_state_is_a_disagreement() {
    let p = from_seed_with(3, &Limits::differential());
    let reached =
        scopecheck_model::runtime::litmus::explore(&p, &scopecheck_model::engine::Dfs::default());
    let mut allowed = reached.clone();
    let dropped = allowed.pop_first().expect("the runtime reaches some state");
    let f = Finding::Disagreement {
        program: scopecheck_model::litmus::print(&p),
        model: "ptx-v7.5",
        allowed,
        reached,
    };
    assert_eq!(f.forbidden(), vec![&dropped]);
    let text = f.to_string();
    assert!(
        text.contains("reached by the runtime but forbidden") && text.contains("PTX generated")
    );
}

#[test]
fn shrinking_keeps_the_failure_and_drops_the_rest() {
    let has_sc_fence = |p: &scopecheck_model::litmus::Program| {
        p.threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| matches!(s.instr, Instr::Fence(Fence::Sc(_))))
    };
    let seed = (0..)
        .find(|&s| {
            let p = from_seed_with(s, &Limits::default());
            has_sc_fence(&p) && p.threads.iter().map(|t| t.body.len()).sum::<usize>() > 4
        })
        .unwrap();
    let small = shrink(&from_seed_with(seed, &Limits::default()), has_sc_fence);
    assert!(has_sc_fence(&small));
    assert_eq!(small.condition.prop, Prop::True);
    assert_eq!(small.threads.len(), 1, "{small:?}");
    assert_eq!(small.threads[0].body.len(), 1);
}

#[test]
fn finding_files_parse_and_carry_their_verdict() {
    let p = from_seed_with(5, &Limits::differential());
    let f = Finding::AxiomaticError {
        program: String::new(),
        message: "a \"quoted\"\nmessage".into(),
    };
    let text = finding_file(&p, "fuzz-seed-5", &f, "test");
    let back = parse(&text, "finding").unwrap();
    assert_eq!(back.threads, p.threads);
    assert_eq!(back.name, "fuzz-seed-5");
    assert!(back.comments[0].starts_with("found: (test) the axiomatic engine refused"));
    assert_eq!(back.comments[1], "expect: engines agree");
}

#[test]
fn sc_reference_gives_the_interleaving_outcomes_of_store_buffering() {
    let sb = parse(
        "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n",
        "SB",
    )
    .unwrap();
    let outcomes: Vec<(i64, i64)> = sc::final_states(&sb)
        .unwrap()
        .iter()
        .map(|s| (s.regs["P0:r0"], s.regs["P1:r1"]))
        .collect();
    assert_eq!(outcomes, vec![(0, 1), (1, 0), (1, 1)]);
    // The weak outcome is the axioms' (and the runtime's) alone; the engines agree here.
    assert!(check(&sb, &Options::default()).is_ok());
}

#[test]
fn sc_reference_leaves_barriers_and_branches_to_the_engines() {
    let with_barrier = parse(
        "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0 | bar.cta.sync 0 ;\nexists (x == 0)\n",
        "B",
    )
    .unwrap();
    assert!(sc::final_states(&with_barrier).is_none());
}

/// Fuzz inputs: a small litmus file is itself; other bytes feed the generator.
#[test]
fn fuzz_inputs_decode_as_litmus_files_or_generator_bytes() {
    use scopecheck_model::differential::decode_input;
    use scopecheck_model::litmus::arbitrary::program;
    let p = from_seed_with(7, &Limits::differential());
    let text = scopecheck_model::litmus::print(&p);
    assert_eq!(decode_input(text.as_bytes()), Some(p));
    let bytes = [0x5au8; 64];
    let generated = program(
        &mut arbitrary::Unstructured::new(&bytes),
        &Limits::differential(),
    )
    .ok();
    assert!(generated.is_some());
    assert_eq!(decode_input(&bytes), generated);
}

/// Programs that differ only in their final condition share a check key (the fuzz target checks
/// one of them); any other difference shows.
#[test]
fn the_check_key_leaves_out_the_condition() {
    use scopecheck_model::differential::check_key;
    let src = |condition: &str| {
        format!(
            "PTX keyed\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n{condition}\n"
        )
    };
    let key = |condition: &str| check_key(&parse(&src(condition), "keyed.litmus").unwrap());
    assert_eq!(
        key("exists (P1:r0 == 1)"),
        key("~exists (P1:r0 == 0 /\\ x == 1)")
    );
    let other = src("exists (P1:r0 == 1)").replace("st.relaxed.gpu x, 1", "st.relaxed.gpu x, 2");
    assert_ne!(
        key("exists (P1:r0 == 1)"),
        check_key(&parse(&other, "keyed.litmus").unwrap())
    );
}

/// The threadfence reduction's counter reset: the block whose `atom.add` reads the other's
/// increment resets the counter with a weak store. The other block's RMW is observed by that
/// RMW, which precedes the store in program order, so the two are ordered by causality (PTX ISA
/// "Causality order": observation followed by base causality) and both engines find no race.
/// Resetting unconditionally (also when the other block has not added yet) is a race for both.
#[test]
fn the_counter_reset_races_only_when_not_observed() {
    let guarded = "PTX counter-reset
{ c=0; }
 P0@cta 0,gpu 0                | P1@cta 1,gpu 0                ;
 atom.relaxed.gpu.add r0, c, 1 | atom.relaxed.gpu.add r1, c, 1 ;
                               | bne r1, 1, LC10               ;
                               | st.weak c, 0                  ;
                               | LC10:                         ;
exists (c == 0)
";
    let always = guarded.replace("bne r1, 1, LC10", "");
    for (text, racy) in [(guarded, false), (always.as_str(), true)] {
        let p = parse(text, "reset.litmus").unwrap();
        let a = check(&p, &Options::default()).unwrap_or_else(|f| panic!("{f}"));
        assert_eq!(a.races_compared, Some(racy), "{text}");
    }
}

/// A race verdict disagreement is a finding that names which engine saw the race.
#[test]
fn a_race_verdict_disagreement_says_who_saw_the_race() {
    let mut state = scopecheck_model::axiomatic::FinalState::default();
    state.mem.insert("x".to_string(), 1);
    let f = Finding::RaceVerdict {
        program: "PTX t\n".to_string(),
        state: Some(state),
        model: "ptx-v7.5",
        axioms_racy: true,
        runtime_racy: false,
    };
    assert_eq!(
        f.summary(),
        "ptx-v7.5 finds a data race on the way to x=1, the runtime none"
    );
}
