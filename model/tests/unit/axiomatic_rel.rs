//! Tests of `axiomatic::rel`.

use scopecheck_model::axiomatic::rel::*;

#[test]
fn closure_and_cycles() {
    let r = Rel::from_pairs(4, [(0, 1), (1, 2), (2, 3)]);
    let p = r.plus();
    assert!(p.has(0, 3) && p.has(1, 3) && !p.has(3, 0));
    assert!(r.acyclic());
    let mut c = r.clone();
    c.add(3, 1);
    assert!(!c.acyclic());
    assert!(r.star().has(2, 2));
    assert!(!r.plus().has(2, 2));
}

#[test]
fn algebra() {
    let a = Rel::from_pairs(3, [(0, 1), (1, 2)]);
    let b = Rel::from_pairs(3, [(1, 2)]);
    assert_eq!(&a - &b, Rel::from_pairs(3, [(0, 1)]));
    assert_eq!(&a & &b, b);
    assert_eq!(a.seq(&a), Rel::from_pairs(3, [(0, 2)]));
    assert_eq!(a.inv(), Rel::from_pairs(3, [(1, 0), (2, 1)]));
    assert_eq!(a.restrict(bit(1), bit(2)), b);
    assert!(b.subset_of(&a) && !a.subset_of(&b));
    assert_eq!(
        Rel::id(3, bit(0) | bit(2)).pairs().collect::<Vec<_>>(),
        vec![(0, 0), (2, 2)]
    );
    assert_eq!(
        Rel::cross(3, bit(0), bit(1) | bit(2)),
        Rel::from_pairs(3, [(0, 1), (0, 2)])
    );
    assert_eq!(a.domain(), bit(0) | bit(1));
    assert_eq!(a.range(), bit(1) | bit(2));
}

#[test]
fn wide_relations() {
    let n = 100;
    let chain = Rel::from_pairs(n, (0..n - 1).map(|i| (i, i + 1)));
    assert!(chain.plus().has(0, n - 1));
    assert!(chain.acyclic());
}
