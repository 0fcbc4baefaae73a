//! Source snippets under error lines, as compilers print them: the offending source line with the
//! range an error covers underlined, drawn by [`ariadne`] (a maintained diagnostics crate; chosen
//! over `miette` and `codespan-reporting` because it renders a report from a plain source string
//! and a range with no trait plumbing, and keeps its output stable without color). The litmus
//! front ends (`litmus/error.rs`) and the cat models (`cat/mod.rs`) both draw
//! their snippets here.

use ariadne::{Config, Label, Report, ReportKind, Source};

/// The longest message, and the longest source line shown, in bytes.
pub const MAX_LINE: usize = 500;

/// The source line as a snippet keeps it: empty when it is too long to show (generated input).
pub fn shown_line(line: &str) -> String {
    match line.len() > MAX_LINE {
        true => String::new(),
        false => line.to_string(),
    }
}

/// How many characters the token at column `col` (1-based, in characters) of `line` covers: a
/// word (letters, digits, `_`, `:`, `-`: a name, number, dotted part or `P1:r0`) or else one
/// character.
pub fn token_width(line: &str, col: usize) -> usize {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | ':' | '-');
    let rest = line.chars().skip(col.saturating_sub(1));
    match rest.clone().next() {
        Some(c) if word(c) => rest.take_while(|&c| word(c)).count(),
        _ => 1,
    }
}

/// A message on one line of at most [`MAX_LINE`] bytes: messages quote input, which may span
/// lines or be huge.
pub fn one_line(message: &str) -> String {
    let mut message = message.replace('\n', " ");
    if message.len() > MAX_LINE {
        let mut cut = MAX_LINE;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        message.truncate(cut);
        message.push('…');
    }
    message
}

/// `source_line` (line `line` of `file`, 1-based) with `width` characters from column `col`
/// underlined and labelled "here", as ariadne draws it without color, without the report's
/// header (the caller's `file:line:col: message` line says it). Empty when there is no source
/// line to show.
pub fn snippet(
    file: &str,
    line: usize,
    col: usize,
    width: usize,
    source_line: &str,
    message: &str,
) -> String {
    if source_line.is_empty() {
        return String::new();
    }
    // Earlier lines are left empty, so that ariadne numbers the line as in the file and shows
    // only it (ariadne 0.6's display line offset numbers the header but not the margin). This
    // costs a byte per earlier line: callers draw a bounded number of snippets per file, so
    // rendering stays linear.
    let line = line.max(1);
    let col = col.max(1);
    let width = width.max(1);
    // An error just past the end of the line (something missing) points at a blank there.
    let pad = (col + width - 1).saturating_sub(source_line.chars().count());
    let text = format!(
        "{}{}{}",
        "\n".repeat(line - 1),
        source_line,
        " ".repeat(pad)
    );
    let start = line - 1 + col - 1;
    let end = start + width;
    let mut out = Vec::new();
    let written = Report::build(ReportKind::Error, (file, start..end))
        .with_config(Config::default().with_color(false))
        .with_message(message)
        .with_label(Label::new((file, start..end)).with_message("here"))
        .finish()
        .write((file, Source::from(text)), &mut out);
    if written.is_err() {
        return String::new();
    }
    let rendered = String::from_utf8_lossy(&out).into_owned();
    // The report's own first line repeats the message, which the caller's first line gives.
    rendered
        .split_once('\n')
        .map_or(String::new(), |(_, rest)| rest.trim_end().to_string())
}
