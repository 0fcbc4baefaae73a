//! The Tile IR memory model (`tile-ir-memory-model.md`, chapter 7): inside a tile block, memory
//! operations are ordered by tokens only, not by program order (§7.5, §7.12.2). Two accesses of
//! one tile block to one element, at least one a write, not token-ordered, are a data race.

use super::{tiles, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::*;

const SPEC: &str = "tile-ir-memory-model.md";

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "tile-ir/read-own-write-without-token",
            source: SPEC,
            about: "A tile block stores a tile, then loads it back without waiting for the \
                    store's token: program order does not order them in Tile IR (§7.12.2), so \
                    the load races with the store.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || read_own_write(false),
        },
        BugCase {
            name: "tile-ir/read-own-write-token-ordered",
            source: SPEC,
            about: "The same load waits for the store's token: ordered, and it reads the stored \
                    tile.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: || read_own_write(true),
        },
        BugCase {
            name: "tile-ir/overwrite-before-read-without-token",
            source: SPEC,
            about: "A tile block loads a tile and then overwrites it, the store not waiting for \
                    the load's token: a write-after-read race inside one tile block.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Exhaustive,
            build: || overwrite_after_read(false),
        },
        BugCase {
            name: "tile-ir/publish-token-ordered",
            source: SPEC,
            about: "Block 0 stores a tile and releases a flag waiting for the store's token; \
                    block 1 acquires the flag and loads the tile waiting for the acquire's token \
                    (§7.12.3): synchronized.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Exhaustive,
            build: publish,
        },
    ]
}

fn read_own_write(ordered: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("read_own_write", Grid::tiles(1));
    let acc = k.global::<i32>("acc", 2);
    let body = tiles(move |ct| {
        let stored = ct.store_tko(&acc, 0, &[1, 2], &[]);
        let after = if ordered { vec![stored] } else { vec![] };
        let (tile, _) = ct.load_tko(&acc, 0, 2, &after);
        check!(tile == [1, 2]);
    });
    (k, body)
}

fn overwrite_after_read(ordered: bool) -> (Kernel, Body) {
    let mut k = Kernel::new("overwrite_after_read", Grid::tiles(1));
    let buf = k.global_from::<i32>("buf", &[5, 6]);
    let out = k.global::<i32>("out", 2);
    let body = tiles(move |ct| {
        let (tile, loaded) = ct.load_tko(&buf, 0, 2, &[]);
        let after = if ordered { vec![loaded] } else { vec![] };
        ct.store_tko(&buf, 0, &[0, 0], &after);
        ct.store_tko(&out, 0, &tile, &[]);
    });
    (k, body)
}

fn publish() -> (Kernel, Body) {
    let mut k = Kernel::new("publish_tokens", Grid::tiles(2));
    let data = k.global::<i32>("data", 2);
    let flag = k.global::<i32>("flag", 1);
    let body = tiles(move |ct| {
        if ct.bid() == 0 {
            let stored = ct.store_tko(&data, 0, &[3, 4], &[]);
            ct.atomic_store_tko(
                &flag,
                0,
                1,
                MemoryOrder::Release,
                MemoryScope::Device,
                &[stored],
            );
        } else {
            let (f, acquired) =
                ct.atomic_load_tko(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device, &[]);
            if f == 1 {
                let (tile, _) = ct.load_tko(&data, 0, 2, &[acquired]);
                check!(tile == [3, 4]);
            }
        }
    });
    (k, body)
}
