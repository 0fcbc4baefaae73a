//! Errors in litmus input, as compilers print them: one line `file:line:col: message`, then the
//! offending source line with the range it covers underlined, drawn by [`ariadne`] (a maintained
//! diagnostics crate; chosen over `miette` and `codespan-reporting` because it renders a report
//! from a plain source string and a range with no trait plumbing, and keeps its output stable
//! without color).

use super::ir::Span;
use ariadne::{Config, Label, Report, ReportKind, Source};
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
        // A line too long to show (generated input) is left out of the snippet.
        let source_line = match line.len() > MAX_LINE {
            true => String::new(),
            false => line.to_string(),
        };
        let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | ':' | '-');
        let rest = source_line
            .chars()
            .skip(span.col.saturating_sub(1) as usize);
        let width = match rest.clone().next() {
            Some(c) if word(c) => rest.take_while(|&c| word(c)).count(),
            _ => 1,
        };
        // Messages quote input, which may span lines or be huge; an error stays one line.
        let mut message = message.into().replace('\n', " ");
        if message.len() > MAX_LINE {
            let mut cut = MAX_LINE;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push('…');
        }
        LitmusError {
            file: file.to_string(),
            span,
            width: width as u32,
            message,
            source_line,
        }
    }

    /// The source line with the error's range underlined, as ariadne draws it (no color).
    fn snippet(&self) -> String {
        if self.source_line.is_empty() {
            return String::new();
        }
        // Earlier lines are left empty, so that ariadne numbers the line as in the file and
        // shows only it (ariadne 0.6's display line offset numbers the header but not the
        // margin). This costs a byte per earlier line: [`render`] draws at most [`MAX_SHOWN`]
        // snippets per file, so rendering stays linear.
        let line = self.span.line.max(1) as usize;
        let col = self.span.col.max(1) as usize;
        // An error just past the end of the line (something missing) points at a blank there.
        let pad =
            (col + self.width.max(1) as usize - 1).saturating_sub(self.source_line.chars().count());
        let text = format!(
            "{}{}{}",
            "\n".repeat(line - 1),
            self.source_line,
            " ".repeat(pad)
        );
        let start = line - 1 + col - 1;
        let end = start + self.width.max(1) as usize;
        let id = self.file.as_str();
        let mut out = Vec::new();
        let written = Report::build(ReportKind::Error, (id, start..end))
            .with_config(Config::default().with_color(false))
            .with_message(&self.message)
            .with_label(Label::new((id, start..end)).with_message("here"))
            .finish()
            .write((id, Source::from(text)), &mut out);
        if written.is_err() {
            return String::new();
        }
        let rendered = String::from_utf8_lossy(&out).into_owned();
        // The report's own first line repeats the message, which our first line already gives.
        rendered
            .split_once('\n')
            .map_or(String::new(), |(_, rest)| rest.trim_end().to_string())
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
pub const MAX_LINE: usize = 500;

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
