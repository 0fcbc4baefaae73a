//! What a `scopecheck gpu` run is asked to do, the litmus tests it runs, and where it says so.

use crate::runner::Params;
use crate::tune;
use scopecheck_model::litmus::{self, Program};
use std::path::{Path, PathBuf};

/// Which of the three things a run does with each test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Run each test and diff its histogram against the model (`--tune` first, if asked).
    Check,
    /// Instances/s for several launch shapes instead of diffing.
    Bench,
    /// The mutation score: weaken one ordering or scope of each test the model forbids.
    Mutants,
}

/// Everything a run needs from the command line, already checked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The model's registry name, or `none` (observed states only).
    pub model: String,
    /// The command line's launch settings (presets and `--budget` applied).
    pub params: Params,
    /// `--budget`: instances per test, replacing `--iterations`.
    pub budget: Option<u64>,
    /// `--iterations`: launches per test.
    pub iterations: u64,
    /// `--spin`: spinning readers' bound (0: off); an explicit value overrides tuned ones.
    pub spin: u32,
    /// `--tuned`: reuse tuned environments found beside the tests.
    pub tuned: bool,
    /// `--tune N`: environments to try per test.
    pub tune: Option<usize>,
    /// Instances per tuning trial.
    pub tune_budget: u64,
    /// MC Mutants' reproducibility confidence.
    pub confidence: f64,
    /// Where forbidden observations are recorded.
    pub violations: PathBuf,
    /// What to do with each test.
    pub mode: Mode,
}

impl Options {
    /// The command line's settings with a tuned environment's in their place (budget, seed and
    /// watchdog stay the command line's; an explicit `--spin` turns spinning readers on over any
    /// environment).
    pub fn with_env(&self, env: &Params) -> Params {
        let own = &self.params;
        let mut p = Params {
            launches: own.launches,
            seed: own.seed,
            watchdog_s: own.watchdog_s,
            batch: own.batch,
            ..env.clone()
        };
        p.launches = match self.budget {
            Some(b) => tune::launches_for(b, p.instances_log2),
            None => self.iterations,
        };
        if self.spin > 0 {
            p.spin_bound = self.spin;
        }
        p
    }
}

/// Where a run's lines go: `out` for results, `err` for what went wrong. Workers of several
/// devices call it at once, each with a whole block of lines.
pub trait Log: Sync {
    /// A block of result lines (each ends with a newline).
    fn out(&self, text: &str);
    /// One line about an error.
    fn err(&self, line: &str);
}

/// A litmus file, read and parsed.
#[derive(Clone, Debug)]
pub struct Test {
    /// The file it came from.
    pub file: PathBuf,
    /// Its text, as read.
    pub source: String,
    /// The parsed program.
    pub program: Program,
}

/// Reads and parses `files`: the tests, and one message per file that could not be read or
/// parsed (the parser's own error, which names file:line:col).
pub fn load(files: &[PathBuf]) -> (Vec<Test>, Vec<String>) {
    let mut tests = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match read(f) {
            Ok(t) => tests.push(t),
            Err(e) => errors.push(e),
        }
    }
    (tests, errors)
}

fn read(file: &Path) -> Result<Test, String> {
    let source = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let program = litmus::parse(&source, &file.display().to_string()).map_err(|e| e.to_string())?;
    Ok(Test {
        file: file.to_path_buf(),
        source,
        program,
    })
}
