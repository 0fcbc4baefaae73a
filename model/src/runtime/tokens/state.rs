//! Tile IR token order's own state: each thread's token-ordered operations and the one in
//! progress. Plain data: the operations live in the parent module.

/// One token-ordered operation of a thread: which earlier operations it is ordered after
/// (transitively, sorted) and the accesses it made.
#[derive(Clone, Debug, Default)]
pub(super) struct OpRec {
    pub(super) after: Vec<u32>,
    pub(super) accesses: Vec<(usize, bool, usize)>,
}

/// The token-ordered operations of one thread, by id.
#[derive(Clone, Debug, Default)]
pub struct TokenLog {
    pub(super) ops: Vec<OpRec>,
}

/// The token-ordered operation a thread is performing.
#[derive(Copy, Clone, Debug)]
pub struct TokenOp {
    /// The operation's id within its thread's [`TokenLog`]: the token it produces.
    pub id: u32,
}
