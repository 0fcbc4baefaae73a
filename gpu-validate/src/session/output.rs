//! What `scopecheck gpu --json` writes: one [`Output`] per device, and the rows of its modes.

use crate::mutate::{Operator, Side};
use crate::record::TestRecord;
use crate::runner::{DeviceInfo, Params};
use serde::Serialize;

/// Everything `--json` writes for one device. Each test record repeats device, date and
/// parameters; the header says them once for the whole run (bench and mutant rows rely on it).
#[derive(Serialize)]
pub struct Output {
    /// The command line.
    pub command: Vec<String>,
    /// The device the tests ran on.
    pub device: DeviceInfo,
    /// When the run started (UTC).
    pub date: String,
    /// The model the histograms were judged by.
    pub model: String,
    /// The command line's launch settings.
    pub params: Params,
    /// One record per test run (mutants and bench shapes included).
    pub tests: Vec<TestRecord>,
    /// Tests the harness cannot express.
    pub unsupported: Vec<Skipped>,
    /// Tests that failed to compile, run or get a verdict.
    pub errors: Vec<Skipped>,
    /// `--bench` rows.
    pub bench: Vec<BenchRow>,
    /// `--mutants` rows.
    pub mutants: Vec<MutantRow>,
    /// `--mutants`: the score.
    pub mutation_score: Option<MutationScore>,
    /// The mutation table: per operator and side, live mutants and how many the device killed.
    pub operators: Vec<OperatorRow>,
    /// Tuned environments written by `--tune`.
    pub tuned: Vec<TunedRow>,
}

/// `--json` on a machine without a GPU: what was asked, and why nothing ran.
#[derive(Serialize)]
pub struct NoGpu {
    /// The command line.
    pub command: Vec<String>,
    /// When (UTC).
    pub date: String,
    /// The model asked for.
    pub model: String,
    /// `skipped: no GPU (REASON)`.
    pub skipped: String,
    /// The tests that would have run.
    pub tests: Vec<String>,
}

/// `--json` with `--devices` naming several GPUs: one result set per device.
#[derive(Serialize)]
pub struct MultiOutput {
    /// The command line.
    pub command: Vec<String>,
    /// When the run started (UTC).
    pub date: String,
    /// One result set per device.
    pub devices: Vec<Output>,
}

/// A tuned environment `--tune` wrote.
#[derive(Serialize)]
pub struct TunedRow {
    /// The test's name.
    pub test: String,
    /// Where the environment was written.
    pub env_file: String,
    /// Environments tried.
    pub trials: usize,
    /// Instances per trial.
    pub budget_per_trial: u64,
    /// The best weak-outcome rate.
    pub rate: f64,
    /// The default settings' weak-outcome rate.
    pub default_rate: f64,
}

/// One line of the mutation table.
#[derive(Serialize)]
pub struct OperatorRow {
    /// The mutation operator.
    pub operator: String,
    /// Which side of the test it weakened.
    pub side: String,
    /// Live mutants (the model allows their weak outcome).
    pub live: usize,
    /// Live mutants whose weak outcome the device showed.
    pub killed: usize,
    /// Live mutants whose weak outcome never showed: the hardware behaved more strongly than
    /// the model requires (or the budget was too small).
    pub never_shown: usize,
}

/// A test that did not run, and why.
#[derive(Serialize)]
pub struct Skipped {
    /// The litmus file.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// One `--bench` shape.
#[derive(Serialize)]
pub struct BenchRow {
    /// The test's name.
    pub test: String,
    /// Instances per launch, as a power of two.
    pub instances_log2: u32,
    /// Words between two locations' slots.
    pub stride: u32,
    /// Instances run.
    pub instances: u64,
    /// Seconds they took.
    pub seconds: f64,
    /// The rate.
    pub instances_per_s: f64,
    /// The fraction of instances that met the test's condition.
    pub condition_rate: f64,
}

/// One mutant run.
#[derive(Serialize)]
pub struct MutantRow {
    /// The test it came from.
    pub test: String,
    /// What was weakened.
    pub mutation: String,
    /// The operator.
    pub operator: Operator,
    /// The side.
    pub side: Side,
    /// Instances run.
    pub instances: u64,
    /// Instances that showed the (now allowed) weak outcome.
    pub weak: u64,
    /// Whether the device showed it at all.
    pub killed: bool,
    /// MC Mutants' rule at `--confidence`: enough kills to expect them again with this budget.
    pub reproducible: bool,
}

/// The mutation score.
#[derive(Serialize)]
pub struct MutationScore {
    /// Live mutants.
    pub live: usize,
    /// Of those, killed.
    pub killed: usize,
    /// The largest instance budget a mutant ran with.
    pub budget_instances_per_mutant: u64,
}
