//! Parser for Dartagnan's PTX litmus dialect, with the herd7 syntax the Dartagnan and herd
//! suites use around it.
//!
//! ```text
//! PTX MP-gpu
//! "optional quoted comments"
//! { x=0; y=0; P1:r0=0; s @ surface aliases x; }
//!  P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
//!  st.weak x, 1        | ld.acquire.gpu r0, y ; (* herd comments, nested, anywhere *)
//!  st.release.gpu y, 1 | ld.weak r1, x        ;
//! locations [x; 1:r0;]
//! filter (1:r0 == 1)
//! exists (P1:r0 == 1 /\ P1:r1 == 0)
//! ```
//! The file is read in four sections (header, init block, thread table, and the tail: herd's
//! optional `locations [...]` and `filter PROP`, then the final condition); each error names the
//! exact line and column it was found at. A UTF-8 byte order mark is skipped; herd's `(* *)`
//! comments (which nest, as in herd) count as blanks wherever they appear outside quoted strings.
//!
//! Conditions are bounded so that no walk over one (printing, evaluation, the engines) can
//! exhaust the stack: at most [`MAX_NESTING`] parentheses deep and [`MAX_OPERATORS`] operators.

mod async_ops;

use super::error::LitmusError;
use super::ir::*;
use super::lines::LineIndex;
use super::vulkan::{
    VulkanKind, VulkanOp, VulkanPlacement, VulkanScope, VulkanTest, STORAGE_CLASSES,
};
use super::warp::{self, ReduxOp, ReduxType, ShflMode, VoteMode, WarpOp, WarpPart};
use crate::scope::{Order, Placement, Scope};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// The most declarations (locations and register initialisations) an initial state may have:
/// far more than any engine can explore, and few enough that checking each name against the
/// earlier ones stays fast.
pub const MAX_DECLARATIONS: usize = 4096;

/// The most threads a program may have (the engines take at most this many events).
pub const MAX_THREADS: usize = 256;

/// The deepest parenthesis nesting a condition may have.
pub const MAX_NESTING: usize = 100;

/// The most `/\`, `\/` and `~` operators a condition (or filter) may have: every recursive
/// walk of a [`Prop`] is at most this deep.
pub const MAX_OPERATORS: usize = 1000;

/// Parses one litmus file. `file` is used only in error messages; the first error (by
/// position) is returned, [`parse_all`] gives every one found.
pub fn parse(src: &str, file: &str) -> Result<Program> {
    parse_all(src, file).map_err(|mut errors| errors.swap_remove(0))
}

/// Parses one litmus file, reporting every error the parser can recover from (one per bad
/// declaration of the initial state and per bad instruction of the thread table), sorted by
/// position; never an empty list. Checks that need a whole table (registers, labels, the
/// condition) run only on a table without errors, so no error follows from another.
pub fn parse_all(src: &str, file: &str) -> std::result::Result<Program, Vec<LitmusError>> {
    // A byte order mark (as some editors write) is not part of the text.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    // herd reads an OpenCL test's kernels with a C lexer: there `(*` is a parenthesis and a
    // dereference, and comments are C's.
    let c_dialect = src
        .trim_start()
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("opencl"));
    let blanked = match c_dialect {
        true => blank_c_comments(src),
        false => blank_comments(src),
    }
    .map_err(|at| {
        vec![LitmusError::at(
            file,
            src,
            span_of(src, at),
            "unterminated comment: this `(*` is never closed by `*)`",
        )]
    })?;
    let parser = Parser {
        src: &blanked,
        original: src,
        lines: LineIndex::new(src),
        file,
        pos: 0,
        vulkan: false,
        opencl: false,
        recovered: RefCell::new(Vec::new()),
    };
    let (result, mut errors) = parser.program();
    match result {
        Ok(p) if errors.is_empty() => return Ok(p),
        Ok(_) => {}
        Err(e) => errors.push(e),
    }
    errors.sort_by_key(|e| (e.span.line, e.span.col));
    errors.dedup();
    Err(errors)
}

/// `src` with every herd comment `(* ... *)` (nested ones included) turned into spaces, line
/// breaks kept, so that byte offsets, lines and columns stay those of the file. Quoted strings
/// (Dartagnan's comment lines) are left alone. `Err` holds the offset of an unclosed `(*`.
fn blank_comments(src: &str) -> std::result::Result<String, usize> {
    let bytes = src.as_bytes();
    let mut out = bytes.to_vec();
    let (mut depth, mut opened, mut in_string) = (0usize, 0usize, false);
    let mut i = 0;
    while i < bytes.len() {
        let two = &bytes[i..(i + 2).min(bytes.len())];
        if depth == 0 && bytes[i] == b'"' {
            in_string = !in_string;
        } else if !in_string && two == b"(*" {
            if depth == 0 {
                opened = i;
            }
            depth += 1;
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            continue;
        } else if depth > 0 && two == b"*)" {
            depth -= 1;
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            continue;
        }
        if depth > 0 && bytes[i] != b'\n' {
            out[i] = b' ';
        }
        i += 1;
    }
    if depth > 0 {
        return Err(opened);
    }
    // Only whole UTF-8 sequences inside comments were replaced, byte by byte, by spaces.
    Ok(String::from_utf8(out).expect("blanking comments keeps UTF-8"))
}

/// `src` with the comments of an OpenCL C test turned into spaces: herd's `(* *)` outside
/// braces (before the kernels and in the tail), and C's `//` and `/* */` anywhere. `Err` holds
/// the offset of an unclosed comment.
fn blank_c_comments(src: &str) -> std::result::Result<String, usize> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let (mut i, mut depth) = (0, 0usize);
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let close = if rest.starts_with(b"//") {
            Some(rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len()))
        } else if rest.starts_with(b"/*") {
            Some(find(rest, b"*/").ok_or(i)? + 2)
        } else if depth == 0 && rest.starts_with(b"(*") {
            Some(find(rest, b"*)").ok_or(i)? + 2)
        } else {
            None
        };
        match close {
            Some(len) => {
                blank(&mut out, i, i + len);
                i += len;
            }
            None => {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += 1;
            }
        }
    }
    Ok(String::from_utf8(out).expect("blanking comments keeps UTF-8"))
}

/// The offset of the first `needle` in `hay` (after its first two bytes, the opener).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    (2..hay.len().saturating_sub(needle.len() - 1)).find(|&k| hay[k..].starts_with(needle))
}

/// The line and column of a byte offset of `src` (for one position; a parser keeps a
/// [`LineIndex`]).
fn span_of(src: &str, offset: usize) -> Span {
    LineIndex::new(src).span(offset)
}

struct Parser<'a> {
    /// The text parsed: the file with its comments blanked out.
    src: &'a str,
    /// The file as written, for positions and quoted source lines.
    original: &'a str,
    /// The lines of `original`.
    lines: LineIndex<'a>,
    file: &'a str,
    pos: usize,
    /// A Vulkan test (`VULKAN NAME` header): Dat3M's Vulkan instructions and placements.
    vulkan: bool,
    /// An OpenCL test (`OPENCL NAME` header): herd's OpenCL C kernels.
    opencl: bool,
    /// Errors recovered from so far (parsing went on past them).
    recovered: RefCell<Vec<LitmusError>>,
}

type Result<T> = std::result::Result<T, LitmusError>;

/// A piece of text with the byte offset it starts at in the file.
#[derive(Clone, Copy)]
struct Piece<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Piece<'a> {
    fn trim(self) -> Piece<'a> {
        let lead = self.text.len() - self.text.trim_start().len();
        Piece {
            text: self.text.trim(),
            at: self.at + lead,
        }
    }

    fn split(self, sep: char) -> Vec<Piece<'a>> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in self.text.char_indices() {
            if c == sep {
                out.push(Piece {
                    text: &self.text[start..i],
                    at: self.at + start,
                });
                start = i + c.len_utf8();
            }
        }
        out.push(Piece {
            text: &self.text[start..],
            at: self.at + start,
        });
        out
    }
}

impl<'a> Parser<'a> {
    fn span(&self, offset: usize) -> Span {
        self.lines.span(offset)
    }

    fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T> {
        Err(self.error_at(self.span(offset), message))
    }

