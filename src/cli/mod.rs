//! One module per subcommand.

pub mod check;
pub mod gpu;
pub mod litmus;
