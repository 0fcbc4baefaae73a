//! Tile IR token order in the tile API.
//!
//! The plain [`TileCtx`] loads and stores are ordered by program order, as if the compiler had
//! threaded tokens through them (what cuTile does). The `*_tko` operations are Tile IR's
//! *token-ordered* operations: one is ordered after another of its tile block only if it waits
//! for that operation's token (directly or through a chain). Two of them touching one element,
//! at least one writing, unordered by tokens, are a data race.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("own write", Grid::tiles(1));
//! let x = k.global::<i32>("x", 2);
//! let unordered = Checker::dfs().check_tiles(&k, move |ct| {
//!     ct.store_tko(&x, 0, &[1, 2], &[]);
//!     ct.load_tko(&x, 0, 2, &[]); // no token from the store: races with it
//! });
//! assert_eq!(unordered.verdict(), Verdict::Fail(FailureKind::DataRace));
//! let ordered = Checker::dfs().check_tiles(&k, move |ct| {
//!     let stored = ct.store_tko(&x, 0, &[1, 2], &[]);
//!     let (tile, _) = ct.load_tko(&x, 0, 2, &[stored]);
//!     scopecheck_model::check!(tile == [1, 2]);
//! });
//! assert!(ordered.passed(), "{ordered}");
//! ```

use super::buffer::Buffer;
use super::elem::Elem;
use super::order::{MemoryOrder, MemoryScope};
use super::tile::TileCtx;

/// A Tile IR token: names one token-ordered operation (or a join of several).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token(u32);

impl TileCtx<'_> {
    fn begin(&self, after: &[Token]) -> u32 {
        let ids: Vec<u32> = after.iter().map(|t| t.0).collect();
        self.t.rt.token_begin(&ids, true)
    }

    /// `make_token`: a token ordered after nothing.
    pub fn make_token(&self) -> Token {
        Token(self.t.rt.token_begin(&[], false))
    }

    /// `join_tokens`: a token ordered after every operation of `tokens`.
    pub fn join_tokens(&self, tokens: &[Token]) -> Token {
        let ids: Vec<u32> = tokens.iter().map(|t| t.0).collect();
        Token(self.t.rt.token_begin(&ids, false))
    }

    /// Token-ordered tile load (`load_view_tko`): waits for `after`, returns the tile and its token.
    #[track_caller]
    pub fn load_tko<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        shape: usize,
        after: &[Token],
    ) -> (Vec<T>, Token) {
        let id = self.begin(after);
        let mut tile = Vec::with_capacity(shape);
        for i in index * shape..(index + 1) * shape {
            tile.push(self.t.load(buf, i));
        }
        self.t.rt.token_end();
        (tile, Token(id))
    }

    /// Token-ordered tile store (`store_view_tko`): waits for `after`, returns its token.
    #[track_caller]
    pub fn store_tko<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        tile: &[T],
        after: &[Token],
    ) -> Token {
        let id = self.begin(after);
        let shape = tile.len();
        for (k, v) in tile.iter().enumerate() {
            self.t.store(buf, index * shape + k, *v);
        }
        self.t.rt.token_end();
        Token(id)
    }

    /// Token-ordered scalar atomic load (acquire/relaxed at `scope`).
    #[track_caller]
    pub fn atomic_load_tko<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        order: MemoryOrder,
        scope: MemoryScope,
        after: &[Token],
    ) -> (T, Token) {
        let id = self.begin(after);
        let v = self.t.atomic_load(buf, index, order, scope);
        self.t.rt.token_end();
        (v, Token(id))
    }

    /// Token-ordered scalar atomic store (release/relaxed at `scope`).
    #[track_caller]
    pub fn atomic_store_tko<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
        after: &[Token],
    ) -> Token {
        let id = self.begin(after);
        self.t.atomic_store(buf, index, value, order, scope);
        self.t.rt.token_end();
        Token(id)
    }
}
