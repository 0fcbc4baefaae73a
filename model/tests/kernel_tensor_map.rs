//! Tensor maps and `cp.async.bulk.tensor` in the kernel API: the box's elements and only them
//! (zero fill and skipped stores outside the tensor), the mbarrier and bulk-group completions,
//! the proxy fence a store of a tile needs, and `cuTensorMapEncodeTiled`'s rules.

use scopecheck_model::check;
use scopecheck_model::kernel::*;

fn dfs(k: &Kernel, body: impl Fn(&ThreadCtx) + Send + Sync + 'static) -> Report {
    let report = Checker::dfs().check(k, body);
    println!("{report}");
    report
}

fn fails_with(report: &Report, kind: FailureKind) {
    assert_eq!(report.verdict(), Verdict::Fail(kind), "{report}");
}

/// 1-D: the box at coordinate 4 of an 8-element tensor, in bounds, lands whole.
#[test]
fn load_1d_in_bounds() {
    let mut k = Kernel::new("tma 1d", Grid::new(1, 1));
    let src = k.global_from::<u32>("src", &[10, 11, 12, 13, 14, 15, 16, 17]);
    let tile = k.shared::<u32>("tile", 4);
    let full = k.mbarriers("full", 1);
    let tmap = TensorMap::tiled(&src, &[8], &[], &[4]);
    let report = dfs(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16);
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[4], &bar);
        bar.wait_parity(t, 0);
        for i in 0..4 {
            check!(t.load(&tile, i) == 14 + i as u32);
        }
    });
    assert!(report.passed() && report.complete, "{report}");
}

/// 2-D, negative coordinates: the rows and columns before the tensor's start are zeros.
#[test]
fn load_2d_negative_coordinates_zero_fill() {
    let mut k = Kernel::new("tma 2d oob", Grid::new(1, 1));
    let src = k.global_from::<u32>("src", &(1..=8).collect::<Vec<u32>>());
    let tile = k.shared_from::<u32>("tile", &[9; 16]);
    let full = k.mbarriers("full", 1);
    // 4 × 2 tensor (stride 4), a 4 × 4 box at (-2, -1): box rows -1, 0, 1, 2.
    let tmap = TensorMap::tiled(&src, &[4, 2], &[4], &[4, 4]);
    let report = dfs(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, tmap.box_bytes());
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[-2, -1], &bar);
        bar.wait_parity(t, 0);
        let want = [0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6, 0, 0, 0, 0];
        for (i, w) in want.into_iter().enumerate() {
            check!(t.load(&tile, i) == w);
        }
    });
    assert!(report.passed() && report.complete, "{report}");
}

/// The box's bytes, out-of-bound elements included, complete the transaction: announcing only
/// the in-bound bytes leaves the tx-count at -16 after the copy: the phase never completes and
/// the wait hangs, never a silent pass.
#[test]
fn load_complete_tx_counts_the_whole_box() {
    assert_eq!(
        TensorMapLayout::new(4, &[6, 2], &[8], &[4, 2])
            .unwrap()
            .box_bytes(),
        32
    );
    let mut k = Kernel::new("tma tx", Grid::new(1, 1));
    let src = k.global::<u32>("src", 16);
    let tile = k.shared::<u32>("tile", 8);
    let full = k.mbarriers("full", 1);
    let tmap = TensorMap::tiled(&src, &[6, 2], &[8], &[4, 2]);
    let report = dfs(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16); // 2 × 2 in-bound elements: wrong, the box is 32 bytes
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[4, 0], &bar);
        bar.wait_parity(t, 0);
    });
    fails_with(&report, FailureKind::Hang);
}

/// Reading the tile before the mbarrier wait races with the copy's writes.
#[test]
fn load_read_before_wait_races() {
    let mut k = Kernel::new("tma early read", Grid::new(1, 1));
    let src = k.global_from::<u32>("src", &[1, 2, 3, 4]);
    let tile = k.shared::<u32>("tile", 4);
    let full = k.mbarriers("full", 1);
    let tmap = TensorMap::tiled(&src, &[4], &[], &[4]);
    let report = dfs(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16);
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[0], &bar);
        let early = t.load(&tile, 3);
        bar.wait_parity(t, 0);
        let _ = early;
    });
    fails_with(&report, FailureKind::DataRace);
}

/// A load reads only in-bound elements: another thread writing the row padding past the
/// tensor's last column while the box covers it does not race.
#[test]
fn load_reads_nothing_outside_the_tensor() {
    let mut k = Kernel::new("tma padding", Grid::new(1, 2));
    let src = k.global::<u32>("src", 8);
    let tile = k.shared::<u32>("tile", 8);
    let full = k.mbarriers("full", 1);
    // Rows of 2 in a stride of 4: columns 2 and 3 are padding, outside the tensor.
    let tmap = TensorMap::tiled(&src, &[2, 2], &[4], &[4, 2]);
    let report = dfs(&k, move |t| {
        if t.tid() == 1 {
            t.store(&src, 2, 7);
            t.store(&src, 7, 7);
            return;
        }
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, tmap.box_bytes());
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[0, 0], &bar);
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 2) == 0 && t.load(&tile, 7) == 0);
    });
    assert!(report.passed() && report.complete, "{report}");
}

