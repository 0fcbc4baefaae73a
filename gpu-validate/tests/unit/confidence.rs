//! Tests of `confidence`.

use scopecheck_gpu::confidence::*;

#[test]
fn the_rule_matches_its_closed_form() {
    // −ln(0.05) = 2.996 → 3; −ln(0.01) = 4.605 → 5; −ln(0.001) = 6.908 → 7.
    assert_eq!(needed(0.95), 3);
    assert_eq!(needed(0.99), 5);
    assert_eq!(needed(0.999), 7);
    assert_eq!(needed(0.5), 1);
    assert!(!reproducible(2, 0.95));
    assert!(reproducible(3, 0.95));
}
