//! The runtime setup of a kernel: its threads and their placements, blocks, copy agents,
//! mbarriers and start order.

use super::cluster;
use super::grid::Grid;
use super::model::Kernel;

/// Build the runtime setup for a kernel.
pub(crate) fn setup_of(kernel: &Kernel, tiles: bool) -> crate::runtime::Setup {
    use crate::runtime::ThreadInfo;
    let g = kernel.grid;
    let mut threads = Vec::new();
    let mut blocks = Vec::new();
    for b in 0..g.blocks {
        let mut members = Vec::new();
        for t in 0..g.threads_per_block {
            members.push(threads.len());
            let name = if tiles {
                format!("block {b}")
            } else {
                format!("block {b} thread {t}")
            };
            threads.push(ThreadInfo {
                placement: g.placement(b),
                block: b,
                tid: t,
                name,
                agent: false,
            });
        }
        blocks.push(members);
    }
    // Each block's copy agent (TMA unit) comes after every kernel thread.
    let mut agents = Vec::new();
    if kernel.bulk_copies {
        for b in 0..g.blocks {
            agents.push(threads.len());
            threads.push(ThreadInfo {
                placement: g.placement(b),
                block: b,
                tid: u32::MAX,
                name: format!("block {b} bulk-copy agent"),
                agent: true,
            });
        }
    }
    let mbarriers = kernel
        .mbarriers
        .iter()
        .flat_map(|name| {
            (0..g.blocks).map(move |b| crate::runtime::mbarrier::MBarInfo {
                name: format!("{name}@block{b}"),
                block: b,
                launch_count: None,
            })
        })
        .chain(cluster::cluster_barriers(&g))
        .collect();
    crate::runtime::Setup {
        name: kernel.name.clone(),
        threads,
        locs: kernel.locs.clone(),
        blocks,
        max_steps: kernel.max_steps,
        stop_on_race: true,
        mbarriers,
        agents,
        resident_blocks: g.resident_blocks.map(|n| n as usize),
        starts_after: starts_after(&g),
        exchange_slots: Vec::new().into(),
    }
}

/// Symmetry ([`Grid::symmetric_blocks`]): each block but the first of its cluster (of the grid,
/// when each block is its own cluster) starts after the block before it.
fn starts_after(g: &Grid) -> Vec<Option<usize>> {
    if !g.symmetric_blocks || g.resident_blocks.is_some() {
        return Vec::new();
    }
    (0..g.blocks)
        .map(|b| match g.cluster_size {
            // The block of the rank before it, in its cluster.
            Some(_) => {
                let rank = g.cluster_rank(b);
                (rank > 0).then(|| g.cluster_block(g.cluster_of(b), rank - 1) as usize)
            }
            None => (b > 0).then(|| b as usize - 1),
        })
        .collect()
}
