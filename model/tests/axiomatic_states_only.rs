//! The axiomatic engine's states-only search ([`analyze_states`], which stops looking for
//! executions of a final state it already has) against the counting one ([`analyze`]): the same
//! final states, the same verdict and bound, the same errors, under every model, on the shared
//! Dartagnan tests, the corpus' litmus files, generated programs and RMW-heavy programs like the
//! ones the `engines` fuzz target drifts toward.

use scopecheck_model::axiomatic::{analyze, analyze_states, Analysis, FinalState, Model, Options};
use scopecheck_model::litmus::arbitrary::{from_seed_with, Limits};
use scopecheck_model::litmus::{collect_files, parse, parse_file, print, Program};
use std::path::{Path, PathBuf};

/// What both searches must agree on.
type Summary = Result<(Vec<FinalState>, bool, bool), String>;

fn summary(a: &Result<Analysis, String>) -> Summary {
    a.clone().map(|a| {
        let states = a.states.into_iter().map(|s| s.state).collect();
        (states, a.holds, a.bounded)
    })
}

/// Compares both searches of `p` under every model.
fn compare(name: &str, p: &Program) {
    compare_under(name, p, &Model::ALL);
}

/// Returns the executions each search met, over the models.
fn compare_under(name: &str, p: &Program, models: &[Model]) -> (u64, u64) {
    let opts = Options::default();
    let mut met = (0, 0);
    for model in models {
        let counted = analyze(p, model.clone(), &opts).map_err(|e| e.to_string());
        let found = analyze_states(p, model.clone(), &opts).map_err(|e| e.to_string());
        assert_eq!(
            summary(&counted),
            summary(&found),
            "{name}, {model}: the states-only search disagrees with the counting one\n{}",
            print(p)
        );
        if let (Ok(counted), Ok(found)) = (&counted, &found) {
            // Each state found has an execution; the states-only search meets no more.
            assert!(found.states.iter().all(|s| s.witnesses >= 1), "{name}");
            assert!(found.executions <= counted.executions, "{name}, {model}");
            met.0 += counted.executions;
            met.1 += found.executions;
        }
    }
    met
}

/// Every `.litmus` file under `dir`, in a stable order.
fn litmus_files(dir: PathBuf) -> Vec<PathBuf> {
    collect_files(&[dir]).expect("a readable directory")
}

/// Compares on every file that parses; returns how many did.
fn compare_files(files: &[PathBuf]) -> usize {
    let mut compared = 0;
    for file in files {
        if let Ok(p) = parse_file(file) {
            compare(&file.display().to_string(), &p);
            compared += 1;
        }
    }
    compared
}

/// Run by `shared_oracle.rs`, which reports it as skipped when there is no shared oracle.
pub fn agrees_with_counting_on_the_shared_oracle_tests(shared: &Path) {
    let files = litmus_files(shared.join("oracle/ptx/tests"));
    let compared = compare_files(&files);
    println!("oracle: {compared} programs compared");
    assert_eq!(compared, 169);
}

#[test]
fn agrees_with_counting_on_the_corpus() {
    let files = litmus_files(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus"));
    let compared = compare_files(&files);
    println!("corpus: {compared} programs compared");
    assert!(compared > 150, "{compared}");
}

#[test]
fn agrees_with_counting_on_generated_programs() {
    for max_events in [6, 8] {
        let limits = Limits {
            max_events,
            ..Limits::default()
        };
        for seed in 0..300 {
            let p = from_seed_with(seed, &limits);
            compare(&format!("seed {seed}, at most {max_events} events"), &p);
        }
    }
}

/// A small deterministic generator (xorshift), so the programs do not depend on another crate's
/// streams.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Four threads and six `atom.exch`/`atom.add`/`atom.cas`/`red` on one location, in
/// few CTAs and scopes, so that many RMWs are morally strong and many are not: the shape whose
/// consistent executions outnumber its final states by thousands.
fn rmw_heavy(seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut threads: Vec<Vec<String>> = vec![Vec::new(); 4];
    for i in 0..6 {
        // Every thread gets one, the rest go anywhere.
        let t = if i < 4 { i } else { rng.below(4) };
        let r = format!("r{}", threads[t].len());
        let order = rng.pick(&["relaxed", "acquire", "release", "acq_rel"]);
        let scope = rng.pick(&["cta", "gpu", "sys"]);
        let value = rng.below(3) + 1;
        let instr = match rng.below(5) {
            0 | 1 => format!("atom.{order}.{scope}.exch {r}, y, {value}"),
            2 => format!("atom.{order}.{scope}.add {r}, y, {value}"),
            3 => format!("atom.{order}.{scope}.cas {r}, y, {}, {value}", rng.below(3)),
            _ => format!(
                "red.{}.{scope}.add y, {value}",
                rng.pick(&["relaxed", "release"])
            ),
        };
        threads[t].push(instr);
    }
    let header: Vec<String> = (0..4)
        .map(|t| format!("P{t}@cta {},gpu 0", rng.below(2) * t))
        .collect();
    let rows = threads.iter().map(Vec::len).max().unwrap_or(0);
    let mut src = format!("PTX rmw{seed}\n{{\nx=0;\ny={};\n}}\n", rng.below(2));
    src += &header.join(" | ");
    src += " ;\n";
    for row in 0..rows {
        let cells: Vec<&str> = threads
            .iter()
            .map(|t| t.get(row).map_or("", String::as_str))
            .collect();
        src += &cells.join(" | ");
        src += " ;\n";
    }
    src += "exists (y == 2)\n";
    src
}

/// Under the PTX models only: the counting search this compares with takes seconds per program
/// under Tile IR, whose lack of program order multiplies the executions by a hundred.
#[test]
fn agrees_with_counting_on_rmw_heavy_programs() {
    let (mut counted, mut found) = (0, 0);
    for seed in 0..40 {
        let src = rmw_heavy(seed);
        let p = parse(&src, "rmw-heavy.litmus").unwrap_or_else(|e| panic!("{e}\n{src}"));
        let met = compare_under(
            &format!("rmw-heavy seed {seed}"),
            &p,
            &[Model::PtxV75, Model::PtxV60],
        );
        counted += met.0;
        found += met.1;
    }
    println!("rmw-heavy: {counted} consistent executions, {found} met searching for states only");
    // The programs exercise what the states-only search skips. (Coherence being partial, the
    // counting search meets one execution per least coherence order, not one per total order,
    // so the share skipped is smaller than it was with total orders: about three quarters.)
    assert!(found * 2 < counted, "{found} of {counted}");
}
