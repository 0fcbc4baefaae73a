//! Every program of `corpus/litmus/async` and `corpus/litmus/cp-async` gets a harness or a
//! refusal with its reason (each counted), and every harness compiles with NVRTC for
//! `compute_90` when NVRTC is found (a visible skip line otherwise: `harness = false`, since
//! libtest has no run-time skip).

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

fn main() {
    let toolkit = Toolkit::find(&Search::from_env());
    let (mut generated, mut refused, mut compiled, mut failed, mut skipped) = (0, 0, 0, 0, 0);
    let files = corpus();
    assert_eq!(files.len(), 56, "49 async and 7 cp-async tests");
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        let program = parse(&src, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        let expected = REFUSALS
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, why)| *why);
        match (generate(&program), expected) {
            (Ok(h), None) => {
                generated += 1;
                match &toolkit {
                    Ok(t) => {
                        match nvrtc::compile_with(t, Path::new(&format!("{name}.cu")), &h.source) {
                            Ok(out) if out.ptx.contains(".entry litmus_test") => {
                                println!("test {name} ... ok (compiled)");
                                compiled += 1;
                            }
                            Ok(_) => {
                                println!("test {name} ... FAILED (no litmus_test entry)");
                                failed += 1;
                            }
                            Err(e) => {
                                println!("test {name} ... FAILED: {e}");
                                failed += 1;
                            }
                        }
                    }
                    Err(e) => {
                        println!("SKIP {name} (compile): {e}");
                        skipped += 1;
                    }
                }
            }
            (Err(u), Some(why)) if u.to_string().contains(why) => {
                println!("test {name} ... ok (refused: {u})");
                refused += 1;
            }
            (Err(u), _) => {
                println!("test {name} ... FAILED: refused: {u}");
                failed += 1;
            }
            (Ok(_), Some(why)) => {
                println!("test {name} ... FAILED: expected a refusal ({why})");
                failed += 1;
            }
        }
    }
    println!(
        "async_nvrtc: {generated} generated ({compiled} compiled, {skipped} skipped), {refused} refused, {failed} failed"
    );
    if failed > 0 || refused != REFUSALS.len() {
        std::process::exit(1);
    }
}
