//! Tests of `axiomatic::targets`.

use scopecheck_model::axiomatic::targets::*;

#[test]
fn a_branch_closes_once_every_memory_it_can_reach_is_known() {
    // Two locations: the first ends with 1 or 2, the second with 5.
    let mut t = Targets::new(
        vec![vec![2, 1, 2], vec![5]],
        &[vec![1, 5], vec![3, 5]],
        None,
    );
    assert!(t.open(None), "[2, 5] is still to find");
    assert!(!t.open(Some(&[1])), "[1, 5] is known");
    t.push(2);
    assert!(t.open(None));
    t.push(5);
    assert!(t.open(None));
    t.found();
    assert!(!t.open(None));
    t.pop();
    assert!(!t.open(None));
    t.pop();
    assert!(!t.open(None), "both memories are known");
    assert_eq!(t.fresh().collect::<Vec<_>>(), vec![vec![2, 5]]);
}

#[test]
fn asked_about_some_memories_a_branch_closes_once_they_are_found() {
    // [7, 5] cannot be reached; [1, 5] is known; only [2, 5] is left.
    let wanted = [vec![2, 5], vec![7, 5], vec![1, 5]];
    let mut t = Targets::new(vec![vec![1, 2, 3], vec![5]], &[vec![1, 5]], Some(&wanted));
    assert!(t.open(None));
    assert!(
        !t.open(Some(&[3])),
        "nothing wanted ends the first location with 3"
    );
    assert!(!t.open(Some(&[1])), "[1, 5] is known");
    t.push(3);
    assert!(!t.open(None));
    t.pop();
    t.push(2);
    t.push(5);
    assert!(t.open(None));
    t.found();
    t.pop();
    t.pop();
    assert!(!t.open(None), "every wanted memory is known");
}
