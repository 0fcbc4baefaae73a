//! Why the harness generator refuses a program.

use std::fmt;

/// A program the harness cannot express, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsupported on GPU: {}", self.0)
    }
}

/// `Err(Unsupported(msg))`.
pub(super) fn unsupported<T>(msg: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(msg.into()))
}
