//! Vector clocks over GPU threads: the DFS tree's happens-before bookkeeping.

/// A vector clock over GPU threads (missing entries are 0).
pub(super) type Clock = Vec<u32>;

/// `into` becomes the pointwise maximum of `into` and `other`.
pub(super) fn join(into: &mut Clock, other: &Clock) {
    if into.len() < other.len() {
        into.resize(other.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

/// Thread `t`'s entry of `c`.
pub(super) fn get(c: &Clock, t: usize) -> u32 {
    c.get(t).copied().unwrap_or(0)
}
