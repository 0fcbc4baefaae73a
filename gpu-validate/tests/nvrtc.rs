//! `scopecheck_gpu::nvrtc`: a kernel compiles to PTX with line information when NVRTC is found
//! (an ignored trial with the reason otherwise: libtest-mimic, since libtest has no run-time
//! skip), a compile error comes back with NVRTC's log, and a missing NVRTC is one line that says
//! how to get it.

use libtest_mimic::{Completion, Trial};
use scopecheck_gpu::nvrtc::{self, CompileError, Search, Toolkit};
use std::path::Path;

/// A case that compiles with the toolkit found.
type NeedsNvrtc = fn(&Toolkit);

/// One trial per case; those needing NVRTC are ignored, with the reason, without it.
pub fn trials() -> Vec<Trial> {
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
    let with_nvrtc: [(&str, NeedsNvrtc); 5] = [
        (
            "a_second_compile_comes_from_the_cache",
            a_second_compile_comes_from_the_cache,
        ),
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
    let mut trials: Vec<Trial> = always
        .into_iter()
        .map(|(name, case)| {
            Trial::test(format!("nvrtc::{name}"), move || {
                case();
                Ok(())
            })
        })
        .collect();
    let toolkit = Toolkit::find(&Search::from_env()).map_err(|e| e.to_string());
    for (name, case) in with_nvrtc {
        let toolkit = toolkit.clone();
        trials.push(Trial::ignorable_test(
            format!("nvrtc::{name}"),
            move || match toolkit {
                Ok(t) => {
                    case(&t);
                    Ok(Completion::Completed)
                }
                Err(e) => Ok(Completion::ignored_with(e)),
            },
        ));
    }
    trials
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

/// The PTX cache answers the same compilation with the same PTX and log without NVRTC; another
/// source, or one with a quoted include, is compiled.
fn a_second_compile_comes_from_the_cache(toolkit: &Toolkit) {
    let dir = std::env::temp_dir().join(format!("scopecheck-nvrtc-cache-{}", std::process::id()));
    let cache = nvrtc::Cache::at(&dir);
    let source = "__global__ void k(int *p) {\n    int unused = 1;\n    *p = 0;\n}\n";
    let name = Path::new("cached.cu");
    let first = nvrtc::compile_cached(toolkit, name, source, Some(&cache)).unwrap();
    assert!(!first.cached);
    let again = nvrtc::compile_cached(toolkit, name, source, Some(&cache)).unwrap();
    assert!(again.cached);
    assert_eq!((&again.ptx, &again.log), (&first.ptx, &first.log));
    assert!(again.log.contains("cached.cu(2): warning"), "{}", again.log);
    let other = nvrtc::compile_cached(toolkit, name, "__global__ void k() {}\n", Some(&cache));
    assert!(!other.unwrap().cached);
    let quoted = "#include \"cuda/std/cstdint\"\n__global__ void k() {}\n";
    for _ in 0..2 {
        let out = nvrtc::compile_cached(toolkit, name, quoted, Some(&cache)).unwrap();
        assert!(
            !out.cached,
            "a quoted include is never answered from the cache"
        );
    }
    // A failed compilation is not stored: the error comes back each time.
    for _ in 0..2 {
        let bad = nvrtc::compile_cached(toolkit, name, "int x = y;\n", Some(&cache));
        assert!(matches!(bad, Err(CompileError::Compile { .. })), "{bad:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
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
    let out = nvrtc::compile_file(&cu, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.ptx
            .starts_with("// scopecheck: --block 2 --arg p=u32[2]\n"),
        "{}",
        out.ptx
    );
    std::fs::write(&cu, "__global__ void k(int *p) { *p = 1; }\n").unwrap();
    let out = nvrtc::compile_file(&cu, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.ptx.starts_with("//\n// Generated by NVIDIA"),
        "{}",
        out.ptx
    );
    let missing = nvrtc::compile_file(&dir.join("missing.cu"), None).unwrap_err();
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
