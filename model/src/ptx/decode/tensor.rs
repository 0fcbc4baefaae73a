//! The TMA instructions that name a tensor map: `cp.async.bulk.tensor` (tile mode, 1-D and 2-D)
//! and `cp.async.bulk.prefetch{.tensor}`, and the tensor-map proxy fence
//! `fence.proxy.tensormap::generic`. Each production of the PTX ISA's syntax is quoted above
//! the code that reads it; what the model has no object for (im2col modes, 3-D to 5-D tensors)
//! is refused with the reason.

use super::asynchronous::AsyncOp;
use super::operand::{Names, Src};
use super::space::Space;
use crate::kernel::MAX_TENSOR_RANK;
use crate::ptx::ast::Operand;

/// `.L2::cache_hint` (and the ISA's placeholder spelling `.level::cache_hint`).
fn cache_hint(x: &str) -> bool {
    x.starts_with("L2::") || x == "level::cache_hint"
}

/// `.dim = { .1d, .2d, .3d, .4d, .5d }`: the tensor's rank, refused past what the model has.
fn rank(dim: &str) -> Result<usize, String> {
    let n = match dim {
        "1d" => 1,
        "2d" => 2,
        "3d" => 3,
        "4d" => 4,
        "5d" => 5,
        _ => return Err(format!("`.{dim}` is not a tensor dimension (.1d … .5d)")),
    };
    if n > MAX_TENSOR_RANK {
        return Err(format!(
            "cp.async.bulk.tensor.{dim}: the model has 1-D and 2-D tensor maps only"
        ));
    }
    Ok(n)
}

