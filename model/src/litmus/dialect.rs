//! The dialects other than PTX's a litmus test may be written in, as the rest of scopecheck
//! needs to know them: the name its header gives it, and what a model must read to judge it.
//! The IR records only the name ([`crate::litmus::Program::dialect`]); each dialect's module
//! (`vulkan`, `opencl`) parses, prints and lowers it.

use super::ir::Program;
use super::{opencl, vulkan};

/// A dialect other than PTX's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// Its name, as the header's first word writes it (`VULKAN`).
    pub name: &'static str,
    /// The base sets and relations only its tests give events: a model that reads none of
    /// them is no model of this dialect (see `Model::reads_any`).
    pub own_names: &'static [&'static str],
    /// What a test needs when the model is not one of the dialect's, as the refusal says it:
    /// "a Vulkan test needs a Vulkan model: --model vulkan.cat ...".
    pub needs: &'static str,
}

/// Every dialect other than PTX's.
pub const DIALECTS: &[Dialect] = &[
    Dialect {
        name: vulkan::DIALECT,
        own_names: vulkan::OWN_NAMES,
        needs: "a Vulkan test needs a Vulkan model: --model vulkan.cat (or vulkan-nochains.cat)",
    },
    Dialect {
        name: opencl::DIALECT,
        own_names: opencl::OWN_NAMES,
        needs: "an OpenCL test needs an OpenCL model: --model opencl.cat",
    },
];

/// The dialect `p` was written in; `None` for PTX's (and Tile IR's).
pub fn of(p: &Program) -> Option<&'static Dialect> {
    DIALECTS.iter().find(|d| d.name == p.dialect())
}

/// Why `model` cannot judge `p`: `p` is written in a dialect whose own names
/// ([`Dialect::own_names`]) the model reads none of (`reads_any` says whether it reads one).
pub fn refusal(p: &Program, reads_any: impl Fn(&[&str]) -> bool) -> Option<&'static str> {
    of(p).filter(|d| !reads_any(d.own_names)).map(|d| d.needs)
}
