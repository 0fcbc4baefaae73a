//! Binary relations over the events of one candidate execution, as bit matrices.
//!
//! Row `i` is the set of events `j` with `i → j`. A set of events is a [`Set`] (one bit per event),
//! so every relation fits `MAX_EVENTS` events. The operators mirror cat: `|` union, `&`
//! intersection, `-` difference, [`Rel::inv`] `^-1`, [`Rel::seq`] `;`, [`Rel::plus`] `+`,
//! [`Rel::star`] `*`, [`Rel::opt`] `?`, [`Rel::id`] `[S]`, plus the checks `acyclic`,
//! `irreflexive` and `empty`.

use std::fmt;
use std::ops::{BitAnd, BitOr, Not, Sub};

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

/// Relations over up to this many events (every shared PTX test's, every fuzzed program's)
/// keep 32-bit rows inline: relations are built and dropped by the million during a search,
/// and a small fixed-size value is cheap to build, copy and return (30 rows: the whole value
/// fits 128 bytes, which moves without a call to `memcpy`).
const NARROW: usize = 30;

/// Row storage: inline 32-bit rows for small executions, [`Set`] rows on the heap beyond. All
/// relations of one search share their universe, hence their variant. Inline, the kernels run
/// over all the rows (rows past the universe stay empty): fixed-size loops that compile to a
/// few vector instructions.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Rows {
    /// Rows at `n..` stay empty.
    Narrow {
        n: u8,
        rows: [u32; NARROW],
    },
    Wide(Vec<Set>),
}

/// One row of a relation: a set of events as a bit mask of either width.
trait Row: Copy + Eq + BitOr<Output = Self> + BitAnd<Output = Self> + Not<Output = Self> {
    const ZERO: Self;
    fn bit(i: usize) -> Self;
    /// The members below the row's width (the caller's universe fits it).
    fn from_set(s: Set) -> Self;
    fn to_set(self) -> Set;
    /// The lowest member and the row without it.
    fn pop_lowest(&mut self) -> usize;
}

impl Row for u32 {
    const ZERO: u32 = 0;
    fn bit(i: usize) -> u32 {
        1 << i
    }
    fn from_set(s: Set) -> u32 {
        s as u32
    }
    fn to_set(self) -> Set {
        Set::from(self)
    }
    fn pop_lowest(&mut self) -> usize {
        let i = self.trailing_zeros() as usize;
        *self &= *self - 1;
        i
    }
}

impl Row for Set {
    const ZERO: Set = 0;
    fn bit(i: usize) -> Set {
        1 << i
    }
    fn from_set(s: Set) -> Set {
        s
    }
    fn to_set(self) -> Set {
        self
    }
    fn pop_lowest(&mut self) -> usize {
        let i = self.trailing_zeros() as usize;
        *self &= *self - 1;
        i
    }
}

/// The members of one row.
fn row_members<R: Row>(mut s: R) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || (s != R::ZERO).then(|| s.pop_lowest()))
}

/// The row kernels, written once for either width.
mod kernel {
    use super::{row_members, Row};

    pub fn seq<R: Row>(a: &[R], b: &[R], out: &mut [R]) {
        for (o, &row) in out.iter_mut().zip(a) {
            let mut acc = R::ZERO;
            for k in row_members(row) {
                acc = acc | b[k];
            }
            *o = acc;
        }
    }

    pub fn inv<R: Row>(a: &[R], out: &mut [R]) {
        for (i, &row) in a.iter().enumerate() {
            for j in row_members(row) {
                out[j] = out[j] | R::bit(i);
            }
        }
    }

    /// Warshall over bit rows, in place.
    pub fn plus<R: Row>(r: &mut [R]) {
        for k in 0..r.len() {
            let rk = r[k];
            if rk == R::ZERO {
                continue;
            }
            let bk = R::bit(k);
            for row in r.iter_mut() {
                if *row & bk != R::ZERO {
                    *row = *row | rk;
                }
            }
        }
    }

    pub fn restrict<R: Row>(r: &mut [R], dom: super::Set, ran: super::Set) {
        let ran = R::from_set(ran);
        for (i, row) in r.iter_mut().enumerate() {
            *row = if dom & super::bit(i) != 0 {
                *row & ran
            } else {
                R::ZERO
            };
        }
    }

