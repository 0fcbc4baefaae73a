//! The shape of herd7's log, line by line, as herd7 prints it (`herd/top_herd.ml`) and as
//! herdtools' log lexer (`tools/lexLog_tools.mll`, shared by `mcompare7` and `msum7`) reads it:
//! `Test NAME KIND`, `States N` and N state lines of `loc=value;` bindings, `Ok`/`No` (after
//! `Loop ` when a loop was cut), `Witnesses`, `Positive: P Negative: N`, `Condition ...`,
//! `Observation NAME Never|Sometimes|Always P N`, `Time NAME S.CC`, `Hash=...`, an empty line.
#![allow(dead_code)]

/// A test name as herd's log lexer reads it.
pub fn is_test_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_/.-+[]".contains(c))
}

pub fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// `1:r0` or `x`: herd's location names (a thread number, not `P1`, before a register).
pub fn is_location(s: &str) -> bool {
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
pub fn check_state(line: &str) {
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
pub fn check_block(lines: &[&str]) -> (String, String, String, u64, u64) {
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
    // herd7's `Flag NAME` lines (flags some execution raised), sorted by name.
    let mut condition = next();
    let mut flags = Vec::new();
    while let Some(flag) = condition.strip_prefix("Flag ") {
        assert!(!flag.is_empty() && !flag.contains(' '), "{condition}");
        flags.push(flag);
        condition = next();
    }
    assert!(flags.windows(2).all(|w| w[0] < w[1]), "{flags:?}");
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

pub fn blocks(log: &str) -> Vec<Vec<&str>> {
    log.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| b.lines().collect())
        .collect()
}
