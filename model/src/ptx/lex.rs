//! The PTX lexer: tokens with their positions, pulled one at a time by the parser.
//!
//! PTX ISA, "Source Format": "Source modules are ASCII text. Lines are separated by the newline
//! character (`\n`). All whitespace characters are equivalent; whitespace is ignored except for
//! its use in separating tokens in the language." "Comments": "Comments in PTX follow C/C++
//! syntax, using non-nested `/*` and `*/` for comments that may span multiple lines, and using
//! `//` to begin a comment that extends up to the next newline character".

use super::ast::Pos;

/// What a token is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    /// An identifier (PTX ISA, "Identifiers": `followsym: [a-zA-Z0-9_$]`, `identifier:
    /// [a-zA-Z]{followsym}* | [_$%]{followsym}+`): `ld`, `%r1`, `$L__BB0_2`, `_Z3fooi`.
    Ident(&'a str),
    /// A dot-name, without its dot: a directive (`.version`), a state space, a type or an
    /// instruction modifier. `::` pieces stay inside (`.shared::cta`, `.mbarrier::complete_tx::bytes`).
    Dot(&'a str),
    /// An integer constant, its `U` suffix dropped.
    Int(u64),
    /// `0fXXXXXXXX`: single-precision bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal floating-point constant: double-precision bits.
    F64(u64),
    /// A string literal's text between its quotes, escapes as written.
    Str(&'a str),
    /// `_` alone: the sink.
    Sink,
    /// One of `{ } ( ) [ ] , ; : @ ! + - | < > =`.
    Punct(char),
    /// The end of the input.
    Eof,
}

/// A token and where it is.
#[derive(Copy, Clone, Debug)]
pub struct Token<'a> {
    /// The token.
    pub tok: Tok<'a>,
    /// Line and column of its first character.
    pub pos: Pos,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

impl Token<'_> {
    /// The token as the user wrote it, for messages.
    pub fn describe(&self, src: &str) -> String {
        match self.tok {
            Tok::Eof => "end of file".to_string(),
            Tok::Str(_) => "a string".to_string(),
            _ => format!("`{}`", src.get(self.start..self.end).unwrap_or("?")),
        }
    }
}

/// The lexer: a cursor over the source text.
pub struct Lexer<'a> {
    src: &'a str,
    i: usize,
    line: u32,
    col: u32,
}

