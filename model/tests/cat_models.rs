//! The cat models against the engine's Rust models: on the shared PTX suite, the corpus and
//! generated programs, `ptx-v7.5.cat`, `ptx-v6.0.cat` and `tile-ir.cat` allow exactly the
//! same final states with the same numbers of consistent (and racy) executions. And a user's
//! own model, loaded from a file, is what decides.

use scopecheck_model::axiomatic::{analyze, Analysis, Model, Options};
use scopecheck_model::cat::CatModel;
use scopecheck_model::litmus::{arbitrary, parse, parse_file, Program};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn cat(name: &str) -> Model {
    Model::Cat(Arc::new(CatModel::builtin(name).expect("a built-in model")))
}

/// The Rust models beside their cat texts.
fn pairs() -> Vec<(Model, Model)> {
    vec![
        (Model::PtxV75, cat("ptx-v7.5")),
        (Model::PtxV60, cat("ptx-v6.0")),
        (Model::TileIr, cat("tile-ir")),
    ]
}

fn summary(a: &Result<Analysis, String>) -> String {
    match a {
        Ok(a) => format!(
            "holds={} bounded={} executions={} racy={} states={:?}",
            a.holds,
            a.bounded,
            a.executions,
            a.racy_executions,
            a.states
                .iter()
                .map(|s| s.state.to_string())
                .collect::<Vec<_>>()
        ),
        Err(e) => format!("error {e}"),
    }
}

/// Compares every pair on `programs`; returns the disagreements.
fn compare(programs: &[(String, Program)], pairs: &[(Model, Model)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rust, cat) in pairs {
        let mut agree = 0;
        for (name, p) in programs {
            let opts = Options::default();
            let a = summary(&analyze(p, rust.clone(), &opts).map_err(|e| e.to_string()));
            let b = summary(&analyze(p, cat.clone(), &opts).map_err(|e| e.to_string()));
            if a == b {
                agree += 1;
            } else {
                out.push(format!("{name} under {rust}:\n  rust {a}\n  cat  {b}"));
            }
        }
        println!("{rust}: cat agrees on {agree}/{} programs", programs.len());
    }
    out
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            litmus_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "litmus") {
            out.push(path);
        }
    }
}

fn load(paths: &[PathBuf]) -> Vec<(String, Program)> {
    paths
        .iter()
        .filter_map(|p| {
            parse_file(p)
                .ok()
                .map(|prog| (p.display().to_string(), prog))
        })
        .collect()
}

/// Run by `shared_oracle` (it reports a missing oracle as skipped).
pub fn cat_models_agree_on_the_shared_ptx_suite(shared: &Path) {
    let mut paths = Vec::new();
    litmus_files(&shared.join("oracle/ptx/tests"), &mut paths);
    paths.sort();
    let programs = load(&paths);
    assert_eq!(programs.len(), 169, "the shared PTX suite has 169 tests");
    let bad = compare(&programs, &pairs()[..2]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn cat_models_agree_on_the_corpus() {
    let mut paths = Vec::new();
    litmus_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus"),
        &mut paths,
    );
    paths.sort();
    let programs = load(&paths);
    assert!(programs.len() > 200, "the corpus's litmus tests");
    let bad = compare(&programs, &pairs());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn cat_models_agree_on_generated_programs() {
    // The differential's shapes: small enough that all three models decide each quickly.
    let limits = arbitrary::Limits::differential();
    let programs: Vec<(String, Program)> = (0..300u64)
        .map(|seed| {
            (
                format!("seed {seed}"),
                arbitrary::from_seed_with(seed, &limits),
            )
        })
        .collect();
    let bad = compare(&programs, &pairs());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

const MP: &str = "PTX MP
{ x = 0; y = 0; }
P0@cta 0,gpu 0       | P1@cta 1,gpu 0 ;
st.weak x, 1         | ld.acquire.gpu r0, y ;
st.release.gpu y, 1  | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

#[test]
fn a_users_model_without_causality_allows_the_weak_message_passing_outcome() {
    let p = parse(MP, "MP.litmus").expect("MP parses");
    let shipped = analyze(&p, cat("ptx-v7.5"), &Options::default()).unwrap();
    assert!(!shipped.holds, "ptx-v7.5 forbids MP's weak outcome");

    let text = scopecheck_model::cat::builtin_text("ptx-v7.5").unwrap();
    let axiom = "irreflexive (rf | fr); cause as Causality";
    assert!(text.contains(axiom));
    let dir = std::env::temp_dir().join(format!("scopecheck-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ptx-no-causality.cat");
    std::fs::write(&path, text.replace(axiom, "")).unwrap();
    let mine = Model::load(path.to_str().unwrap()).expect("the model loads");
    assert_eq!(mine.name(), "ptx-no-causality");
    let a = analyze(&p, mine, &Options::default()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(a.holds, "without Causality the weak outcome is allowed");
}
