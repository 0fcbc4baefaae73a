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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field() {
        let t = parse_tensor_map("tmap=a:f32:16x8:8x4").unwrap();
        assert_eq!(
            (t.name.as_str(), t.buffer.as_str(), t.ty),
            ("tmap", "a", Ty::F(32))
        );
        assert_eq!(t.layout.global_dim, [16, 8]);
        assert_eq!(t.layout.global_strides, [16]);
        assert_eq!(t.layout.box_dim, [8, 4]);
        let t = parse_tensor_map("m=b:u64:6x3:2x1:8").unwrap();
        assert_eq!(t.layout.global_strides, [8]);
        let t = parse_tensor_map("m=b:s32:12:4").unwrap();
        assert_eq!((t.layout.global_dim.len(), t.layout.box_len()), (1, 4));
    }

    #[test]
    fn malformed() {
        for (bad, needle) in [
            ("tmap", "expected NAME="),
            ("=a:u32:4:4", "missing the name"),
            ("t=a:u32:4", "found 3 fields"),
            ("t=a:u32:4:4:4:4", "found 6 fields"),
            ("t=:u32:4:4", "missing the buffer"),
            ("t=a:f16:8:8", "unknown element type"),
            ("t=a:pred:8:8", "unknown element type"),
            ("t=a:u32:0:4", "DIMS `0`"),
            ("t=a:u32:4x:4", "DIMS `4x`"),
            ("t=a:u32:4:y", "BOX `y`"),
            ("t=a:u32:8x2:4x2:z", "STRIDES `z`"),
            ("t=a:u32:8:4x2", "takes 1 sizes"),
            ("t=a:u32:4x4x4:4x1x1", "1 to 2 dimensions"),
            ("t=a:u32:8:2", "multiple of 16"),
            ("t=a:u32:8:512", "not in 1..=256"),
            ("t=a:u32:8x2:4x2:4", "does not cover"),
        ] {
            let e = parse_tensor_map(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
            assert!(e.starts_with("--tensor-map `"), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
