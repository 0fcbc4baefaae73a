//! `scopecheck litmus --format herd`: every line has the shape herd7 prints and herdtools'
//! log reader (the lexer `mcompare7` and `msum7` share) expects, test after test.

use std::process::Command;

fn herd_log(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["litmus", "--format", "herd"])
        .args(args)
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A test name as herd's log lexer reads it.
fn is_test_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_/.-+[]".contains(c))
}

fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// `1:r0` or `x`: herd's location names (a thread number, not `P1`, before a register).
fn is_location(s: &str) -> bool {
    let name = |n: &str| {
        n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    match s.split_once(':') {
        Some((t, r)) => t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() && name(r),
        None => name(s),
    }
}

/// One state line: `loc=value;` bindings separated by single blanks.
fn check_state(line: &str) {
    if line.is_empty() {
        return;
    }
    for binding in line.split(' ') {
        let (loc, value) = binding
            .strip_suffix(';')
            .and_then(|b| b.split_once('='))
            .unwrap_or_else(|| panic!("state binding `{binding}` in `{line}`"));
        assert!(is_location(loc), "location `{loc}` in `{line}`");
        assert!(is_number(value), "value `{value}` in `{line}`");
    }
}

/// Checks one test's block line by line; returns (name, kind, validation, positive, negative).
fn check_block(lines: &[&str]) -> (String, String, String, u64, u64) {
    let mut it = lines.iter().copied();
    let mut next = || it.next().expect("the block goes on");
    let head: Vec<&str> = next().split(' ').collect();
    assert_eq!(head.len(), 3, "{head:?}");
    assert_eq!(head[0], "Test");
    let name = head[1].to_string();
    assert!(is_test_name(&name), "{name}");
    assert!(["Allowed", "Forbidden", "Required"].contains(&head[2]));
    let n: usize = next()
        .strip_prefix("States ")
        .expect("States N")
        .parse()
        .unwrap();
    for _ in 0..n {
        check_state(next());
    }
    let validation = next().to_string();
    assert!(
        ["Ok", "No", "Loop Ok", "Loop No"].contains(&validation.as_str()),
        "{validation}"
    );
    assert_eq!(next(), "Witnesses");
    let wit: Vec<&str> = next().split(' ').collect();
    assert_eq!(
        (wit.len(), wit[0], wit[2]),
        (4, "Positive:", "Negative:"),
        "{wit:?}"
    );
    let condition = next();
    let cond = condition.strip_prefix("Condition ").expect("Condition");
    assert!(
        ["exists (", "~exists (", "forall ("]
            .iter()
            .any(|k| cond.starts_with(k))
            && cond.ends_with(')'),
        "{cond}"
    );
    assert!(!cond.contains("P0:") && !cond.contains("=="), "{cond}");
    let obs: Vec<&str> = next().split(' ').collect();
    assert_eq!(
        (obs.len(), obs[0], obs[1]),
        (5, "Observation", name.as_str())
    );
    let (pos, neg): (u64, u64) = (obs[3].parse().unwrap(), obs[4].parse().unwrap());
    let expected = if pos == 0 {
        "Never"
    } else if neg == 0 {
        "Always"
    } else {
        "Sometimes"
    };
    assert_eq!(obs[2], expected);
    let time: Vec<&str> = next().split(' ').collect();
    assert_eq!((time.len(), time[0], time[1]), (3, "Time", name.as_str()));
    let (secs, cents) = time[2].split_once('.').expect("secs.cc");
    assert!(is_number(secs) && cents.len() == 2 && is_number(cents));
    let hash = next().strip_prefix("Hash=").expect("Hash=");
    assert!(hash.len() == 32 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(it.next(), None, "an empty line ends the block");
    (name, head[2].to_string(), validation, pos, neg)
}

fn blocks(log: &str) -> Vec<Vec<&str>> {
    log.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| b.lines().collect())
        .collect()
}

#[test]
fn every_corpus_test_logs_in_herds_shape() {
    // Every shape directory; `liveness/` holds tests that never finish by design (decided by
    // `--liveness`, not by the final states).
    let mut dirs: Vec<String> = std::fs::read_dir("corpus/litmus")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("liveness"))
        .map(|p| p.display().to_string())
        .collect();
    dirs.sort();
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let log = herd_log(&dirs);
    let tests = blocks(&log);
    assert!(tests.len() > 150, "{} tests", tests.len());
    for block in &tests {
        let (_, kind, validation, pos, neg) = check_block(block);
        // herd's rule: exists validates with a positive execution, forall with no negative one,
        // ~exists with no execution satisfying the proposition (Positive/Negative swapped).
        let ok = validation.ends_with("Ok");
        let validates = match kind.as_str() {
            "Allowed" => pos > 0,
            "Forbidden" => pos == 0,
            _ => neg == 0,
        };
        assert_eq!(ok, validates, "{block:?}");
    }
}

/// Message passing: the condition's registers, written herd's way, and no memory location (the
/// condition names none).
#[test]
fn states_show_the_condition_locations_herds_way() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("herd-mp");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("MP.litmus");
    std::fs::write(
        &file,
        "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;\n st.weak x, 1        | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.weak r1, x        ;\n~exists (1:r0 == 1 /\\ 1:r1 == 0)\n",
    )
    .unwrap();
    let log = herd_log(&[file.to_str().unwrap()]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 13, "{log}");
    assert_eq!(lines[12], "", "an empty line ends the test");
    let lines = &lines[..12];
    assert_eq!(
        lines,
        [
            "Test MP Forbidden",
            "States 3",
            "1:r0=0; 1:r1=0;",
            "1:r0=0; 1:r1=1;",
            "1:r0=1; 1:r1=1;",
            "Ok",
            "Witnesses",
            "Positive: 3 Negative: 0",
            "Condition ~exists (1:r0=1 /\\ 1:r1=0)",
            "Observation MP Never 0 3",
            lines[10],
            lines[11],
        ],
        "{log}"
    );
    check_block(lines);
}
