//! What a GPU run leaves behind: a JSON record per test, and for every forbidden observation a
//! violation file written atomically (temp file, then a no-clobber link) so that nothing is ever
//! overwritten.

use crate::diff::TestDiff;
use crate::runner::{DeviceInfo, Params};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// One test on one device.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestRecord {
    pub name: String,
    pub file: String,
    pub device: DeviceInfo,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    pub params: Params,
    pub instances: u64,
    pub seconds: f64,
    pub instances_per_s: f64,
    pub diff: TestDiff,
    /// The run stopped early (device error or watchdog); the counts are what it had by then.
    pub error: Option<String>,
    /// The litmus source as run.
    pub litmus: String,
    /// Instances in a target state of the condition (the weak outcome the test asks about).
    #[serde(default)]
    pub weak: u64,
    /// MC Mutants' rule: `weak` ≥ ⌈−ln(1−confidence)⌉ (see [`crate::confidence`]).
    #[serde(default)]
    pub reproducible: bool,
    #[serde(default)]
    pub confidence: f64,
    /// Where the settings came from: `command line` or `tuned: <env file>`.
    #[serde(default)]
    pub env: String,
}

/// The current time as an ISO 8601 UTC string.
pub fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A file-name-safe version of `s`.
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Write `contents` to `dir/<stem>.json` (or `<stem>-1.json`, ...) without ever replacing a file:
/// the data goes to a temp file first and is then hard-linked into place, which fails if the name
/// is taken.
pub fn write_new(dir: &Path, stem: &str, contents: &str) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{stem}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()?;
    }
    let result = (0..1000).find_map(|i| {
        let name = if i == 0 {
            format!("{stem}.json")
        } else {
            format!("{stem}-{i}.json")
        };
        let path = dir.join(name);
        match std::fs::hard_link(&tmp, &path) {
            Ok(()) => Some(Ok(path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
            Err(e) => Some(Err(e)),
        }
    });
    let _ = std::fs::remove_file(&tmp);
    result.unwrap_or_else(|| {
        Err(io::Error::other(format!(
            "no free name for {stem} in {}",
            dir.display()
        )))
    })
}

/// Record a violation: the whole test record (histogram, device, driver, parameters, litmus text).
pub fn write_violation(dir: &Path, record: &TestRecord) -> io::Result<PathBuf> {
    let stem = format!(
        "{}-{}-{}",
        slug(&record.name),
        slug(&record.device.name),
        record.date.replace(':', "")
    );
    let json = serde_json::to_string_pretty(record).map_err(io::Error::other)?;
    write_new(dir, &stem, &json)
}
