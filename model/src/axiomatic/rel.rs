//! Binary relations over the events of one candidate execution, as bit matrices.
//!
//! Row `i` is the set of events `j` with `i → j`. A set of events is a [`Set`] (one bit per event),
//! so every relation fits `MAX_EVENTS` events. The operators mirror cat: `|` union, `&`
//! intersection, `-` difference, [`Rel::inv`] `^-1`, [`Rel::seq`] `;`, [`Rel::plus`] `+`,
//! [`Rel::star`] `*`, [`Rel::opt`] `?`, [`Rel::id`] `[S]`, plus the checks `acyclic`,
//! `irreflexive` and `empty`.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{BitAnd, BitOr, Deref, DerefMut, Sub};

/// A set of events, one bit per event index.
pub type Set = u128;

/// The most events one candidate execution may have.
pub const MAX_EVENTS: usize = Set::BITS as usize;

/// Iterates over the members of a set, lowest index first.
pub fn members(mut s: Set) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if s == 0 {
            return None;
        }
        let i = s.trailing_zeros() as usize;
        s &= s - 1;
        Some(i)
    })
}

pub fn bit(i: usize) -> Set {
    1 << i
}

/// Executions up to this many events (every shared PTX test's) keep their rows inline: relations are built and dropped
/// by the million during a search, and most litmus executions are this small.
const INLINE: usize = 24;

/// Row storage: inline for small executions, on the heap beyond. The inline variant being
/// large is the point: it replaces an allocation per relation.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Rows {
    Inline { n: u8, rows: [Set; INLINE] },
    Heap(Vec<Set>),
}

impl Rows {
    fn zeroed(n: usize) -> Rows {
        if n <= INLINE {
            Rows::Inline {
                n: n as u8,
                rows: [0; INLINE],
            }
        } else {
            Rows::Heap(vec![0; n])
        }
    }
}

impl Deref for Rows {
    type Target = [Set];
    fn deref(&self) -> &[Set] {
        match self {
            Rows::Inline { n, rows } => &rows[..*n as usize],
            Rows::Heap(v) => v,
        }
    }
}

impl DerefMut for Rows {
    fn deref_mut(&mut self) -> &mut [Set] {
        match self {
            Rows::Inline { n, rows } => &mut rows[..*n as usize],
            Rows::Heap(v) => v,
        }
    }
}

impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        **self == **other
    }
}

impl Eq for Rows {}

impl Hash for Rows {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rel {
    rows: Rows,
}

impl Rel {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Rel {
        assert!(n <= MAX_EVENTS, "at most {MAX_EVENTS} events per execution");
        Rel {
            rows: Rows::zeroed(n),
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty_universe(&self) -> bool {
        self.rows.is_empty()
    }

    /// `[s]`: the identity restricted to `s`.
    pub fn id(n: usize, s: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(s) {
            r.rows[i] = bit(i);
        }
        r
    }

    /// `a * b`: every pair from `a` to `b`.
    pub fn cross(n: usize, a: Set, b: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(a) {
            r.rows[i] = b;
        }
        r
    }

    /// The relation holding exactly where `f(i, j)`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::empty(n);
        for i in 0..n {
            for j in 0..n {
                if f(i, j) {
                    r.rows[i] |= bit(j);
                }
            }
        }
        r
    }

    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Rel {
        let mut r = Rel::empty(n);
        for (i, j) in pairs {
            r.add(i, j);
        }
        r
    }

    pub fn add(&mut self, i: usize, j: usize) {
        self.rows[i] |= bit(j);
    }

    pub fn has(&self, i: usize, j: usize) -> bool {
        self.rows[i] & bit(j) != 0
    }

    /// Direct access to the rows, for building relations a row at a time.
    pub fn rows_mut(&mut self) -> &mut [Set] {
        &mut self.rows
    }

    /// The successors of `i`.
    pub fn row(&self, i: usize) -> Set {
        self.rows[i]
    }

    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(i, &row)| members(row).map(move |j| (i, j)))
    }

    /// `r^-1`.
    pub fn inv(&self) -> Rel {
        let mut r = Rel::empty(self.len());
        for (i, j) in self.pairs() {
            r.add(j, i);
        }
        r
    }

