//! `cargo run --release -p scopecheck-gpu --example nvrtc_ptx -- FILE.cu...`: compiles each file
//! with `scopecheck_gpu::nvrtc` and writes the PTX beside it (`FILE.ptx`), as `scopecheck kernel`
//! would compile it. `corpus/cuda/regen.sh` uses it. Exit 2 on a missing NVRTC or a compile error.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: nvrtc_ptx FILE.cu...");
        return ExitCode::from(2);
    }
    for file in files {
        let path = Path::new(&file);
        let source = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{file}: {e}");
                return ExitCode::from(2);
            }
        };
        match scopecheck_gpu::nvrtc::compile(path, &source) {
            Ok(out) => {
                if !out.log.trim().is_empty() {
                    eprint!("{}", out.log);
                }
                let ptx = path.with_extension("ptx");
                if let Err(e) = std::fs::write(&ptx, out.ptx) {
                    eprintln!("{}: {e}", ptx.display());
                    return ExitCode::from(2);
                }
                println!("{}", ptx.display());
            }
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
