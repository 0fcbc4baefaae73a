//! `scopecheck_gpu::nvrtc`: a kernel compiles to PTX with line information when NVRTC is found
//! (a visible skip line otherwise), a compile error comes back with NVRTC's log, and a missing
//! NVRTC is one line that says how to get it.

use scopecheck_gpu::nvrtc::{self, CompileError, Search, Toolkit};
use std::path::Path;

/// A case that compiles with the toolkit found.
type NeedsNvrtc = fn(&Toolkit);

/// A plain `main` (harness = false) so that the cases needing NVRTC are reported as *skipped*
/// without it, never as passed: libtest has no run-time skip.
fn main() {
    let always: [(&str, fn()); 4] = [
        (
            "missing_nvrtc_is_one_line_saying_how_to_get_it",
            missing_nvrtc_is_one_line_saying_how_to_get_it,
        ),
        (
            "a_nul_byte_in_the_source_is_an_error_not_a_panic",
            a_nul_byte_in_the_source_is_an_error_not_a_panic,
        ),
        (
            "finds_the_pip_layout_under_a_virtual_environment",
            finds_the_pip_layout_under_a_virtual_environment,
        ),
        (
            "finds_a_cuda_home_toolkit_and_adds_cuda_include_path",
            finds_a_cuda_home_toolkit_and_adds_cuda_include_path,
        ),
    ];
    let with_nvrtc: [(&str, NeedsNvrtc); 4] = [
        (
            "compile_file_keeps_the_launch_comment_first",
            compile_file_keeps_the_launch_comment_first,
        ),
        (
            "compiles_a_kernel_with_cccl_headers_and_line_info",
            compiles_a_kernel_with_cccl_headers_and_line_info,
        ),
        (
            "a_compile_error_returns_nvrtcs_log",
            a_compile_error_returns_nvrtcs_log,
        ),
        (
            "a_warning_is_kept_in_the_log_of_a_successful_compilation",
            a_warning_is_kept_in_the_log_of_a_successful_compilation,
        ),
    ];
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut record = |name: &str, outcome: std::thread::Result<()>| match outcome {
        Ok(()) => {
            println!("test {name} ... ok");
            passed += 1;
        }
        Err(_) => {
            println!("test {name} ... FAILED");
            failed += 1;
        }
    };
    for (name, case) in always {
        record(name, std::panic::catch_unwind(case));
    }
    match Toolkit::find(&Search::from_env()) {
        Ok(toolkit) => {
            for (name, case) in with_nvrtc {
                record(name, std::panic::catch_unwind(|| case(&toolkit)));
            }
        }
        Err(e) => {
            for (name, _) in with_nvrtc {
                println!("SKIP {name}: {e}");
                skipped += 1;
            }
        }
    }
    println!("nvrtc: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}

const KERNEL: &str = r#"#include <cuda/atomic>
__global__ void publish(unsigned *data, unsigned *flag) {
    data[threadIdx.x] = threadIdx.x;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    f.store(1, cuda::memory_order_release);
}
"#;

fn compiles_a_kernel_with_cccl_headers_and_line_info(toolkit: &Toolkit) {
    let out = nvrtc::compile_with(toolkit, Path::new("dir/publish.cu"), KERNEL)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.ptx.contains(".target sm_90"), "{}", out.ptx);
    assert!(out.ptx.contains(".entry _Z7publishPjS_"), "{}", out.ptx);
    // -lineinfo: the program's name is the `.file` (NVRTC makes a relative name absolute from
    // the working directory), and statements carry `.loc`.
    assert!(out.ptx.contains("dir/publish.cu\""), "{}", out.ptx);
    assert!(out.ptx.contains(".loc"), "{}", out.ptx);
    // The release store at device scope (cuda::atomic_ref, thread_scope_device).
    assert!(out.ptx.contains("release.gpu"), "{}", out.ptx);
}

fn a_compile_error_returns_nvrtcs_log(toolkit: &Toolkit) {
    let source = "__global__ void k(int *p) {\n    *p = undeclared;\n}\n";
    match nvrtc::compile_with(toolkit, Path::new("bad.cu"), source) {
        Err(CompileError::Compile { log }) => {
            // NVRTC's own diagnostic format: `NAME(LINE): error: …`.
            assert!(log.contains("bad.cu(2): error"), "{log}");
            assert!(log.contains("undeclared"), "{log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

fn a_warning_is_kept_in_the_log_of_a_successful_compilation(toolkit: &Toolkit) {
    let source = "__global__ void k(int *p) {\n    int unused = 1;\n    *p = 0;\n}\n";
    let out = nvrtc::compile_with(toolkit, Path::new("warn.cu"), source)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.log.contains("warn.cu(2): warning"), "{}", out.log);
}

fn compile_file_keeps_the_launch_comment_first(_: &Toolkit) {
    let dir = std::env::temp_dir().join(format!("scopecheck-nvrtc-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cu = dir.join("k.cu");
    std::fs::write(
        &cu,
        "// scopecheck: --block 2 --arg p=u32[2]\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n",
    )
    .unwrap();
    let out = nvrtc::compile_file(&cu).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.ptx
            .starts_with("// scopecheck: --block 2 --arg p=u32[2]\n"),
        "{}",
        out.ptx
    );
    std::fs::write(&cu, "__global__ void k(int *p) { *p = 1; }\n").unwrap();
    let out = nvrtc::compile_file(&cu).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.ptx.starts_with("//\n// Generated by NVIDIA"),
        "{}",
        out.ptx
    );
    let missing = nvrtc::compile_file(&dir.join("missing.cu")).unwrap_err();
    assert!(missing.to_string().contains("missing.cu: "), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn missing_nvrtc_is_one_line_saying_how_to_get_it() {
    let nowhere = Search {
        cuda_home: Some("/nonexistent/cuda".into()),
        cuda_include_path: None,
        virtual_env: Some("/nonexistent/venv".into()),
        python: None,
        loader_path: false,
    };
    let err = Toolkit::find(&nowhere).unwrap_err();
    assert_eq!(err, CompileError::NotFound);
    let line = err.to_string();
    assert!(!line.contains('\n'), "{line}");
    assert!(
        line.contains("pip install nvidia-cuda-nvrtc nvidia-cuda-cccl"),
        "{line}"
    );
}

fn a_nul_byte_in_the_source_is_an_error_not_a_panic() {
    let toolkit = Toolkit {
        library: None,
        include: Vec::new(),
    };
    let err = nvrtc::compile_with(&toolkit, Path::new("nul.cu"), "int x;\0").unwrap_err();
    assert!(matches!(err, CompileError::Source(_)), "{err:?}");
    assert!(err.to_string().starts_with("nul.cu: "), "{err}");
}

fn finds_the_pip_layout_under_a_virtual_environment() {
    let root = std::env::temp_dir().join(format!("scopecheck-nvrtc-{}", std::process::id()));
    let cu13 = root.join("lib/python3.12/site-packages/nvidia/cu13");
    std::fs::create_dir_all(cu13.join("lib")).unwrap();
    std::fs::create_dir_all(cu13.join("include/cccl")).unwrap();
    std::fs::write(cu13.join("lib/libnvrtc.so.13"), b"").unwrap();
    let search = Search {
        virtual_env: Some(root.clone()),
        ..Search::default()
    };
    let found = Toolkit::find(&search).unwrap();
    assert_eq!(found.library, Some(cu13.join("lib/libnvrtc.so.13")));
    assert_eq!(
        found.include,
        vec![cu13.join("include"), cu13.join("include/cccl")]
    );
    let options = found.options();
    assert_eq!(
        &options[..3],
        &["-arch=compute_90", "-lineinfo", "-default-device"]
    );
    assert!(options.contains(&format!("-I{}", cu13.join("include/cccl").display())));
    std::fs::remove_dir_all(&root).unwrap();
}

fn finds_a_cuda_home_toolkit_and_adds_cuda_include_path() {
    let root = std::env::temp_dir().join(format!("scopecheck-cudahome-{}", std::process::id()));
    std::fs::create_dir_all(root.join("lib64")).unwrap();
    std::fs::create_dir_all(root.join("include")).unwrap();
    std::fs::create_dir_all(root.join("extra")).unwrap();
    std::fs::write(root.join("lib64/libnvrtc.so"), b"").unwrap();
    let search = Search {
        cuda_home: Some(root.clone()),
        cuda_include_path: Some(root.join("extra")),
        ..Search::default()
    };
    let found = Toolkit::find(&search).unwrap();
    assert_eq!(found.library, Some(root.join("lib64/libnvrtc.so")));
    assert_eq!(
        found.include,
        vec![root.join("include"), root.join("extra")]
    );
    std::fs::remove_dir_all(&root).unwrap();
}
