//! Running the `scopecheck` binary from the CLI tests (`use crate::runner;` in each): the command in
//! the package root, a scratch directory per test, and the output as text.
// Each test file uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `scopecheck ARGS` in the package root and waits for it.
pub fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// A fresh, empty directory under the target dir for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/file` and returns the path as a string.
pub fn write(dir: &Path, file: &str, text: &str) -> String {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The standard output, lossily as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The standard error, lossily as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The error report shows `source` (a line of the file) with characters `col..col + width`
/// underlined on the next line (as ariadne draws it).
pub fn assert_underlined(err: &str, source: &str, col: usize, width: usize) {
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_end().ends_with(source.trim_end()))
        .unwrap_or_else(|| panic!("source line `{source}` not shown:\n{err}"));
    let start = lines[at].trim_end().chars().count() - source.trim_end().chars().count();
    let marks: Vec<usize> = lines[at + 1]
        .chars()
        .enumerate()
        .filter(|(_, c)| matches!(c, '─' | '┬' | '^'))
        .map(|(i, _)| i)
        .collect();
    let first = start + col - 1;
    assert_eq!(
        marks,
        (first..first + width).collect::<Vec<_>>(),
        "underline of {col}+{width}:\n{err}"
    );
}

/// A program whose search takes minutes: six threads of four accesses to three locations.
pub fn slow_program() -> String {
    let n = 6;
    let head: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
    let rows: Vec<String> = (0..4)
        .map(|k| {
            let cells: Vec<String> = (0..n)
                .map(|i| match (i + k) % 2 {
                    0 => format!("st.relaxed.gpu x{}, {}", (i + k) % 3, i + 1),
                    _ => format!("ld.relaxed.gpu r{k}, x{}", (i + k) % 3),
                })
                .collect();
            format!(" {} ;\n", cells.join(" | "))
        })
        .collect();
    format!(
        "PTX slow\n{{\nx0=0; x1=0; x2=0;\n}}\n {} ;\n{}exists (P1:r0 == 1)\n",
        head.join(" | "),
        rows.concat()
    )
}
