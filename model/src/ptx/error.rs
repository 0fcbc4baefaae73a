//! Errors in PTX input, as compilers print them: one line `path:line:col: message`.

use super::ast::Pos;
use std::fmt;

/// One error in a PTX file: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// The file, as named by the caller of the parser (`ptx::parse`).
    pub path: String,
    /// Line and column (1-based, columns in characters) where the error is.
    pub pos: Pos,
    /// What is wrong, on one line.
    pub message: String,
}

impl PtxError {
    /// An error at `pos` of `path`; a message quoting input that spans lines is kept on one line.
    pub fn new(path: &str, pos: Pos, message: impl Into<String>) -> PtxError {
        PtxError {
            path: path.to_string(),
            pos,
            message: message.into().replace(['\n', '\r'], " "),
        }
    }
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.pos.line, self.pos.col, self.message
        )
    }
}

impl std::error::Error for PtxError {}
