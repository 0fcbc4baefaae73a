//! Source positions: where a statement or declaration was written. A leaf of the IR: every
//! front end and the IR itself import it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A 1-based line and column in a litmus source file.
#[derive(Copy, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Span {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

/// Spans are metadata: any two compare equal.
impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}
