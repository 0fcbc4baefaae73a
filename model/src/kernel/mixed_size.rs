//! Mixed-size accesses: a buffer of 32-bit halves read and written as 64-bit words, as CUDA code
//! does through `reinterpret_cast<unsigned long long*>` of an `unsigned int` array. Word `w` is
//! halves `2w` (low) and `2w + 1` (high), little-endian as on NVIDIA GPUs. A 64-bit access
//! overlaps both halves, so a race between a narrow and a wide access of the same bytes is
//! reported like any other (semantics and the PTX sentence in `runtime/mixed_size.rs`).

use super::buffer::Buffer;
use super::thread::ThreadCtx;
use crate::runtime::report::Site as Loc;

impl ThreadCtx<'_> {
    /// The two half locations of word `word` of `halves`.
    #[track_caller]
    fn word(&self, halves: &impl Buffer<u32>, word: usize) -> [usize; 2] {
        [self.loc(halves, 2 * word), self.loc(halves, 2 * word + 1)]
    }

    /// A weak 64-bit load of word `word` of a buffer of 32-bit halves:
    /// `reinterpret_cast<unsigned long long*>(halves)[word]`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // Two lanes write the halves of one word; after the barrier, the word holds both.
    /// let mut k = Kernel::new("halves", Grid::new(1, 2));
    /// let halves = k.global::<u32>("halves", 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.store(&halves, t.tid() as usize, 1 + t.tid());
    ///     t.syncthreads();
    ///     scopecheck_model::check!(t.load_wide(&halves, 0) == 2 << 32 | 1);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    pub fn load_wide(&self, halves: &impl Buffer<u32>, word: usize) -> u64 {
        let halves = self.word(halves, word);
        self.rt.load_wide(halves, Loc::caller())
    }

    /// A weak 64-bit store of word `word` of a buffer of 32-bit halves: the low 32 bits go to
    /// half `2 * word`, the high ones to half `2 * word + 1`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // A 64-bit store and an unordered 32-bit load of its high half: a data race.
    /// let mut k = Kernel::new("wide vs narrow", Grid::new(1, 2));
    /// let halves = k.global::<u32>("halves", 2);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.tid() == 0 {
    ///         t.store_wide(&halves, 0, 7 << 32 | 3);
    ///     } else {
    ///         let _ = t.load(&halves, 1);
    ///     }
    /// });
    /// assert_eq!(report.failure.unwrap().kind, FailureKind::DataRace);
    /// ```
    #[track_caller]
    pub fn store_wide(&self, halves: &impl Buffer<u32>, word: usize, value: u64) {
        let halves = self.word(halves, word);
        self.rt.store_wide(halves, value, Loc::caller())
    }
}
