//! The value of a cat expression: a set of events or a relation.

use crate::axiomatic::rel::{Rel, Set};

/// A value: a set of events or a relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// A set of events.
    Set(Set),
    /// A relation between events.
    Rel(Rel),
}

impl Val {
    /// The relation this value is (the type checker makes sure it is one).
    pub fn rel(&self) -> &Rel {
        match self {
            Val::Rel(r) => r,
            Val::Set(_) => unreachable!("type-checked: a relation"),
        }
    }

    pub(super) fn set(&self) -> Set {
        match self {
            Val::Set(s) => *s,
            Val::Rel(_) => unreachable!("type-checked: a set"),
        }
    }

    /// Whether the set or relation has no member.
    pub fn is_empty(&self) -> bool {
        match self {
            Val::Set(s) => *s == Set::EMPTY,
            Val::Rel(r) => r.is_empty(),
        }
    }

    /// A relation as is; a set as the identity on it.
    pub fn to_rel(&self, n: usize) -> Rel {
        match self {
            Val::Set(s) => Rel::id(n, *s),
            Val::Rel(r) => r.clone(),
        }
    }
}