    /// Adds (`keep` true) or drops the identity pairs.
    pub fn diagonal<R: Row>(r: &mut [R], keep: bool) {
        for (i, row) in r.iter_mut().enumerate() {
            *row = if keep {
                *row | R::bit(i)
            } else {
                *row & !R::bit(i)
            };
        }
    }

    pub fn irreflexive<R: Row>(r: &[R]) -> bool {
        r.iter()
            .enumerate()
            .all(|(i, &row)| row & R::bit(i) == R::ZERO)
    }

    pub fn is_empty<R: Row>(r: &[R]) -> bool {
        r.iter().all(|&row| row == R::ZERO)
    }

    /// Row by row: `out = f(out, b)`.
    pub fn combine<R: Row>(out: &mut [R], b: &[R], f: impl Fn(R, R) -> R) {
        for (x, &y) in out.iter_mut().zip(b) {
            *x = f(*x, y);
        }
    }

    /// Peels off events with no successor left until none remain (or a cycle blocks it).
    /// Events are visited last first and peeled at once, so relations that mostly point
    /// forward (program order, initial writes first) peel in one or two passes.
    pub fn acyclic<R: Row>(r: &[R], all: super::Set) -> bool {
        let mut left = R::from_set(all);
        loop {
            let before = left;
            for i in (0..r.len()).rev() {
                if left & R::bit(i) != R::ZERO && r[i] & left == R::ZERO {
                    left = left & !R::bit(i);
                }
            }
            if left == R::ZERO {
                return true;
            }
            if left == before {
                return false;
            }
        }
    }
}

/// Applies `$body` to the rows of `$rel` (bound to `$rows`) whatever their width.
macro_rules! rows {
    ($rel:expr => $rows:ident; $body:expr) => {
        match &$rel.rows {
            Rows::Narrow { rows, .. } => {
                let $rows = &rows[..];
                $body
            }
            Rows::Wide(v) => {
                let $rows = &v[..];
                $body
            }
        }
    };
}