    fn error_at(&self, span: Span, message: impl Into<String>) -> LitmusError {
        LitmusError::on_line(self.file, self.lines.line(span.line), span, message)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The program, or the error that stopped the parse; then every error recovered from.
    fn program(mut self) -> (Result<Program>, Vec<LitmusError>) {
        let result = self.whole_program();
        (result, self.recovered.into_inner())
    }

    /// Notes an error and goes on parsing.
    fn recover(&self, e: LitmusError) {
        self.recovered.borrow_mut().push(e);
    }

    /// Stops at the first error recovered from, if any: what follows needs a sound table.
    fn stop_if_recovered(&self) -> Result<()> {
        let mut recovered = self.recovered.borrow_mut();
        match recovered.is_empty() {
            true => Ok(()),
            false => Err(recovered.remove(0)),
        }
    }

    fn whole_program(&mut self) -> Result<Program> {
        let name = self.header()?;
        if self.opencl {
            return super::opencl::parse::program(
                self.src,
                self.original,
                self.file,
                name,
                self.pos,
                &|at, program| self.tail(at, program),
            );
        }
        let comments = self.comments()?;
        let init = self.init_block()?;
        let ssw = match self.vulkan {
            true => self.ssw_block()?,
            false => Vec::new(),
        };
        let (threads_text, tail_at) = self.thread_section()?;
        let mut locations = Vec::new();
        let mut reg_init = Vec::new();
        let reg_init_at = self.declarations(&init, &mut locations, &mut reg_init)?;
        let (threads, placements) = self.threads(threads_text, &mut locations)?;
        self.stop_if_recovered()?;
        for &(a, b, at) in &ssw {
            if a.max(b) >= threads.len() {
                return self.err(
                    at,
                    format!("`ssw {a} {b}` names a thread that does not exist"),
                );
            }
        }
        for (init, at) in reg_init.iter().zip(reg_init_at) {
            if init.thread >= threads.len() {
                return self.err(
                    at,
                    format!(
                        "P{}:{} initialises a register of a thread that does not exist",
                        init.thread, init.reg
                    ),
                );
            }
        }
        let mut program = Program {
            name,
            comments,
            locations,
            reg_init,
            threads,
            observed: Vec::new(),
            filter: None,
            vulkan: self.vulkan.then(|| VulkanTest {
                placements,
                ssw: ssw.iter().map(|&(a, b, _)| (a, b)).collect(),
            }),
            opencl: None,
            condition: Condition {
                quantifier: Quantifier::Exists,
                prop: Prop::True,
                span: Span::default(),
            },
        };
        self.check_registers(&program)?;
        self.tail(tail_at, &mut program)?;
        Ok(program)
    }

    /// `PTX NAME` (or `VULKAN NAME`: a Vulkan test) on the first non-blank line.
    fn header(&mut self) -> Result<String> {
        self.skip_ws();
        let line_end = self
            .rest()
            .find('\n')
            .map_or(self.src.len(), |i| self.pos + i);
        let line = Piece {
            text: &self.src[self.pos..line_end],
            at: self.pos,
        }
        .trim();
        let mut words = line.text.split_whitespace();
        match words.next() {
            Some("PTX") | Some("ptx") => {}
            Some(word) if word.eq_ignore_ascii_case("vulkan") => self.vulkan = true,
            Some(word) if word.eq_ignore_ascii_case("opencl") => self.opencl = true,
            Some(_) => {
                return self.err(
                    line.at,
                    "expected `PTX <name>`, `VULKAN <name>` or `OPENCL <name>` header",
                )
            }
            None => return self.err(self.pos, "empty file: expected `PTX <name>` header"),
        }
        // The name runs up to a quoted description on the same line (herd: `X86 SB "..."`),
        // which the description reader takes.
        let quote_at = line.text.find('"');
        let named = &line.text[..quote_at.unwrap_or(line.text.len())];
        let name: Vec<&str> = named.split_whitespace().skip(1).collect();
        if name.is_empty() {
            return self.err(
                line.at + line.text.len(),
                "missing test name after the dialect",
            );
        }
        self.pos = quote_at.map_or(line_end, |q| line.at + q);
        Ok(name.join(" "))
    }

    /// Quoted comment strings (which may span lines) before the init block.
    fn comments(&mut self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            if !self.rest().starts_with('"') {
                return Ok(out);
            }
            let open = self.pos;
            // `\"` is a quote inside the string, `\\` a backslash.
            match super::opencl::parse::string(self.rest()) {
                Some((text, len)) => {
                    out.push(text);
                    self.pos = open + len;
                }
                None => return self.err(open, "unterminated comment string"),
            }
        }
    }

