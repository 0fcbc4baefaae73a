//! One worker per device, each with its own context, all in parallel.

use super::core::Session;
use super::options::{Log, Mode, Options, Test};
use super::output::Output;

/// Runs `tests` on each device of `devices` in parallel, one worker (and CUDA context) each:
/// per device, whether everything passed and its [`Output`], or why the device could not be
/// opened. `command` is the command line the records repeat. Lines carry a `[gpu N] ` prefix
/// when several devices run.
pub fn run_devices(
    options: &Options,
    tests: &[Test],
    devices: &[usize],
    command: &[String],
    log: &dyn Log,
) -> Vec<Result<(bool, Output), String>> {
    let date = crate::record::now_utc();
    let several = devices.len() > 1;
    std::thread::scope(|scope| {
        let workers: Vec<_> = devices
            .iter()
            .map(|&d| {
                let date = date.clone();
                scope.spawn(move || run_device(options, tests, d, date, several, command, log))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("a device worker panicked".into()))
            })
            .collect()
    })
}

/// Everything one device does for the run; `Err` when the device cannot be opened.
fn run_device(
    options: &Options,
    tests: &[Test],
    ordinal: usize,
    date: String,
    several: bool,
    command: &[String],
    log: &dyn Log,
) -> Result<(bool, Output), String> {
    let gpu = crate::open_device(ordinal).map_err(|e| e.to_string())?;
    let prefix = if several {
        format!("[gpu {ordinal}] ")
    } else {
        String::new()
    };
    log.out(&format!(
        "{prefix}device {ordinal}: {} (sm {}, {} SMs), driver {} (CUDA {})\n",
        gpu.info.name,
        gpu.info.compute_capability,
        gpu.info.multiprocessors,
        gpu.info.driver,
        gpu.info.driver_cuda_version
    ));
    let out = Output {
        command: command.to_vec(),
        device: gpu.info.clone(),
        date: date.clone(),
        model: options.model.clone(),
        params: options.params.clone(),
        tests: vec![],
        unsupported: vec![],
        errors: vec![],
        bench: vec![],
        mutants: vec![],
        mutation_score: None,
        operators: vec![],
        tuned: vec![],
    };
    let mut session = Session {
        options,
        gpu: &gpu,
        date,
        out,
        prefix,
        log,
    };
    let ok = match options.mode {
        Mode::Bench => session.bench(tests),
        Mode::Mutants => session.mutants(tests),
        Mode::Check => session.check_all(tests),
    };
    Ok((ok, session.out))
}
