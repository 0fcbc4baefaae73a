//! Liveness witnesses and options on the corpus's liveness tests (their verdicts are checked by
//! `scopecheck check corpus`, from `corpus/litmus/liveness/MANIFEST.csv`).

use scopecheck_model::axiomatic::liveness::{liveness, Fate, Options, Progress, Verdict};
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
fn a_loop_whose_iteration_writes_is_no_spin_and_leaves_the_verdict_bounded() {
    // The loop bumps a counter each time round: no iteration repeats the one before (no spin),
    // and it never ends either (f stays 0). No hang is found at any bound, but every bound
    // cuts a run after an iteration that wrote: bounded, never `terminates`.
    let src = "PTX counter-loop\n{ c=0; f=0; }\n P0@cta 0,gpu 0 ;\n LC00: ;\n atom.relaxed.gpu.add r1, c, 1 ;\n ld.relaxed.gpu r0, f ;\n beq r0, 0, LC00 ;\nexists (P0:r0 == 0)\n";
    let p = scopecheck_model::litmus::parse(src, "counter-loop").unwrap();
    let l = liveness(&p, Model::PtxV75, &Options::default()).unwrap();
    assert_eq!(l.verdict, Verdict::Bounded);
    assert!(!l.terminates && l.hang.is_none());
    let cut = l.cut.expect("the loop the bound cut");
    assert_eq!((cut.thread, cut.span.line), (0, 7));
    // The bound was raised to the budget before answering.
    assert_eq!(l.unroll, Options::default().budget());
}

fn parse(src: &str) -> Program {
    scopecheck_model::litmus::parse(src, "test.litmus").unwrap_or_else(|e| panic!("{e}"))
}

/// One verdict at exactly `unroll` (no raising).
fn at(p: &Program, unroll: u32) -> Verdict {
    let opts = Options {
        unroll,
        max_unroll: Some(unroll),
        ..Options::default()
    };
    liveness(p, Model::PtxV75, &opts).unwrap().verdict
}

#[test]
fn a_loop_that_only_reads_is_covered_by_the_bound() {
    // An await loop: its iterations read and change no register it reads first; every run
    // that takes it more often than the bound is matched by a shorter one, so the verdict is
    // decided at unroll 1 already, both ways.
    let set = parse(
        "PTX await\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu f, 1 ;\n ld.relaxed.gpu r0, f | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n",
    );
    assert_eq!(at(&set, 1), Verdict::Terminates);
    let never = parse(
        "PTX await-never\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu g, 1 ;\n ld.relaxed.gpu r0, f | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n",
    );
    assert_eq!(at(&never, 1), Verdict::CanHang);
}

#[test]
fn a_register_the_loop_carries_makes_its_iterations_count() {
    // The same await loop counting its iterations in r1, which the loop reads before writing:
    // an iteration changes the thread's state, so a cut run is not covered. P1 sets f, so there
    // is no spin either: bounded.
    let counting = parse(
        "PTX await-counting\n{ f=0; P0:r1=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu f, 1 ;\n ld.relaxed.gpu r0, f | ;\n add r1, r1, 1 | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n",
    );
    assert_eq!(at(&counting, 2), Verdict::Bounded);
    // A register written before it is read each time round (r0) is no state: still covered.
    let reloading = parse(
        "PTX await-reloading\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | st.relaxed.gpu f, 1 ;\n ld.relaxed.gpu r0, f | ;\n add r2, r0, 1 | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n",
    );
    assert_eq!(at(&reloading, 2), Verdict::Terminates);
}

#[test]
fn a_hang_beyond_the_bound_is_found_by_raising_it() {
    // P1 must take its writing loop three times before P0's spin can start (P0 waits for
    // c == 3); at unroll 1 no hang is reachable, and the writing loop is cut: not
    // `terminates`. The default budget raises the bound until the hang shows.
    let p = parse(
        "PTX hang-after-three\n{ c=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | LC10: ;\n ld.relaxed.gpu r0, c | atom.relaxed.gpu.add r1, c, 1 ;\n bne r0, 3, LC00 | bne r1, 2, LC10 ;\n LC01: | ;\n ld.relaxed.gpu r2, f | ;\n beq r2, 0, LC01 | ;\nexists (P0:r2 == 0)\n",
    );
    assert_eq!(at(&p, 1), Verdict::Bounded);
    let opts = Options {
        unroll: 1,
        max_unroll: Some(4),
        ..Options::default()
    };
    let l = liveness(&p, Model::PtxV75, &opts).unwrap();
    assert_eq!(l.verdict, Verdict::CanHang);
    assert!(l.unroll > 1, "found at unroll {}", l.unroll);
    assert_eq!(l.hang.unwrap().fates, [Fate::Spins, Fate::Done]);
}

#[test]
fn a_spin_on_a_value_only_thin_air_gives_hangs_only_without_no_thin_air() {
    // Load buffering that copies x to y and back, and P0 then waits while x is 42. Only a
    // data-flow cycle can give x the value 42: the PTX models' No-Thin-Air axiom rejects it
    // (the loop ends); Tile IR admits the cycle but no value out of thin air (its 7.9,
    // `withoutthinair`), so the loop ends too; a model with neither (tile-ir.cat without the
    // option, as Vulkan and OpenCL) lets P0 read 42, the coherence-last value of x, forever.
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
    assert!(liveness(&p, Model::TileIr, &opts).unwrap().terminates);
    let text = scopecheck_model::cat::builtin_text("tile-ir").expect("built in");
    let thin_air = scopecheck_model::cat::CatModel::parse(
        "tile-ir-thin-air.cat",
        &text.replacen(" withoutthinair", "", 1),
    )
    .expect("it compiles");
    let model = Model::Cat(std::sync::Arc::new(thin_air));
    let hang = liveness(&p, model, &opts)
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
