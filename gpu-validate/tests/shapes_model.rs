//! The GPU shapes say in their comment whether the model allows their weak outcome; the axiomatic
//! engine must agree, or the GPU diff would judge against the wrong expectation.

use scopecheck_gpu::{codegen, diff, oracle};
use scopecheck_model::litmus::parse;

#[test]
fn every_gpu_shape_comment_matches_the_ptx_v75_verdict() {
    let dir = format!("{}/../corpus/gpu-shapes", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the shapes are there");
    let mut wrong = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let p = parse(&src, &f.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        let h = codegen::generate(&p).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let a = oracle::allowed(&p, &h.observables, "ptx-v7.5").unwrap();
        let states = a.states.unwrap();
        assert!(
            !a.bounded,
            "{}: loop-free shapes are enumerated exhaustively",
            p.name
        );
        let weak_allowed = states
            .iter()
            .any(|s| diff::is_target(&p, &h.observables, s));
        let says_allowed = p
            .comments
            .iter()
            .any(|c| c.contains("weak outcome allowed"));
        let says_forbidden = p
            .comments
            .iter()
            .any(|c| c.contains("weak outcome forbidden"));
        assert!(
            says_allowed != says_forbidden,
            "{}: comment states a verdict",
            p.name
        );
        if weak_allowed != says_allowed {
            wrong.push(format!(
                "{}: model allows weak outcome = {weak_allowed}",
                p.name
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
