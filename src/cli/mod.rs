//! One module per subcommand.

pub mod litmus;
