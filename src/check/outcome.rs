//! One entry of `scopecheck check`: what its manifest expects, what it got, and how they compare.

/// What an entry is expected to do and what it did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The test file, bug model or manifest line.
    pub entry: String,
    /// `litmus`, `model`, `cuda` or `manifest`.
    pub kind: &'static str,
    /// The verdict its manifest expects.
    pub expected: String,
    /// The verdict it got (the error, for `Error`).
    pub got: String,
    /// How the two compare.
    pub status: Status,
    /// The time this entry (this engine, under `--every-engine`) took.
    pub seconds: f64,
    /// Where the entry comes from and why it deserves its verdict (shown on mismatch).
    pub about: String,
}

/// How an entry's verdict compares with its manifest.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Status {
    /// The verdict matches the manifest.
    Match,
    /// It matches, but exploration was cut by a bound: the agreement is bounded.
    Bounded,
    /// The verdict differs from the manifest.
    Mismatch,
    /// The entry could not be run (bad input); counts as a failure.
    Error,
}

impl Status {
    /// The status in the table.
    pub fn word(self) -> &'static str {
        match self {
            Status::Match => "ok",
            Status::Bounded => "ok (bounded)",
            Status::Mismatch => "MISMATCH",
            Status::Error => "ERROR",
        }
    }

    /// Whether it counts as a failure of the run.
    pub fn failed(self) -> bool {
        matches!(self, Status::Mismatch | Status::Error)
    }

    /// The status in `--json`: one lowercase word.
    pub fn json_word(self) -> &'static str {
        match self {
            Status::Match => "ok",
            Status::Bounded => "bounded",
            Status::Mismatch => "mismatch",
            Status::Error => "error",
        }
    }
}

impl Outcome {
    /// An entry that could not be run: a malformed manifest row or file.
    pub fn manifest_error(entry: String, message: String) -> Outcome {
        Outcome {
            entry,
            kind: "manifest",
            expected: String::new(),
            got: message,
            status: Status::Error,
            seconds: 0.0,
            about: String::new(),
        }
    }
}
