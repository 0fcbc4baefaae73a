//! Litmus programs: the IR, its parser and printer, and input errors.

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
pub mod error;
pub mod ir;
pub mod parse;
pub mod print;

pub use error::LitmusError;
pub use ir::*;
pub use parse::parse;
pub use print::print;

use std::path::{Path, PathBuf};

/// Reads and parses one litmus file; I/O failures become errors at line 1.
pub fn parse_file(path: &Path) -> Result<Program, LitmusError> {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(src) => parse(&src, &file),
        Err(e) => Err(LitmusError {
            file,
            span: Span { line: 1, col: 1 },
            message: format!("cannot read file: {e}"),
            source_line: String::new(),
        }),
    }
}

/// Every `*.litmus` file under the given files and directories, sorted, directories recursively.
pub fn collect_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()?;
            entries.sort();
            for e in entries {
                if e.is_dir() {
                    out.extend(collect_files(&[e])?);
                } else if e.extension().is_some_and(|x| x == "litmus") {
                    out.push(e);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}
