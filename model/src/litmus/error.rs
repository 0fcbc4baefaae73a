//! Errors in litmus input, as compilers print them: one line `file:line:col: message`, then the
//! offending source line with the range it covers underlined ([`crate::diagnostic`]).

use super::ir::Span;
use crate::diagnostic;
use std::fmt;

/// One error in a litmus file: where it is, what is wrong, and the source line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LitmusError {
    /// The file, as named on the command line.
    pub file: String,
    /// Line and column (1-based, in characters) where the error starts.
    pub span: Span,
    /// How many characters of the line the error covers (at least 1).
    pub width: u32,
    /// What is wrong, on one line.
    pub message: String,
    /// The text of the source line at `span.line` (empty when unknown).
    pub source_line: String,
}

impl LitmusError {
    /// An error at `span` of `source` (the whole file's text), covering the token there: a
    /// word (name, number, dotted mnemonic, `P1:r0`) or else one character.
    pub fn at(file: &str, source: &str, span: Span, message: impl Into<String>) -> LitmusError {
        let line = source.lines().nth(span.line.saturating_sub(1) as usize);
        Self::on_line(file, line.unwrap_or(""), span, message)
    }

    /// An error at `span`, on the source line `line` (its text), covering the token there (as
    /// [`LitmusError::at`], without searching the file for the line).
    pub fn on_line(file: &str, line: &str, span: Span, message: impl Into<String>) -> LitmusError {
        let source_line = diagnostic::shown_line(line);
        let width = diagnostic::token_width(&source_line, span.col as usize);
        LitmusError {
            file: file.to_string(),
            span,
            width: width as u32,
            message: diagnostic::one_line(&message.into()),
            source_line,
        }
    }

    /// The source line with the error's range underlined, as ariadne draws it (no color).
    fn snippet(&self) -> String {
        diagnostic::snippet(
            &self.file,
            self.span.line as usize,
            self.span.col as usize,
            self.width as usize,
            &self.source_line,
            &self.message,
        )
    }
}

impl fmt::Display for LitmusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.span.line, self.span.col, self.message
        )?;
        let snippet = self.snippet();
        if !snippet.is_empty() {
            write!(f, "\n{snippet}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LitmusError {}

/// The longest message, and the longest source line shown, in bytes.
pub const MAX_LINE: usize = diagnostic::MAX_LINE;

/// How many errors of one file [`render`] shows in full.
pub const MAX_SHOWN: usize = 20;

/// The errors of one file, each with its snippet, the first [`MAX_SHOWN`] of them, then one
/// line counting the others: rendering stays fast and the first errors stay on screen.
pub fn render(errors: &[LitmusError]) -> String {
    let mut out: Vec<String> = errors
        .iter()
        .take(MAX_SHOWN)
        .map(|e| e.to_string())
        .collect();
    if let (Some(first), true) = (errors.first(), errors.len() > MAX_SHOWN) {
        out.push(format!(
            "{}: {} more errors not shown",
            first.file,
            errors.len() - MAX_SHOWN
        ));
    }
    out.join("\n")
}
