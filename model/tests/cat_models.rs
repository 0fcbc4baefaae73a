//! A user's own model, loaded from a file, is what decides: the shipped `ptx-v7.5.cat` with its
//! Causality axiom dropped allows message passing's weak outcome. (The built-in models are
//! their `.cat` files: `ptx-v7.5`, `ptx-v6.0` and `tile-ir` by name are those texts, checked
//! against Dartagnan's verdicts in `shared_oracle.rs` and `tests/oracle.rs` and against the
//! corpus's verdicts in `tests/corpus.rs`.)

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::litmus::parse;

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
    let shipped = analyze(&p, Model::PtxV75, &Options::default()).unwrap();
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
