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
mod checks;
mod comments;
mod condition;
mod header;
mod memory;
mod parser;
mod threads;
mod vulkan_ops;
mod warp_ops;

use self::comments::{blank_c_comments, blank_comments};
use self::parser::{Parser, Result};
pub use self::parser::{MAX_DECLARATIONS, MAX_NESTING, MAX_OPERATORS, MAX_THREADS};
use super::error::LitmusError;
use super::ir::*;
use super::lines::LineIndex;
use super::vulkan::{VulkanPlacement, DIALECT as VULKAN, SSW};
use std::cell::RefCell;

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

/// The line and column of a byte offset of `src` (for one position; a parser keeps a
/// [`LineIndex`]).
fn span_of(src: &str, offset: usize) -> Span {
    LineIndex::new(src).span(offset)
}

impl<'a> Parser<'a> {
    /// The program, or the error that stopped the parse; then every error recovered from.
    fn program(mut self) -> (Result<Program>, Vec<LitmusError>) {
        let result = self.whole_program();
        (result, self.recovered.into_inner())
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
            front: self.vulkan.then(|| Front::new(VULKAN)),
            groups: self.vulkan.then(|| VulkanPlacement::groups(&placements)),
            relations: match ssw.is_empty() {
                true => ThreadRelations::new(),
                false => ThreadRelations::from([(
                    SSW.to_string(),
                    ssw.iter().map(|&(a, b, _)| (a, b)).collect(),
                )]),
            },
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
}
