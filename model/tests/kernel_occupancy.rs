//! Occupancy-bound execution (`Grid::resident_blocks`): an inter-block barrier (every block
//! bumps a counter, then spins until all have) hangs when the GPU keeps fewer blocks resident
//! than the grid has, since the spinning blocks never finish to make room for the rest; with
//! every block resident it passes.

use scopecheck_model::kernel::*;

fn grid_barrier(grid: Grid) -> Vec<Report> {
    let blocks = grid.blocks as i32;
    let mut k = Kernel::new("grid_barrier", grid);
    let arrived = k.global::<i32>("arrived", 1);
    let reports = Checker::check_all(&k, move |t| {
        t.atomic_add(&arrived, 0, 1, MemoryOrder::AcqRel, MemoryScope::Device);
        while t.atomic_load(&arrived, 0, MemoryOrder::Acquire, MemoryScope::Device) != blocks {
            t.spin_loop();
        }
    });
    for r in &reports {
        println!("{r}");
        assert!(r.executions > 0, "{r}");
    }
    reports
}

#[test]
fn an_inter_block_barrier_beyond_residency_hangs() {
    for (grid, waiting) in [
        (Grid::new(2, 1).resident_blocks(1), "block 1 thread 0"),
        (Grid::new(3, 1).resident_blocks(2), "block 2 thread 0"),
        (Grid::new(8, 1).resident_blocks(4), "block 7 thread 0"),
    ] {
        let reports = grid_barrier(grid);
        assert_eq!(
            common_verdict(&reports).unwrap(),
            Verdict::Fail(FailureKind::Hang)
        );
        let text = reports[0].to_string();
        assert!(
            text.contains(&format!("{waiting} has not started")),
            "{text}"
        );
        // The lasso: the resident blocks spin again, the others stay out.
        assert!(
            text.contains(&format!("{waiting} is still not resident")),
            "{text}"
        );
        assert!(
            text.contains("block 0 thread 0: spin_loop, the same iteration again"),
            "{text}"
        );
    }
}

#[test]
fn an_inter_block_barrier_with_every_block_resident_passes() {
    for grid in [Grid::new(2, 1), Grid::new(2, 1).resident_blocks(2)] {
        assert_eq!(common_verdict(&grid_barrier(grid)).unwrap(), Verdict::Pass);
    }
}

#[test]
fn blocks_past_residency_start_as_resident_ones_finish() {
    // No block waits for another: each finishes and frees its place for the next.
    let mut k = Kernel::new("counter", Grid::new(4, 2).resident_blocks(1));
    let counter = k.global::<i32>("counter", 1);
    k.postcondition("counter == 8", move |m| m.get(&counter, 0) == 8);
    let reports = Checker::check_all(&k, move |t| {
        t.atomic_add(&counter, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    });
    assert_eq!(common_verdict(&reports).unwrap(), Verdict::Pass);
}
