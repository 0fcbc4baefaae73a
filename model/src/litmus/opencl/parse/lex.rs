//! Tokens of herd's OpenCL C litmus syntax (the lexer rules of Dat3M's `LitmusC.g4`,
//! `C11Lexer.g4`, `OpenCLLexer.g4` and `LitmusAssertions.g4` this dialect reads): identifiers,
//! decimal and hexadecimal constants, quoted strings, punctuation. `//` and `/* */` comments
//! (`LineComment`, `BlockComment`) and whitespace separate tokens. Lexing stops at the first
//! word of herd's tail (`locations`, `filter`, `exists`, `forall`, `final`, `~`), which the
//! shared tail parser reads.

use crate::litmus::ir::Value;

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(Value),
    /// A quoted string (its text, escapes resolved).
    Str(String),
    Punct(&'static str),
}

/// A token and the byte offset it starts at.
pub(super) struct Token {
    pub tok: Tok,
    pub at: usize,
}

/// Punctuation, longest first.
const PUNCT: [&str; 30] = [
    "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "%", "{", "}", "(", ")", "[", "]", ";", ",",
    "=", "*", "|", "&", "^", "@", "-", "+", "/", "<", ">", "!", ":",
];

/// The words that start herd's tail.
const TAIL: [&str; 5] = ["exists", "forall", "locations", "filter", "final"];

/// Tokens from byte `at` of `src` up to herd's tail (which is left to the caller); an error is
/// a byte offset and a message.
pub(super) fn lex(src: &str, at: usize) -> Result<Vec<Token>, (usize, String)> {
    let b = src.as_bytes();
    let mut i = at;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let Some(len) = src[i + 2..].find("*/") else {
                return Err((i, "unterminated comment `/*`".into()));
            };
            i += len + 4;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[s..i];
            out.push(Token {
                tok: Tok::Ident(word.into()),
                at: s,
            });
            if TAIL.contains(&word) {
                return Ok(out);
            }
        } else if c.is_ascii_digit() {
            let s = i;
            let hex = b[i..].starts_with(b"0x") || b[i..].starts_with(b"0X");
            if hex {
                i += 2;
            }
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let text = &src[s..i];
            // `constant`: `DigitSequence` or `HexDigitSequence`.
            let v = match hex {
                true => Value::from_str_radix(&text[2..], 16),
                false => text.parse::<Value>(),
            }
            .map_err(|_| (s, format!("bad integer `{text}`")))?;
            out.push(Token {
                tok: Tok::Int(v),
                at: s,
            });
        } else if c == b'"' {
            let (text, len) = string(&src[i..]).ok_or((i, "unterminated string".to_string()))?;
            out.push(Token {
                tok: Tok::Str(text),
                at: i,
            });
            i += len;
        } else if c == b'~' {
            // `~exists`: the tail starts here.
            out.push(Token {
                tok: Tok::Ident("~".into()),
                at: i,
            });
            return Ok(out);
        } else if let Some(p) = PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            out.push(Token {
                tok: Tok::Punct(p),
                at: i,
            });
            i += p.len();
        } else {
            let ch = src[i..].chars().next().expect("in bounds");
            return Err((i, format!("unexpected character `{ch}`")));
        }
    }
    Ok(out)
}

/// A quoted string at the start of `s`: its text (`\"` and `\\` are a quote and a backslash)
/// and its length in bytes, quotes included; `None` when it does not end.
pub fn string(s: &str) -> Option<(String, usize)> {
    let mut text = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((text, i + 1)),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => text.push(e),
                Some((_, e)) => {
                    text.push('\\');
                    text.push(e);
                }
                None => return None,
            },
            c => text.push(c),
        }
    }
    None
}

/// `text` quoted so that [`string`] reads it back.
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            // A backslash stays one unless [`string`] would read it with what follows.
            '\\' if matches!(chars.peek(), Some('"' | '\\') | None) => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
