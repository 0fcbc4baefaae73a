//! Binary relations over the events of one candidate execution, as bit matrices.
//!
//! Row `i` is the set of events `j` with `i → j`. A set of events is a [`Set`] (one bit per event),
//! so every relation fits `MAX_EVENTS` events. The operators mirror cat: `|` union, `&`
//! intersection, `-` difference, [`Rel::inv`] `^-1`, [`Rel::seq`] `;`, [`Rel::plus`] `+`,
//! [`Rel::star`] `*`, [`Rel::opt`] `?`, [`Rel::id`] `[S]`, plus the checks `acyclic`,
//! `irreflexive` and `empty`.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub};

/// 64-bit words in a [`Set`].
const WORDS: usize = 4;

/// The most events one candidate execution may have: enough for loops unrolled several times
/// over a handful of threads (the shared tests need at most a few dozen).
pub const MAX_EVENTS: usize = WORDS * 64;

/// A set of events, one bit per event index below [`MAX_EVENTS`]. A plain value (`Copy`), as a
/// machine integer is; sets compare as the numbers their bits spell (highest index first).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Set([u64; WORDS]);

impl Set {
    /// No event.
    pub const EMPTY: Set = Set([0; WORDS]);

    /// The events `0..n`.
    pub fn below(n: usize) -> Set {
        assert!(n <= MAX_EVENTS, "at most {MAX_EVENTS} events per execution");
        let mut s = Set::EMPTY;
        for (k, word) in s.0.iter_mut().enumerate() {
            let lo = k * 64;
            *word = match n.saturating_sub(lo) {
                0 => 0,
                m if m >= 64 => u64::MAX,
                m => (1 << m) - 1,
            };
        }
        s
    }

    /// Is event `i` a member?
    pub fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// No member at all.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// How many members.
    pub fn count_ones(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The lowest member, if any.
    pub fn lowest(&self) -> Option<usize> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, &w)| w != 0)
            .map(|(k, w)| k * 64 + w.trailing_zeros() as usize)
    }

    /// The members below 32, as the narrow rows keep them.
    fn low_u32(&self) -> u32 {
        self.0[0] as u32
    }
}

impl Ord for Set {
    fn cmp(&self, other: &Set) -> Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for Set {
    fn partial_cmp(&self, other: &Set) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(members(*self)).finish()
    }
}

macro_rules! set_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $atr for Set {
            fn $af(&mut self, o: Set) {
                for (a, b) in self.0.iter_mut().zip(o.0) {
                    *a $op b;
                }
            }
        }
        impl $tr for Set {
            type Output = Set;
            fn $f(mut self, o: Set) -> Set {
                self.$af(o);
                self
            }
        }
    };
}
set_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &=);
set_op!(BitOr, bitor, BitOrAssign, bitor_assign, |=);

impl Not for Set {
    type Output = Set;
    fn not(mut self) -> Set {
        for w in &mut self.0 {
            *w = !*w;
        }
        self
    }
}

/// `a - b`: the members of `a` not in `b`.
impl Sub for Set {
    type Output = Set;
    fn sub(self, o: Set) -> Set {
        self & !o
    }
}

/// Iterates over the members of a set, lowest index first.
pub fn members(s: Set) -> impl Iterator<Item = usize> {
    s.0.into_iter().enumerate().flat_map(|(k, mut w)| {
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let i = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(k * 64 + i)
        })
    })
}

/// The set of event `i` alone.
pub fn bit(i: usize) -> Set {
    let mut s = Set::EMPTY;
    s.0[i / 64] = 1 << (i % 64);
    s
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
        s.low_u32()
    }
    fn to_set(self) -> Set {
        let mut s = Set::EMPTY;
        s.0[0] = u64::from(self);
        s
    }
    fn pop_lowest(&mut self) -> usize {
        let i = self.trailing_zeros() as usize;
        *self &= *self - 1;
        i
    }
}

impl Row for Set {
    const ZERO: Set = Set::EMPTY;
    fn bit(i: usize) -> Set {
        bit(i)
    }
    fn from_set(s: Set) -> Set {
        s
    }
    fn to_set(self) -> Set {
        self
    }
    fn pop_lowest(&mut self) -> usize {
        let i = self.lowest().expect("a member");
        self.0[i / 64] &= !(1 << (i % 64));
        i
    }
}

/// The members of one row.
fn row_members<R: Row>(mut s: R) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || (s != R::ZERO).then(|| s.pop_lowest()))
}

/// The row kernels, written once for either width.
mod kernel {
    // Paths name `rel` itself (not `super`, which from this inline module reads as the parent
    // module to tests/layering.rs).
    use crate::axiomatic::rel::{row_members, Row, Set};

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