    /// `self ; other`.
    pub fn seq(&self, other: &Rel) -> Rel {
        let mut r = Rel::empty(self.len());
        for (i, row) in self.rows.iter().enumerate() {
            let mut acc = 0;
            for k in members(*row) {
                acc |= other.rows[k];
            }
            r.rows[i] = acc;
        }
        r
    }

    /// `[dom] ; self ; [ran]`.
    pub fn restrict(&self, dom: Set, ran: Set) -> Rel {
        let mut r = self.clone();
        for (i, row) in r.rows.iter_mut().enumerate() {
            *row = if dom & bit(i) != 0 { *row & ran } else { 0 };
        }
        r
    }

    /// `self+`: transitive closure (Warshall over bit rows).
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        for k in 0..r.len() {
            let rk = r.rows[k];
            if rk == 0 {
                continue;
            }
            for i in 0..r.len() {
                if r.rows[i] & bit(k) != 0 {
                    r.rows[i] |= rk;
                }
            }
        }
        r
    }

    /// `self*`: reflexive-transitive closure over all events.
    pub fn star(&self) -> Rel {
        self.plus().opt()
    }

    /// `self?`: reflexive closure over all events.
    pub fn opt(&self) -> Rel {
        let mut r = self.clone();
        for (i, row) in r.rows.iter_mut().enumerate() {
            *row |= bit(i);
        }
        r
    }

    pub fn irreflexive(&self) -> bool {
        self.rows
            .iter()
            .enumerate()
            .all(|(i, row)| row & bit(i) == 0)
    }

    /// No cycle: peel off events with no successor left until none remain (or some cycle
    /// blocks the peeling). Cheaper than a closure, and allocates nothing.
    pub fn acyclic(&self) -> bool {
        let mut left: Set = if self.len() == MAX_EVENTS {
            Set::MAX
        } else {
            (1 << self.len()) - 1
        };
        while left != 0 {
            let sinks = members(left)
                .filter(|&i| self.rows[i] & left == 0)
                .fold(0, |s, i| s | bit(i));
            if sinks == 0 {
                return false;
            }
            left &= !sinks;
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    pub fn subset_of(&self, other: &Rel) -> bool {
        self.rows
            .iter()
            .zip(other.rows.iter())
            .all(|(a, b)| a & !b == 0)
    }

    /// Events with at least one successor.
    pub fn domain(&self) -> Set {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| **r != 0)
            .fold(0, |s, (i, _)| s | bit(i))
    }

    /// Events with at least one predecessor.
    pub fn range(&self) -> Set {
        self.rows.iter().fold(0, |s, r| s | r)
    }

    /// Drops the identity pairs: `self \ id`.
    pub fn minus_id(&self) -> Rel {
        let mut r = self.clone();
        for (i, row) in r.rows.iter_mut().enumerate() {
            *row &= !bit(i);
        }
        r
    }
}

impl BitOr for &Rel {
    type Output = Rel;
    fn bitor(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        for (a, b) in r.rows.iter_mut().zip(o.rows.iter()) {
            *a |= *b;
        }
        r
    }
}

impl BitAnd for &Rel {
    type Output = Rel;
    fn bitand(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        for (a, b) in r.rows.iter_mut().zip(o.rows.iter()) {
            *a &= *b;
        }
        r
    }
}

impl Sub for &Rel {
    type Output = Rel;
    fn sub(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        for (a, b) in r.rows.iter_mut().zip(o.rows.iter()) {
            *a &= !*b;
        }
        r
    }
}

impl fmt::Debug for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Rel::id(3, 0b101).pairs().collect::<Vec<_>>(),
            vec![(0, 0), (2, 2)]
        );
        assert_eq!(
            Rel::cross(3, 0b1, 0b110),
            Rel::from_pairs(3, [(0, 1), (0, 2)])
        );
        assert_eq!(a.domain(), 0b011);
        assert_eq!(a.range(), 0b110);
    }

    #[test]
    fn wide_relations() {
        let n = 100;
        let chain = Rel::from_pairs(n, (0..n - 1).map(|i| (i, i + 1)));
        assert!(chain.plus().has(0, n - 1));
        assert!(chain.acyclic());
    }
}
