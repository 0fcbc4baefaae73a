//! `cargo run --release --example cuda_timing [-- --limit SECONDS]`: for each kernel of
//! `corpus/cuda/MANIFEST.csv`, the time NVRTC takes to compile its `.cu` (when NVRTC is found),
//! the time the same compilation takes answered from the PTX cache (`nvrtc::cache`, a fresh
//! cache directory under the system's temporary directory, so the first compile fills it) and the time `scopecheck kernel FILE.ptx --json` takes to a complete verdict at the launch of
//! the kernel's `// scopecheck:` line. Prints a table; asserts nothing.
//!
//! It runs the `scopecheck` binary beside this example (`target/release/scopecheck`): build it
//! first (`cargo build --release`).

#[path = "../src/cuda_corpus.rs"]
#[allow(dead_code)]
mod cuda_corpus;

use scopecheck_gpu::nvrtc::{self, Search, Toolkit};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit = match args.iter().position(|a| a == "--limit") {
        Some(i) => match args.get(i + 1).and_then(|s| s.parse::<u64>().ok()) {
            Some(s) => Duration::from_secs(s),
            None => {
                eprintln!("cuda_timing: --limit takes a number of seconds");
                std::process::exit(2);
            }
        },
        None => Duration::from_secs(300),
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.join("scopecheck")))
        .filter(|e| e.is_file());
    let Some(exe) = exe else {
        eprintln!("cuda_timing: no scopecheck binary beside the example: cargo build --release");
        std::process::exit(2);
    };
    let (rows, errors) = match cuda_corpus::read_manifest(&root.join("corpus/cuda/MANIFEST.csv")) {
        Ok(read) => read,
        Err(e) => {
            eprintln!("cuda_timing: {e}");
            std::process::exit(2);
        }
    };
    for e in errors {
        eprintln!("cuda_timing: {e}");
    }
    let toolkit = Toolkit::find(&Search::from_env());
    if let Err(e) = &toolkit {
        println!("(NVRTC compile times not measured: {e})");
    }
    let cache_dir =
        std::env::temp_dir().join(format!("scopecheck-cuda-timing-{}", std::process::id()));
    let cache = nvrtc::Cache::at(&cache_dir);
    println!(
        "{:<44} {:>10} {:>10} {:>20} {:>20} {:>10}",
        "kernel", "nvrtc ms", "cached ms", "expected", "got", "verdict s"
    );
    for row in &rows {
        let name = row
            .file
            .strip_prefix(root.join("corpus/cuda"))
            .unwrap_or(&row.file)
            .display()
            .to_string();
        let (compile, hit) = match (row.cu(), &toolkit) {
            (Some(cu), Ok(toolkit)) => match std::fs::read_to_string(cu) {
                Ok(source) => {
                    let ms = |start: Instant| format!("{:.1}", start.elapsed().as_secs_f64() * 1e3);
                    let start = Instant::now();
                    let compile = match nvrtc::compile_cached(toolkit, cu, &source, Some(&cache)) {
                        Ok(_) => ms(start),
                        Err(_) => "error".to_string(),
                    };
                    let start = Instant::now();
                    let hit = match nvrtc::compile_cached(toolkit, cu, &source, Some(&cache)) {
                        Ok(c) if c.cached => ms(start),
                        Ok(_) => "not cached".to_string(),
                        Err(_) => "error".to_string(),
                    };
                    (compile, hit)
                }
                Err(_) => ("unreadable".to_string(), "-".to_string()),
            },
            _ => ("-".to_string(), "-".to_string()),
        };
        let start = Instant::now();
        let (got, seconds) = match cuda_corpus::run(&exe, &row.ptx(), &row.flags, limit) {
            Ok(run) => (
                run.describe().chars().take(20).collect::<String>(),
                start.elapsed().as_secs_f64(),
            ),
            Err(e) => (e.to_string(), 0.0),
        };
        println!(
            "{:<44} {:>10} {:>10} {:>20} {:>20} {:>10.3}",
            name,
            compile,
            hit,
            row.expected.to_string(),
            got,
            seconds
        );
    }
    let _ = std::fs::remove_dir_all(&cache_dir);
}