    pub fn restrict<R: Row>(r: &mut [R], dom: Set, ran: Set) {
        let ran = R::from_set(ran);
        for (i, row) in r.iter_mut().enumerate() {
            *row = if dom.contains(i) { *row & ran } else { R::ZERO };
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

    /// Branch-free: the rows are few and short, so or-ing them all beats stopping early.
    pub fn is_empty<R: Row>(r: &[R]) -> bool {
        r.iter().fold(R::ZERO, |acc, &row| acc | row) == R::ZERO
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
    pub fn acyclic<R: Row>(r: &[R], all: Set) -> bool {
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

/// A binary relation over the `n` events of one candidate execution (at most [`MAX_EVENTS`]),
/// as one bit row of successors per event.
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
            Rows::Wide(vec![Set::EMPTY; n])
        };
        Rel { rows }
    }

    /// The number of events of the universe the relation is over (not its number of pairs).
    pub fn len(&self) -> usize {
        match &self.rows {
            Rows::Narrow { n, .. } => *n as usize,
            Rows::Wide(v) => v.len(),
        }
    }

    /// Whether the universe has no events ([`Rel::len`] is 0).
    pub fn is_empty_universe(&self) -> bool {
        match &self.rows {
            Rows::Narrow { n, .. } => *n == 0,
            Rows::Wide(v) => v.is_empty(),
        }
    }

    /// Every event of the universe.
    fn universe(&self) -> Set {
        Set::below(self.len())
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

    /// The relation over `n` events holding exactly `pairs` (each naming events below `n`).
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Rel {
        let mut r = Rel::empty(n);
        for (i, j) in pairs {
            r.add(i, j);
        }
        r
    }

    /// Adds the pair `(i, j)`.
    pub fn add(&mut self, i: usize, j: usize) {
        assert!(j < self.len(), "event {j} outside the universe");
        match &mut self.rows {
            Rows::Narrow { n, rows } => rows[..*n as usize][i] |= 1 << j,
            Rows::Wide(v) => v[i] |= bit(j),
        }
    }

    /// Whether `(i, j)` is in the relation.
    pub fn has(&self, i: usize, j: usize) -> bool {
        self.row(i).contains(j)
    }

    /// The successors of `i`.
    pub fn row(&self, i: usize) -> Set {
        rows!(self => r; r[i].to_set())
    }

    /// Replaces the successors of `i` (members outside the universe are dropped).
    pub fn set_row(&mut self, i: usize, s: Set) {
        let s = s & self.universe();
        match &mut self.rows {
            Rows::Narrow { n, rows } => rows[..*n as usize][i] = s.low_u32(),
            Rows::Wide(v) => v[i] = s,
        }
    }

    /// Every pair, in order of `i` then `j`.
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

    /// cat's `irreflexive r`: no event is related to itself.
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

    /// cat's `empty r`: the relation has no pair.
    pub fn is_empty(&self) -> bool {
        rows!(self => r; kernel::is_empty(r))
    }

    /// Whether every pair of `self` is in `other` (in cat: `empty r \ s`).
    pub fn subset_of(&self, other: &Rel) -> bool {
        match (&self.rows, &other.rows) {
            (Rows::Narrow { rows: a, .. }, Rows::Narrow { rows: b, .. }) => {
                a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x & !y)) == 0
            }
            _ => (0..self.len()).all(|i| (self.row(i) & !other.row(i)).is_empty()),
        }
    }

    /// Events with at least one successor.
    pub fn domain(&self) -> Set {
        (0..self.len())
            .filter(|&i| !self.row(i).is_empty())
            .fold(Set::EMPTY, |s, i| s | bit(i))
    }

    /// Events with at least one predecessor.
    pub fn range(&self) -> Set {
        rows!(self => r; r.iter().fold(Set::EMPTY, |s, &row| s | row.to_set()))
    }

    /// Drops the identity pairs: `self \ id`.
    pub fn minus_id(&self) -> Rel {
        let mut r = self.clone();
        zip_rows!(r => o; kernel::diagonal(o, false));
        r
    }
}

impl Rel {
    /// `self |= other`.
    pub fn union_with(&mut self, other: &Rel) {
        zip_rows!(self => out, b = other; kernel::combine(out, b, |x, y| x | y));
    }

    /// `self |= other & mask`.
    pub fn union_with_masked(&mut self, other: &Rel, mask: &Rel) {
        zip_rows!(self => out, b = other, m = mask; {
            for ((x, &y), &z) in out.iter_mut().zip(b).zip(m) {
                *x |= y & z;
            }
        });
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
