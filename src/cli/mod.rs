//! One module per subcommand, and what they share: the `--model` parser, the exit codes.

pub mod check;
pub mod fuzz;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod kernel;
pub mod litmus;
pub mod liveness;
#[cfg(not(feature = "gpu"))]
pub mod no_gpu;
pub mod shell;

use scopecheck_model::axiomatic::Model;

/// The exit statuses of every subcommand, for `--help`.
pub const EXIT_CODES: &str = "\
Exit status:
  0    success: every verdict as expected, nothing found (or a bounded run that found nothing)
  1    a finding: a failure, violation, verdict mismatch or engine disagreement
  2    bad input or usage: unreadable or invalid files, unknown model, bad options, output that cannot be written
  3    litmus --liveness: a verdict bounded by the unroll limit (no hang found, none proven impossible)
  130  interrupted by SIGINT or SIGTERM (what was found so far is printed, marked interrupted)";

/// The one line a subcommand says in a build without the `gpu` feature; `{what}` names it.
#[cfg(not(feature = "gpu"))]
pub const NO_GPU: &str =
    "scopecheck: {what}: built without GPU support (rebuild with the default `gpu` feature)";

/// `--model`: a model by the registry's rules (`scopecheck_model::cat::registry`).
pub fn parse_model(name: &str) -> Result<Model, String> {
    Model::load(name).map_err(|e| e.render())
}
