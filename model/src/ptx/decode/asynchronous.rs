//! Hopper's and Ampere's asynchronous instructions as typed operations: `mbarrier.*`,
//! `cp.async*`, `cp.async.bulk*`, and the cluster addressing that goes with them (`mapa`,
//! `getctarank`). Each production of the PTX ISA's syntax is quoted above the code that reads
//! it (the tensor-map forms are decoded beside it, in `decode/tensor.rs`, and `st.async` /
//! `red.async` in `decode/st_async.rs`); a form the runtime has no object for
//! (`mbarrier.complete_tx` by a thread, `cp.async`'s zero-filling `src-size`) is refused with the
//! reason.

use super::operand::{Addr, Dst, Names, Src};
use super::space::Space;
use crate::ptx::ast::Operand;
use crate::scope::Scope;

/// An asynchronous operation (PTX ISA, *Parallel Synchronization and Communication
/// Instructions: mbarrier*, *Data Movement: cp.async, cp.async.bulk*, *mapa*, *getctarank*).
#[derive(Clone, Debug, PartialEq)]
pub enum AsyncOp {
    /// `mbarrier.init{.shared{::cta}}.b64 [addr], count`.
    MbarInit {
        /// The barrier.
        addr: Addr,
        /// `Generic` or `Shared`.
        space: Space,
        /// The expected arrival count.
        count: Src,
    },
    /// `mbarrier.arrive{.noComplete}{.expect_tx}{.sem}{.scope}{.space}.b64 state, [addr]{,
    /// count|txCount}`.
    MbarArrive {
        /// `state` (`_` for a remote arrive).
        state: Dst,
        /// The barrier.
        addr: Addr,
        /// `Generic`, `Shared` or `SharedCluster`.
        space: Space,
        /// `.release` (the default) rather than `.relaxed`.
        release: bool,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
        /// The arrival count (1 when absent).
        count: Option<Src>,
        /// `.expect_tx`'s `txCount`.
        tx: Option<Src>,
        /// `.noComplete`.
        no_complete: bool,
    },
    /// `mbarrier.expect_tx{.relaxed}{.scope}{.space}.b64 [addr], txCount`.
    MbarExpectTx {
        /// The barrier.
        addr: Addr,
        /// `Generic`, `Shared` or `SharedCluster`.
        space: Space,
        /// `txCount`.
        tx: Src,
    },
    /// `mbarrier.{test,try}_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64 waitComplete,
    /// [addr], state|phaseParity{, suspendTimeHint}`.
    MbarWait {
        /// `waitComplete`.
        p: Dst,
        /// The barrier.
        addr: Addr,
        /// `Generic` or `Shared`.
        space: Space,
        /// `.parity`: `phase` is a parity, else the `state` an arrive returned.
        parity: bool,
        /// `state` or `phaseParity`.
        phase: Src,
        /// `.acquire` (the default) rather than `.relaxed`.
        acquire: bool,
        /// `.cta` (the default) or `.cluster`.
        scope: Scope,
    },
    /// `mbarrier.inval{.shared{::cta}}.b64 [addr]`.
    MbarInval {
        /// The barrier.
        addr: Addr,
        /// `Generic` or `Shared`.
        space: Space,
    },
    /// `mbarrier.pending_count.b64 count, state`.
    MbarPendingCount {
        /// `count`.
        d: Dst,
        /// `state`.
        state: Src,
    },
    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size`.
    CpAsync {
        /// Destination (`.shared::cta`).
        dst: Addr,
        /// Source (`.global`).
        src: Addr,
        /// `cp-size`: 4, 8 or 16 bytes.
        size: u64,
    },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group N`; `cp.async.wait_all` is `commit_group; wait_group 0`.
    CpAsyncWait {
        /// `N`.
        n: usize,
        /// `wait_all`.
        all: bool,
    },
    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
    CpAsyncMbarArrive {
        /// The barrier.
        addr: Addr,
        /// `Generic` or `Shared`.
        space: Space,
        /// `.noinc`.
        noinc: bool,
    },
    /// `cp.async.bulk.shared::{cta,cluster}.{global,shared::cta}.mbarrier::complete_tx::bytes
    /// {.multicast::cluster} [dstMem], [srcMem], size, [mbar]{, ctaMask}`.
    BulkToShared {
        /// `dstMem` (a `.shared::cluster` address).
        dst: Addr,
        /// `srcMem`.
        src: Addr,
        /// `Global` or `Shared`.
        src_space: Space,
        /// `size` in bytes.
        size: Src,
        /// `mbar` (a `.shared::cluster` address in the destination CTA).
        bar: Addr,
        /// `.multicast::cluster`'s `ctaMask`.
        multicast: Option<Src>,
    },
    /// `cp.async.bulk.global.shared::cta.bulk_group [dstMem], [srcMem], size`.
    BulkToGlobal {
        /// `dstMem` (`.global`).
        dst: Addr,
        /// `srcMem` (`.shared::cta`).
        src: Addr,
        /// `size` in bytes.
        size: Src,
    },
    /// `cp.async.bulk.tensor.{1d,2d}.shared::{cluster,cta}.global{.tile}
    /// .mbarrier::complete_tx::bytes{.multicast::cluster} [dstMem], [tensorMap, tensorCoords],
    /// [mbar]{, ctaMask}`.
    TensorToShared {
        /// `dstMem` (a `.shared::cluster` address).
        dst: Addr,
        /// `tensorMap`: the address of the tensor map (a kernel parameter).
        tensor_map: Addr,
        /// `tensorCoords` (`.s32`), dimension 0 first.
        coords: Vec<Src>,
        /// `mbar` (a `.shared::cluster` address in the destination CTA).
        bar: Addr,
        /// `.multicast::cluster`'s `ctaMask`.
        multicast: Option<Src>,
    },
    /// `cp.async.bulk.tensor.{1d,2d}.global.shared::cta{.tile}.bulk_group [tensorMap,
    /// tensorCoords], [srcMem]`.
    TensorToGlobal {
        /// `tensorMap`.
        tensor_map: Addr,
        /// `tensorCoords` (`.s32`), dimension 0 first.
        coords: Vec<Src>,
        /// `srcMem` (`.shared::cta`).
        src: Addr,
    },
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} N`.
    BulkWait {
        /// `N`.
        n: usize,
        /// `.read`.
        read: bool,
    },
    /// `fence.proxy.async{.global,.shared::{cta,cluster}}`: `None` for every state space.
    FenceProxyAsync(Option<Space>),
    /// `fence.mbarrier_init.release.cluster`.
    FenceMbarrierInit,
    /// `cp.async.bulk.prefetch{.tensor.dim}.L2.global [srcMem], size` (or `[tensorMap,
    /// tensorCoords]`): a hint to bring global memory into
    /// the L2 cache, no effect on what the model checks.
    BulkPrefetch,
    /// `mapa{.shared::cluster}.type d, a, b`.
    Mapa {
        /// `d`.
        d: Dst,
        /// `a`.
        a: Src,
        /// `b`: the target CTA's rank.
        rank: Src,
        /// No `.shared::cluster`: `a` and `d` are generic addresses.
        generic: bool,
    },
    /// `st.async{.weak}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes{.vec}.type
    /// [a], b, [mbar]` (see the `st_async` module).
    StAsync {
        /// `a`, the destination (a `.shared::cluster` address, or generic).
        addr: Addr,
        /// `SharedCluster` or `Generic`.
        space: Space,
        /// `.type`.
        ty: crate::ptx::value::Ty,
        /// `b`, or the vector's elements.
        v: Vec<Src>,
        /// `mbar`, in the destination's CTA.
        bar: Addr,
    },
    /// `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a],
    /// b, [mbar]`.
    RedAsync {
        /// `a`, the destination.
        addr: Addr,
        /// `SharedCluster` or `Generic`.
        space: Space,
        /// `.op`.
        op: crate::runtime::async_copy::RedAsyncOp,
        /// `.type`.
        ty: crate::runtime::async_copy::RedAsyncType,
        /// `b`.
        b: Src,
        /// `mbar`, in the destination's CTA.
        bar: Addr,
    },
    /// `getctarank{.shared::cluster}.type d, a`.
    Getctarank {
        /// `d`.
        d: Dst,
        /// `a`.
        a: Src,
        /// No `.shared::cluster`: `a` is a generic address.
        generic: bool,
    },
}