/// The same box over in-bound elements does race with that writer.
#[test]
fn load_reads_every_in_bound_element() {
    let mut k = Kernel::new("tma in-bound race", Grid::new(1, 2));
    let src = k.global::<u32>("src", 8);
    let tile = k.shared::<u32>("tile", 8);
    let full = k.mbarriers("full", 1);
    let tmap = TensorMap::tiled(&src, &[4, 2], &[4], &[4, 2]);
    let report = dfs(&k, move |t| {
        if t.tid() == 1 {
            t.store(&src, 6, 7);
            return;
        }
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, tmap.box_bytes());
        t.cp_async_bulk_tensor_global_to_shared(&tile, 0, &tmap, &[0, 0], &bar);
        bar.wait_parity(t, 0);
    });
    fails_with(&report, FailureKind::DataRace);
}

/// Store of a tile: written in the generic proxy, fenced, stored by TMA, waited for; the
/// elements outside the tensor are not written (the padding keeps its value).
fn store_kernel(fence: bool) -> Report {
    let mut k = Kernel::new("tma store", Grid::new(1, 1));
    let dst = k.global_from::<u32>("dst", &[5; 8]);
    let tile = k.shared::<u32>("tile", 8);
    k.bulk_copies();
    // 3 × 2 tensor in rows of 4: column 3 is padding.
    let tmap = TensorMap::tiled(&dst, &[3, 2], &[4], &[4, 2]);
    dfs(&k, move |t| {
        for i in 0..8 {
            t.store(&tile, i, i as u32 + 1);
        }
        if fence {
            t.fence_proxy_async();
        }
        t.cp_async_bulk_tensor_shared_to_global(&tmap, &[0, 0], &tile, 0);
        t.bulk_wait();
        let got: Vec<u32> = (0..8).map(|i| t.load(&dst, i)).collect();
        check!(got == [1, 2, 3, 5, 5, 6, 7, 5]);
    })
}

#[test]
fn store_with_proxy_fence_passes_and_skips_out_of_bounds() {
    let report = store_kernel(true);
    assert!(report.passed() && report.complete, "{report}");
}

#[test]
fn store_without_proxy_fence_races() {
    fails_with(&store_kernel(false), FailureKind::DataRace);
}

/// Multicast: one load lands in both blocks of the cluster, each completing its own barrier.
#[test]
fn load_multicast_reaches_every_masked_block() {
    let mut k = Kernel::new("tma multicast", Grid::new(2, 1).with_clusters(2));
    let src = k.global_from::<u32>("src", &[1, 2, 3, 4]);
    let tile = k.shared::<u32>("tile", 4);
    let full = k.mbarriers("full", 1);
    let tmap = TensorMap::tiled(&src, &[4], &[], &[4]);
    let report = dfs(&k, move |t| {
        let bar = full.at(0);
        bar.init(t, 1);
        bar.arrive_expect_tx(t, 16);
        t.cluster_sync();
        if t.cluster_ctarank() == 0 {
            t.cp_async_bulk_tensor_global_to_shared_multicast(&tile, 0, &tmap, &[0], &bar, 0b11);
        }
        bar.wait_parity(t, 0);
        check!(t.load(&tile, 3) == 4);
    });
    assert!(report.passed() && report.complete, "{report}");
}

/// Every rule of `cuTensorMapEncodeTiled` the layout checks, each broken once.
#[test]
fn layout_rules() {
    let ok = TensorMapLayout::new(4, &[8, 2], &[8], &[4, 2]);
    assert!(ok.is_ok());
    let bad = [
        TensorMapLayout::new(4, &[], &[], &[]),
        TensorMapLayout::new(4, &[4, 4, 4], &[4, 16], &[4, 1, 1]),
        TensorMapLayout::new(4, &[8, 2], &[], &[4, 2]),
        TensorMapLayout::new(4, &[8, 2], &[8], &[4]),
        TensorMapLayout::new(4, &[0, 2], &[8], &[4, 2]),
        TensorMapLayout::new(4, &[8, 2], &[8], &[4, 0]),
        TensorMapLayout::new(4, &[8, 2], &[8], &[4, 257]),
        TensorMapLayout::new(4, &[8, 2], &[8], &[2, 2]),
        TensorMapLayout::new(4, &[8, 2], &[6], &[4, 2]),
        TensorMapLayout::new(4, &[8, 2], &[4], &[4, 2]),
    ];
    for (i, b) in bad.iter().enumerate() {
        assert!(b.is_err(), "case {i} accepted: {b:?}");
    }
    let l = ok.unwrap();
    assert_eq!(l.span(), 16);
    assert_eq!(
        l.box_elements(&[6, 1]).unwrap(),
        [Some(14), Some(15), None, None, None, None, None, None]
    );
    assert!(l.box_elements(&[0]).is_err());
    let one = TensorMapLayout::new(8, &[3], &[], &[4]).unwrap();
    assert_eq!(
        one.box_elements(&[-1]).unwrap(),
        [None, Some(0), Some(1), Some(2)]
    );
}
