//! Every program of `corpus/litmus/async` and `corpus/litmus/cp-async` gets a harness or a
//! refusal with its reason (each counted), and every harness compiles with NVRTC for
//! `compute_90` when NVRTC is found (otherwise the trial is ignored with the reason: a
//! libtest-mimic trial, since libtest has no run-time skip).

use libtest_mimic::{Completion, Failed, Trial};
use scopecheck_gpu::codegen::generate;
use scopecheck_gpu::nvrtc::{self, Search, Toolkit};
use scopecheck_model::litmus::parse;
use std::path::{Path, PathBuf};

/// The refusals these directories may produce, each with the words its reason must contain.
const REFUSALS: [(&str, &str); 1] = [(
    "cluster-barrier-clusters-of-two-gpus.litmus",
    "cluster placements in a program that spans several GPUs",
)];

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus");
    let mut files = Vec::new();
    for dir in ["async", "cp-async"] {
        for e in std::fs::read_dir(root.join(dir)).expect("corpus directory") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// One trial per program: its harness compiles (ignored, with the reason, without NVRTC), or it
/// is refused with the expected reason; and one that the directories hold the 58 programs.
pub fn trials() -> Vec<Trial> {
    let toolkit = Toolkit::find(&Search::from_env()).map_err(|e| e.to_string());
    let files = corpus();
    let count = files.len();
    let mut trials = vec![Trial::test(
        "async_nvrtc::corpus_holds_58_programs",
        move || {
            if count == 58 {
                Ok(())
            } else {
                Err(format!("{count} programs, expected 51 async and 7 cp-async tests").into())
            }
        },
    )];
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let toolkit = toolkit.clone();
        trials.push(Trial::ignorable_test(
            format!("async_nvrtc::{name}"),
            move || judge(&path, &name, &toolkit),
        ));
    }
    trials
}

/// One program: a harness that compiles to PTX with the `litmus_test` entry, or the refusal
/// `REFUSALS` expects.
fn judge(path: &Path, name: &str, toolkit: &Result<Toolkit, String>) -> Result<Completion, Failed> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let program = parse(&src, &path.display().to_string()).map_err(|e| e.to_string())?;
    let expected = REFUSALS
        .iter()
        .find(|(f, _)| *f == name)
        .map(|(_, why)| *why);
    match (generate(&program), expected) {
        (Ok(h), None) => match toolkit {
            Ok(t) => match nvrtc::compile_with(t, Path::new(&format!("{name}.cu")), &h.source) {
                Ok(out) if out.ptx.contains(".entry litmus_test") => Ok(Completion::Completed),
                Ok(_) => Err("the PTX has no litmus_test entry".into()),
                Err(e) => Err(e.to_string().into()),
            },
            Err(e) => Ok(Completion::ignored_with(format!(
                "harness generated, not compiled: {e}"
            ))),
        },
        (Err(u), Some(why)) if u.to_string().contains(why) => Ok(Completion::Completed),
        (Err(u), _) => Err(format!("refused: {u}").into()),
        (Ok(_), Some(why)) => Err(format!("expected a refusal ({why})").into()),
    }
}
