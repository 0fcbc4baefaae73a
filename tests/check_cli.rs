//! `scopecheck check` on bad or empty corpora: errors name the file (and line), go to stderr or
//! into an intact table, and exit non-zero; `--every-engine` times each engine row on its own.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::runner;
use runner::slow_program;

fn scopecheck(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh directory under the target dir for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("check-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The rows of the entry table (`| entry | kind | expected | got | seconds | status |`), header
/// and rule left out, as trimmed cells.
fn table_rows(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|-") && !l.starts_with("| entry"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn an_empty_folder_is_an_error_on_stderr() {
    let dir = scratch("empty");
    let (code, stdout, stderr) = scopecheck(&["check", path(&dir)]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stdout, "", "nothing on stdout: {stdout}");
    assert!(
        stderr.contains("nothing to check") && stderr.contains(path(&dir)),
        "{stderr}"
    );
}

#[test]
fn bad_manifest_rows_name_their_line_and_keep_the_table_whole() {
    let dir = scratch("bad-rows");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/litmus/MP/MP+relacq-gpu-diff-cta.litmus"),
        dir.join("MP.litmus"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bad.litmus"),
        "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.bogus x, 1 ;\nexists (x == 1)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("MANIFEST.csv"),
        "file,model,expected\n\
         MP.litmus,ptx-v7.5,forbidden\n\
         missing.litmus,ptx-v7.5,forbidden\n\
         # a comment line\n\
         MP.litmus,tso,allowed\n\
         \"MP.litmus\",ptx-v7.5\n\
         bad.litmus,ptx-v7.5,allowed\n",
    )
    .unwrap();
    let (code, stdout, stderr) = scopecheck(&["check", "--verbose", path(&dir)]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let manifest = dir.join("MANIFEST.csv");
    let rows = table_rows(&stdout);
    let row = |entry: &str| {
        rows.iter()
            .find(|r| r[0] == entry)
            .unwrap_or_else(|| panic!("no row {entry}:\n{stdout}"))
    };
    let at = |line: u32| format!("{}:{line}", manifest.display());
    assert!(row(&at(5))[3].contains("unknown model `tso`"), "{stdout}");
    assert!(row(&at(6))[3].contains("found 2"), "{stdout}");
    let missing = row(&dir.join("missing.litmus").display().to_string());
    assert!(
        missing[3].starts_with(&format!("{}: ", at(3))),
        "a missing test is reported at the row naming it: {stdout}"
    );
    assert_eq!(
        row(&dir.join("MP.litmus").display().to_string())[5],
        "ok",
        "{stdout}"
    );
    // Every line of the table is a table line; the caret diagnostic of bad.litmus comes after.
    let table: Vec<&str> = stdout.lines().take_while(|l| !l.is_empty()).collect();
    assert!(table.iter().all(|l| l.starts_with('|')), "{stdout}");
    assert_eq!(table.len(), 2 + 5, "{stdout}");
    assert!(
        stdout.contains(&format!("{}:4:", dir.join("bad.litmus").display())),
        "{stdout}"
    );
}

#[test]
fn a_binary_manifest_names_its_file() {
    let dir = scratch("binary");
    let manifest = dir.join("MANIFEST.csv");
    std::fs::write(
        &manifest,
        [0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0x80, b'\n'],
    )
    .unwrap();
    let (code, stdout, stderr) = scopecheck(&["check", path(&dir)]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let rows = table_rows(&stdout);
    assert_eq!(rows.len(), 1, "{stdout}");
    assert_eq!(rows[0][0], manifest.display().to_string(), "{stdout}");
    assert!(rows[0][3].contains("not a text file"), "{stdout}");
}

/// Under `--every-engine` a case's engines run one after another, so the times of its rows add
/// up to no more than the run's wall-clock time (which the last line prints).
#[test]
fn every_engine_rows_carry_their_own_time() {
    let (code, stdout, stderr) =
        scopecheck(&["check", "--every-engine", "--verbose", "corpus/bugs"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let wall: f64 = stdout
        .lines()
        .last()
        .and_then(|l| l.rsplit(", ").next())
        .and_then(|t| t.strip_suffix('s'))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no total time:\n{stdout}"));
    let mut per_case = std::collections::BTreeMap::<String, (f64, usize)>::new();
    for row in table_rows(&stdout) {
        let case = row[0].split(" [").next().unwrap().to_string();
        let seconds: f64 = row[4].parse().unwrap();
        let entry = per_case.entry(case).or_default();
        entry.0 += seconds;
        entry.1 += 1;
    }
    assert!(
        per_case.values().all(|&(_, engines)| engines >= 2),
        "{stdout}"
    );
    for (case, (sum, engines)) in per_case {
        assert!(
            sum <= wall + 0.01 + 0.001 * engines as f64,
            "{case}: its {engines} engine rows add up to {sum:.3}s, more than the whole run's {wall:.2}s:\n{stdout}"
        );
    }
}

/// `--all-failures` keeps exploring the bug models and lists each one's further distinct
/// failures beside the verdict of the first.
#[test]
fn all_failures_lists_further_distinct_failures() {
    let (code, stdout, stderr) =
        scopecheck(&["check", "--all-failures", "--verbose", "corpus/bugs"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains(" more: "), "{stdout}");
}

const MP: &str = "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

#[test]
fn json_lists_every_entry_with_stable_fields() {
    let dir = scratch("json");
    std::fs::write(dir.join("MP.litmus"), MP).unwrap();
    std::fs::write(
        dir.join("MANIFEST.csv"),
        "file,model,expected\nMP.litmus,ptx-v7.5,forbidden\nMP.litmus,ptx-v6.0,allowed\nMP.litmus,nope,allowed\n",
    )
    .unwrap();
    let (code, stdout, stderr) = scopecheck(&["check", "--json", path(&dir)]);
    assert_eq!(code, 1, "one mismatch and one bad row: {stderr}");
    let json: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    let entries = json["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "{json}");
    for e in entries {
        for field in [
            "entry", "kind", "expected", "got", "status", "seconds", "about",
        ] {
            assert!(e.get(field).is_some(), "{field} in {e}");
        }
    }
    let statuses: Vec<&str> = entries
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == "ok").count(), 1, "{json}");
    assert_eq!(
        statuses.iter().filter(|s| **s == "mismatch").count(),
        1,
        "{json}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == "error").count(),
        1,
        "{json}"
    );
    assert_eq!(json["total"], 3);
    assert_eq!(json["failed"], 2);
    assert_eq!(json["as_expected"], 1);
    assert_eq!(json["interrupted"], false);
    assert!(json["seconds"].as_f64().is_some());
}

#[cfg(unix)]
#[test]
fn a_signal_prints_the_table_so_far_marked_interrupted() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = scratch("signal");
    std::fs::write(dir.join("MP.litmus"), MP).unwrap();
    std::fs::write(dir.join("slow.litmus"), slow_program()).unwrap();
    std::fs::write(
        dir.join("MANIFEST.csv"),
        "file,model,expected\nMP.litmus,ptx-v7.5,forbidden\nslow.litmus,ptx-v7.5,allowed\n",
    )
    .unwrap();
    for (signal, json) in [(libc::SIGINT, false), (libc::SIGTERM, true)] {
        let mut args = vec!["check", "--verbose", "--jobs", "1", path(&dir)];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: kill sends a signal to the child we spawned.
        unsafe { libc::kill(child.id() as i32, signal) };
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if child.try_wait().unwrap().is_none() {
            let _ = child.kill();
            panic!("check did not end after the signal");
        }
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(130), "{stdout}");
        if json {
            let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON");
            assert_eq!(v["interrupted"], true);
            let entries = v["entries"].as_array().unwrap();
            assert_eq!(entries.len(), 1, "MP finished, slow did not: {v}");
            assert!(entries[0]["entry"].as_str().unwrap().ends_with("MP.litmus"));
        } else {
            let rows = table_rows(&stdout);
            assert_eq!(rows.len(), 1, "{stdout}");
            assert!(rows[0][0].ends_with("MP.litmus"), "{stdout}");
            assert!(stdout.contains("interrupted"), "{stdout}");
        }
    }
}
