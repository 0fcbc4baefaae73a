//! The CUDA kernel corpus (`corpus/cuda/MANIFEST.csv`): which kernels there are, what each must
//! do, and whether a run of `scopecheck kernel FILE --json` did it. `scopecheck check` and
//! `tests/cuda_corpus.rs` (which includes this file with `#[path]`) both use it.
//!
//! A manifest is CSV with the header `file,expected,flags,reason` (`#` starts a comment line,
//! fields are trimmed): `file` is a `.cu` under the manifest's directory, whose committed `.ptx` sits
//! next to it, or a `.ptx` alone (PTX from another compiler, e.g. Triton);
//! `expected` is `pass` or a failure kind in kebab case ([`KINDS`]), or several joined with `|`
//! for a bug with more than one symptom, any of which some interleaving reaches first; `flags`
//! are extra `scopecheck kernel` flags, space-separated, for how the corpus explores the kernel
//! (`--engine pct --budget 200` where there are too many threads to enumerate); the launch itself
//! is the kernel's own `// scopecheck:` line.

use scopecheck_model::runtime::FailureKind;
use scopecheck_model::scope::Scope;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The failure kinds a manifest names, in kebab case: one per [`FailureKind`] variant.
pub const KINDS: [&str; 14] = [
    "data-race",
    "scoped-race",
    "assertion",
    "barrier-divergence",
    "hang",
    "possible-hang",
    "mbarrier-misuse",
    "barrier-misuse",
    "warp-misuse",
    "non-coherent-read",
    "use-after-exit",
    "out-of-bounds",
    "uninitialized-read",
    "unsupported",
];

/// The manifest name of a failure kind (an exhaustive match: a new kind must be named here).
pub fn kind_name(kind: &FailureKind) -> &'static str {
    match kind {
        FailureKind::DataRace => KINDS[0],
        FailureKind::ScopedRace { .. } => KINDS[1],
        FailureKind::Assertion => KINDS[2],
        FailureKind::BarrierDivergence => KINDS[3],
        FailureKind::Hang => KINDS[4],
        FailureKind::PossibleHang => KINDS[5],
        FailureKind::MBarrierMisuse => KINDS[6],
        FailureKind::BarrierMisuse => KINDS[7],
        FailureKind::WarpMisuse => KINDS[8],
        FailureKind::NonCoherentRead => KINDS[9],
        FailureKind::UseAfterExit => KINDS[10],
        FailureKind::OutOfBounds => KINDS[11],
        FailureKind::UninitializedRead => KINDS[12],
        FailureKind::Unsupported => KINDS[13],
    }
}

/// One representative of every kind, in [`KINDS`]'s order.
fn every_kind() -> [FailureKind; 14] {
    [
        FailureKind::DataRace,
        FailureKind::ScopedRace { fix: Scope::Gpu },
        FailureKind::Assertion,
        FailureKind::BarrierDivergence,
        FailureKind::Hang,
        FailureKind::PossibleHang,
        FailureKind::MBarrierMisuse,
        FailureKind::BarrierMisuse,
        FailureKind::WarpMisuse,
        FailureKind::NonCoherentRead,
        FailureKind::UseAfterExit,
        FailureKind::OutOfBounds,
        FailureKind::UninitializedRead,
        FailureKind::Unsupported,
    ]
}

