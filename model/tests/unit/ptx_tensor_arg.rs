//! Tests of `ptx::tensor_arg`.

use scopecheck_model::ptx::tensor_arg::*;
use scopecheck_model::ptx::value::Ty;

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
