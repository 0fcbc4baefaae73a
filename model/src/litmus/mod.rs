//! Litmus programs: the IR, its parser and printer, and input errors.

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
pub mod async_ops;
pub mod dialect;
pub mod error;
pub mod ir;
pub mod lines;
pub mod opencl;
pub mod parse;
pub mod print;
pub mod vulkan;
pub mod warp;

pub use error::LitmusError;
pub use ir::*;
pub use parse::{parse, parse_all};
pub use print::print;

use crate::input::{read_text, InputError};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Reads one litmus file as UTF-8 text, through [`crate::input::read_text`]: a file that
/// cannot be read, is not a regular file, is too large or is not UTF-8 is an error naming the
/// file (and, for a bad byte, its line and column).
pub fn read_source(path: &Path) -> Result<String, LitmusError> {
    let file = path.display().to_string();
    read_text(path).map_err(|e| {
        let InputError::NotUtf8 { bytes, valid_up_to } = &e else {
            return LitmusError {
                file: file.clone(),
                span: Span { line: 1, col: 1 },
                width: 1,
                message: e.to_string(),
                source_line: String::new(),
            };
        };
        let bad = *valid_up_to;
        // Everything before the bad byte is valid UTF-8: its lines and characters count.
        let before = std::str::from_utf8(&bytes[..bad]).expect("valid up to here");
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line_end = bytes[bad..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| bad + i);
        LitmusError {
            file: file.clone(),
            span: Span {
                line: before.matches('\n').count() as u32 + 1,
                col: before[line_start..].chars().count() as u32 + 1,
            },
            width: 1,
            message: format!("{e}: a litmus file is UTF-8 text"),
            source_line: String::from_utf8_lossy(&bytes[line_start..line_end]).into_owned(),
        }
    })
}

/// Reads and parses one litmus file; I/O failures become errors at line 1.
pub fn parse_file(path: &Path) -> Result<Program, LitmusError> {
    parse(&read_source(path)?, &path.display().to_string())
}

/// Every `*.litmus` file under the given files and directories, as [`walk_files`] finds them;
/// the first path that cannot be read is the error.
pub fn collect_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let (files, mut errors) = walk_files(paths);
    match errors.is_empty() {
        true => Ok(files),
        false => Err(errors.swap_remove(0)),
    }
}

/// Every `*.litmus` file under the given files and directories, directories walked recursively
/// (each sorted by name) and symbolic links followed, with an error (naming its path) for each
/// entry that could not be read; the walk goes on past those. Each file is listed once, under
/// the first path that reaches it, however many links lead to it; a link back to a directory
/// being walked (a cycle) is not followed again. A path given as a file is listed whatever its
/// name.
pub fn walk_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<std::io::Error>) {
    let mut errors = Vec::new();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for p in paths {
        if !p.is_dir() {
            if crate::input::first_visit(&mut seen, p) {
                out.push(p.clone());
            }
            continue;
        }
        for entry in crate::input::walk(p, &mut seen) {
            match entry {
                Ok(entry)
                    if entry.file_type().is_file()
                        && entry.path().extension().is_some_and(|x| x == "litmus") =>
                {
                    out.push(entry.into_path())
                }
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
    }
    (out, errors)
}