/// `.load_mode = { .tile, .im2col }` (".tile" when absent: "If .load_mode is not specified, it
/// defaults to .tile"); the modifiers after it.
fn load_mode<'a>(more: &'a [&'a str]) -> Result<&'a [&'a str], String> {
    match more {
        ["tile", rest @ ..] => Ok(rest),
        [m, ..] if m.starts_with("im2col") => Err(format!(
            "cp.async.bulk.tensor .{m}: the model has tile mode only"
        )),
        _ => Ok(more),
    }
}

/// `[tensorMap, tensorCoords]`: the map's address and the `.s32` coordinates, `rank` of them
/// ("tensorCoords … a vector of .s32 type whose size is equal to .dim").
fn tensor_operand(
    o: &Operand,
    rank: usize,
    names: &mut Names,
) -> Result<(super::Addr, Vec<Src>), String> {
    let Operand::TensorAddress { tensor_map, coords } = o else {
        return Err(format!(
            "expected the tensor operand `[tensorMap, {{c0, …}}]`, found `{o}`"
        ));
    };
    if coords.len() != rank {
        return Err(format!(
            "a {rank}-D tensor copy takes {rank} coordinates, found {}",
            coords.len()
        ));
    }
    let map = names.addr(&Operand::Address(tensor_map.clone()))?;
    let coords = coords
        .iter()
        .map(|c| names.src(c))
        .collect::<Result<_, _>>()?;
    Ok((map, coords))
}

/// Decode `cp.async.bulk.tensor…` after `cp.async.bulk.tensor`.
pub fn bulk_tensor(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<AsyncOp, String> {
    let [dim, dst, src, more @ ..] = m else {
        return Err("expected `cp.async.bulk.tensor.dim.dst.src…`".into());
    };
    let rank = rank(dim)?;
    let more = load_mode(more)?;
    match (Space::parse(dst), Space::parse(src)) {
        // "cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.multicast}
        //  {.level::cache_hint} [dstMem], [tensorMap, tensorCoords], [mbar]{, im2colOffsets}
        //  {, ctaMask} {, cache-policy}; .dst = { .shared::cluster }; .src = { .global };
        //  .completion_mechanism = { .mbarrier::complete_tx::bytes };
        //  .multicast = { .multicast::cluster }" (.dst .shared::cta from PTX 8.6).
        (Some(Space::SharedCluster | Space::Shared), Some(Space::Global)) if *dst != "shared" => {
            let ["mbarrier::complete_tx::bytes", rest @ ..] = more else {
                return Err("a tensor load completes with .mbarrier::complete_tx::bytes".into());
            };
            let multicast = rest.contains(&"multicast::cluster");
            if let Some(x) = rest
                .iter()
                .find(|x| !cache_hint(x) && **x != "multicast::cluster")
            {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let hint = rest.iter().any(|x| cache_hint(x));
            let want = 3 + multicast as usize + hint as usize;
            if ops.len() != want {
                return Err(format!("expected {want} operands, found {}", ops.len()));
            }
            let (tensor_map, coords) = tensor_operand(&ops[1], rank, names)?;
            Ok(AsyncOp::TensorToShared {
                dst: names.addr(&ops[0])?,
                tensor_map,
                coords,
                bar: names.addr(&ops[2])?,
                multicast: match multicast {
                    true => Some(names.src(&ops[3])?),
                    false => None,
                },
            })
        }
        // "cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism
        //  {.level::cache_hint} [tensorMap, tensorCoords], [srcMem] {, cache-policy};
        //  .dst = { .global }; .src = { .shared::cta }; .completion_mechanism = { .bulk_group }".
        (Some(Space::Global), Some(Space::Shared)) if *src != "shared" => {
            let ["bulk_group", rest @ ..] = more else {
                return Err("a tensor store completes with .bulk_group".into());
            };
            if let Some(x) = rest.iter().find(|x| !cache_hint(x)) {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let want = 2 + !rest.is_empty() as usize;
            if ops.len() != want {
                return Err(format!("expected {want} operands, found {}", ops.len()));
            }
            let (tensor_map, coords) = tensor_operand(&ops[0], rank, names)?;
            Ok(AsyncOp::TensorToGlobal {
                tensor_map,
                coords,
                src: names.addr(&ops[1])?,
            })
        }
        _ => Err(format!(
            "cp.async.bulk.tensor copies .global to .shared::cluster or .shared::cta to \
             .global, not .{src} to .{dst}"
        )),
    }
}

/// Decode `cp.async.bulk.prefetch…` after `cp.async.bulk.prefetch`: "cp.async.bulk.prefetch.L2
/// .src{.level::cache_hint} [srcMem], size {, cache-policy}; .src = { .global }" and
/// "cp.async.bulk.prefetch.tensor.dim.L2.src{.load_mode}{.level::cache_hint} [tensorMap,
/// tensorCoords] {, im2colOffsets} {, cache-policy}". A prefetch only brings global memory into
/// the L2 cache: it reads nothing the memory model sees and orders nothing (PTX ISA: "a hint to
/// the system"), so it decodes to [`AsyncOp::BulkPrefetch`], which does nothing.
pub fn bulk_prefetch(m: &[&str], ops: &[Operand], names: &mut Names) -> Result<AsyncOp, String> {
    match m {
        ["L2", "global", rest @ ..] => {
            if let Some(x) = rest.iter().find(|x| !cache_hint(x)) {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let want = 2 + !rest.is_empty() as usize;
            if ops.len() != want || !matches!(ops[0], Operand::Address(_)) {
                return Err(format!(
                    "expected [srcMem], size{}",
                    [", cache-policy", ""][rest.is_empty() as usize]
                ));
            }
            names.addr(&ops[0])?;
            names.src(&ops[1])?;
        }
        ["tensor", dim, "L2", "global", rest @ ..] => {
            let rank = rank(dim)?;
            let rest = load_mode(rest)?;
            if let Some(x) = rest.iter().find(|x| !cache_hint(x)) {
                return Err(format!("modifier `.{x}` is not supported here"));
            }
            let want = 1 + !rest.is_empty() as usize;
            if ops.len() != want {
                return Err(format!("expected {want} operands, found {}", ops.len()));
            }
            tensor_operand(&ops[0], rank, names)?;
        }
        _ => return Err("expected `cp.async.bulk.prefetch{.tensor.dim}.L2.global`".into()),
    }
    Ok(AsyncOp::BulkPrefetch)
}

/// `fence.proxy.tensormap::generic.release.scope` and `fence.proxy.tensormap::generic.acquire
/// .scope [addr], size` ("fence.proxy.tensormap::generic.sem.scope{ [addr], size}; .sem = {
/// .release, .acquire }; .scope = { .cta, .cluster, .gpu, .sys }"; "size … 128": a tensor
/// map's bytes).
///
/// Decoded to no operation, by design: the fence orders a generic-proxy write of a tensor map
/// (`tensormap.replace`, a `st` to a `CUtensorMap` in global memory) before its use by the
/// async proxy. In the model a tensor map is bound at launch (`--tensor-map`) to a kernel
/// parameter, which no thread can write (`.param` memory is read-only in a kernel), and
/// `tensormap.replace` is not decoded: the model has no tensor-map memory a generic write could
/// reach, so the fence has nothing to order.
pub fn fence_tensormap(m: &[&str], ops: &[Operand]) -> Result<(), String> {
    let scope_ok = |s: &str| matches!(s, "cta" | "cluster" | "gpu" | "sys");
    match (m, ops) {
        (["release", s], []) if scope_ok(s) => Ok(()),
        (["acquire", s], [Operand::Address(_), Operand::Int(128)]) if scope_ok(s) => Ok(()),
        (["acquire", s], _) if scope_ok(s) => {
            Err("fence.proxy.tensormap::generic.acquire takes [addr], 128".into())
        }
        _ => Err(
            "expected `fence.proxy.tensormap::generic.{release,acquire}.{cta,cluster,gpu,sys}`"
                .into(),
        ),
    }
}
