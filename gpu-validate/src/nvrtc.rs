//! CUDA C++ to PTX with NVRTC, for `scopecheck kernel FILE.cu`.
//!
//! [`compile`] finds NVRTC, compiles one translation unit with
//! `-arch=compute_90 -lineinfo -default-device` and the CUDA and CCCL include directories, and
//! returns the PTX with NVRTC's log. `-lineinfo` makes NVRTC emit `.file`/`.loc` directives, so
//! a failure found in the PTX is reported at its line of the `.cu` file (the program is named
//! after the file's path). `-default-device` compiles functions without execution-space
//! annotations as `__device__`, as CUDA authors expect of helpers in a kernel file.
//!
//! Where NVRTC comes from ([`Toolkit::find`]), first hit wins:
//! 1. `$CUDA_HOME` (`lib64/` or `lib/`, `include/`, `include/cccl/`);
//! 2. the `nvidia` packages of the Python environment: `$VIRTUAL_ENV`'s `site-packages`, else the
//!    ones `python3` imports (`pip install nvidia-cuda-nvrtc nvidia-cuda-cccl` puts
//!    `nvidia/cu13/lib/libnvrtc.so.13` and `nvidia/cu13/include{,/cccl}` there);
//! 3. the dynamic loader's own path (`LD_LIBRARY_PATH`, `ldconfig`), with headers from
//!    `$CUDA_INCLUDE_PATH`.
//!
//! `$CUDA_INCLUDE_PATH` adds its directory (and its `cccl/`) to any of these.
//!
//! cudarc (feature `dynamic-loading`) opens NVRTC by library *name* only
//! (`cudarc::get_lib_name_candidates("nvrtc")`: `libnvrtc.so`, …, `libnvrtc.so.13`). A library
//! found at an absolute path is therefore opened here first with `RTLD_GLOBAL`; the dynamic
//! loader then answers cudarc's `dlopen("libnvrtc.so.13")` with the object already resident,
//! since it matches a requested name against the `DT_SONAME` of every loaded object.

pub mod cache;

pub use cache::{compile_cached, Cache};
use cudarc::nvrtc::result;
use std::ffi::{CStr, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The options every kernel is compiled with (besides the include directories): Hopper's virtual
/// architecture, so that clusters, mbarrier transactions, `cp.async.bulk` and TMA compile.
pub const OPTIONS: [&str; 3] = ["-arch=compute_90", "-lineinfo", "-default-device"];

/// What to do when NVRTC is missing: one line, shown as is by the CLI.
pub const INSTALL_HINT: &str = "NVRTC not found (searched $CUDA_HOME, the Python environment's \
    nvidia packages and the loader path): install it with `pip install nvidia-cuda-nvrtc \
    nvidia-cuda-cccl` (in the active virtual environment) or set CUDA_HOME to a CUDA toolkit";

/// A compiled translation unit.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The PTX text NVRTC produced.
    pub ptx: String,
    /// NVRTC's log (warnings), empty when it had nothing to say.
    pub log: String,
    /// Whether this came from the PTX cache ([`cache`]) rather than an NVRTC run.
    pub cached: bool,
}

/// Why a compilation did not produce PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// No NVRTC library could be found or opened; [`INSTALL_HINT`] says how to get it.
    NotFound,
    /// The source cannot be handed to NVRTC (it contains a NUL byte).
    Source(String),
    /// NVRTC rejected the program: its log, as NVRTC prints it (`file(line): error: …`).
    Compile {
        /// NVRTC's log.
        log: String,
    },
    /// An NVRTC call other than the compilation failed.
    Nvrtc(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::NotFound => f.write_str(INSTALL_HINT),
            CompileError::Source(why) => f.write_str(why),
            CompileError::Compile { log } => f.write_str(log.trim_end()),
            CompileError::Nvrtc(why) => write!(f, "NVRTC: {why}"),
        }
    }
}

impl std::error::Error for CompileError {}

/// The environment [`Toolkit::find`] looks in (the process's, by [`Search::from_env`]).
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// `$CUDA_HOME`: a CUDA toolkit's root.
    pub cuda_home: Option<PathBuf>,
    /// `$CUDA_INCLUDE_PATH`: a directory of CUDA headers.
    pub cuda_include_path: Option<PathBuf>,
    /// `$VIRTUAL_ENV`: the active Python virtual environment.
    pub virtual_env: Option<PathBuf>,
    /// The Python interpreter to ask for its `nvidia` packages when there is no `$VIRTUAL_ENV`.
    pub python: Option<PathBuf>,
    /// Whether to try the dynamic loader's own search path (`dlopen` by name).
    pub loader_path: bool,
}

