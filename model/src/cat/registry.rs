//! The model registry: the one place that says which memory models ship with scopecheck and how
//! a model is named, on the command line (`--model`) and in a corpus `MANIFEST.csv` row alike.
//!
//! A model is named by
//! 1. a registered name or one of its aliases ([`MODELS`]: `ptx-v7.5`, `ptx-v8`, `vulkan`, …);
//! 2. a registered name followed by `.cat` (`ptx-v7.5.cat`), given without a directory: the same
//!    built-in model as its name, identical in every respect;
//! 3. a path to a `.cat` file (relative to the current directory on the command line, to the
//!    manifest's directory in a `MANIFEST.csv` row): the user's own model, named after its file
//!    (without `.cat`), even where its text is a registered model's.
//!
//! Anything else is an unknown model, and the error lists the registered names. The files that
//! the registered models include (`ptx-v8-order.cat`, `vulkan-sync.cat`, …) are parts of models,
//! not models: `include` reads them ([`FRAGMENTS`]), `--model` does not take them.

use std::fmt;
use std::path::{Path, PathBuf};

/// A memory model that ships with scopecheck, as a cat file compiled into the binary.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The name `--model` and `MANIFEST.csv` rows use (also the file name, without `.cat`).
    pub name: &'static str,
    /// Other names accepted for it (older spellings).
    pub aliases: &'static [&'static str],
    /// The model's cat text (`model/cat/<name>.cat`).
    pub text: &'static str,
    /// One line on what the model is, for `--help`.
    pub about: &'static str,
}

impl Registered {
    /// The model's file name: its name followed by `.cat`.
    pub fn file(&self) -> String {
        format!("{}.cat", self.name)
    }

    /// Whether `name` names this model: its name or an alias, with or without `.cat`.
    pub fn answers_to(&self, name: &str) -> bool {
        let bare = name.strip_suffix(".cat").unwrap_or(name);
        self.name == bare || self.aliases.contains(&bare)
    }
}

/// The models that ship with scopecheck, in the order `--help` lists them.
pub const MODELS: &[Registered] = &[
    Registered {
        name: "ptx-v7.5",
        aliases: &["ptx75", "ptx"],
        text: include_str!("../../cat/ptx-v7.5.cat"),
        about: "PTX ISA memory consistency model with proxies and aliases (the default)",
    },
    Registered {
        name: "ptx-v6.0",
        aliases: &["ptx60"],
        text: include_str!("../../cat/ptx-v6.0.cat"),
        about: "PTX ISA 6.0: scoped, no proxies",
    },
    Registered {
        name: "ptx-v8",
        aliases: &["ptx80"],
        text: include_str!("../../cat/ptx-v8.cat"),
        about: "ptx-v7.5 with the async proxy, bulk copies, mbarriers and clusters (Hopper)",
    },
    Registered {
        name: "ptx-v8-lenient",
        aliases: &[],
        text: include_str!("../../cat/ptx-v8-lenient.cat"),
        about:
            "ptx-v8 ordering a generic read before a later bulk copy's write without a proxy fence",
    },
    Registered {
        name: "tile-ir",
        aliases: &["tileir"],
        text: include_str!("../../cat/tile-ir.cat"),
        about: "Tile IR: token order in place of program order",
    },
    Registered {
        name: "vulkan",
        aliases: &[],
        text: include_str!("../../cat/vulkan.cat"),
        about: "Vulkan memory model with availability and visibility chains",
    },
    Registered {
        name: "vulkan-nochains",
        aliases: &[],
        text: include_str!("../../cat/vulkan-nochains.cat"),
        about: "Vulkan memory model without availability and visibility chains",
    },
    Registered {
        name: "opencl",
        aliases: &[],
        text: include_str!("../../cat/opencl.cat"),
        about: "OpenCL 2.0 (scoped C11)",
    },
];

/// The files the registered models include, by file name: parts of models, read by `include`.
pub const FRAGMENTS: &[(&str, &str)] = &[
    (
        "ptx-v8-order.cat",
        include_str!("../../cat/ptx-v8-order.cat"),
    ),
    (
        "ptx-v8-axioms.cat",
        include_str!("../../cat/ptx-v8-axioms.cat"),
    ),
    ("vulkan-sync.cat", include_str!("../../cat/vulkan-sync.cat")),
    (
        "vulkan-axioms.cat",
        include_str!("../../cat/vulkan-axioms.cat"),
    ),
];

/// The registered model `name` names (rules 1 and 2 of the module documentation).
pub fn find(name: &str) -> Option<&'static Registered> {
    MODELS.iter().find(|m| m.answers_to(name))
}

/// What a model name (`--model`, a `MANIFEST.csv` row) stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelRef {
    /// A registered model.
    Registered(&'static Registered),
    /// A cat file of the user's, at this path.
    File(PathBuf),
}

/// A name that is neither a registered model nor a `.cat` path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownModel(pub String);

impl fmt::Display for UnknownModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown model `{}` (known: {}, or the path to a .cat file)",
            self.0,
            names().join(", ")
        )
    }
}

impl std::error::Error for UnknownModel {}

/// The registered models' names, in [`MODELS`] order.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

/// Resolves a model name by the rules of the module documentation; `base` is the directory a
/// relative path is read from (`None`: the current directory). A path is not read here.
pub fn resolve(name: &str, base: Option<&Path>) -> Result<ModelRef, UnknownModel> {
    let has_dir = name.contains('/') || name.contains(std::path::MAIN_SEPARATOR);
    if !has_dir {
        if let Some(m) = find(name) {
            return Ok(ModelRef::Registered(m));
        }
    }
    if name.ends_with(".cat") && name != ".cat" {
        let path = Path::new(name);
        let path = match base {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        return Ok(ModelRef::File(path));
    }
    Err(UnknownModel(name.to_string()))
}

/// The `--help` paragraph listing every registered model, one per line.
pub fn help() -> String {
    let width = MODELS.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let mut out = String::from(
        "Memory model: a registered name (NAME or NAME.cat, the same model), or the path to your own .cat file:",
    );
    for m in MODELS {
        out.push_str(&format!("\n  {:width$}  {}", m.name, m.about));
    }
    out
}
