//! Litmus programs on the runtime: the runtime's final states must be a subset of the axiomatic
//! engine's (PTX v7.5) on every shared Dartagnan test it can run, and it must reach the
//! interesting outcome of the classic shapes the axiomatic model allows.
//!
//! The oracle test is run by `shared_oracle.rs` (skipped, and reported so, without the oracle).

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::engine::{Dfs, Engine, Loom, Random};
use scopecheck_model::litmus::{parse, parse_file, Instr, Program};
use scopecheck_model::runtime::litmus::{explore, explore_with, Options as RunOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SB: &str = r#"PTX SB
{
x=0;
y=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
 st.relaxed.gpu x, 1    | st.relaxed.gpu y, 1    ;
 ld.relaxed.gpu r0, y   | ld.relaxed.gpu r0, x   ;

exists (P0:r0 == 0 /\ P1:r0 == 0)
"#;

const SB_FENCED: &str = r#"PTX SB+fences
{
x=0;
y=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
 st.relaxed.gpu x, 1    | st.relaxed.gpu y, 1    ;
 fence.sc.gpu           | fence.sc.gpu           ;
 ld.relaxed.gpu r0, y   | ld.relaxed.gpu r0, x   ;

exists (P0:r0 == 0 /\ P1:r0 == 0)
"#;

/// Does some thread branch back to an earlier label (a loop)?
fn has_backward_branch(p: &Program) -> bool {
    p.threads.iter().any(|th| {
        let label_at = |name: &str| {
            th.body
                .iter()
                .position(|s| matches!(&s.instr, Instr::Label(l) if l == name))
        };
        th.body.iter().enumerate().any(|(i, s)| match &s.instr {
            Instr::Branch { target, .. } => label_at(target).is_some_and(|l| l < i),
            _ => false,
        })
    })
}

fn states_of(src: &str, engine: &dyn Engine) -> BTreeSet<String> {
    let p = parse(src, "inline.litmus").expect("parses");
    explore(&p, engine).iter().map(|s| s.to_string()).collect()
}

#[test]
fn store_buffering_outcomes_agree_with_the_axiomatic_model() {
    for src in [SB, SB_FENCED] {
        let p = parse(src, "inline.litmus").unwrap();
        let axiomatic: BTreeSet<String> = analyze(&p, Model::PtxV75, &every_location())
            .unwrap()
            .states
            .iter()
            .map(|s| s.state.to_string())
            .collect();
        for engine in [
            &Dfs::default() as &dyn Engine,
            &Loom::default(),
            &Random {
                iterations: 200,
                seed: 3,
            },
        ] {
            let ours = states_of(src, engine);
            println!("{}: {} {ours:?} ⊆ {axiomatic:?}", p.name, engine.name());
            assert!(
                ours.is_subset(&axiomatic),
                "{}: {ours:?} not within {axiomatic:?}",
                engine.name()
            );
        }
        // The exhaustive engines reach every SB outcome the axiomatic model allows.
        assert_eq!(states_of(src, &Dfs::default()), axiomatic);
    }
    let both_zero = "P0:r0=0; P1:r0=0; x=1; y=1";
    assert!(states_of(SB, &Dfs::default()).contains(both_zero));
    assert!(!states_of(SB_FENCED, &Dfs::default()).contains(both_zero));
}

/// Run by `shared_oracle.rs`, which reports it as skipped when there is no shared oracle.
pub fn runtime_outcomes_are_within_the_axiomatic_ones_on_the_oracle_tests(shared: &Path) {
    let table = scopecheck_model::expected::Expected::read(&shared.join("oracle/ptx/expected.csv"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut checked, mut equal, mut skipped) = (0, 0, Vec::new());
    let mut violations = Vec::new();
    for row in &table.rows {
        let test = row.test.as_str();
        let path: PathBuf = shared.join("oracle/ptx/tests").join(test);
        let p = match parse_file(Path::new(&path)) {
            Ok(p) => p,
            Err(e) => {
                skipped.push(format!("{test}: {e}"));
                continue;
            }
        };
        let t0 = std::time::Instant::now();
        if has_backward_branch(&p) && std::env::var_os("SCOPECHECK_SLOW_TESTS").is_none() {
            // The axiomatic engine needs about half a minute per ticket lock in a debug build
            // (and then declines them); set SCOPECHECK_SLOW_TESTS=1 to include loops.
            skipped.push(format!("{test}: has a loop (set SCOPECHECK_SLOW_TESTS=1)"));
            continue;
        }
        let Ok(axiomatic) = analyze(&p, Model::PtxV75, &every_location()) else {
            if std::env::var_os("TIMING").is_some() {
                println!("TIME {test} axiomatic declines after {:?}", t0.elapsed());
            }
            skipped.push(format!("{test}: axiomatic engine declines"));
            continue;
        };
        let axiomatic: BTreeSet<_> = axiomatic.states.into_iter().map(|s| s.state).collect();
        let t1 = std::time::Instant::now();
        let ours = explore_with(
            &p,
            &Dfs {
                max_executions: 3_000,
                ..Dfs::default()
            },
            &RunOptions::default(),
        );
        if std::env::var_os("TIMING").is_some() {
            println!(
                "TIME {test} axiomatic {:?} runtime {:?} ({} executions)",
                t1 - t0,
                t1.elapsed(),
                ours.executions
            );
        }
        if let Some(e) = ours.error {
            skipped.push(format!("{test}: {e}"));
            continue;
        }
        checked += 1;
        if ours.states == axiomatic {
            equal += 1;
        }
        let extra: Vec<String> = ours
            .states
            .difference(&axiomatic)
            .map(|s| s.to_string())
            .collect();
        if !extra.is_empty() {
            violations.push(format!(
                "{test}: runtime reaches {extra:?}, which the axiomatic model forbids"
            ));
        }
    }
    println!("runtime ⊆ axiomatic on {checked} oracle tests ({equal} with equal outcome sets); skipped {}", skipped.len());
    for s in &skipped {
        println!("  skipped {s}");
    }
    assert!(checked > 150, "too few oracle tests ran: {checked}");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The runtime reports every location's final value: so must the analysis it is compared with.
fn every_location() -> Options {
    Options {
        memory: scopecheck_model::axiomatic::FinalMemory::All,
        ..Options::default()
    }
}

/// The folder `corpus/litmus/NAME` and its litmus files, sorted.
fn corpus_litmus(name: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/litmus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    (dir, files)
}

/// `cp.async` runs on the CTA's copy agent: on every corpus `cp.async` test the runtime's final
/// states lie within the axiomatic ones, the exhaustive engines reach every allowed outcome of
/// these small tests, and the copy lands late enough to show the outcomes a missing wait allows
/// (the consumer sees the flag and the initial value; the issuer reads its own old value).
#[test]
fn cp_async_runs_on_the_copy_agent_within_the_axiomatic_outcomes() {
    let (dir, files) = corpus_litmus("cp-async");
    assert!(files.len() >= 7, "{files:?}");
    for path in &files {
        let p = parse_file(path).unwrap();
        let axiomatic: BTreeSet<_> = analyze(&p, Model::PtxV75, &every_location())
            .unwrap()
            .states
            .into_iter()
            .map(|s| s.state)
            .collect();
        let ours = explore_with(&p, &Dfs::default(), &RunOptions::default());
        assert!(ours.error.is_none(), "{}: {:?}", path.display(), ours.error);
        assert!(ours.complete, "{}", path.display());
        assert_eq!(ours.states, axiomatic, "{}", path.display());
    }
    let weak = |file: &str, outcome: &str| {
        let p = parse_file(&dir.join(file)).unwrap();
        explore(&p, &Dfs::default())
            .iter()
            .any(|s| s.to_string().contains(outcome))
    };
    assert!(weak("MP-no-wait.litmus", "P1:r0=1; P1:r1=0"));
    assert!(!weak("MP-wait-all.litmus", "P1:r0=1; P1:r1=0"));
}

/// `cp.async` copies of one CTA are performed by one copy agent, but PTX orders a copy only after
/// what its issuer knew at the issue and before what follows its issuer's `wait_group` (*cp.async*:
/// "There is no ordering guarantee between two cp.async operations if they are not explicitly
/// synchronized"). The runtime must find the data races the axioms find — between the copies of
/// two threads, between two copies of one thread, and between a copy and a thread that waited
/// only for its own copies — and none where a wait orders the copies.
#[test]
fn cp_async_copies_race_as_the_axioms_say() {
    use scopecheck_model::differential::{check, Options as DiffOptions};
    let program = |name: &str, init: &str, threads: &[&[&str]], exists: &str| {
        let mut text = format!("PTX {name}\n{{\n{init}\n}}\n");
        let head: Vec<String> = (0..threads.len())
            .map(|t| format!("P{t}@cta 1,gpu 0"))
            .collect();
        text += &format!(" {} ;\n", head.join(" | "));
        let rows = threads.iter().map(|t| t.len()).max().unwrap_or(0);
        for i in 0..rows {
            let row: Vec<&str> = threads.iter().map(|t| *t.get(i).unwrap_or(&"")).collect();
            text += &format!(" {} ;\n", row.join(" | "));
        }
        text + &format!("exists ({exists})\n")
    };
    let cases = [
        (
            "two-threads-copy-to-one-location",
            program(
                "two-threads",
                "y=1; z=0;",
                &[
                    &["cp.async.ca.shared.global z, y, 4"],
                    &["cp.async.ca.shared.global z, y, 4"],
                ],
                "z == 1",
            ),
            true,
        ),
        (
            "one-thread-two-copies-to-one-location",
            program(
                "one-thread",
                "x=1; y=2; z=0;",
                &[&[
                    "cp.async.ca.shared.global z, y, 4",
                    "cp.async.ca.shared.global z, x, 4",
                    "cp.async.wait_all",
                ]],
                "z == 1",
            ),
            true,
        ),
        (
            "one-thread-copies-ordered-by-a-wait",
            program(
                "one-thread-wait",
                "x=1; y=2; z=0;",
                &[&[
                    "cp.async.ca.shared.global z, y, 4",
                    "cp.async.wait_all",
                    "cp.async.ca.shared.global z, x, 4",
                    "cp.async.wait_all",
                ]],
                "z == 1",
            ),
            false,
        ),
        (
            "waiting-for-own-copy-orders-not-the-others",
            program(
                "wait-own",
                "y=2; z=0; w=0;",
                &[
                    &[
                        "cp.async.ca.shared.global z, y, 4",
                        "cp.async.wait_all",
                        "ld.weak r0, w",
                    ],
                    &["cp.async.ca.shared.global w, y, 4"],
                ],
                "0:r0 == 2",
            ),
            true,
        ),
        (
            "copy-after-barrier-read-by-the-other-thread",
            program(
                "barrier",
                "y=2; z=0;",
                &[
                    &[
                        "cp.async.ca.shared.global z, y, 4",
                        "cp.async.wait_all",
                        "bar.cta.sync 0",
                    ],
                    &["bar.cta.sync 0", "ld.weak r0, z"],
                ],
                "1:r0 == 2",
            ),
            false,
        ),
    ];
    for (name, text, racy) in cases {
        let p = parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        match check(&p, &DiffOptions::default()) {
            Ok(agreement) => assert_eq!(agreement.races_compared, Some(racy), "{name}:\n{text}"),
            Err(finding) => panic!("{name}: {finding}"),
        }
    }
}

/// Warp instructions (`bar.warp.sync`, `shfl.sync`, `vote.sync`, lowered to slots and barriers
/// by the parser): on every corpus warp test the engines agree, final states and data races.
#[test]
fn warp_exchanges_agree_between_the_engines() {
    use scopecheck_model::differential::{check, Options as DiffOptions};
    let (_, files) = corpus_litmus("warp");
    assert!(files.len() >= 7, "{files:?}");
    for path in &files {
        let p = parse_file(path).unwrap();
        if let Err(finding) = check(&p, &DiffOptions::default()) {
            panic!("{}: {finding}", path.display());
        }
    }
}
