//! Tile kernels (cuTile's execution model: each block is one logical thread of tile operations;
//! a tile load/store is one memory operation per element).

use scopecheck_model::check;
use scopecheck_model::kernel::*;
use scopecheck_model::scope::Scope;

fn verdict(reports: Vec<Report>) -> Verdict {
    for r in &reports {
        println!("{r}");
        assert!(r.executions > 0, "{r}");
    }
    common_verdict(&reports).unwrap()
}

/// Example 1 of the guide as tiles: block 0 stores a tile of data and raises the flag; block 1
/// loads the tile if it sees the flag.
fn tile_producer_consumer(scope: MemoryScope) -> Verdict {
    let mut k = Kernel::new("tile_producer_consumer", Grid::tiles(2));
    let data = k.global::<f32>("data", 2);
    let flag = k.global::<i32>("ready_flag", 1);
    verdict(Checker::check_all_tiles(&k, move |ct| {
        if ct.bid() == 0 {
            ct.store(&data, 0, &[1.0, 2.0]);
            ct.atomic_store(&flag, 0, 1, MemoryOrder::Release, scope);
        } else if ct.atomic_load(&flag, 0, MemoryOrder::Acquire, scope) == 1 {
            let tile = ct.load(&data, 0, 2);
            check!(tile == [1.0, 2.0]);
        }
    }))
}

#[test]
fn tile_producer_consumer_at_device_scope_passes() {
    assert_eq!(tile_producer_consumer(MemoryScope::Device), Verdict::Pass);
}

#[test]
fn tile_producer_consumer_at_block_scope_is_a_scoped_race() {
    assert_eq!(
        tile_producer_consumer(MemoryScope::Block),
        Verdict::Fail(FailureKind::ScopedRace { fix: Scope::Gpu })
    );
}

/// Example 4 of the guide, one launch (iteration 0), two blocks, tiles of two elements.
///
/// Verdict: the switch flag races. Every block reads `switch_flag` to learn which buffer is
/// current, while block 0 flips it in the same launch; a block that reads the flag after the flip
/// takes the other branch and computes from buffer B, which holds no input yet. The accesses are
/// correctly synchronized (ACQUIRE/RELEASE at DEVICE scope) and the tiles of different blocks are
/// disjoint, so this is not a *data* race: it is a race condition on the flag's value, and the
/// model shows it as a broken postcondition (the output is not 2·A + iteration).
#[test]
fn double_buffering_races_on_the_switch_flag() {
    let mut k = Kernel::new("double_buffering", Grid::tiles(2));
    let a_init = [1.0f32, 2.0, 3.0, 4.0];
    let buffer_a = k.global_from::<f32>("buffer_a", &a_init);
    let buffer_b = k.global::<f32>("buffer_b", 4);
    let switch_flag = k.global::<i32>("switch_flag", 1);
    let output = k.global::<f32>("output", 4);
    let iteration = 0.0f32;
    k.postcondition("output == buffer_a * 2 + iteration", move |m| {
        (0..4).all(|i| m.get(&output, i) == a_init[i] * 2.0 + iteration)
    });
    let v = verdict(Checker::check_all_tiles(&k, move |ct| {
        let bid = ct.bid() as usize;
        let current = ct.atomic_load(&switch_flag, 0, MemoryOrder::Acquire, MemoryScope::Device);
        let (from, to, next) = if current == 0 {
            (buffer_a, buffer_b, 1)
        } else {
            (buffer_b, buffer_a, 0)
        };
        let data = ct.load(&from, bid, 2);
        let result: Vec<f32> = data.iter().map(|x| x * 2.0 + iteration).collect();
        ct.store(&to, bid, &result);
        if bid == 0 {
            ct.atomic_store(
                &switch_flag,
                0,
                next,
                MemoryOrder::Release,
                MemoryScope::Device,
            );
        }
        let out = ct.load(&to, bid, 2);
        ct.store(&output, bid, &out);
    }));
    assert_eq!(v, Verdict::Fail(FailureKind::Assertion));
}

#[test]
fn double_buffering_with_the_flag_read_once_per_launch_passes() {
    // The fix: every block decides from the same value — here the flag is only flipped by the
    // host between launches (modelled by not flipping it inside the kernel).
    let mut k = Kernel::new("double_buffering_fixed", Grid::tiles(2));
    let a_init = [1.0f32, 2.0, 3.0, 4.0];
    let buffer_a = k.global_from::<f32>("buffer_a", &a_init);
    let buffer_b = k.global::<f32>("buffer_b", 4);
    let switch_flag = k.global::<i32>("switch_flag", 1);
    let output = k.global::<f32>("output", 4);
    k.postcondition("output == buffer_a * 2", move |m| {
        (0..4).all(|i| m.get(&output, i) == a_init[i] * 2.0)
    });
    let v = verdict(Checker::check_all_tiles(&k, move |ct| {
        let bid = ct.bid() as usize;
        let current = ct.atomic_load(&switch_flag, 0, MemoryOrder::Acquire, MemoryScope::Device);
        let (from, to) = if current == 0 {
            (buffer_a, buffer_b)
        } else {
            (buffer_b, buffer_a)
        };
        let data = ct.load(&from, bid, 2);
        let result: Vec<f32> = data.iter().map(|x| x * 2.0).collect();
        ct.store(&to, bid, &result);
        ct.store(&output, bid, &result);
    }));
    assert_eq!(v, Verdict::Pass);
}
