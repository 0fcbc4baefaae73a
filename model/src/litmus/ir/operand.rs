//! The names and values instructions operate on: thread, location and register names, values,
//! and operands (a register or an immediate). A leaf of the IR: the IR and the dialects' plain
//! data import it, it imports nothing of theirs.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Index into a program's threads (`Program::threads`): `P0` is 0.
pub type ThreadId = usize;
/// Index into a program's locations (`Program::locations`).
pub type LocId = usize;
/// The value of a register or memory location.
pub type Value = i64;

/// A register name such as `r0`, local to its thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reg(pub String);

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A source operand: a register of the executing thread or an immediate.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Operand {
    /// The register's current value.
    Reg(Reg),
    /// A constant.
    Imm(Value),
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(v) => write!(f, "{v}"),
        }
    }
}
