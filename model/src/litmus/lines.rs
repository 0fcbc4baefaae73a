//! Lines and columns of byte offsets in a source text, found in logarithmic time: the start of
//! every line is listed once, so that a parser placing each of 200,000 instructions, or 40,000
//! errors, stays linear in the file.

use super::ir::Span;

/// Where each line of a text starts.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the start of each line; line 1 starts at 0.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes the lines of `text` (lines end at `\n`).
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The 1-based line and column (in characters) of a byte offset; an offset past the end
    /// is placed at the end.
    pub fn span(&self, offset: usize) -> Span {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col = self.text[self.starts[line]..offset].chars().count();
        Span {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }

    /// The text of a 1-based line, without its line break (`\r\n` or `\n`); empty past the
    /// last line.
    pub fn line(&self, line: u32) -> &'a str {
        let Some(&start) = self.starts.get(line.saturating_sub(1) as usize) else {
            return "";
        };
        let end = self
            .starts
            .get(line as usize)
            .map_or(self.text.len(), |&next| next - 1);
        let text = &self.text[start..end.max(start)];
        text.strip_suffix('\r').unwrap_or(text)
    }
}
