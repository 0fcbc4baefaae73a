//! `--tensor-map NAME=BUFFER:TYPE:DIMS:BOX[:STRIDES]`: a tiled tensor map (`CUtensorMap`, as
//! `cuTensorMapEncodeTiled` makes it on the host) given to a kernel's tensor-map parameter
//! (`const __grid_constant__ CUtensorMap tmap`, in PTX `.param .align 64 .b8 NAME[128]`).
//!
//! - `NAME`: the PTX parameter's name; when it names none, the `n`-th `--tensor-map` binds the
//!   `n`-th 128-byte `.b8` parameter, and `--arg`s bind the other parameters in order.
//! - `BUFFER`: the `--arg NAME=TYPE[N]` buffer the tensor lies in, from its first element.
//! - `TYPE`: the element type (`u8 … u64`, `s8 … s64`, `f32`, `f64`), the buffer's size.
//! - `DIMS`: `D0` or `D0xD1`, the tensor's size in elements, dimension 0 (contiguous) first.
//! - `BOX`: `B0` or `B0xB1`, the bounding box a copy moves.
//! - `STRIDES`: for 2-D, the elements between the starts of consecutive rows (default `D0`).
//!
//! Example: `--arg a=f32[256] --tensor-map tmap=a:f32:16x16:8x4` (a 16 × 16 tensor, 8 × 4
//! boxes). The geometry must satisfy `cuTensorMapEncodeTiled`'s rules
//! ([`TensorMapLayout::new`]).

use super::value::Ty;
use crate::kernel::TensorMapLayout;

/// A `--tensor-map` argument.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapArg {
    /// The parameter's name.
    pub name: String,
    /// The `--arg` buffer the tensor lies in.
    pub buffer: String,
    /// The element type.
    pub ty: Ty,
    /// The map's geometry.
    pub layout: TensorMapLayout,
}

/// `AxB` or `A`: one to two positive sizes.
fn sizes(s: &str, what: &str) -> Result<Vec<u64>, String> {
    s.split('x')
        .map(|p| p.parse::<u64>().ok().filter(|&n| n > 0))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| format!("{what} `{s}` is not D0 or D0xD1 (positive sizes)"))
}

/// Parse `NAME=BUFFER:TYPE:DIMS:BOX[:STRIDES]`.
pub fn parse_tensor_map(s: &str) -> Result<TensorMapArg, String> {
    let fail = |why: String| format!("--tensor-map `{s}`: {why}");
    let (name, rest) = s
        .split_once('=')
        .ok_or_else(|| fail("expected NAME=BUFFER:TYPE:DIMS:BOX[:STRIDES]".into()))?;
    if name.is_empty() {
        return Err(fail("missing the name".into()));
    }
    let fields: Vec<&str> = rest.split(':').collect();
    let (buffer, ty, dims, boxes, strides) = match fields[..] {
        [b, t, d, x] => (b, t, d, x, None),
        [b, t, d, x, st] => (b, t, d, x, Some(st)),
        _ => {
            return Err(fail(format!(
                "expected BUFFER:TYPE:DIMS:BOX[:STRIDES] after `=`, found {} fields",
                fields.len()
            )))
        }
    };
    if buffer.is_empty() {
        return Err(fail("missing the buffer".into()));
    }
    let ty = Ty::parse(ty)
        .filter(|t| *t != Ty::Pred && !matches!(t, Ty::F(16) | Ty::B(_)))
        .ok_or_else(|| fail(format!("unknown element type `{ty}`")))?;
    let dims = sizes(dims, "DIMS").map_err(fail)?;
    let box_dim = sizes(boxes, "BOX")
        .map_err(fail)?
        .into_iter()
        .map(|b| u32::try_from(b).unwrap_or(u32::MAX))
        .collect::<Vec<u32>>();
    let strides = match strides {
        Some(st) => sizes(st, "STRIDES").map_err(fail)?,
        None => dims
            .iter()
            .take(dims.len().saturating_sub(1))
            .copied()
            .collect(),
    };
    let layout = TensorMapLayout::new(ty.bytes(), &dims, &strides, &box_dim).map_err(fail)?;
    Ok(TensorMapArg {
        name: name.to_string(),
        buffer: buffer.to_string(),
        ty,
        layout,
    })
}