    /// The text between `{` and `}`.
    fn init_block(&mut self) -> Result<Piece<'a>> {
        self.skip_ws();
        if !self.rest().starts_with('{') {
            return self.err(self.pos, "expected `{` opening the initial state");
        }
        let open = self.pos;
        let Some(len) = self.rest().find('}') else {
            return self.err(open, "unterminated initial state: missing `}`");
        };
        let body = Piece {
            text: &self.src[open + 1..open + len],
            at: open + 1,
        };
        self.pos = open + len + 1;
        self.skip_ws();
        if self.rest().starts_with(';') {
            self.pos += 1;
        }
        Ok(body)
    }

    /// A Vulkan test's optional second block: `{ ssw 0 1; ssw 1 2; }`, each pair with where
    /// it was written.
    fn ssw_block(&mut self) -> Result<Vec<(ThreadId, ThreadId, usize)>> {
        self.skip_ws();
        if !self.rest().starts_with('{') {
            return Ok(Vec::new());
        }
        let body = self.init_block()?;
        let mut out = Vec::new();
        for decl in body.split(';') {
            let decl = decl.trim();
            if decl.text.is_empty() {
                continue;
            }
            let words = split_words(decl);
            if words.len() != 3 || words[0].text != "ssw" {
                return self.err(
                    decl.at,
                    format!("expected `ssw <thread> <thread>`, found `{}`", decl.text),
                );
            }
            let thread = |p: Piece<'a>| -> Result<ThreadId> {
                match p.text.parse::<ThreadId>() {
                    Ok(t) if p.text.chars().all(|c| c.is_ascii_digit()) => Ok(t),
                    _ => self.err(
                        p.at,
                        format!("expected a thread number, found `{}`", p.text),
                    ),
                }
            };
            out.push((thread(words[1])?, thread(words[2])?, decl.at));
        }
        Ok(out)
    }

    /// The thread table runs from after the init block to the first line starting with
    /// `locations`, `filter` or the condition's quantifier.
    fn thread_section(&mut self) -> Result<(Piece<'a>, usize)> {
        let start = self.pos;
        let mut offset = start;
        for line in self.rest().split_inclusive('\n') {
            let trimmed = line.trim_start();
            let word: String = trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '~' || *c == '_')
                .collect();
            // A label may be called `exists`; only the keyword itself starts the condition.
            let is_label = trimmed[word.len()..].trim_start().starts_with(':');
            if matches!(
                word.as_str(),
                "exists" | "~exists" | "forall" | "~" | "locations" | "filter"
            ) && !trimmed.contains('|')
                && !is_label
            {
                let at = offset + (line.len() - trimmed.len());
                return Ok((
                    Piece {
                        text: &self.src[start..at],
                        at: start,
                    },
                    at,
                ));
            }
            offset += line.len();
        }
        self.err(
            self.src.len(),
            "missing final condition (`exists`, `~exists` or `forall`)",
        )
    }

    /// Fills `locations` and `regs`; returns where each register initialisation was written.
    fn declarations(
        &self,
        init: &Piece<'a>,
        locations: &mut Vec<Location>,
        regs: &mut Vec<RegInit>,
    ) -> Result<Vec<usize>> {
        let mut reg_at = Vec::new();
        // `y @ generic aliases x` keeps its textual place; its target may be declared later.
        let mut targets = Vec::new();
        for decl in init.split(';') {
            // Each declaration stands alone: a bad one is noted and the others still read.
            let mut one = || -> Result<()> {
                let decl = decl.trim();
                if decl.text.is_empty() {
                    return Ok(());
                }
                if locations.len() + regs.len() >= MAX_DECLARATIONS {
                    return self.err(
                        decl.at,
                        format!("more than {MAX_DECLARATIONS} declarations in the initial state"),
                    );
                }
                if let Some(at_sign) = decl.text.find('@') {
                    let lhs = Piece {
                        text: &decl.text[..at_sign],
                        at: decl.at,
                    }
                    .trim();
                    let rhs = Piece {
                        text: &decl.text[at_sign + 1..],
                        at: decl.at + at_sign + 1,
                    }
                    .trim();
                    let words: Vec<Piece> = split_words(rhs);
                    if words.first().is_some_and(|w| w.text == "shared") {
                        let (name, shared, init) = self.shared_declaration(lhs, rhs)?;
                        if locations.iter().any(|l| l.name == name) {
                            return self
                                .err(lhs.at, format!("location `{name}` is declared twice"));
                        }
                        locations.push(Location {
                            name,
                            kind: LocationKind::Plain { init },
                            span: self.span(lhs.at),
                            shared: Some(shared),
                        });
                        return Ok(());
                    }
                    if words.len() != 3 || words[1].text != "aliases" {
                        return self.err(rhs.at, "expected `<name> @ <proxy> aliases <location>`");
                    }
                    let Some(proxy) =
                        Proxy::from_name(words[0].text).filter(|p| *p != Proxy::Async)
                    else {
                        return self.err(
                            words[0].at,
                            format!(
                                "unknown proxy `{}` (generic, surface, texture, constant)",
                                words[0].text
                            ),
                        );
                    };
                    let name = self.identifier(lhs, "alias name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    targets.push((locations.len(), words[2]));
                    locations.push(Location {
                        name,
                        kind: LocationKind::Alias {
                            proxy,
                            of: usize::MAX,
                        },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                    return Ok(());
                }
                if let (Some(k), None) = (decl.text.find(" aliases "), decl.text.find('=')) {
                    // `y aliases x` (Vulkan tests): another reference to x's location.
                    let lhs = Piece {
                        text: &decl.text[..k],
                        at: decl.at,
                    }
                    .trim();
                    let target = Piece {
                        text: &decl.text[k + " aliases ".len()..],
                        at: decl.at + k + " aliases ".len(),
                    }
                    .trim();
                    let name = self.identifier(lhs, "alias name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    targets.push((locations.len(), target));
                    locations.push(Location {
                        name,
                        kind: LocationKind::Alias {
                            proxy: Proxy::Generic,
                            of: usize::MAX,
                        },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                    return Ok(());
                }
                let Some(eq) = decl.text.find('=') else {
                    return self.err(
                        decl.at,
                        format!("expected `name = value`, found `{}`", decl.text),
                    );
                };
                let lhs = Piece {
                    text: &decl.text[..eq],
                    at: decl.at,
                }
                .trim();
                let rhs = Piece {
                    text: &decl.text[eq + 1..],
                    at: decl.at + eq + 1,
                }
                .trim();
                let value = self.integer(rhs)?;
                if let Some((thread, reg)) = self.thread_reg(lhs)? {
                    if regs
                        .iter()
                        .any(|r: &RegInit| r.thread == thread && r.reg == reg)
                    {
                        return self.err(lhs.at, format!("P{thread}:{reg} is initialised twice"));
                    }
                    regs.push(RegInit { thread, reg, value });
                    reg_at.push(lhs.at);
                } else {
                    let name = self.identifier(lhs, "location name")?;
                    if locations.iter().any(|l| l.name == name) {
                        return self.err(lhs.at, format!("location `{name}` is declared twice"));
                    }
                    locations.push(Location {
                        name,
                        kind: LocationKind::Plain { init: value },
                        span: self.span(lhs.at),
                        shared: None,
                    });
                }
                Ok(())
            };
            if let Err(e) = one() {
                self.recover(e);
            }
        }
        for (alias, target) in targets {
            let Some(mut of) = locations.iter().position(|l| l.name == target.text) else {
                return self.err(
                    target.at,
                    format!("alias of undeclared location `{}`", target.text),
                );
            };
            // An alias of an alias names the same physical location; `of` keeps the direct
            // target, whose generic address a surface/texture/constant alias shares.
            let direct = of;
            for _ in 0..locations.len() {
                match locations[of].kind {
                    LocationKind::Alias { of: next, .. } if next != usize::MAX && next != alias => {
                        of = next
                    }
                    _ => break,
                }
            }
            if of == alias || !matches!(locations[of].kind, LocationKind::Plain { .. }) {
                return self.err(
                    target.at,
                    format!("alias `{}` does not lead to a plain location", target.text),
                );
            }
            if let LocationKind::Alias { of: slot, .. } = &mut locations[alias].kind {
                *slot = direct;
            }
        }
        Ok(reg_at)
    }

    /// `P1:r0` → (1, r0); anything else → None.
    fn thread_reg(&self, p: Piece<'a>) -> Result<Option<(ThreadId, Reg)>> {
        let Some(colon) = p.text.find(':') else {
            return Ok(None);
        };
        let thread_part = Piece {
            text: &p.text[..colon],
            at: p.at,
        }
        .trim();
        let reg_part = Piece {
            text: &p.text[colon + 1..],
            at: p.at + colon + 1,
        }
        .trim();
        let thread = self.thread_id(thread_part)?;
        let reg = Reg(self.identifier(reg_part, "register")?);
        if !p.text[colon + 1..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
        {
            return self.err(reg_part.at, "expected a register after `:`");
        }
        Ok(Some((thread, reg)))
    }

    fn thread_id(&self, p: Piece<'a>) -> Result<ThreadId> {
        // Dartagnan writes `P1:r0`; herd7 also `1:r0`.
        let digits = p.text.strip_prefix('P').unwrap_or(p.text);
        match digits.parse::<usize>() {
            Ok(n) if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => Ok(n),
            _ => self.err(
                p.at,
                format!("expected a thread name like `P0`, found `{}`", p.text),
            ),
        }
    }

    fn identifier(&self, p: Piece<'a>, what: &str) -> Result<String> {
        let ok = p
            .text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ok {
            Ok(p.text.to_string())
        } else if p.text.is_empty() {
            self.err(p.at, format!("missing {what}"))
        } else {
            self.err(p.at, format!("expected a {what}, found `{}`", p.text))
        }
    }

    fn integer(&self, p: Piece<'a>) -> Result<Value> {
        match p.text.parse::<Value>() {
            Ok(v) => Ok(v),
            Err(_) if p.text.is_empty() => self.err(p.at, "missing value"),
            Err(_) => self.err(p.at, format!("expected an integer, found `{}`", p.text)),
        }
    }

    /// Rows of `|`-separated cells ending in `;`; the first row places the threads.
    fn threads(
        &self,
        table: Piece<'a>,
        locations: &mut Vec<Location>,
    ) -> Result<(Vec<Thread>, Vec<VulkanPlacement>)> {
        let mut rows: Vec<Piece> = table.split(';');
        let tail = rows.pop().expect("split yields at least one piece").trim();
        if !tail.text.is_empty() {
            return self.err(
                tail.at + tail.text.len(),
                "expected `;` at the end of the row",
            );
        }
        let rows: Vec<Piece> = rows
            .into_iter()
            .filter(|r| !r.text.trim().is_empty())
            .collect();
        let Some(header) = rows.first() else {
            return self.err(
                table.at,
                "missing thread header such as `P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;`",
            );
        };
        let mut threads: Vec<Thread> = Vec::new();
        let mut placements = Vec::new();
        let mut seen: HashMap<ThreadId, usize> = HashMap::new();
        let cells = header.split('|');
        if let Some(cell) = cells.get(MAX_THREADS) {
            return self.err(
                cell.trim().at,
                format!("more than {MAX_THREADS} threads (the engines explore at most {MAX_THREADS} events)"),
            );
        }
        for (column, cell) in cells.into_iter().enumerate() {
            let cell = cell.trim();
            let (id, placement) = match self.vulkan {
                true => {
                    let (id, vk) = self.vulkan_placement(cell)?;
                    placements.push(vk);
                    // The workgroup is the CTA, the queue family the GPU.
                    (id, Placement::new(vk.workgroup, vk.queue_family))
                }
                false => self.placement(cell)?,
            };
            if let Some(prev) = seen.insert(id, column) {
                return self.err(
                    cell.at,
                    format!(
                        "thread P{id} is placed twice (columns {} and {})",
                        prev + 1,
                        column + 1
                    ),
                );
            }
            if id != column {
                return self.err(
                    cell.at,
                    format!(
                        "thread in column {} must be P{column}, found P{id}",
                        column + 1
                    ),
                );
            }
            threads.push(Thread {
                placement,
                body: Vec::new(),
                span: self.span(cell.at),
            });
        }
        for row in &rows[1..] {
            let cells = row.split('|');
            if cells.len() > threads.len() {
                let extra = cells[threads.len()];
                return self.err(
                    extra.at,
                    format!(
                        "row has {} columns but there are {} threads",
                        cells.len(),
                        threads.len()
                    ),
                );
            }
            for (t, cell) in cells.into_iter().enumerate() {
                let cell = cell.trim();
                if cell.text.is_empty() {
                    continue;
                }
                let parsed = self.token_order(cell).and_then(|(cell, token)| {
                    Ok((cell, token, self.instruction(cell, locations)?))
                });
                let parsed = parsed.and_then(|(cell, token, (instr, vulkan))| {
                    match &instr {
                        Parsed::Instr(instr) => {
                            if threads[t].placement.is_host() {
                                self.host_instruction(cell, instr)?;
                            }
                            let placements: Vec<Placement> =
                                threads.iter().map(|t| t.placement).collect();
                            self.check_spaces(
                                cell,
                                instr,
                                &threads[t].placement,
                                &placements,
                                locations,
                            )?;
                        }
                        Parsed::Warp(_) if threads[t].placement.is_host() => {
                            return self.err(
                                cell.at,
                                "a host thread has no warp: shfl.sync, vote.sync, match.sync, redux.sync and elect.sync are GPU instructions",
                            );
                        }
                        Parsed::Warp(_) => {}
                    }
                    Ok((cell, token, (instr, vulkan)))
                });
                let (cell, token, (instr, vulkan)) = match parsed {
                    Ok(parsed) => parsed,
                    Err(e) => {
                        self.recover(e);
                        continue;
                    }
                };
                let stmt = match instr {
                    Parsed::Instr(instr) => Stmt {
                        instr,
                        span: self.span(cell.at),
                        token,
                        vulkan,
                        opencl: None,
                        warp: None,
                    },
                    Parsed::Warp(op) => warp::placeholder(op, self.span(cell.at)),
                };
                threads[t].body.push(stmt);
            }
        }
        for thread in &threads {
            self.check_labels(thread)?;
            self.check_tokens(thread)?;
        }
        self.check_warps(&threads)?;
        warp::lower(&mut threads, locations);
        Ok((threads, placements))
    }

    /// What a host thread (`P1@host`) may run: generic-proxy loads, stores, RMWs and fences, each
    /// strong one at `.sys` (the PTX ISA: a host thread belongs to the system scope only, so a
    /// narrower scope would name a set of threads the CPU is not part of), plus register moves,
    /// additions and branches. CTA barriers, proxy fences and `cp.async` are GPU instructions.
    fn host_instruction(&self, cell: Piece<'a>, instr: &Instr) -> Result<()> {
        let access = match instr {
            Instr::Load { access, .. }
            | Instr::Store { access, .. }
            | Instr::Atom { access, .. }
            | Instr::Red { access, .. } => Some(access),
            Instr::Fence(Fence::Sc(scope) | Fence::AcqRel(scope)) => {
                if *scope != Scope::Sys {
                    return self.err(
                        cell.at,
                        format!("a host thread's fences are `.sys` (found `.{scope}`): the CPU is in no CTA, cluster or GPU"),
                    );
                }
                None
            }
            Instr::Fence(Fence::Proxy(_))
            | Instr::Barrier { .. }
            | Instr::WarpSync { .. }
            | Instr::CpAsync { .. }
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::Async(_) => {
                return self.err(
                    cell.at,
                    "a host thread runs loads, stores, RMWs and `.sys` fences; proxy fences, barriers, cp.async, mbarriers and bulk copies are GPU instructions",
                );
            }
            _ => None,
        };
        if let Some(a) = access {
            if a.proxy != Proxy::Generic {
                return self.err(
                    cell.at,
                    "a host thread accesses memory through the generic proxy only",
                );
            }
            if let Some(scope) = a.scope.filter(|s| *s != Scope::Sys) {
                return self.err(
                    cell.at,
                    format!("a host thread's strong accesses are `.sys` (found `.{scope}`): the CPU is in no CTA, cluster or GPU"),
                );
            }
        }
        Ok(())
    }

    /// Splits a Tile IR token annotation `[t0, t1 -> t2]` off the end of an instruction cell.
    fn token_order(&self, cell: Piece<'a>) -> Result<(Piece<'a>, Option<TokenOrder>)> {
        let Some(open) = cell.text.find('[') else {
            return Ok((cell, None));
        };
        let instr = Piece {
            text: &cell.text[..open],
            at: cell.at,
        }
        .trim();
        let inner_at = cell.at + open + 1;
        let Some(inner) = cell.text[open + 1..].strip_suffix(']') else {
            return self.err(
                cell.at + open,
                "a token annotation ends the instruction: `[t0, t1 -> t2]`",
            );
        };
        let Some(arrow) = inner.find("->") else {
            return self.err(
                inner_at,
                "expected `->` in the token annotation `[waits-for -> produces]`",
            );
        };
        let name = |text: &'a str, at: usize| -> Result<String> {
            let piece = Piece { text, at }.trim();
            self.identifier(piece, "token")
        };
        let mut after = Vec::new();
        let waits = &inner[..arrow];
        if !waits.trim().is_empty() {
            let mut at = inner_at;
            for part in waits.split(',') {
                after.push(name(part, at)?);
                at += part.len() + 1;
            }
        }
        let out = &inner[arrow + 2..];
        let produces = if out.trim().is_empty() {
            None
        } else {
            Some(name(out, inner_at + arrow + 2)?)
        };
        Ok((instr, Some(TokenOrder { after, produces })))
    }

    /// The thread of a placement cell `P0@...`, and the fields after the `@`.
    fn thread_at(&self, cell: Piece<'a>, example: &str) -> Result<(ThreadId, Piece<'a>)> {
        let Some(at_sign) = cell.text.find('@') else {
            return self.err(
                cell.at,
                format!(
                    "expected a thread placement like `{example}`, found `{}`",
                    cell.text
                ),
            );
        };
        let id = self.thread_id(
            Piece {
                text: &cell.text[..at_sign],
                at: cell.at,
            }
            .trim(),
        )?;
        let fields = Piece {
            text: &cell.text[at_sign + 1..],
            at: cell.at + at_sign + 1,
        };
        Ok((id, fields))
    }

    /// `P0@cta 0,gpu 0` (optionally with `cluster N`).
    fn placement(&self, cell: Piece<'a>) -> Result<(ThreadId, Placement)> {
        let (id, fields) = self.thread_at(cell, "P0@cta 0,gpu 0")?;
        let mut placement = Placement::default();
        let mut cta = None;
        if fields.trim().text == "host" {
            return Ok((id, Placement::host(id as u32)));
        }
        for field in fields.split(',') {
            let field = field.trim();
            let words = split_words(field);
            if words.len() != 2 {
                return self.err(
                    field.at,
                    format!(
                        "expected `cta N`, `cluster N` or `gpu N`, found `{}`",
                        field.text
                    ),
                );
            }
            let n = self.integer(words[1])?;
            let Ok(n) = u32::try_from(n) else {
                return self.err(words[1].at, "placement ids must be non-negative");
            };
            match words[0].text {
                "cta" => cta = Some(n),
                "gpu" if n == Placement::HOST_GPU => {
                    return self.err(words[1].at, "GPU ids must be below 4294967295");
                }
                "gpu" => placement.gpu = n,
                "cluster" => placement.cluster = Some(n),
                other => {
                    return self.err(
                        words[0].at,
                        format!("unknown placement level `{other}` (cta, cluster, gpu)"),
                    )
                }
            }
        }
        match cta {
            Some(c) => placement.cta = c,
            None => return self.err(fields.at, "placement must name a cta"),
        }
        Ok((id, placement))
    }

    /// One instruction; in a Vulkan test, with what it means in Vulkan.
    fn instruction(
        &self,
        cell: Piece<'a>,
        locations: &mut Vec<Location>,
    ) -> Result<(Parsed, Option<VulkanOp>)> {
        if let Some(label) = cell.text.strip_suffix(':') {
            let label = Piece {
                text: label,
                at: cell.at,
            }
            .trim();
            let label = Instr::Label(self.identifier(label, "label")?);
            return Ok((Parsed::Instr(label), None));
        }
        let split = cell
            .text
            .find(char::is_whitespace)
            .unwrap_or(cell.text.len());
        let mnemonic = Piece {
            text: &cell.text[..split],
            at: cell.at,
        };
        let args_piece = Piece {
            text: &cell.text[split..],
            at: cell.at + split,
        }
        .trim();
        let args: Vec<Piece> = if args_piece.text.is_empty() {
            Vec::new()
        } else {
            args_piece.split(',').into_iter().map(Piece::trim).collect()
        };
        let parts: Vec<&str> = mnemonic.text.split('.').collect();
        let args_end = cell.at + cell.text.len();
        let ins = Ins {
            p: self,
            mnemonic,
            args: &args,
            end: args_end,
            locations,
        };
        let vulkan_op = matches!(
            parts[0],
            "ld" | "st" | "rmw" | "membar" | "cbar" | "avdevice" | "visdevice"
        );
        if self.vulkan && vulkan_op && !(parts[0] == "ld" && ins.is_move(&parts)) {
            let (instr, op) = ins.vulkan(&parts)?;
            return Ok((Parsed::Instr(instr), Some(op)));
        }
        if async_ops::is_async(&parts) {
            return Ok((Parsed::Instr(ins.async_op(&parts)?), None));
        }
        if matches!(parts[0], "shfl" | "vote" | "match" | "redux" | "elect") {
            return Ok((Parsed::Warp(ins.exchange(&parts)?), None));
        }
        let instr = match parts[0] {
            "ld" | "suld" | "tld" | "cold" => ins.load(&parts),
            "st" | "sust" => ins.store(&parts),
            "atom" | "red" => ins.rmw(&parts),
            "fence" => ins.fence(&parts),
            "bar" if parts.get(1) == Some(&"warp") => ins.warp(&parts),
            "bar" | "barrier" => ins.barrier(&parts),
            "cp" => ins.cp_async(&parts),
            "mov" if parts.len() == 1 => {
                ins.arity(2)?;
                Ok(Instr::Mov {
                    dst: ins.reg(0)?,
                    src: ins.operand(1)?,
                })
            }
            "add" if parts.len() == 1 => {
                ins.arity(3)?;
                Ok(Instr::Add {
                    dst: ins.reg(0)?,
                    a: ins.operand(1)?,
                    b: ins.operand(2)?,
                })
            }
            // Vulkan's `localSub : Sub register Comma value Comma value`, for a constant
            // subtrahend: an addition of its negation.
            "sub" if parts.len() == 1 && self.vulkan => {
                ins.arity(3)?;
                let b = match ins.operand(2)? {
                    Operand::Imm(k) => Operand::Imm(k.wrapping_neg()),
                    Operand::Reg(_) => return self.err(
                        args[2].at,
                        "subtracting a register is not supported (the IR adds; subtract constants)",
                    ),
                };
                Ok(Instr::Add {
                    dst: ins.reg(0)?,
                    a: ins.operand(1)?,
                    b,
                })
            }
            "mul" | "div" if parts.len() == 1 && self.vulkan => self.err(
                mnemonic.at,
                format!("`{}` is not supported: the IR has addition only", parts[0]),
            ),
            "bge" | "ble" | "bgt" | "blt" if parts.len() == 1 && self.vulkan => self.err(
                mnemonic.at,
                format!(
                    "`{}` is not supported: the IR's branches test equality (`beq`, `bne`)",
                    parts[0]
                ),
            ),
            "beq" | "bne" if parts.len() == 1 => {
                ins.arity(3)?;
                let cmp = if parts[0] == "beq" { Cmp::Eq } else { Cmp::Ne };
                let target = self.identifier(args[2], "label")?;
                Ok(Instr::Branch {
                    cond: Some((cmp, ins.operand(0)?, ins.operand(1)?)),
                    target,
                })
            }
            "goto" | "bra" if parts.len() == 1 => {
                ins.arity(1)?;
                Ok(Instr::Branch {
                    cond: None,
                    target: self.identifier(args[0], "label")?,
                })
            }
            _ => self.err(
                mnemonic.at,
                format!("unknown instruction `{}`", mnemonic.text),
            ),
        }?;
        Ok((Parsed::Instr(instr), None))
    }

    /// `P0@sg 0, wg 0, qf 0` in a Vulkan test.
    fn vulkan_placement(&self, cell: Piece<'a>) -> Result<(ThreadId, VulkanPlacement)> {
        let (id, fields) = self.thread_at(cell, "P0@sg 0, wg 0, qf 0")?;
        let mut levels = [None; 3];
        for field in fields.split(',') {
            let field = field.trim();
            let words = split_words(field);
            if words.len() != 2 {
                return self.err(
                    field.at,
                    format!("expected `sg N`, `wg N` or `qf N`, found `{}`", field.text),
                );
            }
            let n = self.integer(words[1])?;
            let Ok(n) = u32::try_from(n) else {
                return self.err(words[1].at, "placement ids must be non-negative");
            };
            let level = match words[0].text {
                "sg" => 0,
                "wg" => 1,
                "qf" => 2,
                other => {
                    return self.err(
                        words[0].at,
                        format!("unknown placement level `{other}` (sg, wg, qf)"),
                    )
                }
            };
            if levels[level].replace(n).is_some() {
                return self.err(words[0].at, format!("`{}` is given twice", words[0].text));
            }
        }
        match levels {
            [Some(subgroup), Some(workgroup), Some(queue_family)] => Ok((
                id,
                VulkanPlacement {
                    subgroup,
                    workgroup,
                    queue_family,
                },
            )),
            _ => self.err(fields.at, "a Vulkan placement names `sg`, `wg` and `qf`"),
        }
    }

    fn check_labels(&self, thread: &Thread) -> Result<()> {
        let mut labels = BTreeSet::new();
        // Exchanges not lowered yet stand as empty labels (see `warp::placeholder`).
        for stmt in thread.body.iter().filter(|s| s.warp.is_none()) {
            if let Instr::Label(l) = &stmt.instr {
                if !labels.insert(l.clone()) {
                    return Err(self.error_at(
                        stmt.span,
                        format!("label `{l}` defined twice in this thread"),
                    ));
                }
            }
        }
        for stmt in &thread.body {
            if let Instr::Branch { target, .. } = &stmt.instr {
                if !labels.contains(target) {
                    return Err(
                        self.error_at(stmt.span, format!("branch to undefined label `{target}`"))
                    );
                }
            }
        }
        Ok(())
    }

    /// Tile IR tokens are SSA values ("Token represents a memory ordering token that can be used
    /// to control the ordering of memory operations", Tile IR *Operations*, 8.1.3; a memory
    /// operation takes tokens as operands and yields a new one as its result): a token an
    /// instruction waits for must be the result of an earlier instruction of its tile block
    /// (thread), and never of the instruction itself (an operand is defined before the
    /// operation that uses it). A wait for a token nobody produced would order nothing.
    fn check_tokens(&self, thread: &Thread) -> Result<()> {
        let mut produced = BTreeSet::new();
        for stmt in &thread.body {
            let Some(tok) = &stmt.token else {
                continue;
            };
            for waited in &tok.after {
                if tok.produces.as_ref() == Some(waited) && !produced.contains(waited) {
                    return Err(self.error_at(
                        stmt.span,
                        format!(
                            "token `{waited}` is waited for by the instruction that produces it"
                        ),
                    ));
                }
                if !produced.contains(waited) {
                    return Err(self.error_at(
                        stmt.span,
                        format!(
                            "token `{waited}` is not produced by an earlier instruction of this thread"
                        ),
                    ));
                }
            }
            produced.extend(tok.produces.iter().cloned());
        }
        Ok(())
    }

    /// A register read must have a value: an initialisation or an earlier write in its thread.
    fn check_registers(&self, p: &Program) -> Result<()> {
        for (t, thread) in p.threads.iter().enumerate() {
            let mut defined: BTreeSet<&Reg> = p
                .reg_init
                .iter()
                .filter(|i| i.thread == t)
                .map(|i| &i.reg)
                .collect();
            // Loops may read a register written later in the text: collect all writes first.
            defined.extend(thread.body.iter().filter_map(|s| s.instr.written_reg()));
            for stmt in &thread.body {
                for reg in stmt.instr.read_regs() {
                    // A location first used in a later row is declared only then, so an earlier
                    // operand of that name was taken for a register: reject it here, wherever it is.
                    if p.location_named(&reg.0).is_some() {
                        return Err(self.error_at(
                            stmt.span,
                            format!(
                                "`{reg}` is a location; a value operand must be a register or an integer"
                            ),
                        ));
                    }
                    if !defined.contains(reg) {
                        return Err(self.error_at(
                            stmt.span,
                            format!(
                                "register `{reg}` of P{t} is read but never initialised or written"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// herd's tail of a test: `locations [...]`, `filter PROP` (both optional, in this order),
    /// then the final condition `exists|~exists|forall PROP`.
    fn tail(&self, at: usize, p: &mut Program) -> Result<()> {
        let text = Piece {
            text: &self.src[at..],
            at,
        };
        let tokens = self.cond_tokens(text)?;
        let mut cp = CondParser {
            p: self,
            prog: p,
            tokens: &tokens,
            i: 0,
            end: self.src.len(),
            nesting: 0,
            operators: 0,
        };
        let mut observed = Vec::new();
        if cp.peek() == Some("locations") {
            cp.i += 1;
            if cp.peek() != Some("[") {
                return self.err(cp.here(), "expected `[` after `locations`");
            }
            cp.i += 1;
            while cp.peek() != Some("]") {
                if cp.peek().is_none() {
                    return self.err(cp.here(), "missing `]` closing `locations [`");
                }
                observed.push(cp.term()?);
            }
            cp.i += 1;
        }
        let filter = if cp.peek() == Some("filter") {
            cp.i += 1;
            Some(cp.or()?)
        } else {
            None
        };
        let quantifier_at = cp.here();
        if filter.is_some() && cp.peek().is_none() {
            // A filter alone (Dat3M's data-race tests): every admitted execution counts.
            p.observed = observed;
            p.filter = filter;
            p.condition = Condition {
                quantifier: Quantifier::Exists,
                prop: Prop::True,
                span: self.span(quantifier_at),
            };
            return Ok(());
        }
        let quantifier = match (cp.peek(), cp.tokens.get(cp.i + 1).map(|t| t.text)) {
            (Some("exists"), _) => Quantifier::Exists,
            (Some("forall"), _) => Quantifier::Forall,
            (Some("~"), Some("exists")) => {
                cp.i += 1;
                Quantifier::NotExists
            }
            (Some("locations"), _) if filter.is_some() => {
                return self.err(quantifier_at, "`locations [...]` comes before `filter`")
            }
            (Some(word @ ("locations" | "filter")), _) => {
                return self.err(quantifier_at, format!("`{word}` is given twice"))
            }
            (Some(other), _) => {
                return self.err(
                    quantifier_at,
                    format!("expected `exists`, `~exists` or `forall`, found `{other}`"),
                )
            }
            (None, _) => {
                return self.err(
                    quantifier_at,
                    "missing final condition (`exists`, `~exists` or `forall`)",
                )
            }
        };
        cp.i += 1;
        let prop = cp.or()?;
        if let Some(tok) = tokens.get(cp.i) {
            return self.err(
                tok.at,
                format!("unexpected `{}` after the condition", tok.text),
            );
        }
        p.observed = observed;
        p.filter = filter;
        p.condition = Condition {
            quantifier,
            prop,
            span: self.span(quantifier_at),
        };
        Ok(())
    }

    fn cond_tokens(&self, body: Piece<'a>) -> Result<Vec<Piece<'a>>> {
        let mut out = Vec::new();
        let s = body.text;
        let mut i = 0;
        while i < s.len() {
            let c = s[i..].chars().next().expect("in bounds");
            let at = body.at + i;
            let two = s.get(i..i + 2).unwrap_or("");
            let len = if c.is_whitespace() {
                i += c.len_utf8();
                continue;
            } else if matches!(two, "/\\" | "\\/" | "==" | "!=") {
                2
            } else if matches!(c, '(' | ')' | '~' | '=' | ';' | '[' | ']') {
                1
            } else if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                let word_end = |from: usize| {
                    s[from..]
                        .char_indices()
                        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == ':'))
                        .map_or(s.len(), |(j, _)| from + j)
                };
                let mut end = word_end(i + 1);
                // `P3: r0` is one term.
                if s[..end].ends_with(':') {
                    let next = end + (s[end..].len() - s[end..].trim_start().len());
                    end = word_end(next);
                }
                end - i
            } else {
                return self.err(at, format!("unexpected character `{c}` in the condition"));
            };
            if &s[i..i + len] != ";" {
                out.push(Piece {
                    text: &s[i..i + len],
                    at,
                });
            }
            i += len;
        }
        Ok(out)
    }
}

fn split_words(p: Piece<'_>) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in p
        .text
        .char_indices()
        .chain(std::iter::once((p.text.len(), ' ')))
    {
        match (start, c.is_whitespace()) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                out.push(Piece {
                    text: &p.text[s..i],
                    at: p.at + s,
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// One instruction's mnemonic and arguments, with the helpers to read them.
struct Ins<'p, 'a> {
    p: &'p Parser<'a>,
    mnemonic: Piece<'a>,
    args: &'p [Piece<'a>],
    end: usize,
    locations: &'p mut Vec<Location>,
}

impl<'a> Ins<'_, 'a> {
    fn arity(&self, n: usize) -> Result<()> {
        if self.args.len() == n {
            return Ok(());
        }
        let at = if self.args.len() > n {
            self.args[n].at
        } else {
            self.end
        };
        self.p.err(
            at,
            format!(
                "`{}` takes {n} operand{}, found {}",
                self.mnemonic.text,
                if n == 1 { "" } else { "s" },
                self.args.len()
            ),
        )
    }

    fn reg(&self, i: usize) -> Result<Reg> {
        Ok(Reg(self.p.identifier(self.args[i], "register")?))
    }

    /// A barrier's operands `id[, id2][, quorum]`: its ids and its quorum; `what` names it in
    /// the error.
    fn barrier_operands(&self, what: &str) -> Result<(Vec<Operand>, Option<Operand>)> {
        if self.args.is_empty() || self.args.len() > 3 {
            return self.p.err(
                self.end,
                format!("{what} takes 1 to 3 operands: id[, id2][, quorum]"),
            );
        }
        let ops: Vec<Operand> = (0..self.args.len())
            .map(|i| self.operand(i))
            .collect::<Result<_>>()?;
        Ok(if ops.len() == 3 {
            (ops[..2].to_vec(), Some(ops[2].clone()))
        } else {
            (ops, None)
        })
    }

    fn operand(&self, i: usize) -> Result<Operand> {
        let a = self.args[i];
        if a.text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            Ok(Operand::Imm(self.p.integer(a)?))
        } else {
            let name = self.p.identifier(a, "register or integer")?;
            if self.locations.iter().any(|l| l.name == name) {
                return self.p.err(
                    a.at,
                    format!(
                        "`{name}` is a location; a value operand must be a register or an integer"
                    ),
                );
            }
            Ok(Operand::Reg(Reg(name)))
        }
    }

    /// A location operand. As in herd7 and Dartagnan, a location the initial state does not
    /// declare is a fresh location holding 0.
    fn location(&mut self, i: usize) -> Result<LocId> {
        let a = self.args[i];
        let name = self.p.identifier(a, "location")?;
        if let Some(loc) = self.locations.iter().position(|l| l.name == name) {
            return Ok(loc);
        }
        self.locations.push(Location {
            name,
            kind: LocationKind::Plain { init: 0 },
            span: self.p.span(a.at),
            shared: None,
        });
        Ok(self.locations.len() - 1)
    }

    /// The dotted qualifiers after the opcode: `.order[.scope]`.
    fn access(
        &self,
        proxy: Proxy,
        quals: &[&str],
        with_op: bool,
    ) -> Result<(Access, Option<&'a str>)> {
        let at = |k: usize| {
            self.mnemonic.at
                + quals[..k].iter().map(|q| q.len() + 1).sum::<usize>()
                + self.opcode_len()
        };
        let mut order = None;
        let mut scope = None;
        let mut op = None;
        for (k, q) in quals.iter().enumerate() {
            if let (None, Some(o)) = (order, Order::from_name(q)) {
                if o == Order::Sc {
                    return self.p.err(at(k), "`.sc` is only a fence order");
                }
                order = Some(o);
            } else if let (None, Some(s)) = (
                scope,
                // Tile IR's `tile_block` and `device` name the CTA and GPU scopes too.
                Scope::from_name(q).filter(|_| !matches!(*q, "block" | "system")),
            ) {
                scope = Some(s);
            } else if with_op && op.is_none() && RmwOp::from_name(q).is_some() {
                op = Some(
                    self.mnemonic
                        .text
                        .split('.')
                        .nth(k + 1)
                        .expect("qualifier exists"),
                );
            } else if *q == "nc" && proxy == Proxy::Texture && self.mnemonic.text.starts_with("ld.")
            {
                // `ld.global.nc`: the texture path, which `load` chose as the proxy.
            } else if matches!(
                *q,
                "global"
                    | "shared"
                    | "shared::cta"
                    | "shared::cluster"
                    | "u32"
                    | "s32"
                    | "b32"
                    | "u64"
                    | "s64"
                    | "b64"
            ) {
                // Types do not change the memory-model meaning; state spaces must agree with
                // the location's (`check_spaces`).
            } else {
                return self.p.err(
                    at(k),
                    format!("unknown qualifier `.{q}` on `{}`", self.mnemonic.text),
                );
            }
        }
        let (order, scope) = match (order, scope) {
            (None, None) if with_op => (Order::Relaxed, Some(Scope::Gpu)),
            (None, None) => (Order::Weak, None),
            (Some(Order::Weak), Some(_)) => {
                return self
                    .p
                    .err(self.mnemonic.at, "a `.weak` access takes no scope")
            }
            (Some(Order::Weak), None) if with_op => {
                return self
                    .p
                    .err(self.mnemonic.at, "atomic operations cannot be `.weak`")
            }
            (Some(Order::Weak), None) => (Order::Weak, None),
            (Some(o), None) => {
                return self.p.err(
                    self.end_of_mnemonic(),
                    format!(
                        "`.{}` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)",
                        o.ptx_name()
                    ),
                )
            }
            (None, Some(s)) => (Order::Relaxed, Some(s)),
            (Some(o), Some(s)) => (o, Some(s)),
        };
        Ok((
            Access {
                proxy,
                order,
                scope,
            },
            op,
        ))
    }

    fn opcode_len(&self) -> usize {
        self.mnemonic
            .text
            .find('.')
            .map_or(self.mnemonic.text.len(), |i| i + 1)
    }

    fn end_of_mnemonic(&self) -> usize {
        self.mnemonic.at + self.mnemonic.text.len()
    }

    fn load(mut self, parts: &[&str]) -> Result<Instr> {
        // `ld.global.nc`: PTX ISA, *ld.global.nc*: "Load register variable d from the location
        // specified by the source address operand a in the global state space, and optionally
        // cache in non-coherent read-only cache", and *Memory Consistency Model*: "The memory
        // consistency model does not apply to texture (including ld.global.nc) and surface
        // accesses". The model reads it as a weak load through the texture proxy: nothing but a
        // proxy fence orders a generic write before it, so it may return stale data.
        let nc = parts[0] == "ld" && parts.contains(&"nc");
        if nc && !parts.contains(&"global") {
            return self.p.err(
                self.mnemonic.at,
                "`.nc` loads read global memory through the read-only cache: write `ld.global.nc`",
            );
        }
        let proxy = match parts[0] {
            _ if nc => Proxy::Texture,
            "ld" => Proxy::Generic,
            "suld" => Proxy::Surface,
            "tld" => Proxy::Texture,
            _ => Proxy::Constant,
        };
        self.arity(2)?;
        // Dartagnan writes register moves as `ld r0, 1` (and `ld r0, r1`).
        let src = self.args[1];
        let src_is_imm = src
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        let src_is_loc = self.locations.iter().any(|l| l.name == src.text);
        if parts[0] == "ld" && !nc && (src_is_imm || (parts.len() == 1 && !src_is_loc)) {
            return Ok(Instr::Mov {
                dst: self.reg(0)?,
                src: self.operand(1)?,
            });
        }
        let (access, _) = self.access(proxy, &parts[1..], false)?;
        if nc && (access.order != Order::Weak || access.scope.is_some()) {
            return self.p.err(
                self.mnemonic.at,
                "`ld.global.nc` takes no memory order or scope: it is a weak load",
            );
        }
        if access.order.is_release() {
            return self.p.err(self.mnemonic.at, "a load cannot be `.release`");
        }
        Ok(Instr::Load {
            access,
            dst: self.reg(0)?,
            loc: self.location(1)?,
        })
    }

    fn store(mut self, parts: &[&str]) -> Result<Instr> {
        let proxy = if parts[0] == "st" {
            Proxy::Generic
        } else {
            Proxy::Surface
        };
        self.arity(2)?;
        let (access, _) = self.access(proxy, &parts[1..], false)?;
        if access.order.is_acquire() {
            return self.p.err(self.mnemonic.at, "a store cannot be `.acquire`");
        }
        Ok(Instr::Store {
            access,
            loc: self.location(0)?,
            value: self.operand(1)?,
        })
    }

    fn rmw(mut self, parts: &[&str]) -> Result<Instr> {
        let (access, op) = self.access(Proxy::Generic, &parts[1..], true)?;
        let Some(op) = op.and_then(RmwOp::from_name) else {
            return self.p.err(
                self.end_of_mnemonic(),
                format!(
                    "`{}` needs an operation (`.add`, `.sub`, `.exch`, `.cas`, `.inc`, `.dec`, \
                     `.min`, `.max`, `.and`, `.or`, `.xor`)",
                    self.mnemonic.text
                ),
            );
        };
        if parts[0] == "red" {
            if !op.reduces() {
                return self.p.err(
                    self.mnemonic.at,
                    format!("`red` has no `.{}`; use `atom`", op.name()),
                );
            }
            self.arity(2)?;
            return Ok(Instr::Red {
                access,
                op,
                loc: self.location(0)?,
                operand: self.operand(1)?,
            });
        }
        self.arity(if op == RmwOp::Cas { 4 } else { 3 })?;
        let new = if op == RmwOp::Cas {
            Some(self.operand(3)?)
        } else {
            None
        };
        Ok(Instr::Atom {
            access,
            op,
            dst: self.reg(0)?,
            loc: self.location(1)?,
            operand: self.operand(2)?,
            new,
        })
    }

    fn fence(self, parts: &[&str]) -> Result<Instr> {
        self.arity(0)?;
        let fence = match parts.get(1..) {
            Some(["proxy", kind @ ..]) if !kind.is_empty() => {
                let kind = kind.join(".");
                match ProxyFence::from_name(&kind) {
                    Some(k) => Fence::Proxy(k),
                    None => {
                        return self.p.err(
                            self.mnemonic.at,
                            format!("unknown proxy fence `.proxy.{kind}`"),
                        )
                    }
                }
            }
            Some(["sc"]) => Fence::Sc(Scope::Sys),
            Some(["acq_rel"]) => Fence::AcqRel(Scope::Sys),
            Some([order, scope]) if matches!(*order, "sc" | "acq_rel") => {
                match Scope::from_name(scope) {
                    Some(s) if *order == "sc" => Fence::Sc(s),
                    Some(s) => Fence::AcqRel(s),
                    None => {
                        return self
                            .p
                            .err(self.mnemonic.at, format!("unknown fence scope `.{scope}`"))
                    }
                }
            }
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!("unknown fence `{}`", self.mnemonic.text),
                )
            }
        };
        Ok(Instr::Fence(fence))
    }

    /// `cp.async.ca.shared.global dst, src[, cp-size]` (also `.cg`, `.shared::cta`),
    /// `cp.async.commit_group`, `cp.async.wait_group n`, `cp.async.wait_all`. A litmus location
    /// holds one value, so the copy moves that value; a `cp-size` operand, when given, must be
    /// one PTX allows (4, 8 or 16 bytes).
    fn cp_async(mut self, parts: &[&str]) -> Result<Instr> {
        match parts.get(1..) {
            Some(["async", "commit_group"]) => {
                self.arity(0)?;
                return Ok(Instr::CpAsyncCommit);
            }
            Some(["async", "wait_all"]) => {
                self.arity(0)?;
                return Ok(Instr::CpAsyncWait { n: 0, all: true });
            }
            Some(["async", "wait_group"]) => {
                self.arity(1)?;
                let a = self.args[0];
                let n = self.p.integer(a)?;
                let Ok(n) = u32::try_from(n) else {
                    return self.p.err(
                        a.at,
                        "`cp.async.wait_group` takes a number of groups (0 or more)",
                    );
                };
                return Ok(Instr::CpAsyncWait { n, all: false });
            }
            Some(["async", rest @ ..])
                if !rest.is_empty()
                    && rest.iter().all(|q| {
                        matches!(*q, "ca" | "cg" | "shared" | "shared::cta" | "global")
                    })
                    && rest.contains(&"global")
                    && rest.iter().any(|q| q.starts_with("shared")) => {}
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!(
                        "unknown instruction `{}`: write `cp.async.ca.shared.global dst, src`, \
                         `cp.async.commit_group`, `cp.async.wait_group n` or `cp.async.wait_all`",
                        self.mnemonic.text
                    ),
                )
            }
        }
        if self.args.len() == 3 {
            let size = self.args[2];
            if !matches!(self.p.integer(size)?, 4 | 8 | 16) {
                return self
                    .p
                    .err(size.at, "`cp.async` copies 4, 8 or 16 bytes (its cp-size)");
            }
        } else {
            self.arity(2)?;
        }
        let dst = self.location(0)?;
        let src = self.location(1)?;
        if dst == src {
            return self.p.err(
                self.args[1].at,
                "`cp.async` copies global memory into shared memory: its source and destination \
                 are different locations",
            );
        }
        Ok(Instr::CpAsync { dst, src })
    }

    fn barrier(self, parts: &[&str]) -> Result<Instr> {
        let op = match parts.get(1..) {
            Some(["cta", "sync"]) | Some(["sync"]) => BarrierOp::Sync,
            Some(["cta", "arrive"]) | Some(["arrive"]) => BarrierOp::Arrive,
            _ => {
                return self.p.err(
                    self.mnemonic.at,
                    format!("unknown barrier `{}`", self.mnemonic.text),
                )
            }
        };
        let (id, quorum) = self.barrier_operands("a barrier")?;
        Ok(Instr::Barrier { op, id, quorum })
    }
}

/// One parsed statement: an instruction, or a warp exchange to lower once every thread is read.
enum Parsed {
    Instr(Instr),
    Warp(WarpOp),
}

/// Warp-level instructions: `bar.warp.sync membermask`, `shfl.sync`, `vote.sync`.
impl<'a> Ins<'_, 'a> {
    /// `shfl.sync.{up,down,bfly,idx}.b32 d, a, b, c, membermask` (`b`, `c` constants) and
    /// `vote.sync.{all,any,uni}.pred d, a, membermask`, `vote.sync.ballot.b32 d, a,
    /// membermask`, `match.any.sync.b32 d, a, membermask` and `match.all.sync.b32 d, a,
    /// membermask`, `redux.sync.{add,min,max}.{u32,s32} d, a, membermask`,
    /// `redux.sync.{and,or,xor}.b32 d, a, membermask` and `elect.sync d, membermask` (see
    /// [`super::warp`]).
    fn exchange(self, parts: &[&str]) -> Result<WarpOp> {
        let unknown = |what: &str| {
            self.p.err(
                self.mnemonic.at,
                format!("unknown instruction `{}`: write {what}", self.mnemonic.text),
            )
        };
        match parts {
            ["shfl", "sync", mode, "b32"] => {
                let mode = match *mode {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return unknown("`shfl.sync.MODE.b32 d, a, b, c, membermask` with MODE up, down, bfly or idx"),
                };
                self.arity(5)?;
                Ok(WarpOp::Shfl {
                    mode,
                    dst: self.reg(0)?,
                    src: self.operand(1)?,
                    b: self.lane_constant(2, "a lane or lane offset `b` (0 to 31)", 0x1f)?,
                    c: self.lane_constant(
                        3,
                        "a clamp and segment mask `c` (such as 0x1f)",
                        0x1f1f,
                    )?,
                    mask: self.member_mask(4)?,
                })
            }
            ["vote", "sync", mode, ty] => {
                let mode = match (*mode, *ty) {
                    ("all", "pred") => VoteMode::All,
                    ("any", "pred") => VoteMode::Any,
                    ("ballot", "b32") => VoteMode::Ballot,
                    ("uni", "pred") => VoteMode::Uni,
                    _ => return unknown("`vote.sync.all.pred`, `vote.sync.any.pred`, `vote.sync.uni.pred` or `vote.sync.ballot.b32` `d, a, membermask`"),
                };
                self.arity(3)?;
                Ok(WarpOp::Vote {
                    mode,
                    dst: self.reg(0)?,
                    pred: self.operand(1)?,
                    mask: self.member_mask(2)?,
                })
            }
            ["match", mode @ ("any" | "all"), "sync", "b32"] => {
                self.arity(3)?;
                let dst = self.reg(0)?;
                let src = self.operand(1)?;
                // The lowering (`warp::lower`) loads the other lanes' values into `d` while it
                // still compares them with `a`.
                if src == Operand::Reg(dst.clone()) {
                    return self.p.err(
                        self.args[1].at,
                        format!("match.sync's source `{dst}` is its destination: the litmus dialect needs another register for `a`"),
                    );
                }
                Ok(WarpOp::Match {
                    all: *mode == "all",
                    dst,
                    src,
                    mask: self.member_mask(2)?,
                })
            }
            ["redux", "sync", op, ty] => {
                // PTX ISA, *redux.sync*: ".op = {.and, .or, .xor}; .type = {.b32}" and ".op =
                // {.add, .min, .max}; .type = {.u32, .s32}".
                let op = ReduxOp::from_name(op);
                let ty = match (op, *ty) {
                    (Some(op), "b32") if op.bitwise() => ReduxType::B32,
                    (Some(op), "u32") if !op.bitwise() => ReduxType::U32,
                    (Some(op), "s32") if !op.bitwise() => ReduxType::S32,
                    _ => return unknown("`redux.sync.{add,min,max}.{u32,s32}` or `redux.sync.{and,or,xor}.b32` `d, a, membermask`"),
                };
                self.arity(3)?;
                Ok(WarpOp::Redux {
                    op: op.expect("matched above"),
                    ty,
                    dst: self.reg(0)?,
                    src: self.operand(1)?,
                    mask: self.member_mask(2)?,
                })
            }
            ["elect", "sync"] => {
                self.arity(2)?;
                Ok(WarpOp::Elect {
                    dst: self.reg(0)?,
                    mask: self.member_mask(1)?,
                })
            }
            ["redux", ..] => unknown("`redux.sync.OP.TYPE d, a, membermask`"),
            ["elect", ..] => unknown("`elect.sync d, membermask`"),
            ["match", ..] => unknown(
                "`match.any.sync.b32 d, a, membermask` or `match.all.sync.b32 d, a, membermask` (rows are split at `|`, so the optional predicate `d|p` of match.all is not written: it is `d != 0`)",
            ),
            _ => unknown(
                "`shfl.sync.MODE.b32 d, a, b, c, membermask` or `vote.sync.MODE d, a, membermask`",
            ),
        }
    }

    /// A constant operand of a `shfl.sync` whose bits outside `bits` PTX ignores: they must be 0.
    fn lane_constant(&self, i: usize, what: &str, bits: u32) -> Result<u32> {
        let a = self.args[i];
        let parsed = match a.text.strip_prefix("0x").or(a.text.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => a.text.parse::<u32>(),
        };
        match parsed {
            Ok(v) if v & !bits == 0 => Ok(v),
            _ => self
                .p
                .err(a.at, format!("expected {what}, found `{}`", a.text)),
        }
    }

    fn warp(self, parts: &[&str]) -> Result<Instr> {
        if parts != ["bar", "warp", "sync"] {
            return self.p.err(
                self.mnemonic.at,
                format!(
                    "unknown instruction `{}` (the warp barrier is `bar.warp.sync membermask`)",
                    self.mnemonic.text
                ),
            );
        }
        self.arity(1)?;
        Ok(Instr::WarpSync {
            mask: self.member_mask(0)?,
        })
    }

    /// A member mask: a 32-bit immediate, decimal or `0x` hexadecimal (one bit per lane).
    fn member_mask(&self, i: usize) -> Result<u32> {
        let a = self.args[i];
        let parsed = match a.text.strip_prefix("0x").or(a.text.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => a.text.parse::<u32>(),
        };
        match parsed {
            Ok(0) => self.p.err(
                a.at,
                "a member mask names at least one lane (the executing one)",
            ),
            Ok(mask) => Ok(mask),
            Err(_) => self.p.err(
                a.at,
                format!(
                    "expected a member mask (a 32-bit constant such as `0x3`), found `{}`",
                    a.text
                ),
            ),
        }
    }
}

impl<'a> Parser<'a> {
    /// Each warp-level instruction's member mask names its own lane and only lanes that exist:
    /// the threads of a CTA are its first warp's lanes `0, 1, ...` in program order (see
    /// [`Program::lane`]). PTX ISA, *bar.warp.sync*: "The behavior of bar.warp.sync is
    /// undefined if the executing thread is not in the membermask"; a lane without a thread
    /// never arrives, so the others would wait forever.
    fn check_warps(&self, threads: &[Thread]) -> Result<()> {
        let cta = |t: &Thread| (t.placement.gpu, t.placement.cta);
        for (t, thread) in threads.iter().enumerate() {
            let lane = threads[..t]
                .iter()
                .filter(|u| cta(u) == cta(thread))
                .count();
            let lanes = threads.iter().filter(|u| cta(u) == cta(thread)).count();
            for stmt in &thread.body {
                let mask = match (&stmt.instr, &stmt.warp) {
                    (Instr::WarpSync { mask }, _) => *mask,
                    (_, Some(WarpPart::Start(op))) => op.mask(),
                    _ => continue,
                };
                if lanes > 32 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("a warp has 32 lanes, but this thread's CTA has {lanes} threads"),
                    ));
                }
                if mask & (1 << lane) == 0 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("P{t} is lane {lane} of its warp, which its member mask {mask:#x} leaves out"),
                    ));
                }
                if lanes < 32 && mask >> lanes != 0 {
                    return Err(self.error_at(
                        stmt.span,
                        format!("member mask {mask:#x} names lane {}, past the {lanes} threads of this CTA", 31 - mask.leading_zeros()),
                    ));
                }
                // PTX ISA, *shfl.sync*: "results are undefined if a thread sources a register
                // from an inactive thread or a thread that is not in membermask".
                let source = match &stmt.warp {
                    Some(WarpPart::Start(op)) => op.source_lane(lane as u32),
                    _ => None,
                };
                if let Some(j) = source.filter(|&j| mask & (1 << j) == 0) {
                    return Err(self.error_at(
                        stmt.span,
                        format!("P{t} (lane {lane}) would read lane {j}, which its member mask {mask:#x} leaves out (undefined in PTX)"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Dat3M's Vulkan instructions: `ld`, `st`, `rmw` (with `.atom`, an order, `.av`/`.vis`,
/// `.nonpriv`, a scope, a storage class `.scN` and semantics `.semscN`/`.semav`/`.semvis`),
/// `membar`, `cbar`, `avdevice`, `visdevice`.
impl<'a> Ins<'_, 'a> {
    /// Whether `ld` is Dartagnan's register move (`ld r0, 1`, `ld r0, r1`).
    fn is_move(&self, parts: &[&str]) -> bool {
        let Some(src) = self.args.get(1) else {
            return false;
        };
        let src_is_imm = src
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        let src_is_loc = self.locations.iter().any(|l| l.name == src.text);
        src_is_imm || (parts.len() == 1 && !src_is_loc)
    }

    /// The qualifiers of a Vulkan mnemonic, each checked against what the opcode allows.
    fn vulkan_qualifiers(&self, parts: &[&str]) -> Result<(VulkanOp, Option<RmwOp>)> {
        let opcode = parts[0];
        let mut op = VulkanOp::new(match opcode {
            "membar" => VulkanKind::MemoryBarrier,
            "cbar" => VulkanKind::ControlBarrier,
            "avdevice" => VulkanKind::AvDevice,
            "visdevice" => VulkanKind::VisDevice,
            _ => VulkanKind::Access,
        });
        let mut atom = false;
        let mut order = None;
        let mut rmw_op = None;
        let mut at = self.mnemonic.at + opcode.len();
        for q in &parts[1..] {
            let here = at + 1;
            at += q.len() + 1;
            let bad = |message: String| self.p.err(here, message);
            let access = op.kind == VulkanKind::Access;
            let barrier = matches!(
                op.kind,
                VulkanKind::MemoryBarrier | VulkanKind::ControlBarrier
            );
            let class = |prefix: &str| -> Option<u8> {
                q.strip_prefix(prefix)
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|&n| n < STORAGE_CLASSES && q.len() == prefix.len() + 1)
            };
            let new_order = match *q {
                "acq" => Some(Order::Acquire),
                "rel" => Some(Order::Release),
                "acq_rel" => Some(Order::AcqRel),
                _ => None,
            };
            if let Some(o) = new_order {
                if order.replace(o).is_some() {
                    return bad("a second memory order".into());
                }
                let fits = match opcode {
                    "ld" => o == Order::Acquire,
                    "st" => o == Order::Release,
                    "rmw" | "membar" | "cbar" => true,
                    _ => false,
                };
                if !fits {
                    return bad(format!("`{opcode}` cannot be `.{q}`"));
                }
            } else if *q == "atom" && access && !atom {
                atom = true;
            } else if *q == "av" && opcode == "st" && !op.av {
                op.av = true;
            } else if *q == "vis" && opcode == "ld" && !op.vis {
                op.vis = true;
            } else if *q == "nonpriv" && access && !op.nonpriv {
                op.nonpriv = true;
            } else if let Some(scope) = VulkanScope::from_name(q) {
                if op.scope.replace(scope).is_some() {
                    return bad("a second scope".into());
                }
            } else if let (Some(c), true) = (class("semsc"), access || barrier) {
                op.semantics |= 1 << c;
            } else if let (Some(c), true) = (class("sc"), access) {
                if op.storage_class.replace(c).is_some() {
                    return bad("a second storage class".into());
                }
            } else if *q == "semav" && (access || barrier) && !op.sem_av {
                op.sem_av = true;
            } else if *q == "semvis" && (access || barrier) && !op.sem_vis {
                op.sem_vis = true;
            } else if opcode == "rmw"
                && rmw_op.is_none()
                && matches!(*q, "add" | "sub" | "and" | "or" | "xor" | "exch")
            {
                // `operation : Period (Add | Sub | Mul | Div | And | Or | Xor)` (none: an
                // exchange).
                rmw_op = Some(match *q {
                    "add" => RmwOp::Add,
                    "sub" => RmwOp::Sub,
                    "and" => RmwOp::And,
                    "or" => RmwOp::Or,
                    "xor" => RmwOp::Xor,
                    _ => RmwOp::Exch,
                });
            } else if opcode == "rmw" && matches!(*q, "mul" | "div") {
                return bad(format!(
                    "`rmw.{q}` is not supported: the IR's read-modify-writes do not multiply or divide"
                ));
            } else {
                return bad(format!(
                    "unknown or repeated qualifier `.{q}` on `{}`",
                    self.mnemonic.text
                ));
            }
        }
        let end = self.end_of_mnemonic();
        if opcode == "rmw" && !atom {
            return self.p.err(end, "`rmw` is atomic: write `rmw.atom`");
        }
        op.order = match (atom, order) {
            (true, o) => o.unwrap_or(Order::Relaxed),
            (false, Some(_)) if op.kind == VulkanKind::Access => {
                return self
                    .p
                    .err(end, "only atomic accesses (`.atom`) have an order")
            }
            (false, o) if op.kind == VulkanKind::Access => {
                debug_assert!(o.is_none());
                Order::Weak
            }
            (false, o) => o.unwrap_or(Order::Relaxed),
        };
        let needs_scope = match op.kind {
            VulkanKind::Access => atom || op.av || op.vis,
            VulkanKind::MemoryBarrier | VulkanKind::ControlBarrier => true,
            VulkanKind::AvDevice | VulkanKind::VisDevice => false,
        };
        match (needs_scope, op.scope) {
            (true, None) => {
                return self.p.err(
                    end,
                    format!("`{}` needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)", opcode),
                )
            }
            (false, Some(_)) => {
                return self
                    .p
                    .err(end, format!("`{}` takes no scope here", self.mnemonic.text))
            }
            _ => {}
        }
        if op.kind == VulkanKind::Access && op.storage_class.is_none() {
            return self.p.err(
                end,
                "a Vulkan access names its storage class (`.sc0`, `.sc1`, …)",
            );
        }
        if op.sem_av && !op.order.is_release() {
            return self.p.err(end, "`.semav` needs release semantics");
        }
        if op.sem_vis && !op.order.is_acquire() {
            return self.p.err(end, "`.semvis` needs acquire semantics");
        }
        if op.kind == VulkanKind::MemoryBarrier && op.order == Order::Relaxed {
            return self
                .p
                .err(end, "`membar` needs `.acq`, `.rel` or `.acq_rel`");
        }
        Ok((op, rmw_op))
    }

    /// One Vulkan instruction: the IR's access, fence or barrier, and what it means in Vulkan.
    fn vulkan(mut self, parts: &[&str]) -> Result<(Instr, VulkanOp)> {
        let (op, rmw_op) = self.vulkan_qualifiers(parts)?;
        let access = Access {
            proxy: Proxy::Generic,
            order: op.order,
            scope: op
                .scope
                .filter(|_| op.is_atomic())
                .map(VulkanScope::ptx_scope),
        };
        let scope = op.scope.map_or(Scope::Sys, VulkanScope::ptx_scope);
        let instr = match parts[0] {
            "ld" => {
                self.arity(2)?;
                Instr::Load {
                    access,
                    dst: self.reg(0)?,
                    loc: self.location(1)?,
                }
            }
            "st" => {
                self.arity(2)?;
                Instr::Store {
                    access,
                    loc: self.location(0)?,
                    value: self.operand(1)?,
                }
            }
            "rmw" => {
                self.arity(3)?;
                Instr::Atom {
                    access,
                    op: rmw_op.unwrap_or(RmwOp::Exch),
                    dst: self.reg(0)?,
                    loc: self.location(1)?,
                    operand: self.operand(2)?,
                    new: None,
                }
            }
            "cbar" => {
                let (id, quorum) = self.barrier_operands("a control barrier")?;
                Instr::Barrier {
                    op: BarrierOp::Sync,
                    id,
                    quorum,
                }
            }
            // `membar`, `avdevice`, `visdevice`.
            _ => {
                self.arity(0)?;
                Instr::Fence(Fence::AcqRel(scope))
            }
        };
        Ok((instr, op))
    }
}

/// Recursive descent over `~` (tightest), `/\`, `\/` (loosest). Recursion follows only
/// parentheses, at most [`MAX_NESTING`] deep; chains of operators are loops, and at most
/// [`MAX_OPERATORS`] operators make the whole proposition (so its tree is at most that deep).
struct CondParser<'p, 'a> {
    p: &'p Parser<'a>,
    prog: &'p Program,
    tokens: &'p [Piece<'a>],
    i: usize,
    end: usize,
    /// Parentheses open at this point.
    nesting: usize,
    /// Operators read so far.
    operators: usize,
}

impl<'a> CondParser<'_, 'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.i).map(|t| t.text)
    }

    fn here(&self) -> usize {
        self.tokens.get(self.i).map_or(self.end, |t| t.at)
    }

    /// Counts one more operator, at the current token.
    fn operator(&mut self) -> Result<()> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return self.p.err(
                self.here(),
                format!(
                    "condition too large: more than {MAX_OPERATORS} operators (`/\\`, `\\/`, `~`); split the test"
                ),
            );
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Prop> {
        let mut left = self.and()?;
        while self.peek() == Some("\\/") {
            self.operator()?;
            self.i += 1;
            left = Prop::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Prop> {
        let mut left = self.not()?;
        while self.peek() == Some("/\\") {
            self.operator()?;
            self.i += 1;
            left = Prop::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Prop> {
        let mut negations = 0;
        while self.peek() == Some("~") {
            self.operator()?;
            self.i += 1;
            negations += 1;
        }
        let mut prop = self.atom()?;
        for _ in 0..negations {
            prop = Prop::Not(Box::new(prop));
        }
        Ok(prop)
    }

    fn atom(&mut self) -> Result<Prop> {
        match self.peek() {
            Some("(") => {
                if self.nesting == MAX_NESTING {
                    return self.p.err(
                        self.here(),
                        format!("condition nested too deep: more than {MAX_NESTING} parentheses"),
                    );
                }
                self.nesting += 1;
                self.i += 1;
                let inner = self.or()?;
                if self.peek() != Some(")") {
                    return self.p.err(self.here(), "expected `)`");
                }
                self.i += 1;
                self.nesting -= 1;
                Ok(inner)
            }
            Some("true") => {
                self.i += 1;
                Ok(Prop::True)
            }
            None => self.p.err(self.here(), "condition ends too early"),
            Some(_) => {
                let left = self.term()?;
                let cmp = match self.peek() {
                    Some("==") | Some("=") => Cmp::Eq,
                    Some("!=") => Cmp::Ne,
                    _ => return self.p.err(self.here(), "expected `==` or `!=`"),
                };
                self.i += 1;
                let right = self.term()?;
                Ok(Prop::Cmp(cmp, left, right))
            }
        }
    }

    fn term(&mut self) -> Result<Term> {
        let Some(tok) = self.tokens.get(self.i).copied() else {
            return self.p.err(self.end, "condition ends too early");
        };
        self.i += 1;
        if tok
            .text
            .starts_with(|c: char| c.is_ascii_digit() || c == '-')
            && !tok.text.contains(':')
        {
            return Ok(Term::Const(self.p.integer(tok)?));
        }
        if let Some((thread, reg)) = self.p.thread_reg(tok)? {
            let Some(t) = self.prog.threads.get(thread) else {
                return self.p.err(
                    tok.at,
                    format!(
                        "the condition names thread P{thread}, but the program has {} threads",
                        self.prog.threads.len()
                    ),
                );
            };
            let known = self
                .prog
                .reg_init
                .iter()
                .any(|i| i.thread == thread && i.reg == reg)
                || t.body.iter().any(|s| s.instr.written_reg() == Some(&reg));
            if !known {
                return self.p.err(tok.at, format!("the condition names register `{reg}` which P{thread} never writes or initialises"));
            }
            return Ok(Term::Reg(thread, reg));
        }
        // `assertionValue : varName LBracket DigitSequence RBracket | varName | LBracket
        // varName RBracket | ...`: an array element `y[1]`, a location `x` or `[x]`.
        let bracketed = tok.text == "[";
        let tok = match bracketed {
            true => {
                let Some(inner) = self.tokens.get(self.i).copied() else {
                    return self.p.err(self.end, "condition ends too early");
                };
                if self.tokens.get(self.i + 1).map(|t| t.text) != Some("]") {
                    return self.p.err(inner.at, "expected `[location]`");
                }
                self.i += 2;
                inner
            }
            false => tok,
        };
        let mut name = self.p.identifier(tok, "register, location or integer")?;
        let index = (
            self.peek(),
            self.tokens.get(self.i + 1),
            self.tokens.get(self.i + 2),
        );
        if let (Some("["), Some(k), Some(close)) = index {
            if !bracketed && close.text == "]" && k.text.bytes().all(|b| b.is_ascii_digit()) {
                name = format!("{name}[{}]", k.text);
                self.i += 3;
            }
        }
        match self.prog.location_named(&name) {
            Some(loc) => Ok(Term::Loc(loc)),
            None => self.p.err(
                tok.at,
                format!("the condition names undefined location `{name}`"),
            ),
        }
    }
}
