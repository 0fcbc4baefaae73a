//! Liveness witnesses and options on the corpus's liveness tests (their verdicts are checked by
//! `scopecheck check corpus`, from `corpus/litmus/liveness/MANIFEST.csv`).

use scopecheck_model::axiomatic::liveness::{liveness, Fate, Options, Progress};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::litmus::{parse_file, Program};
use std::path::PathBuf;

fn corpus(name: &str) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/litmus/liveness")
        .join(name);
    parse_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn under(progress: Progress) -> Options {
    Options {
        progress,
        ..Options::default()
    }
}

#[test]
fn a_spin_witness_names_the_thread_the_loop_and_a_repeating_iteration_of_reads() {
    let p = corpus("spin-weak-flag-overwritten.litmus");
    let l = liveness(&p, Model::PtxV75, &Options::default()).unwrap();
    let hang = l.hang.expect("can hang");
    assert!(!l.terminates);
    assert_eq!(hang.fates, [Fate::Spins, Fate::Done]);
    let stuck = &hang.stuck[0];
    assert_eq!((stuck.thread, stuck.fate), (0, Fate::Spins));
    assert_eq!(stuck.span.line, 12, "the loop's backward branch");
    assert!(!stuck.iteration.is_empty());
    for e in &stuck.iteration {
        let ev = &hang.execution.events[*e];
        assert_eq!(ev.thread, Some(0));
        assert!(ev.label.starts_with("R.weak f=1"), "{}", ev.label);
    }
    // The value read forever is the coherence-last write of f: P0's own f=1.
    let read = stuck.iteration[0];
    let (w, _) = hang.execution.rf.iter().find(|(_, r)| *r == read).unwrap();
    assert!(
        hang.execution.co.iter().all(|(a, _)| a != w),
        "rf source is co-last"
    );
}

#[test]
fn a_barrier_witness_blocks_every_thread_of_the_crossed_barriers() {
    let p = corpus("barrier-crossed-named.litmus");
    let hang = liveness(&p, Model::PtxV60, &Options::default())
        .unwrap()
        .hang
        .expect("can hang");
    assert_eq!(hang.fates, [Fate::Blocked, Fate::Blocked]);
    assert_eq!(hang.stuck.len(), 2);
    assert!(hang.stuck.iter().all(|s| s.iteration.is_empty()));
}

#[test]
fn occupancy_bound_hangs_need_a_thread_that_has_not_started() {
    let p = corpus("spin-flag-set-later-block.litmus");
    assert!(
        liveness(&p, Model::PtxV75, &under(Progress::Fair))
            .unwrap()
            .terminates
    );
    let hang = liveness(&p, Model::PtxV75, &under(Progress::Obe))
        .unwrap()
        .hang
        .expect("the setter's block may never start");
    assert_eq!(hang.fates, [Fate::Spins, Fate::Stopped]);
    assert!(hang.execution.events.iter().all(|e| e.thread != Some(1)));
}

#[test]
fn hsa_may_stop_a_started_thread_between_two_writes() {
    let p = corpus("spin-hsa-paused-setter.litmus");
    for progress in Progress::ALL {
        let l = liveness(&p, Model::PtxV75, &under(progress)).unwrap();
        assert_eq!(l.terminates, progress != Progress::Hsa, "{progress}");
    }
    let hang = liveness(&p, Model::PtxV75, &under(Progress::Hsa))
        .unwrap()
        .hang
        .unwrap();
    // P1 wrote f=1 and stopped.
    let p1: Vec<&str> = hang
        .execution
        .events
        .iter()
        .filter(|e| e.thread == Some(1))
        .map(|e| e.label.as_str())
        .collect();
    assert_eq!(p1, ["W.rlx.gpu f=1"]);
}

#[test]
fn a_loop_whose_iteration_writes_is_no_spin() {
    // The loop bumps a counter each time round: it changes what it reads, so it is not judged.
    let src = "PTX counter-loop\n{ c=0; f=0; }\n P0@cta 0,gpu 0 ;\n LC00: ;\n atom.relaxed.gpu.add r1, c, 1 ;\n ld.relaxed.gpu r0, f ;\n beq r0, 0, LC00 ;\nexists (P0:r0 == 0)\n";
    let p = scopecheck_model::litmus::parse(src, "counter-loop").unwrap();
    assert!(
        liveness(&p, Model::PtxV75, &Options::default())
            .unwrap()
            .terminates
    );
}

#[test]
fn a_spin_on_a_value_only_thin_air_gives_hangs_only_without_no_thin_air() {
    // Load buffering that copies x to y and back, and P0 then waits while x is 42. Only a
    // data-flow cycle can give x the value 42: the PTX models' No-Thin-Air axiom rejects it
    // (the loop ends), Tile IR has no such axiom and admits the cycle, so P0 may read 42,
    // the coherence-last value of x, forever.
    let src = "PTX lb-copy-spin
{ x=0; y=0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 ld.relaxed.gpu r0, x  | ld.relaxed.gpu r1, y  ;
 st.relaxed.gpu y, r0  | st.relaxed.gpu x, r1  ;
 LC00:                 |                       ;
 ld.relaxed.gpu r2, x  |                       ;
 beq r2, 42, LC00      |                       ;
exists (P0:r2 == 0)
";
    let p = scopecheck_model::litmus::parse(src, "lb-copy-spin").unwrap();
    let opts = Options::default();
    assert!(liveness(&p, Model::PtxV75, &opts).unwrap().terminates);
    let hang = liveness(&p, Model::TileIr, &opts)
        .unwrap()
        .hang
        .expect("a self-justified 42 spins forever");
    assert_eq!(hang.fates, [Fate::Spins, Fate::Done]);
}

#[test]
fn progress_models_have_their_command_line_names_and_unroll_zero_is_refused() {
    for progress in Progress::ALL {
        assert_eq!(Progress::from_name(progress.name()), Some(progress));
    }
    assert_eq!(Progress::from_name("unfair"), None);
    let p = corpus("spin-flag-never-set.litmus");
    let opts = Options {
        unroll: 0,
        ..Options::default()
    };
    let e = liveness(&p, Model::PtxV75, &opts).unwrap_err();
    assert!(e.message.contains("--unroll 1"), "{e}");
}
