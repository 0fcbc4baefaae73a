//! `scopecheck kernel FILE.ptx`: check a CUDA kernel's PTX on the scoped runtime (every CUDA
//! thread's PTX interpreted, `scopecheck_model::ptx`). Exit 0: verified, or no failure within
//! the bound (the output says which); 1: a failure; 2: bad input.

use clap::Parser;
use scopecheck_model::kernel::Checker;
use scopecheck_model::ptx::launch::{check_ptx, Launch};
use std::process::ExitCode;

/// Arguments of `scopecheck kernel`.
#[derive(Parser)]
pub struct Args {
    /// The kernel: a `.ptx` file, or a `.cu` file that NVRTC compiles to PTX first.
    pub file: String,
    /// Grid size `X[,Y[,Z]]` in blocks.
    #[arg(long)]
    pub grid: Option<String>,
    /// Block size `X[,Y[,Z]]` in threads.
    #[arg(long)]
    pub block: Option<String>,
    /// Cluster size `X[,Y[,Z]]` in blocks.
    #[arg(long)]
    pub cluster: Option<String>,
    /// A kernel argument: `NAME=TYPE[N][=v,v,...]` (a global buffer) or `NAME=VALUE`.
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// A tiled tensor map (`CUtensorMap`) for a tensor-map parameter:
    /// `NAME=BUFFER:TYPE:DIMS:BOX[:STRIDES]`. NAME: the PTX parameter (else the next 128-byte
    /// `.b8` parameter); BUFFER: an `--arg` buffer the tensor starts at; TYPE: its element type;
    /// DIMS `D0[xD1]` and BOX `B0[xB1]`: the tensor's and the box's sizes in elements, dimension
    /// 0 (contiguous) first; STRIDES: the row stride in elements (default D0). Example:
    /// `--arg a=f32[256] --tensor-map tmap=a:f32:16x16:8x4`.
    #[arg(long = "tensor-map")]
    pub tensor_maps: Vec<String>,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long = "dynamic-smem")]
    pub dynamic_smem: Option<String>,
    /// The `.entry` to launch (when the module has several).
    #[arg(long)]
    pub entry: Option<String>,
    /// Engine: dfs (exhaustive), random, pct, loom.
    #[arg(long, default_value = "dfs")]
    pub engine: String,
    /// Executions: the DFS's budget, or the random/PCT engines' iterations.
    #[arg(long)]
    pub budget: Option<u64>,
    /// Stop exploring after this many seconds of wall-clock time: a verdict cut short by it is
    /// bounded (as with --budget). Also `--timeout S` in the file's `// scopecheck:` line.
    #[arg(long)]
    pub timeout: Option<String>,
    /// Report every distinct failure, not only the first.
    #[arg(long)]
    pub all_failures: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Compile a `.cu` with NVRTC even when the PTX cache (`$XDG_CACHE_HOME/scopecheck/ptx`, else
    /// `~/.cache/scopecheck/ptx`) holds the same compilation.
    #[arg(long)]
    pub no_cache: bool,
}

/// Run `scopecheck kernel`.
pub fn run(args: Args) -> ExitCode {
    match check(&args) {
        Ok((report, text)) => {
            println!("{text}");
            ExitCode::from(if report.passed() { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(args: &Args) -> Result<(scopecheck_model::kernel::Report, String), String> {
    let source = if args.file.ends_with(".cu") {
        #[cfg(feature = "gpu")]
        {
            use scopecheck_gpu::nvrtc::{compile_file, Cache};
            let cache = Cache::from_env().filter(|_| !args.no_cache);
            compile_file(std::path::Path::new(&args.file), cache.as_ref())
                .map_err(|e| e.to_string())?
                .ptx
        }
        #[cfg(not(feature = "gpu"))]
        return Err(super::NO_GPU.replace("{what}", "compiling a .cu file (NVRTC)"));
    } else {
        std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file))?
    };
    let mut launch = Launch::default();
    let mut set = Vec::new();
    for (name, value) in [
        ("grid", &args.grid),
        ("block", &args.block),
        ("cluster", &args.cluster),
        ("dynamic-smem", &args.dynamic_smem),
        ("entry", &args.entry),
        ("timeout", &args.timeout),
    ] {
        if let Some(v) = value {
            launch.set(name, v)?;
            set.push(name);
        }
    }
    for a in &args.args {
        launch.set("arg", a)?;
    }
    for m in &args.tensor_maps {
        launch.set("tensor-map", m)?;
    }
    let checker = checker(args)?;
    let report = check_ptx(&source, &args.file, &launch, &set, checker)?;
    let text = if args.json {
        let failures: Vec<serde_json::Value> = report
            .failures
            .iter()
            .map(|f| {
                serde_json::json!({
                    "kind": f.kind.to_string(),
                    "headline": f.headline,
                    "details": f.details,
                    "trace": f.trace,
                    "token": f.token.to_string(),
                })
            })
            .collect();
        serde_json::json!({
            "kernel": report.kernel,
            "file": args.file,
            "engine": report.engine,
            "verdict": if report.passed() { "pass" } else { "fail" },
            "complete": report.complete,
            "bounded": !report.complete,
            "executions": report.executions,
            "seconds": report.wall.as_secs_f64(),
            "failures": failures,
        })
        .to_string()
    } else {
        report.to_string()
    };
    Ok((report, text))
}

fn checker(args: &Args) -> Result<Checker, String> {
    let mut c = match (args.engine.as_str(), args.budget) {
        ("dfs", None) => Checker::dfs(),
        ("dfs", Some(n)) => Checker::dfs_budget(n),
        ("random", n) => Checker::random(n.unwrap_or(1000) as usize, 1),
        ("pct", n) => Checker::pct(n.unwrap_or(1000) as usize, 3, 1),
        ("loom", _) => Checker::loom(),
        (other, _) => return Err(format!("unknown engine `{other}` (dfs, random, pct, loom)")),
    };
    if args.all_failures {
        c = c.all_failures();
    }
    Ok(c)
}