/// The manifest name of a kind as a report spells it: the manifest name itself, the kind's
/// human text (`data race`, `scoped race (fixed by scope device (gpu))`) or its Rust variant
/// name (`DataRace`, `ScopedRace { fix: Gpu }`). `None` for anything else.
pub fn parse_kind(text: &str) -> Option<&'static str> {
    let text = text.trim();
    let head = |s: &str| -> String {
        s.split(['(', '{'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    };
    every_kind().iter().find_map(|kind| {
        let name = kind_name(kind);
        let display = head(&kind.to_string());
        let variant = head(&format!("{kind:?}"));
        let given = head(text);
        (text == name || given == display || given == variant).then_some(name)
    })
}

/// What a kernel must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Verified (or bounded) with no failure: exit 0.
    Pass,
    /// Fails, with one of these kinds: exit 1.
    Fail(Vec<&'static str>),
    /// `refused:TEXT`: the interpreter does not run an instruction of this kernel yet and says
    /// so (exit 2, standard error naming `TEXT`). Such a row records a gap of the front end,
    /// never a verdict: its reason column says what the kernel's verdict is by the PTX text,
    /// and the row fails as soon as the instruction runs, so that it is updated.
    Refused(String),
}

impl Expected {
    /// `pass`, or kinds joined with `|`.
    pub fn parse(word: &str) -> Result<Expected, String> {
        if word == "pass" {
            return Ok(Expected::Pass);
        }
        if let Some(text) = word.strip_prefix("refused:") {
            return Ok(Expected::Refused(text.trim().to_string()));
        }
        word.split('|')
            .map(|k| {
                KINDS
                    .iter()
                    .find(|&&n| n == k.trim())
                    .copied()
                    .ok_or_else(|| {
                        format!(
                            "unknown expectation `{k}` (pass, or one of {})",
                            KINDS.join(", ")
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Expected::Fail)
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Pass => f.write_str("pass"),
            Expected::Fail(kinds) => f.write_str(&kinds.join("|")),
            Expected::Refused(text) => write!(f, "refused:{text}"),
        }
    }
}

/// One manifest row.
#[derive(Clone, Debug)]
pub struct Row {
    /// The `.cu` or `.ptx` file, joined to the manifest's directory.
    pub file: PathBuf,
    /// What it must do.
    pub expected: Expected,
    /// Extra `scopecheck kernel` flags (the engine and its budget), possibly none.
    pub flags: Vec<String>,
    /// Why (the specification sentence), possibly empty.
    pub reason: String,
    /// `MANIFEST.csv:LINE`.
    pub at: String,
}

impl Row {
    /// The PTX: the committed `.ptx` beside a `.cu`, or the row's `.ptx`.
    pub fn ptx(&self) -> PathBuf {
        self.file.with_extension("ptx")
    }

    /// The CUDA source, for a `.cu` row.
    pub fn cu(&self) -> Option<&Path> {
        self.file
            .extension()
            .is_some_and(|e| e == "cu")
            .then_some(self.file.as_path())
    }

    /// The file name of the source the PTX's line information names: the `.cu`, or for a `.ptx`
    /// row the name in its first `.file` directive (`.file 1 "dir/kernels.py"` gives
    /// `kernels.py`). `None` for PTX without line information.
    pub fn source_name(&self) -> Option<String> {
        if let Some(cu) = self.cu() {
            return cu.file_name().map(|n| n.to_string_lossy().into_owned());
        }
        let text = std::fs::read_to_string(&self.file).ok()?;
        text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix(".file")?;
            let quoted = rest.split('"').nth(1)?;
            Path::new(quoted)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
    }
}

/// Whether `bytes` is a CUDA manifest: its header is `file,expected,flags,reason`.
pub fn is_manifest(bytes: &[u8]) -> bool {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(bytes);
    reader
        .headers()
        .is_ok_and(|h| h.iter().eq(["file", "expected", "flags", "reason"]))
}

/// Reads a CUDA manifest: its rows, and a `MANIFEST.csv:LINE: message` for each row that is not
/// one (an unknown kind, a missing field, a file that does not exist).
pub fn read_manifest(manifest: &Path) -> Result<(Vec<Row>, Vec<String>), String> {
    let bytes = std::fs::read(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    if !is_manifest(&bytes) {
        return Err(format!(
            "{}:1: expected the header `file,expected,flags,reason`",
            manifest.display()
        ));
    }
    let (mut rows, mut errors) = (Vec::new(), Vec::new());
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = line_of(&bytes, e.position());
                errors.push(format!("{}:{line}: {e}", manifest.display()));
                continue;
            }
        };
        let line = line_of(&bytes, record.position());
        let at = format!("{}:{line}", manifest.display());
        if record.iter().all(str::is_empty) {
            continue;
        }
        let (Some(file), Some(expected)) = (record.get(0), record.get(1)) else {
            errors.push(format!("{at}: expected `file,expected,flags,reason`"));
            continue;
        };
        let path = dir.join(file);
        if path.extension().is_none_or(|e| e != "cu" && e != "ptx") || !path.is_file() {
            errors.push(format!(
                "{at}: `{file}` is not a .cu or .ptx file under the manifest's directory"
            ));
            continue;
        }
        match Expected::parse(expected) {
            Ok(expected) => rows.push(Row {
                file: path,
                expected,
                flags: record
                    .get(2)
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
                reason: record.get(3).unwrap_or("").to_string(),
                at,
            }),
            Err(message) => errors.push(format!("{at}: {message}")),
        }
    }
    Ok((rows, errors))
}

/// The 1-based line of the record at `pos`. The csv crate's position is where its skipping of
/// comment and blank lines began, so those lines are stepped over here.
fn line_of(bytes: &[u8], pos: Option<&csv::Position>) -> u64 {
    let Some(pos) = pos else { return 0 };
    let end = (pos.byte() as usize).min(bytes.len());
    let mut line = bytes[..end].iter().filter(|&&b| b == b'\n').count();
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    while lines.get(line).is_some_and(|l| {
        let l = l.trim_ascii();
        l.is_empty() || l.starts_with(b"#")
    }) {
        line += 1;
    }
    line as u64 + 1
}

/// What one `scopecheck kernel FILE --json` run did.
#[derive(Clone, Debug)]
pub struct Run {
    /// The exit status (`None` when killed: by a signal, or past the time limit).
    pub exit: Option<i32>,
    /// The first failure's kind, from the JSON report, as a manifest name.
    pub kind: Option<&'static str>,
    /// Standard output (the JSON report).
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Whether the run did what `expected` says; if not, what it did instead.
    pub fn agrees(&self, expected: &Expected) -> Result<(), String> {
        match (expected, self.exit, self.kind) {
            (Expected::Pass, Some(0), None) => Ok(()),
            (Expected::Fail(kinds), Some(1), Some(kind)) if kinds.contains(&kind) => Ok(()),
            (Expected::Refused(text), Some(2), None) if self.stderr.contains(text.as_str()) => {
                Ok(())
            }
            _ => Err(self.describe()),
        }
    }

    /// `pass`, `fail: KIND`, or the exit status and the first line of standard error.
    pub fn describe(&self) -> String {
        match (self.exit, self.kind) {
            (Some(0), None) => "pass".to_string(),
            (Some(1), Some(kind)) => kind.to_string(),
            (exit, kind) => format!(
                "exit {} (kind {}): {}",
                exit.map_or("none (killed)".to_string(), |c| c.to_string()),
                kind.unwrap_or("none"),
                self.stderr.lines().next().unwrap_or("").trim()
            ),
        }
    }

    /// Whether the report names a line of the source file `name` (`NAME.cu:LINE`), as a trace
    /// of a failure found in PTX with `.loc` lines does.
    pub fn names_source_line(&self, name: &str) -> bool {
        let needle = format!("{name}:");
        [&self.stdout, &self.stderr].iter().any(|text| {
            text.match_indices(&needle).any(|(i, _)| {
                text[i + needle.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
        })
    }
}

/// Runs `exe kernel FILE --json FLAGS` (the launch comes from the file's `// scopecheck:` line) and
/// reads the first failure's kind from the report. A run past `limit` is killed and reported as
/// such (exit `None`), so a hanging checker fails the entry instead of stalling the corpus.
pub fn run(exe: &Path, file: &Path, flags: &[String], limit: Duration) -> std::io::Result<Run> {
    let mut child = Command::new(exe)
        .arg("kernel")
        .arg(file)
        .arg("--json")
        .args(flags)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill()?;
            child.wait()?;
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = stdout.join().unwrap_or_default();
    let mut stderr = stderr.join().unwrap_or_default();
    if status.is_none() {
        stderr = format!("killed after {} s\n{stderr}", limit.as_secs());
    }
    let kind = serde_json::from_str::<serde_json::Value>(&stdout)
        .ok()
        .and_then(|report| first_failure_kind(&report));
    Ok(Run {
        exit: status.and_then(|s| s.code()),
        kind,
        stdout,
        stderr,
    })
}

/// The `kind` of the report's first failure: under `failure` (an object) or `failures` (a
/// list), at the top level or one level down.
fn first_failure_kind(report: &serde_json::Value) -> Option<&'static str> {
    let of_failure = |f: &serde_json::Value| -> Option<&'static str> {
        let f = match f {
            serde_json::Value::Array(list) => list.first()?,
            other => other,
        };
        match f.get("kind")? {
            serde_json::Value::String(s) => parse_kind(s),
            other => parse_kind(&other.to_string()),
        }
    };
    let here = |v: &serde_json::Value| {
        ["failure", "failures"]
            .iter()
            .find_map(|key| v.get(*key).and_then(of_failure))
    };
    here(report).or_else(|| match report {
        serde_json::Value::Object(map) => map.values().find_map(here),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_name_and_parses_from_each_spelling() {
        for (kind, name) in every_kind().iter().zip(KINDS) {
            assert_eq!(kind_name(kind), name);
            assert_eq!(parse_kind(name), Some(name));
            assert_eq!(parse_kind(&kind.to_string()), Some(name), "{kind}");
            assert_eq!(parse_kind(&format!("{kind:?}")), Some(name), "{kind:?}");
        }
        assert_eq!(
            parse_kind("scoped race (fixed by scope block (cta))"),
            Some("scoped-race")
        );
        assert_eq!(parse_kind("race"), None);
    }

    #[test]
    fn expectations_parse_pass_kinds_and_alternatives() {
        assert_eq!(Expected::parse("pass"), Ok(Expected::Pass));
        assert_eq!(
            Expected::parse("data-race|hang"),
            Ok(Expected::Fail(vec!["data-race", "hang"]))
        );
        assert!(Expected::parse("data race").is_err());
        assert!(Expected::parse("").is_err());
    }

    #[test]
    fn the_first_failure_kind_is_read_from_either_shape() {
        let one: serde_json::Value =
            serde_json::from_str(r#"{"verdict":"fail","failure":{"kind":"data race"}}"#).unwrap();
        assert_eq!(first_failure_kind(&one), Some("data-race"));
        let list: serde_json::Value = serde_json::from_str(
            r#"{"report":{"failures":[{"kind":"warp-misuse"},{"kind":"hang"}]}}"#,
        )
        .unwrap();
        assert_eq!(first_failure_kind(&list), Some("warp-misuse"));
        let none: serde_json::Value =
            serde_json::from_str(r#"{"verdict":"pass","failure":null}"#).unwrap();
        assert_eq!(first_failure_kind(&none), None);
    }

    #[test]
    fn a_cuda_line_is_a_file_name_then_a_colon_then_digits() {
        let run = |stdout: &str| Run {
            exit: Some(1),
            kind: None,
            stdout: stdout.to_string(),
            stderr: String::new(),
        };
        assert!(run("at corpus/cuda/k.cu:14 (k.ptx:40:5)").names_source_line("k.cu"));
        assert!(!run("at k.ptx:40:5").names_source_line("k.cu"));
        assert!(!run("k.cu: no line").names_source_line("k.cu"));
    }

    #[test]
    fn the_committed_manifest_reads_without_errors_and_covers_pass_and_fail() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/cuda/MANIFEST.csv");
        let (rows, errors) = read_manifest(&manifest).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(rows.len() >= 24, "{}", rows.len());
        assert!(rows.iter().any(|r| r.expected == Expected::Pass));
        assert!(
            rows.iter().all(|r| r.ptx().is_file()),
            "every .cu has its .ptx"
        );
    }

    #[test]
    fn a_bad_row_is_reported_with_its_line() {
        let dir = std::env::temp_dir().join(format!("scopecheck-cuda-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("k.cu"), "").unwrap();
        let manifest = dir.join("MANIFEST.csv");
        std::fs::write(
            &manifest,
            "file,expected,flags,reason\n# comment\nk.cu,pass,--budget 9,ok\nk.cu,racy,,no\nnone.cu,pass,,x\n",
        )
        .unwrap();
        let (rows, errors) = read_manifest(&manifest).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].flags, ["--budget", "9"]);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].contains("MANIFEST.csv:4: unknown expectation `racy`"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("MANIFEST.csv:5: `none.cu`"),
            "{errors:?}"
        );
        std::fs::write(&manifest, "file,model,expected\n").unwrap();
        assert!(read_manifest(&manifest).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