impl Search {
    /// The process's environment: `CUDA_HOME`, `CUDA_INCLUDE_PATH`, `VIRTUAL_ENV`, `python3`
    /// from `PATH`, and the loader path.
    pub fn from_env() -> Search {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Search {
            cuda_home: var("CUDA_HOME"),
            cuda_include_path: var("CUDA_INCLUDE_PATH"),
            virtual_env: var("VIRTUAL_ENV"),
            python: Some(PathBuf::from("python3")),
            loader_path: true,
        }
    }
}

/// Where NVRTC and the headers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolkit {
    /// The NVRTC library's absolute path; `None` when the dynamic loader finds it by name.
    pub library: Option<PathBuf>,
    /// The include directories passed to NVRTC (`-I`), CUDA's and CCCL's.
    pub include: Vec<PathBuf>,
}

/// The library file names looked for in a `lib` directory, newest first (cudarc is built for
/// CUDA 13; a CUDA 12 NVRTC has the same API).
const LIBRARY_NAMES: [&str; 3] = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];

impl Toolkit {
    /// Finds NVRTC and its headers in `search` (the order is the module documentation's).
    pub fn find(search: &Search) -> Result<Toolkit, CompileError> {
        let extra: Vec<PathBuf> = search
            .cuda_include_path
            .iter()
            .flat_map(|dir| include_dirs(dir))
            .collect();
        let with_extra = |mut found: Toolkit| {
            for dir in &extra {
                if !found.include.contains(dir) {
                    found.include.push(dir.clone());
                }
            }
            found
        };
        if let Some(home) = &search.cuda_home {
            if let Some(found) = in_root(home, &["lib64", "lib"]) {
                return Ok(with_extra(found));
            }
        }
        for nvidia in python_nvidia_dirs(search) {
            // pip's CUDA 13 wheels share `nvidia/cu13`; CUDA 12's split it per package.
            if let Some(found) = in_root(&nvidia.join("cu13"), &["lib"]) {
                return Ok(with_extra(found));
            }
            if let Some(mut found) = in_root(&nvidia.join("cuda_nvrtc"), &["lib"]) {
                found
                    .include
                    .extend(include_dirs(&nvidia.join("cuda_cccl").join("include")));
                return Ok(with_extra(found));
            }
        }
        // SAFETY: only tries to dlopen the NVRTC library by its names.
        if search.loader_path && unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Ok(with_extra(Toolkit {
                library: None,
                include: Vec::new(),
            }));
        }
        Err(CompileError::NotFound)
    }

    /// The NVRTC options for this toolkit: [`OPTIONS`] and one `-I` per include directory.
    pub fn options(&self) -> Vec<String> {
        OPTIONS
            .iter()
            .map(|o| o.to_string())
            .chain(self.include.iter().map(|d| format!("-I{}", d.display())))
            .collect()
    }

    /// Makes the library resident so that cudarc's loader finds it (module documentation).
    fn load(&self) -> Result<(), CompileError> {
        static RESIDENT: OnceLock<Result<(), String>> = OnceLock::new();
        if let Some(path) = &self.library {
            RESIDENT
                .get_or_init(|| {
                    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
                    // SAFETY: NVRTC's initialisers only set up its own state.
                    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
                        .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
                    // Resident for the life of the process: cudarc's handle refers to it.
                    std::mem::forget(lib);
                    Ok(())
                })
                .clone()
                .map_err(CompileError::Nvrtc)?;
        }
        // SAFETY: only tries to dlopen the NVRTC library by its names.
        if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            Ok(())
        } else {
            Err(CompileError::NotFound)
        }
    }
}

/// The toolkit layout under `root`: NVRTC in one of `lib_dirs`, headers in `include/` and
/// `include/cccl/`.
fn in_root(root: &Path, lib_dirs: &[&str]) -> Option<Toolkit> {
    let library = lib_dirs
        .iter()
        .flat_map(|dir| {
            LIBRARY_NAMES
                .iter()
                .map(move |name| root.join(dir).join(name))
        })
        .find(|path| path.is_file())?;
    Some(Toolkit {
        library: Some(library),
        include: include_dirs(&root.join("include")),
    })
}

/// `dir` and `dir/cccl`, those that exist (CUDA 13 keeps CCCL's headers in `include/cccl`).
fn include_dirs(dir: &Path) -> Vec<PathBuf> {
    [dir.to_path_buf(), dir.join("cccl")]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect()
}

