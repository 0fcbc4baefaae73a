//! Finding what `scopecheck check` checks: `MANIFEST.csv` files (litmus rows `file,model,expected`
//! or the CUDA kernel manifest) and `bugs/` directories, walked loop-safely.

use super::outcome::Outcome;
use scopecheck_model::axiomatic::liveness::Progress;
use scopecheck_model::axiomatic::Model;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Everything found under the paths `check` was given.
#[derive(Default)]
pub struct Corpus {
    /// Litmus rows.
    pub rows: Vec<LitmusRow>,
    /// Malformed manifest rows and files, already outcomes (the rest of the corpus still runs).
    pub outcomes: Vec<Outcome>,
    /// `bugs/` directories: their presence asks for the compiled-in bug models.
    pub bug_dirs: Vec<PathBuf>,
    /// CUDA kernel rows.
    pub cuda: Vec<crate::cuda_corpus::Row>,
}

impl Corpus {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
            && self.bug_dirs.is_empty()
            && self.cuda.is_empty()
            && self.outcomes.is_empty()
    }
}

/// One litmus row of a manifest: `file,model,expected` with expected `allowed` or `forbidden`
/// (is some final state satisfying the condition's proposition allowed by the model?), or a
/// liveness verdict `terminates` / `can-hang`, under a progress model with `:obe` etc. (fair
/// when none is given).
pub struct LitmusRow {
    /// The litmus file.
    pub file: PathBuf,
    /// The model it is checked under.
    pub model: Model,
    /// The verdict expected.
    pub expect: Expect,
    /// `MANIFEST.csv:LINE`, the row that names the test.
    pub row: String,
}

/// Finds manifests (litmus or CUDA, told apart by their header) and `bugs/` directories under
/// `path` (walked by `scopecheck_model::input::walk`, sorted by name, following links but never around a cycle: each
/// directory is visited once). Malformed manifest rows become `Error` outcomes so the rest of the
/// corpus still runs.
pub fn collect(path: &Path, corpus: &mut Corpus) -> std::io::Result<()> {
    let Corpus {
        rows,
        outcomes,
        bug_dirs,
        cuda,
    } = corpus;
    let is_manifest = |p: &Path| p.file_name().is_some_and(|n| n == "MANIFEST.csv");
    let mut seen = std::collections::HashSet::new();
    for entry in scopecheck_model::input::walk(path, &mut seen) {
        let entry = entry?;
        if entry.file_type().is_dir() && entry.file_name() == "bugs" {
            bug_dirs.push(entry.path().to_path_buf());
        } else if is_manifest(entry.path()) {
            let manifest = entry.path();
            // Bounded, and never blocking on a FIFO (`scopecheck_model::input`).
            let bytes = scopecheck_model::input::read_bytes(manifest)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", manifest.display())))?;
            if crate::cuda_corpus::is_manifest(&bytes) {
                let (found, errors) = crate::cuda_corpus::read_manifest(manifest)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                cuda.extend(found);
                outcomes.extend(errors.into_iter().map(|message| {
                    Outcome::manifest_error(manifest.display().to_string(), message)
                }));
            } else {
                read_manifest(manifest, rows, outcomes)?;
            }
        }
    }
    Ok(())
}

