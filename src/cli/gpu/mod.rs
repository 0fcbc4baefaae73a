//! `scopecheck gpu`: run litmus files on the GPU and diff each observed final state against the
//! model (also `--bench` for throughput and `--mutants` for the mutation score).

mod args;

pub use args::{Args, Devices};

use scopecheck_gpu::record;
use scopecheck_gpu::runner::GpuError;
use scopecheck_gpu::session::{self, Log, MultiOutput, NoGpu, Test};
use scopecheck_model::litmus;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Lines to the terminal: results on stdout, errors on stderr.
struct Terminal;

impl Log for Terminal {
    fn out(&self, text: &str) {
        print!("{text}");
    }
    fn err(&self, line: &str) {
        eprintln!("{line}");
    }
}

/// The litmus files under `paths`, walked as every command walks them
/// (`scopecheck_model::input::walk`: sorted, loop-safe, each file once).
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        return Err(format!("{}: no such file or directory", missing.display()));
    }
    litmus::collect_files(paths).map_err(|e| e.to_string())
}

/// Writes `value` as pretty JSON to `path` and says so; false (after saying why) when it cannot.
fn write_json(path: &Path, value: &impl serde::Serialize) -> bool {
    let json = serde_json::to_string_pretty(value).expect("a record serialises");
    if let Err(e) = std::fs::write(path, json + "\n") {
        eprintln!("scopecheck gpu: writing {}: {e}", path.display());
        return false;
    }
    println!("results written to {}", path.display());
    true
}

/// `scopecheck gpu`.
pub fn run(args: Args) -> ExitCode {
    let files = match collect(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("scopecheck gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let (tests, errors) = session::load(&files);
    for e in &errors {
        eprintln!("{e}");
    }
    let bad = errors.len();
    if let Some(dir) = &args.emit {
        return emit(&tests, dir, bad);
    }
    let count = match scopecheck_gpu::device_count() {
        Ok(n) => n,
        Err(GpuError::NoGpu(why)) => return no_gpu(&args, &tests, &why, bad),
        Err(e) => {
            eprintln!("scopecheck gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let devices = match &args.devices {
        None => vec![0],
        Some(Devices::All) => (0..count).collect(),
        Some(Devices::List(l)) => l.clone(),
    };
    if let Some(d) = devices.iter().find(|&&d| d >= count) {
        eprintln!("scopecheck gpu: --devices names GPU {d}, but the driver sees {count}");
        return ExitCode::from(2);
    }
    if devices.len() > 1 && args.tune.is_some() {
        eprintln!("scopecheck gpu: --tune writes one environment per test; tune on one device");
        return ExitCode::from(2);
    }
    let command: Vec<String> = std::env::args().collect();
    let date = record::now_utc();
    let results = session::run_devices(&args.options(), &tests, &devices, &command, &Terminal);
    let mut ok = true;
    let mut outputs = Vec::new();
    for r in results {
        match r {
            Ok((good, out)) => {
                ok &= good;
                outputs.push(out);
            }
            Err(e) => {
                eprintln!("scopecheck gpu: {e}");
                ok = false;
            }
        }
    }
    if let Some(path) = &args.json {
        let written = if devices.len() == 1 && outputs.len() == 1 {
            write_json(path, &outputs[0])
        } else {
            write_json(
                path,
                &MultiOutput {
                    command,
                    date,
                    devices: outputs,
                },
            )
        };
        if !written {
            return ExitCode::from(2);
        }
    }
    if ok && bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// No GPU: say so, record the skip under `--json`; exit 0 (2 if a test could not be read).
fn no_gpu(args: &Args, tests: &[Test], why: &str, bad: usize) -> ExitCode {
    println!(
        "scopecheck gpu: no GPU ({why}); skipped {} test(s)",
        tests.len()
    );
    if let Some(path) = &args.json {
        let record = NoGpu {
            command: std::env::args().collect(),
            date: record::now_utc(),
            model: args.model.clone(),
            skipped: format!("skipped: no GPU ({why})"),
            tests: tests.iter().map(|t| t.file.display().to_string()).collect(),
        };
        if !write_json(path, &record) {
            return ExitCode::from(2);
        }
    }
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

/// `--emit DIR`.
fn emit(tests: &[Test], dir: &Path, bad: usize) -> ExitCode {
    let summary = match session::emit(tests, dir, &Terminal) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scopecheck gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let total: usize = summary.refused.values().sum();
    println!(
        "emit: {} harness(es) written, {total} refused",
        tests.len() - total
    );
    for (why, n) in &summary.refused {
        println!("  {n} refused: {why}");
    }
    if bad + summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
