//! The engine differential (SC ⊆ runtime ⊆ ptx-v7.5) on the repository's litmus corpus: every
//! program small enough and within what both engines model. These are also the seeds of the
//! `engines` fuzz target.

use scopecheck_model::differential::{check, suitable, Options};
use scopecheck_model::litmus::{collect_files, parse_file};
use std::path::PathBuf;

#[test]
fn engines_agree_on_the_suitable_corpus_programs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus");
    let files = collect_files(std::slice::from_ref(&dir)).unwrap();
    assert!(!files.is_empty(), "no litmus files under {}", dir.display());
    let mut checked = 0;
    let (mut racy, mut race_free) = (0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let Ok(p) = parse_file(f) else {
            continue;
        };
        if !suitable(&p) {
            continue;
        }
        checked += 1;
        match check(&p, &Options::default()) {
            Ok(a) => match a.races_compared {
                Some(true) => racy += 1,
                Some(false) => race_free += 1,
                None => {}
            },
            Err(finding) => failures.push(format!("{}: {finding}", f.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{checked} of {} corpus programs checked; race verdicts agree on {racy} racy and \
         {race_free} race-free programs",
        files.len()
    );
    assert!(
        checked * 2 > files.len(),
        "most corpus programs should be checkable"
    );
}
