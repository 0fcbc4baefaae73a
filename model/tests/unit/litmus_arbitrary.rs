//! Tests of `litmus::arbitrary`.

use arbitrary::Unstructured;
use scopecheck_model::litmus::arbitrary::*;

#[test]
fn empty_input_gives_the_smallest_valid_program() {
    let p = program(&mut Unstructured::new(&[]), &Limits::default()).unwrap();
    assert_eq!(p.threads.len(), 2);
    assert_eq!(p.locations.len(), 1);
    assert!(p.threads.iter().all(|t| t.body.len() == 1));
}

#[test]
fn seeds_are_stable() {
    assert_eq!(from_seed(7), from_seed(7));
    assert_ne!(from_seed(7), from_seed(8));
}
