//! The state spaces instructions name.

/// A PTX state space as an instruction names it (`.param` and `.reg` aside).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// No state space: a generic address.
    Generic,
    /// `.global`.
    Global,
    /// `.shared` / `.shared::cta`.
    Shared,
    /// `.shared::cluster`.
    SharedCluster,
    /// `.local`.
    Local,
    /// `.const`.
    Const,
    /// `.param` (kernel and function parameters).
    Param,
}

impl Space {
    /// The state space a modifier names.
    pub fn parse(m: &str) -> Option<Space> {
        Some(match m {
            "global" => Space::Global,
            "shared" | "shared::cta" => Space::Shared,
            "shared::cluster" => Space::SharedCluster,
            "local" => Space::Local,
            "const" => Space::Const,
            "param" | "param::entry" | "param::func" => Space::Param,
            _ => return None,
        })
    }
}