/// The `.sem` and `.scope` qualifiers among `m`: `(release-or-acquire, scope)` with their
/// defaults (PTX ISA, *mbarrier.arrive*: "the optional .sem qualifier defaults to .release and
/// .scope to .cta"; *test_wait/try_wait*: ".acquire" and ".cta").
fn sem_scope(m: &[&str], strong: &str) -> (bool, Scope) {
    let mut sem = true;
    let mut scope = Scope::Cta;
    for x in m {
        match *x {
            s if s == strong => sem = true,
            "relaxed" => sem = false,
            "cta" => scope = Scope::Cta,
            "cluster" => scope = Scope::Cluster,
            _ => {}
        }
    }
    (sem, scope)
}

/// The state space among `m` (`.shared`, `.shared::cta`, `.shared::cluster`; `Generic`
/// when none), refusing one not in `allowed`.
fn space_of(m: &[&str], allowed: &[Space]) -> Result<Space, String> {
    let space = m
        .iter()
        .filter_map(|x| Space::parse(x))
        .next_back()
        .unwrap_or(Space::Generic);
    match allowed.contains(&space) || space == Space::Generic {
        true => Ok(space),
        false => Err(format!("state space {space:?} is not allowed here")),
    }
}

/// Refuse modifiers outside `allowed` (state spaces and `.b64` are always allowed here).
fn only(m: &[&str], allowed: &[&str]) -> Result<(), String> {
    let known = |x: &&str| allowed.contains(x) || Space::parse(x).is_some() || *x == "b64";
    match m.iter().find(|x| !known(x)) {
        Some(x) => Err(format!("modifier `.{x}` is not supported here")),
        None => Ok(()),
    }
}

