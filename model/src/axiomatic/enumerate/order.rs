//! Transitive orders: adding a pair, growing by required pairs, the pairs every option shares.

use crate::axiomatic::rel::{bit, Rel};

/// Adds `a → b` to the transitive relation `co`, keeping it transitive.
pub(super) fn add_transitive(co: &mut Rel, a: usize, b: usize) {
    let after = co.row(b) | bit(b);
    for x in 0..co.len() {
        if x == a || co.has(x, a) {
            co.set_row(x, co.row(x) | after);
        }
    }
}

/// The transitive `co` grown by `required`, still transitive; `None` when that makes a cycle
/// (a required pair against one chosen).
pub(super) fn grown(co: &Rel, required: &Rel) -> Option<Rel> {
    if required.subset_of(co) {
        return Some(co.clone());
    }
    let co = (co | required).plus();
    co.irreflexive().then_some(co)
}

/// What every option has in common (options are never empty: at least the empty order, or no
/// barrier synchronization).
pub(super) fn common(options: &[Rel]) -> Rel {
    options
        .iter()
        .skip(1)
        .fold(options[0].clone(), |a, b| &a & b)
}
