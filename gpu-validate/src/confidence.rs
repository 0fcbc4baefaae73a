//! MC Mutants' reproducibility rule (Levine et al., ASPLOS 2023): a behaviour counts as
//! reproducible at confidence `p` with budget `b` when at least ⌈−ln(1−p)⌉ occurrences are seen
//! in `b` instances.
//!
//! Why: if the behaviour shows at rate `r` per instance, its occurrences in `b` instances follow
//! a Poisson law of mean `rb`, so another run of the same budget shows it at least once with
//! probability `1 − e^{−rb}`; taking the observed count as the estimate of `rb`, that probability
//! reaches `p` exactly when the count reaches `−ln(1−p)`.

/// Occurrences needed for confidence `p` (0 < p < 1): ⌈−ln(1−p)⌉, at least 1.
pub fn needed(p: f64) -> u64 {
    let p = p.clamp(0.0, 1.0 - 1e-12);
    ((-(1.0 - p).ln()).ceil() as u64).max(1)
}

/// Is a behaviour seen `count` times reproducible at confidence `p` with the budget it ran on?
pub fn reproducible(count: u64, p: f64) -> bool {
    count >= needed(p)
}
