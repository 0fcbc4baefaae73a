//! Tests of `nvrtc::cache`.

use scopecheck_gpu::nvrtc::cache::*;
use scopecheck_gpu::nvrtc::{Compiled, Toolkit};
use std::path::{Path, PathBuf};

#[test]
fn quoted_includes_are_not_cacheable() {
    assert!(cacheable(
        "#include <cuda/atomic>\n__global__ void k() {}\n"
    ));
    assert!(cacheable(
        "// #include \"x.h\" in a comment is no directive\n"
    ));
    assert!(!cacheable("#include \"local.h\"\n"));
    assert!(!cacheable("  #  include   \"local.h\"\n"));
    assert!(cacheable("#define S \"#include\"\n"));
}

#[test]
fn the_key_changes_with_every_input() {
    let toolkit = Toolkit {
        library: None,
        include: Vec::new(),
    };
    let base = key(&toolkit, (13, 0), Path::new("a.cu"), "int x;");
    assert_eq!(base, key(&toolkit, (13, 0), Path::new("a.cu"), "int x;"));
    assert_eq!(base.len(), 32);
    assert_ne!(base, key(&toolkit, (13, 1), Path::new("a.cu"), "int x;"));
    assert_ne!(base, key(&toolkit, (13, 0), Path::new("b.cu"), "int x;"));
    assert_ne!(base, key(&toolkit, (13, 0), Path::new("a.cu"), "int y;"));
    let include = Toolkit {
        library: None,
        include: vec![PathBuf::from("/nonexistent/include")],
    };
    assert_ne!(base, key(&include, (13, 0), Path::new("a.cu"), "int x;"));
    // Fields are length-prefixed: moving bytes between the name and the source is a new key.
    assert_ne!(
        key(&toolkit, (13, 0), Path::new("a.cu"), "xint x;"),
        key(&toolkit, (13, 0), Path::new("a.cux"), "int x;")
    );
}

#[test]
fn an_entry_round_trips_and_a_corrupt_one_is_a_miss() {
    let dir = std::env::temp_dir().join(format!("scopecheck-ptx-cache-{}", std::process::id()));
    let cache = Cache::at(&dir);
    assert!(cache.load("k").is_none());
    let compiled = Compiled {
        ptx: "//\n.version 9.0\n".into(),
        log: "warn.cu(2): warning".into(),
        cached: false,
    };
    cache.store("k", &compiled);
    let hit = cache.load("k").expect("stored");
    assert_eq!(
        (hit.ptx.as_str(), hit.log.as_str()),
        (compiled.ptx.as_str(), compiled.log.as_str())
    );
    assert!(hit.cached);
    std::fs::write(cache.entry("k"), "{ not json").unwrap();
    assert!(cache.load("k").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}
