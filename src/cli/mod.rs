//! One module per subcommand.

pub mod fuzz;
pub mod gpu;
pub mod litmus;
