//! The interface of a sampling strategy that decides over our decisions (like shuttle's
//! `Scheduler` trait, one file per strategy): PCT (`pct.rs`) and the uniform random walk
//! (`urw.rs`). The exploration driver (`explore.rs`) asks it which thread runs at every
//! decision and which store a load reads. It names no other module, so that the strategies
//! and the driver import it without closing an import circle.

/// A decision source for a sampling engine.
pub(crate) trait Walk: Send {
    /// Start an execution; `false` once the strategy has run all it was asked to.
    fn new_execution(&mut self) -> bool;
    /// Which of `threads` (the GPU threads waiting at a scheduling point) runs next: an index.
    fn decide(&mut self, threads: &[usize]) -> usize;
    /// A data choice among `n >= 2` options.
    fn choose(&mut self, n: usize) -> usize;
}
