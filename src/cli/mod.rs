//! One module per subcommand.

pub mod check;
pub mod fuzz;
pub mod gpu;
pub mod kernel;
pub mod litmus;
pub mod liveness;
