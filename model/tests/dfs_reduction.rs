//! Partial-order reduction loses nothing: the reduced DFS reaches exactly the final states, races
//! and cut executions of the unreduced one on the corpus's litmus programs and on generated
//! ones, and the same verdicts on the corpus's kernel models.

#[path = "../../corpus/bugs/mod.rs"]
#[allow(dead_code)]
mod corpus;

use scopecheck_model::engine::Dfs;
use scopecheck_model::kernel::{Checker, Verdict};
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::{parse, Program};
use scopecheck_model::runtime::litmus::{explore_with, Options};
use std::path::Path;

fn dfs(reduction: bool) -> Dfs {
    Dfs {
        max_executions: 200_000,
        reduction,
    }
}

/// Compare both searches on one program; returns (reduced, unreduced) execution counts.
fn same_outcomes(name: &str, p: &Program) -> (u64, u64) {
    let opts = Options::default();
    let full = explore_with(p, &dfs(false), &opts);
    let reduced = explore_with(p, &dfs(true), &opts);
    assert!(full.error.is_none(), "{name}: {:?}", full.error);
    assert_eq!(reduced.states, full.states, "{name}: final states differ");
    assert_eq!(
        reduced.racy > 0,
        full.racy > 0,
        "{name}: race verdicts differ"
    );
    assert_eq!(
        reduced.cut > 0,
        full.cut > 0,
        "{name}: cut executions differ"
    );
    assert_eq!(
        reduced.complete, full.complete,
        "{name}: completeness differs"
    );
    let runs = |o: &scopecheck_model::runtime::litmus::Outcomes| o.executions + o.cut;
    assert!(
        runs(&reduced) <= runs(&full),
        "{name}: reduction explored more"
    );
    (runs(&reduced), runs(&full))
}

fn litmus_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("corpus/litmus is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            litmus_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path);
        }
    }
}

#[test]
fn corpus_litmus_programs_reach_the_same_outcomes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus");
    let mut files = Vec::new();
    litmus_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 20, "the litmus corpus is there");
    let (mut reduced, mut full) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable litmus file");
        let p = parse(&text, &f.display().to_string()).expect("the corpus parses");
        let (r, u) = same_outcomes(&f.display().to_string(), &p);
        reduced += r;
        full += u;
    }
    println!(
        "{} programs: {reduced} executions reduced, {full} unreduced",
        files.len()
    );
}

#[test]
fn generated_programs_reach_the_same_outcomes() {
    let (mut reduced, mut full) = (0, 0);
    for seed in 0..300u64 {
        let limits = if seed % 3 == 2 {
            Limits {
                max_events: 8,
                ..Limits::default()
            }
        } else {
            Limits::differential()
        };
        let p = from_seed_with(seed, &limits);
        let (r, u) = same_outcomes(&format!("seed {seed}"), &p);
        reduced += r;
        full += u;
    }
    println!("300 programs: {reduced} executions reduced, {full} unreduced");
}

#[test]
fn corpus_kernel_models_get_the_same_verdicts() {
    let mut compared = 0;
    for case in corpus::all()
        .into_iter()
        .filter(|c| c.explore == corpus::Explore::Exhaustive)
    {
        let unreduced = Dfs {
            max_executions: 20_000,
            reduction: false,
        };
        let full = case.run(&Checker::new(unreduced));
        let reduced = case.run(&Checker::new(dfs(true)));
        println!(
            "{}: {} / {}",
            case.name, reduced.executions, full.executions
        );
        let failed = |v: Verdict| matches!(v, Verdict::Fail(_));
        if full.complete || failed(full.verdict()) {
            assert_eq!(
                failed(reduced.verdict()),
                failed(full.verdict()),
                "{}: {reduced}\n{full}",
                case.name
            );
            assert!(case.agrees(&reduced), "{}: {reduced}", case.name);
            compared += 1;
        }
        if full.complete {
            assert!(reduced.complete, "{}: {reduced}", case.name);
        }
    }
    assert!(compared > 10, "only {compared} cases compared");
}

/// Found by `litmus_states` (generated seed 355, minimised): `P0` must read `x = 1` from `P2`
/// and still write `z` before `P1`. With `P0`'s load asleep (explored first from the initial
/// state) until `P2`'s store to `x`, Flanagan and Godefroid's rule answered the race on `z` by
/// scheduling `P0` earlier, where it is asleep, so that execution was never run; source sets
/// schedule `P2` there instead.
#[test]
fn a_sleeping_load_does_not_hide_a_later_race() {
    let text = "PTX sleeping-load
{
x=0;
y=0;
z=0;
}
 P0@cta 3,gpu 0       | P1@cta 3,gpu 0       | P2@cta 2,gpu 1      ;
 ld.relaxed.sys r0, x | ld.relaxed.sys r0, y | st.relaxed.gpu y, 1 ;
 st.relaxed.gpu z, 3  | st.relaxed.gpu z, 2  | st.relaxed.gpu x, 1 ;
exists (P0:r0 == 1 /\\ z == 2)
";
    let p = parse(text, "sleeping-load.litmus").expect("the test parses");
    same_outcomes("sleeping-load", &p);
}
