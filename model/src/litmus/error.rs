//! Errors in litmus input: one line `file:line:col: message`, then the offending source line and
//! a caret under the column, as compilers print them.

use super::ir::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LitmusError {
    pub file: String,
    pub span: Span,
    pub message: String,
    /// The text of the source line at `span.line` (empty when unknown).
    pub source_line: String,
}

impl LitmusError {
    /// An error at `span` of `source` (the whole file's text).
    pub fn at(file: &str, source: &str, span: Span, message: impl Into<String>) -> LitmusError {
        let source_line = source
            .lines()
            .nth(span.line.saturating_sub(1) as usize)
            .unwrap_or("")
            .to_string();
        // Messages quote input, which may span lines; an error stays one line.
        let message = message.into().replace('\n', " ");
        LitmusError {
            file: file.to_string(),
            span,
            message,
            source_line,
        }
    }
}

impl fmt::Display for LitmusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}",
            self.file, self.span.line, self.span.col, self.message
        )?;
        let line = self.source_line.replace('\t', " ");
        writeln!(f, "{line}")?;
        write!(
            f,
            "{}^",
            " ".repeat(self.span.col.saturating_sub(1) as usize)
        )
    }
}

impl std::error::Error for LitmusError {}