/// An immediate operand (`cp-size`, `wait_group`'s `N`).
fn imm(o: &Operand, what: &str) -> Result<u64, String> {
    match o {
        Operand::Int(v) if *v >= 0 => Ok(*v as u64),
        _ => Err(format!("{what} must be a non-negative integer constant")),
    }
}

/// Decode `mbarrier.*`.
pub fn mbarrier(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<AsyncOp, String> {
    let cta = [Space::Shared];
    let cluster = [Space::Shared, Space::SharedCluster];
    let (verb, rest) = m.split_first().ok_or("mbarrier: missing the operation")?;
    let op = match *verb {
        // "mbarrier.init{.shared{::cta}}.b64 [addr], count;"
        "init" => {
            only(rest, &[])?;
            let [addr, count] = ops else {
                return Err("mbarrier.init takes [addr], count".into());
            };
            AsyncOp::MbarInit {
                addr: names.addr(addr)?,
                space: space_of(rest, &cta)?,
                count: names.src(count)?,
            }
        }
        // "mbarrier.arrive{.sem}{.scope}{.shared{::cta}}.b64 state, [addr]{, count};
        //  mbarrier.arrive{.sem}{.scope}{.shared::cluster}.b64 _, [addr] {,count};
        //  mbarrier.arrive.expect_tx{.sem}{.scope}{.shared{::cta}}.b64 state, [addr], txCount;
        //  mbarrier.arrive.expect_tx{.sem}{.scope}{.shared::cluster}.b64 _, [addr], txCount;
        //  mbarrier.arrive.noComplete{.release}{.cta}{.shared{::cta}}.b64 state, [addr], count;
        //  .sem = { .release, .relaxed }; .scope = { .cta, .cluster }"
        "arrive" => {
            let no_complete = rest.contains(&"noComplete");
            let expect_tx = rest.contains(&"expect_tx");
            only(
                rest,
                &[
                    "noComplete",
                    "expect_tx",
                    "release",
                    "relaxed",
                    "cta",
                    "cluster",
                ],
            )?;
            let (release, scope) = sem_scope(rest, "release");
            let space = space_of(rest, &cluster)?;
            if no_complete && (expect_tx || !release || scope != Scope::Cta) {
                return Err("mbarrier.arrive.noComplete takes only .release and .cta".into());
            }
            if no_complete && space == Space::SharedCluster {
                return Err("mbarrier.arrive.noComplete is for .shared::cta barriers".into());
            }
            let (state, addr, extra) = match ops {
                [s, a] => (s, a, None),
                [s, a, c] => (s, a, Some(c)),
                _ => return Err("mbarrier.arrive takes state, [addr]{, count}".into()),
            };
            if space == Space::SharedCluster && *state != Operand::Sink {
                return Err("a .shared::cluster arrive returns no state: write `_`".into());
            }
            if (expect_tx || no_complete) && extra.is_none() {
                return Err(format!(
                    "mbarrier.arrive.{} needs its count operand",
                    if expect_tx { "expect_tx" } else { "noComplete" }
                ));
            }
            let extra = extra.map(|c| names.src(c)).transpose()?;
            AsyncOp::MbarArrive {
                state: names.dst(state)?,
                addr: names.addr(addr)?,
                space,
                release,
                scope,
                count: if expect_tx { None } else { extra.clone() },
                tx: if expect_tx { extra } else { None },
                no_complete,
            }
        }
        // "mbarrier.expect_tx{.sem}{.scope}{.space}.b64 [addr], txCount; .sem = { .relaxed }"
        "expect_tx" => {
            only(rest, &["relaxed", "cta", "cluster"])?;
            let [addr, tx] = ops else {
                return Err("mbarrier.expect_tx takes [addr], txCount".into());
            };
            AsyncOp::MbarExpectTx {
                addr: names.addr(addr)?,
                space: space_of(rest, &cluster)?,
                tx: names.src(tx)?,
            }
        }
        // "mbarrier.test_wait{.sem}{.scope}{.shared{::cta}}.b64 waitComplete, [addr], state;
        //  mbarrier.test_wait.parity{.sem}{.scope}{.shared{::cta}}.b64 waitComplete, [addr],
        //  phaseParity; mbarrier.try_wait{…} waitComplete, [addr], state {, suspendTimeHint};
        //  .sem = { .acquire, .relaxed }; .scope = { .cta, .cluster }"
        "test_wait" | "try_wait" => {
            only(rest, &["parity", "acquire", "relaxed", "cta", "cluster"])?;
            let (acquire, scope) = sem_scope(rest, "acquire");
            let (p, addr, phase) = match (ops, *verb) {
                ([p, a, s], _) => (p, a, s),
                // The suspend-time hint bounds how long the thread may sleep: a hint only.
                ([p, a, s, _hint], "try_wait") => (p, a, s),
                _ => return Err(format!("mbarrier.{verb} takes waitComplete, [addr], state")),
            };
            AsyncOp::MbarWait {
                p: names.dst(p)?,
                addr: names.addr(addr)?,
                space: space_of(rest, &cta)?,
                parity: rest.contains(&"parity"),
                phase: names.src(phase)?,
                acquire,
                scope,
            }
        }
        // "mbarrier.inval{.shared{::cta}}.b64 [addr];"
        "inval" => {
            only(rest, &[])?;
            let [addr] = ops else {
                return Err("mbarrier.inval takes [addr]".into());
            };
            AsyncOp::MbarInval {
                addr: names.addr(addr)?,
                space: space_of(rest, &cta)?,
            }
        }
        // "mbarrier.pending_count.b64 count, state;"
        "pending_count" => {
            if rest != ["b64"] {
                return Err("expected `mbarrier.pending_count.b64`".into());
            }
            let [d, state] = ops else {
                return Err("mbarrier.pending_count takes count, state".into());
            };
            AsyncOp::MbarPendingCount {
                d: names.dst(d)?,
                state: names.src(state)?,
            }
        }
        "complete_tx" => {
            return Err(
                "mbarrier.complete_tx performed by a thread is not supported (the \
                        runtime completes transactions only for the bulk copies it performs)"
                    .into(),
            )
        }
        "arrive_drop" => {
            return Err(
                "mbarrier.arrive_drop (leaving the barrier's expected count) is not \
                        supported"
                    .into(),
            )
        }
        _ => return Err(format!("unknown mbarrier operation `.{verb}`")),
    };
    Ok(op)
}

/// Decode `cp.async*` and `cp.async.bulk*`.
pub fn cp(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<AsyncOp, String> {
    let rest = match m.split_first() {
        Some((&"async", rest)) => rest,
        _ => return Err("expected `cp.async…`".into()),
    };
    let op = match rest {
        ["commit_group"] if ops.is_empty() => AsyncOp::CpAsyncCommit,
        ["wait_all"] if ops.is_empty() => AsyncOp::CpAsyncWait { n: 0, all: true },
        ["wait_group"] => match ops {
            [n] => AsyncOp::CpAsyncWait {
                n: imm(n, "cp.async.wait_group's N")? as usize,
                all: false,
            },
            _ => return Err("cp.async.wait_group takes N".into()),
        },
        ["mbarrier", "arrive", more @ ..] => {
            // "cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];"
            only(more, &["noinc"])?;
            let [addr] = ops else {
                return Err("cp.async.mbarrier.arrive takes [addr]".into());
            };
            AsyncOp::CpAsyncMbarArrive {
                addr: names.addr(addr)?,
                space: space_of(more, &[Space::Shared])?,
                noinc: more.contains(&"noinc"),
            }
        }
        ["bulk", more @ ..] => return bulk(more, ops, names),
        [level @ ("ca" | "cg"), more @ ..] => {
            // "cp.async.ca.shared{::cta}.global{.level::cache_hint}{.level::prefetch_size}
            //  [dst], [src], cp-size{, src-size}{, cache-policy};
            //  cp.async.cg.shared{::cta}.global{…} [dst], [src], 16{, src-size}{, cache-policy};
            //  .cp-size = { 4, 8, 16 }"
            if more.first().and_then(|x| Space::parse(x)) != Some(Space::Shared)
                || more.get(1) != Some(&"global")
            {
                return Err(format!("expected `cp.async.{level}.shared.global`"));
            }
            let hint = more.contains(&"L2::cache_hint");
            if let Some(x) = more[2..]
                .iter()
                .find(|x| !x.starts_with("L2::") && !x.starts_with("L1::"))
            {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let (dst, src, size) = match (ops, hint) {
                ([d, s, n], false) | ([d, s, n, _], true) => (d, s, n),
                ([_, _, _, _], false) | ([_, _, _, _, _], _) => {
                    return Err(
                        "cp.async with src-size or ignore-src (zero-filling the rest of \
                                the copy) is not supported"
                            .into(),
                    )
                }
                _ => return Err("cp.async takes [dst], [src], cp-size".into()),
            };
            let size = imm(size, "cp-size")?;
            match (*level, size) {
                ("ca", 4 | 8 | 16) | ("cg", 16) => {}
                _ => return Err(format!("cp.async.{level}: cp-size {size} is not allowed")),
            }
            AsyncOp::CpAsync {
                dst: names.addr(dst)?,
                src: names.addr(src)?,
                size,
            }
        }
        _ => return Err("unknown cp.async form".into()),
    };
    Ok(op)
}

/// `cp.async.bulk…` after `cp.async.bulk`.
fn bulk(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<AsyncOp, String> {
    let cache_hint = |x: &&str| x.starts_with("L2::") || *x == "level::cache_hint";
    let op = match m {
        ["commit_group"] if ops.is_empty() => AsyncOp::BulkCommit,
        // "cp.async.bulk.wait_group{.read} N;"
        ["wait_group", more @ ..] if more.is_empty() || more == ["read"] => match ops {
            [n] => AsyncOp::BulkWait {
                n: imm(n, "cp.async.bulk.wait_group's N")? as usize,
                read: !more.is_empty(),
            },
            _ => return Err("cp.async.bulk.wait_group takes N".into()),
        },
        // "cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint} [dstMem], [srcMem],
        //  size{, cache-policy};"
        ["global", src, "bulk_group", more @ ..] if Space::parse(src) == Some(Space::Shared) => {
            if let Some(x) = more.iter().find(|x| !cache_hint(x)) {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let (dst, src, size) = match (ops, more.is_empty()) {
                ([d, s, n], true) | ([d, s, n, _], false) => (d, s, n),
                _ => return Err("expected [dstMem], [srcMem], size".into()),
            };
            AsyncOp::BulkToGlobal {
                dst: names.addr(dst)?,
                src: names.addr(src)?,
                size: names.src(size)?,
            }
        }
        // "cp.async.bulk.dst.src.completion_mechanism{.multicast}{.level::cache_hint}
        //  [dstMem], [srcMem], size, [mbar] {, ctaMask} {, cache-policy};
        //  .dst = { .shared::cluster } (.shared::cta, PTX 8.6); .src = { .global };
        //  .completion_mechanism = { .mbarrier::complete_tx::bytes };
        //  .multicast = { .multicast::cluster }" and
        // "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dstMem],
        //  [srcMem], size, [mbar]"
        [dst, src, "mbarrier::complete_tx::bytes", more @ ..]
            if matches!(
                Space::parse(dst),
                Some(Space::SharedCluster | Space::Shared)
            ) =>
        {
            let src_space = match Space::parse(src) {
                Some(Space::Global) => Space::Global,
                Some(Space::Shared) if *src != "shared" => Space::Shared,
                _ => {
                    return Err(
                        "the source of a bulk copy into shared memory is .global or \
                                 .shared::cta"
                            .into(),
                    )
                }
            };
            let multicast = more.contains(&"multicast::cluster");
            if let Some(x) = more
                .iter()
                .find(|x| !cache_hint(x) && **x != "multicast::cluster")
            {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            if multicast && src_space != Space::Global {
                return Err(".multicast::cluster copies from .global".into());
            }
            let hint = more.iter().any(cache_hint);
            let want = 4 + multicast as usize + hint as usize;
            if ops.len() != want {
                return Err(format!("expected {want} operands, found {}", ops.len()));
            }
            AsyncOp::BulkToShared {
                dst: names.addr(&ops[0])?,
                src: names.addr(&ops[1])?,
                src_space,
                size: names.src(&ops[2])?,
                bar: names.addr(&ops[3])?,
                multicast: match multicast {
                    true => Some(names.src(&ops[4])?),
                    false => None,
                },
            }
        }
        _ => return Err("unknown cp.async.bulk form".into()),
    };
    Ok(op)
}

/// Decode `mapa` and `getctarank`: "mapa{.space}.type d, a, b; .space = { .shared::cluster };
/// .type = { .u32, .u64 }" and "getctarank{.space}.type d, a".
pub fn cluster_address(
    opcode: &str,
    m: &[&str],
    ops: &[Operand],
    names: &mut Names,
) -> Result<AsyncOp, String> {
    let generic = match m {
        ["shared::cluster", "u32" | "u64"] => false,
        ["u32" | "u64"] => true,
        _ => {
            return Err(format!(
                "expected `{opcode}{{.shared::cluster}}.{{u32,u64}}`"
            ))
        }
    };
    let op = match (opcode, ops) {
        ("mapa", [d, a, b]) => AsyncOp::Mapa {
            d: names.dst(d)?,
            a: names.src(a)?,
            rank: names.src(b)?,
            generic,
        },
        ("getctarank", [d, a]) => AsyncOp::Getctarank {
            d: names.dst(d)?,
            a: names.src(a)?,
            generic,
        },
        _ => return Err(format!("{opcode}: wrong number of operands")),
    };
    Ok(op)
}

/// `fence.proxy.async{.global,.shared::{cta,cluster}}` ("fence.proxy.proxykind; .proxykind
/// = { .alias, .async, .async.global, .async.shared::{cta, cluster} }") and
/// `fence.mbarrier_init.release.cluster`; `None` for other proxy fences.
pub fn fence(m: &[&str]) -> Option<Result<AsyncOp, String>> {
    Some(match m {
        ["proxy", "async"] => Ok(AsyncOp::FenceProxyAsync(None)),
        ["proxy", "async", space] => match Space::parse(space) {
            Some(s @ (Space::Global | Space::Shared | Space::SharedCluster)) => {
                Ok(AsyncOp::FenceProxyAsync(Some(s)))
            }
            _ => Err(format!("fence.proxy.async.{space}: unknown state space")),
        },
        ["mbarrier_init", "release", "cluster"] => Ok(AsyncOp::FenceMbarrierInit),
        ["mbarrier_init", ..] => Err("expected `fence.mbarrier_init.release.cluster`".into()),
        _ => return None,
    })
}