/// Reads `file,model,expected` rows with the `csv` crate (a header line first; `#` starts a
/// comment line; fields are trimmed). A row that is not one of those becomes an `Error` outcome at
/// `MANIFEST.csv:LINE`; a file that is not UTF-8 text becomes one naming the file.
fn read_manifest(
    manifest: &Path,
    rows: &mut Vec<LitmusRow>,
    outcomes: &mut Vec<Outcome>,
) -> std::io::Result<()> {
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let bytes = match scopecheck_model::input::read_bytes(manifest) {
        Ok(bytes) => bytes,
        Err(scopecheck_model::input::InputError::Io(e)) => {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", manifest.display()),
            ))
        }
        Err(e) => {
            return Err(std::io::Error::other(format!(
                "{}: {e}",
                manifest.display()
            )));
        }
    };
    let manifest_error = |line: Option<u64>, message: String| {
        let entry = match line {
            Some(line) => format!("{}:{line}", manifest.display()),
            None => manifest.display().to_string(),
        };
        Outcome::manifest_error(entry, message)
    };
    if let Err(e) = std::str::from_utf8(&bytes) {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        outcomes.push(manifest_error(
            None,
            format!(
                "not a text file: invalid UTF-8 on line {line} (expected CSV rows `file,model,expected`)"
            ),
        ));
        return Ok(());
    }
    // The csv crate's positions count neither the comment nor the blank lines it skips before a
    // record (its byte offset is where that skipping began): find the record's own line.
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let line_at = |pos: Option<&csv::Position>| {
        pos.map(|p| {
            let end = (p.byte() as usize).min(bytes.len());
            let mut line = bytes[..end].iter().filter(|&&b| b == b'\n').count();
            while lines.get(line).is_some_and(|l| {
                let l = l.trim_ascii();
                l.is_empty() || l.starts_with(b"#")
            }) {
                line += 1;
            }
            line as u64 + 1
        })
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    match reader.headers() {
        Ok(h) if h.iter().eq(["file", "model", "expected"]) => {}
        Ok(h) => {
            let line = line_at(h.position());
            outcomes.push(manifest_error(
                line,
                format!(
                    "expected the header `file,model,expected`, found `{}`",
                    h.iter().collect::<Vec<_>>().join(",")
                ),
            ));
            return Ok(());
        }
        Err(e) => {
            outcomes.push(manifest_error(None, e.to_string()));
            return Ok(());
        }
    }
    // The model column by the registry's rules (a `.cat` path relative to the manifest's
    // directory), each name loaded once per manifest.
    let mut models: HashMap<String, Result<Model, String>> = HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = line_at(e.position());
                outcomes.push(manifest_error(line, e.to_string()));
                continue;
            }
        };
        let line = line_at(record.position()).unwrap_or(0);
        if record.iter().all(str::is_empty) {
            continue;
        }
        let parsed = match (record.len(), record.get(0), record.get(1), record.get(2)) {
            (3, Some(file), Some(model), Some(expected)) => models
                .entry(model.to_string())
                .or_insert_with(|| Model::load_from(model, Some(dir)).map_err(|e| e.to_string()))
                .clone()
                .and_then(|model| Ok((file, model, Expect::parse(expected)?))),
            (n, ..) => Err(format!(
                "expected 3 fields `file,model,expected`, found {n}"
            )),
        };
        match parsed {
            Ok((file, model, expect)) => rows.push(LitmusRow {
                file: dir.join(file),
                model,
                expect,
                row: format!("{}:{line}", manifest.display()),
            }),
            Err(message) => outcomes.push(manifest_error(Some(line), message)),
        }
    }
    Ok(())
}

/// A litmus row's expected verdict.
#[derive(Copy, Clone)]
pub enum Expect {
    /// `allowed` / `forbidden`: whether some final state satisfying the condition is allowed.
    Allowed(bool),
    /// `terminates` / `can-hang` under a progress model.
    Terminates(bool, Progress),
}

impl Expect {
    fn parse(word: &str) -> Result<Expect, String> {
        let (verdict, progress) = word.split_once(':').unwrap_or((word, "fair"));
        let progress = || {
            Progress::from_name(progress)
                .ok_or_else(|| format!("unknown progress model `{progress}`"))
        };
        match verdict {
            "allowed" | "forbidden" if word == verdict => Ok(Expect::Allowed(verdict == "allowed")),
            "terminates" => Ok(Expect::Terminates(true, progress()?)),
            "can-hang" => Ok(Expect::Terminates(false, progress()?)),
            _ => Err(format!(
                "expected `allowed`, `forbidden`, `terminates` or `can-hang` (with `:PROGRESS`), found `{word}`"
            )),
        }
    }

    /// The verdict in words, as the table shows it.
    pub fn word(self, model: &Model) -> String {
        match self {
            Expect::Allowed(allowed) => format!("{} {}", model.name(), verdict_word(allowed)),
            Expect::Terminates(terminates, progress) => format!(
                "{} {progress} {}",
                model.name(),
                if terminates { "terminates" } else { "can hang" }
            ),
        }
    }
}

/// `allowed` or `forbidden`.
pub fn verdict_word(allowed: bool) -> &'static str {
    if allowed {
        "allowed"
    } else {
        "forbidden"
    }
}
