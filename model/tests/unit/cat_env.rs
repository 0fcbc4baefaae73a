//! Tests of `cat::env`.

use scopecheck_model::cat::env::*;
use std::rc::Rc;

#[test]
fn a_scope_sees_the_bindings_before_its_moment() {
    let mut names = Names::default();
    names.bind("a", Binding::Value(1));
    let early = names.now();
    names.bind("a", Binding::Value(2));
    names.bind("b", Binding::Value(3));
    let value = |s: &Scope, n: &str| match s.get(n) {
        Some(Binding::Value(v)) => Some(v),
        _ => None,
    };
    let top = Scope::top(&names);
    assert_eq!((value(&top, "a"), value(&top, "b")), (Some(2), Some(3)));
    let old = Scope {
        names: &names,
        at: early,
        params: Rc::new(vec![("b".to_string(), 7)]),
    };
    assert_eq!((value(&old, "a"), value(&old, "b")), (Some(1), Some(7)));
    assert_eq!(value(&old, "c"), None);
    assert_eq!(names.values().len(), 2);
}