/// Applies `$body` to the rows of `$out` (mutable) and of each `$rel` (all of one width).
macro_rules! zip_rows {
    ($out:expr => $o:ident $(, $name:ident = $rel:expr)*; $body:expr) => {
        match &mut $out.rows {
            Rows::Narrow { rows, .. } => {
                let $o = &mut rows[..];
                $(let $name: &[u32] = match &$rel.rows {
                    Rows::Narrow { rows, .. } => &rows[..],
                    Rows::Wide(_) => unreachable!("relations over different universes"),
                };)*
                $body
            }
            Rows::Wide(v) => {
                let $o = &mut v[..];
                $(let $name: &[Set] = match &$rel.rows {
                    Rows::Wide(v) => &v[..$o.len()],
                    Rows::Narrow { .. } => unreachable!("relations over different universes"),
                };)*
                $body
            }
        }
    };
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rel {
    rows: Rows,
}

impl Rel {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Rel {
        assert!(n <= MAX_EVENTS, "at most {MAX_EVENTS} events per execution");
        let rows = if n <= NARROW {
            Rows::Narrow {
                n: n as u8,
                rows: [0; NARROW],
            }
        } else {
            Rows::Wide(vec![0; n])
        };
        Rel { rows }
    }

    pub fn len(&self) -> usize {
        match &self.rows {
            Rows::Narrow { n, .. } => *n as usize,
            Rows::Wide(v) => v.len(),
        }
    }

    pub fn is_empty_universe(&self) -> bool {
        match &self.rows {
            Rows::Narrow { n, .. } => *n == 0,
            Rows::Wide(v) => v.is_empty(),
        }
    }

    /// Every event of the universe.
    fn universe(&self) -> Set {
        if self.len() == MAX_EVENTS {
            Set::MAX
        } else {
            (1 << self.len()) - 1
        }
    }

    /// `[s]`: the identity restricted to `s`.
    pub fn id(n: usize, s: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(s & r.universe()) {
            r.set_row(i, bit(i));
        }
        r
    }

    /// `a * b`: every pair from `a` to `b`.
    pub fn cross(n: usize, a: Set, b: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(a & r.universe()) {
            r.set_row(i, b);
        }
        r
    }

    /// The relation holding exactly where `f(i, j)`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::empty(n);
        for i in 0..n {
            for j in 0..n {
                if f(i, j) {
                    r.add(i, j);
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
        assert!(j < self.len(), "event {j} outside the universe");
        match &mut self.rows {
            Rows::Narrow { n, rows } => rows[..*n as usize][i] |= 1 << j,
            Rows::Wide(v) => v[i] |= bit(j),
        }
    }

    pub fn has(&self, i: usize, j: usize) -> bool {
        self.row(i) & bit(j) != 0
    }

    /// The successors of `i`.
    pub fn row(&self, i: usize) -> Set {
        rows!(self => r; r[i].to_set())
    }

    /// Replaces the successors of `i` (members outside the universe are dropped).
    pub fn set_row(&mut self, i: usize, s: Set) {
        let s = s & self.universe();
        match &mut self.rows {
            Rows::Narrow { n, rows } => rows[..*n as usize][i] = s as u32,
            Rows::Wide(v) => v[i] = s,
        }
    }

    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.len()).flat_map(move |i| members(self.row(i)).map(move |j| (i, j)))
    }

    /// `r^-1`.
    pub fn inv(&self) -> Rel {
        let mut r = Rel::empty(self.len());
        let n = self.len();
        zip_rows!(r => o, a = self; kernel::inv(&a[..n], o));
        r
    }

    /// `self ; other`.
    pub fn seq(&self, other: &Rel) -> Rel {
        let mut r = Rel::empty(self.len());
        let n = self.len();
        zip_rows!(r => o, a = self, b = other; kernel::seq(&a[..n], b, &mut o[..n]));
        r
    }

    /// `[dom] ; self ; [ran]`.
    pub fn restrict(&self, dom: Set, ran: Set) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => o; kernel::restrict(o, dom, ran));
        r
    }

    /// `self+`: transitive closure (Warshall over bit rows).
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        let n = self.len();
        zip_rows!(r => o; kernel::plus(&mut o[..n]));
        r
    }

    /// `self*`: reflexive-transitive closure over all events.
    pub fn star(&self) -> Rel {
        self.plus().opt()
    }

    /// `self?`: reflexive closure over all events.
    pub fn opt(&self) -> Rel {
        let mut r = self.clone();
        let n = self.len();
        zip_rows!(r => o; kernel::diagonal(&mut o[..n], true));
        r
    }

    pub fn irreflexive(&self) -> bool {
        rows!(self => r; kernel::irreflexive(r))
    }

    /// No cycle: peel off events with no successor left until none remain (or some cycle
    /// blocks the peeling). Cheaper than a closure, and allocates nothing.
    pub fn acyclic(&self) -> bool {
        let all = self.universe();
        let n = self.len();
        rows!(self => r; kernel::acyclic(&r[..n], all))
    }

    pub fn is_empty(&self) -> bool {
        rows!(self => r; kernel::is_empty(r))
    }

    pub fn subset_of(&self, other: &Rel) -> bool {
        match (&self.rows, &other.rows) {
            (Rows::Narrow { rows: a, .. }, Rows::Narrow { rows: b, .. }) => {
                a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x & !y)) == 0
            }
            _ => (0..self.len()).all(|i| self.row(i) & !other.row(i) == 0),
        }
    }

    /// Events with at least one successor.
    pub fn domain(&self) -> Set {
        (0..self.len())
            .filter(|&i| self.row(i) != 0)
            .fold(0, |s, i| s | bit(i))
    }

    /// Events with at least one predecessor.
    pub fn range(&self) -> Set {
        rows!(self => r; r.iter().fold(0, |s, &row| s | row.to_set()))
    }

    /// Drops the identity pairs: `self \ id`.
    pub fn minus_id(&self) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => o; kernel::diagonal(o, false));
        r
    }
}

impl BitOr for &Rel {
    type Output = Rel;
    fn bitor(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => out, b = o; kernel::combine(out, b, |x, y| x | y));
        r
    }
}

impl BitAnd for &Rel {
    type Output = Rel;
    fn bitand(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => out, b = o; kernel::combine(out, b, |x, y| x & y));
        r
    }
}

impl Sub for &Rel {
    type Output = Rel;
    fn sub(self, o: &Rel) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => out, b = o; kernel::combine(out, b, |x, y| x & !y));
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