/// `followsym: [a-zA-Z0-9_$]` (PTX ISA, "Identifiers").
fn followsym(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            i: 0,
            line: 1,
            col: 1,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn peek_byte(&self, k: usize) -> Option<u8> {
        self.src.as_bytes().get(self.i + k).copied()
    }

    /// Steps over one character (any UTF-8 width), counting lines and columns.
    fn bump(&mut self) {
        let Some(c) = self.src[self.i..].chars().next() else {
            return;
        };
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
    }

    /// Steps over ASCII bytes that are known not to be newlines.
    fn bump_ascii(&mut self, n: usize) {
        self.i += n;
        self.col += n as u32;
    }

    /// Skips whitespace and comments; an unterminated `/*` is an error at its start.
    fn skip_trivia(&mut self) -> Result<(), (Pos, String)> {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c') => self.bump(),
                Some(b'/') if self.peek_byte(1) == Some(b'/') => {
                    while !matches!(self.peek_byte(0), None | Some(b'\n')) {
                        self.bump();
                    }
                }
                Some(b'/') if self.peek_byte(1) == Some(b'*') => {
                    let start = self.pos();
                    self.bump_ascii(2);
                    loop {
                        match self.peek_byte(0) {
                            None => return Err((start, "unterminated comment `/*`".into())),
                            Some(b'*') if self.peek_byte(1) == Some(b'/') => {
                                self.bump_ascii(2);
                                break;
                            }
                            Some(_) => self.bump(),
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The next token.
    pub fn next_token(&mut self) -> Result<Token<'a>, (Pos, String)> {
        self.skip_trivia()?;
        let pos = self.pos();
        let start = self.i;
        let Some(b) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                pos,
                start,
                end: start,
            });
        };
        let tok = match b {
            b'.' => {
                self.bump_ascii(1);
                let name_start = self.i;
                self.dot_name(pos)?;
                Tok::Dot(&self.src[name_start..self.i])
            }
            b'0'..=b'9' => self.number(pos)?,
            b'"' => self.string(pos)?,
            b'_' if !self.peek_byte(1).is_some_and(followsym) => {
                self.bump_ascii(1);
                Tok::Sink
            }
            // `[_$%]{followsym}+`
            b'_' | b'$' | b'%' => {
                self.bump_ascii(1);
                let n = self.run(followsym);
                if n == 0 {
                    return Err((pos, format!("`{}` must be followed by a name", b as char)));
                }
                Tok::Ident(&self.src[start..self.i])
            }
            // `[a-zA-Z]{followsym}*`
            b'a'..=b'z' | b'A'..=b'Z' => {
                self.run(followsym);
                Tok::Ident(&self.src[start..self.i])
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b',' | b';' | b':' | b'@' | b'!' | b'+'
            | b'-' | b'|' | b'<' | b'>' | b'=' => {
                self.bump_ascii(1);
                Tok::Punct(b as char)
            }
            b'#' => {
                return Err((
                    pos,
                    "preprocessor lines (`#`) are not PTX; run the C preprocessor first".into(),
                ))
            }
            _ => {
                let c = self.src[self.i..].chars().next().unwrap_or('?');
                return Err((pos, format!("unexpected character `{}`", c.escape_debug())));
            }
        };
        Ok(Token {
            tok,
            pos,
            start,
            end: self.i,
        })
    }

    /// Consumes bytes while `f` holds; returns how many.
    fn run(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let from = self.i;
        while self.peek_byte(0).is_some_and(&f) {
            self.bump_ascii(1);
        }
        self.i - from
    }

    /// After a `.`: `{followsym}+` pieces joined by `::` (`shared::cta`, `L2::cache_hint`).
    fn dot_name(&mut self, pos: Pos) -> Result<(), (Pos, String)> {
        loop {
            if self.run(followsym) == 0 {
                return Err((
                    pos,
                    "`.` must be followed by a directive or modifier name".into(),
                ));
            }
            if self.peek_byte(0) == Some(b':') && self.peek_byte(1) == Some(b':') {
                self.bump_ascii(2);
            } else {
                return Ok(());
            }
        }
    }

    /// A string literal; the PTX ISA uses them for `.file` names and `.pragma` texts, in the
    /// C syntax: `\` escapes the next character. A string does not span lines.
    fn string(&mut self, pos: Pos) -> Result<Tok<'a>, (Pos, String)> {
        self.bump_ascii(1);
        let from = self.i;
        loop {
            match self.peek_byte(0) {
                None | Some(b'\n') => return Err((pos, "unterminated string".into())),
                Some(b'"') => break,
                Some(b'\\') => {
                    self.bump_ascii(1);
                    if matches!(self.peek_byte(0), None | Some(b'\n')) {
                        return Err((pos, "unterminated string".into()));
                    }
                    self.bump();
                }
                Some(_) => self.bump(),
            }
        }
        let text = &self.src[from..self.i];
        self.bump_ascii(1);
        Ok(Tok::Str(text))
    }

    /// A numeric constant. PTX ISA, "Integer Constants":
    ///
    /// ```text
    /// hexadecimal literal:  0[xX]{hexdigit}+U?
    /// octal literal:        0{octal digit}+U?
    /// binary literal:       0[bB]{bit}+U?
    /// decimal literal:      {nonzero-digit}{digit}*U?
    /// ```
    ///
    /// "Floating-Point Constants": "Floating-point constants are represented as 64-bit
    /// double-precision values"; "`0[fF]{hexdigit}{8}` // single-precision floating point",
    /// "`0[dD]{hexdigit}{16}` // double-precision floating point"; a decimal constant with a
    /// fraction or an exponent (`1.5`, `2e-3`) is a double.
    fn number(&mut self, pos: Pos) -> Result<Tok<'a>, (Pos, String)> {
        let start = self.i;
        let bad = |lx: &mut Lexer<'a>, why: &str| {
            lx.run(followsym);
            let text = &lx.src[start..lx.i];
            Err((pos, format!("bad number `{text}`: {why}")))
        };
        let prefix = (self.peek_byte(0), self.peek_byte(1));
        let tok = match prefix {
            (Some(b'0'), Some(b'x' | b'X')) => {
                self.bump_ascii(2);
                self.integer(16, start, pos)?
            }
            (Some(b'0'), Some(b'b' | b'B')) => {
                self.bump_ascii(2);
                self.integer(2, start, pos)?
            }
            (Some(b'0'), Some(f @ (b'f' | b'F' | b'd' | b'D'))) => {
                self.bump_ascii(2);
                let digits_start = self.i;
                let n = self.run(|b| b.is_ascii_hexdigit());
                let want = if matches!(f, b'f' | b'F') { 8 } else { 16 };
                if n != want || self.peek_byte(0).is_some_and(followsym) {
                    return bad(
                        self,
                        &format!("`0{}` takes exactly {want} hex digits", f as char),
                    );
                }
                let digits = &self.src[digits_start..self.i];
                match want {
                    8 => {
                        Tok::F32(u32::from_str_radix(digits, 16).map_err(|e| (pos, e.to_string()))?)
                    }
                    _ => {
                        Tok::F64(u64::from_str_radix(digits, 16).map_err(|e| (pos, e.to_string()))?)
                    }
                }
            }
            _ => {
                self.run(|b| b.is_ascii_digit());
                let fraction = self.peek_byte(0) == Some(b'.')
                    && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit());
                if fraction {
                    self.bump_ascii(1);
                    self.run(|b| b.is_ascii_digit());
                }
                let exponent = matches!(self.peek_byte(0), Some(b'e' | b'E'))
                    && match self.peek_byte(1) {
                        Some(b'+' | b'-') => self.peek_byte(2).is_some_and(|b| b.is_ascii_digit()),
                        b => b.is_some_and(|b| b.is_ascii_digit()),
                    };
                if exponent {
                    self.bump_ascii(2);
                    self.run(|b| b.is_ascii_digit());
                }
                if fraction || exponent {
                    if self.peek_byte(0).is_some_and(followsym) {
                        return bad(self, "unexpected characters after the constant");
                    }
                    let text = &self.src[start..self.i];
                    let v: f64 = text
                        .parse()
                        .map_err(|_| (pos, format!("bad number `{text}`")))?;
                    Tok::F64(v.to_bits())
                } else {
                    self.i = start;
                    self.col = pos.col;
                    let octal = self.peek_byte(0) == Some(b'0')
                        && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit());
                    if octal {
                        self.bump_ascii(1);
                        self.integer(8, start, pos)?
                    } else {
                        self.integer(10, start, pos)?
                    }
                }
            }
        };
        Ok(tok)
    }

    /// Digits of `radix` then an optional `U`; the value must fit in 64 bits.
    fn integer(&mut self, radix: u32, start: usize, pos: Pos) -> Result<Tok<'a>, (Pos, String)> {
        let digits_start = self.i;
        self.run(|b| b.is_ascii_alphanumeric());
        let mut digits = &self.src[digits_start..self.i];
        if let Some(d) = digits.strip_suffix('U') {
            digits = d;
        }
        let text = &self.src[start..self.i];
        if self.peek_byte(0).is_some_and(followsym) {
            self.run(followsym);
            let text = &self.src[start..self.i];
            return Err((pos, format!("bad number `{text}`")));
        }
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            let base = match radix {
                2 => "binary",
                8 => "octal",
                16 => "hexadecimal",
                _ => "decimal",
            };
            return Err((pos, format!("bad number `{text}`: not a {base} constant")));
        }
        u64::from_str_radix(digits, radix)
            .map(Tok::Int)
            .map_err(|_| (pos, format!("bad number `{text}`: does not fit in 64 bits")))
    }

    /// After a `{` already read: the text up to its matching `}` (strings and comments may
    /// hold braces), and steps past the `}`. `open` is where the `{` is, for the error.
    pub fn balanced_text(&mut self, open: Pos) -> Result<&'a str, (Pos, String)> {
        let from = self.i;
        let mut depth = 1usize;
        loop {
            match self.peek_byte(0) {
                None => return Err((open, "unterminated block: no `}` matches this `{`".into())),
                Some(b'{') => {
                    depth += 1;
                    self.bump_ascii(1);
                }
                Some(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        let text = &self.src[from..self.i];
                        self.bump_ascii(1);
                        return Ok(text);
                    }
                    self.bump_ascii(1);
                }
                Some(b'"') => {
                    let p = self.pos();
                    self.string(p)?;
                }
                Some(b'/') if matches!(self.peek_byte(1), Some(b'/' | b'*')) => {
                    self.skip_trivia()?;
                }
                Some(_) => self.bump(),
            }
        }
    }
}
