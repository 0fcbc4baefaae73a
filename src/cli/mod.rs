//! One module per subcommand.

pub mod gpu;
pub mod litmus;
