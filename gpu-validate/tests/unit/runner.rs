//! Tests of `runner`.

use scopecheck_gpu::runner::driver_version_in;

#[test]
fn driver_version_is_read_from_either_kernel_module_line() {
    let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Oct 16 03:04:16 UTC 2025";
    assert_eq!(driver_version_in(open).as_deref(), Some("580.159.04"));
    let closed =
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023";
    assert_eq!(driver_version_in(closed).as_deref(), Some("535.104.05"));
    assert_eq!(driver_version_in("no version here"), None);
}
