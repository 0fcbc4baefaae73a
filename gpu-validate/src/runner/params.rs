//! The knobs of one run ([`Params`]) and where an instance's threads sit ([`Layout`]): plain
//! data, which `--tune` searches over and run records keep (serde).

use serde::{Deserialize, Serialize};

/// Where an instance's litmus threads sit when they share a CTA.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    /// Different warps of the block.
    Spread,
    /// Adjacent lanes, normally one warp.
    Warp,
}

/// The knobs of one run. Everything random is drawn afresh per launch from `seed`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Params {
    /// Launches (each runs `2^instances_log2` instances).
    pub launches: u64,
    pub instances_log2: u32,
    /// Instances side by side in one block.
    pub per_block_log2: u32,
    /// Words between two locations' slots (32 words = one 128-byte line).
    pub stride: u32,
    pub layout: Layout,
    /// Spins of the per-instance start barrier; 0 turns it off.
    pub barrier_spins: u32,
    /// Scratch-line accesses each testing thread makes before the test.
    pub pre_stress: u32,
    /// Extra blocks that only stress memory during the test, and their accesses per thread.
    pub stress_blocks: u32,
    pub stress_iters: u32,
    /// Scratch lines the stress traffic spreads over (log2).
    pub scratch_lines_log2: u32,
    pub seed: u64,
    /// Host watchdog: the longest one batch of launches may take.
    pub watchdog_s: f64,
    /// Index each location array through a random permutation (false: instance `i` uses slot `i`).
    #[serde(default = "yes")]
    pub permute_locations: bool,
    /// What each stress step does: 0 store+load, 1 store+store, 2 load+load, 3 load+store.
    #[serde(default)]
    pub stress_pattern: u32,
    /// Spinning readers (see [`crate::codegen::Spin`]) retry their load up to this many times
    /// until it returns the value the condition waits for; 0 loads once.
    #[serde(default)]
    pub spin_bound: u32,
    /// Dynamic shared memory reserved per block (bytes, at most 48 KiB): fewer blocks fit on one
    /// multiprocessor, so more of a launch's blocks wait for a free one (lower occupancy).
    #[serde(default)]
    pub occupancy_smem: u32,
    /// Launches between two reads of the counters (a hang keeps what the last read saw).
    pub batch: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            launches: 100,
            instances_log2: 16,
            per_block_log2: 7,
            stride: 32,
            layout: Layout::Spread,
            barrier_spins: 0,
            pre_stress: 0,
            stress_blocks: 0,
            stress_iters: 0,
            scratch_lines_log2: 10,
            seed: 0x5c09ec4ec,
            watchdog_s: 20.0,
            batch: 50,
            permute_locations: true,
            stress_pattern: 0,
            spin_bound: 0,
            occupancy_smem: 0,
        }
    }
}

fn yes() -> bool {
    true
}