/// The `nvidia` package directories of the Python environment: under `$VIRTUAL_ENV`'s
/// `lib/python*/site-packages`, else where the interpreter imports `nvidia` from.
fn python_nvidia_dirs(search: &Search) -> Vec<PathBuf> {
    if let Some(venv) = &search.virtual_env {
        let mut found = Vec::new();
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
                continue;
            };
            let mut pythons: Vec<PathBuf> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
                .map(|e| e.path().join("site-packages").join("nvidia"))
                .filter(|d| d.is_dir())
                .collect();
            pythons.sort();
            found.extend(pythons);
        }
        return found;
    }
    let Some(python) = &search.python else {
        return Vec::new();
    };
    // `nvidia` is a namespace package: its `__path__` lists every directory that holds a part.
    let asked = std::process::Command::new(python)
        .args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match asked {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .collect(),
        _ => Vec::new(),
    }
}

/// Compiles the CUDA C++ `source` of the file `path` to PTX with the process environment's NVRTC
/// ([`Search::from_env`]).
pub fn compile(path: &Path, source: &str) -> Result<Compiled, CompileError> {
    compile_with(&Toolkit::find(&Search::from_env())?, path, source)
}

/// Reads and compiles the `.cu` file `path` ([`compile`]) for `scopecheck kernel FILE.cu`,
/// through `cache` when given ([`compile_cached`]). The returned PTX starts with the file's first
/// line when that is a `// scopecheck: FLAGS` launch comment, so that the PTX carries the launch
/// the source asks for.
pub fn compile_file(path: &Path, cache: Option<&Cache>) -> Result<Compiled, CompileError> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| CompileError::Source(format!("{}: {e}", path.display())))?;
    let toolkit = Toolkit::find(&Search::from_env())?;
    let mut compiled = compile_cached(&toolkit, path, &source, cache)?;
    if let Some(first) = source.lines().next() {
        let flags = first.trim_start().strip_prefix("//").map(str::trim_start);
        if flags.is_some_and(|f| f.starts_with("scopecheck:")) {
            compiled.ptx = format!("{first}\n{}", compiled.ptx);
        }
    }
    Ok(compiled)
}

/// Compiles with a given toolkit. The program is named `path` as given, which is the file name
/// that NVRTC writes into the PTX's `.file` directive and its diagnostics.
pub fn compile_with(
    toolkit: &Toolkit,
    path: &Path,
    source: &str,
) -> Result<Compiled, CompileError> {
    let text = CString::new(source).map_err(|e| {
        CompileError::Source(format!(
            "{}: the source contains a NUL byte at offset {}",
            path.display(),
            e.nul_position()
        ))
    })?;
    let name = CString::new(path.display().to_string())
        .map_err(|_| CompileError::Source(format!("{}: a NUL byte in the path", path.display())))?;
    toolkit.load()?;
    let program = Program(
        result::create_program(&text, Some(&name))
            .map_err(|e| CompileError::Nvrtc(format!("nvrtcCreateProgram: {e:?}")))?,
    );
    let options = toolkit.options();
    // SAFETY: the program is live until `program` drops; the options are plain strings.
    let compiled = unsafe { result::compile_program(program.0, &options) };
    // SAFETY: as above.
    let log = unsafe { result::get_program_log(program.0) }
        .map(|raw| c_text(&raw))
        .map_err(|e| CompileError::Nvrtc(format!("nvrtcGetProgramLog: {e:?}")))?;
    if compiled.is_err() {
        return Err(CompileError::Compile { log });
    }
    // SAFETY: as above; the compilation succeeded.
    let ptx = unsafe { result::get_ptx(program.0) }
        .map(|raw| c_text(&raw))
        .map_err(|e| CompileError::Nvrtc(format!("nvrtcGetPTX: {e:?}")))?;
    Ok(Compiled {
        ptx,
        log,
        cached: false,
    })
}

/// The loaded NVRTC's version (`nvrtcVersion`: major, minor).
fn version() -> Result<(i32, i32), CompileError> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loaded (`Toolkit::load`); it writes two ints.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| CompileError::Nvrtc(format!("nvrtcVersion: {e:?}")))?;
    Ok((major, minor))
}

/// An NVRTC program, destroyed on drop.
struct Program(cudarc::nvrtc::sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `create_program` and destroyed once.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

/// A NUL-terminated buffer from NVRTC as text.
fn c_text(raw: &[std::ffi::c_char]) -> String {
    // NVRTC's buffers are NUL-terminated (their size counts the NUL).
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
    match CStr::from_bytes_until_nul(&bytes) {
        Ok(text) => text.to_string_lossy().into_owned(),
        Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
    }
}
