//! The memory models the engine knows ([`Model`]): the built-in cat models by name, and models
//! loaded from cat text.

use crate::cat::{registry, CatModel};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// The memory models the engine knows, by their command-line names, and models loaded from cat
/// text. Every model's semantics is its cat text ([`crate::cat`]): the named ones are the
/// built-in `.cat` files ([`Model::cat`]).
#[derive(Clone, Debug, Default)]
pub enum Model {
    /// PTX ISA 6.0: scoped, no proxies (`ptx-v6.0.cat`).
    PtxV60,
    /// PTX ISA 7.5: scoped, with proxies and aliases (`ptx-v7.5.cat`).
    #[default]
    PtxV75,
    /// Tile IR: scopes tile_block/device/sys; only token order orders one tile block's
    /// accesses (`tile-ir.cat`).
    TileIr,
    /// A model written in cat ([`crate::cat`]): a built-in `.cat` file or the user's own.
    Cat(Arc<CatModel>),
}

impl PartialEq for Model {
    fn eq(&self, other: &Model) -> bool {
        match (self, other) {
            (Model::Cat(a), Model::Cat(b)) => Arc::ptr_eq(a, b),
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl Eq for Model {}

impl std::hash::Hash for Model {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        if let Model::Cat(m) = self {
            Arc::as_ptr(m).hash(h);
        }
    }
}

/// A registered model other than the three with variants of their own, compiled once per
/// process, so that every use of one name is one model (equal under `==`).
fn registered_cat(m: &'static registry::Registered) -> Arc<CatModel> {
    static COMPILED: Mutex<BTreeMap<&'static str, Arc<CatModel>>> = Mutex::new(BTreeMap::new());
    let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(compiled.entry(m.name).or_insert_with(|| {
        Arc::new(CatModel::builtin(m.name).expect("a registered model compiles"))
    }))
}

/// A built-in model, compiled once per process.
fn builtin(cell: &'static OnceLock<Arc<CatModel>>, name: &str) -> &'static Arc<CatModel> {
    cell.get_or_init(|| Arc::new(CatModel::builtin(name).expect("a built-in model")))
}

/// Why a model name could not be turned into a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// Neither a registered name nor a `.cat` path.
    Unknown(registry::UnknownModel),
    /// A `.cat` file that cannot be read or compiled.
    Cat(crate::cat::CatError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unknown(e) => e.fmt(f),
            ModelError::Cat(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {}

impl ModelError {
    /// The error as the command line prints it: one line, and for a cat error the source line
    /// with the place underlined ([`crate::cat::CatError::render`]).
    pub fn render(&self) -> String {
        match self {
            ModelError::Unknown(e) => e.to_string(),
            ModelError::Cat(e) => e.render(),
        }
    }
}

impl Model {
    /// The models with variants of their own (see [`crate::cat::registry::MODELS`] for every
    /// registered model).
    pub const ALL: [Model; 3] = [Model::PtxV75, Model::PtxV60, Model::TileIr];

    /// A registered model by name or alias, with or without `.cat`
    /// ([`crate::cat::registry`]): `ptx-v7.5`, `ptx-v6.0`, `ptx-v8`, `ptx-v8-lenient`,
    /// `tile-ir`, `vulkan`, `vulkan-nochains`, `opencl`.
    pub fn from_name(name: &str) -> Option<Model> {
        registry::find(name).map(Model::registered)
    }

    /// The model a registry entry stands for.
    pub fn registered(m: &'static registry::Registered) -> Model {
        match m.name {
            "ptx-v7.5" => Model::PtxV75,
            "ptx-v6.0" => Model::PtxV60,
            "tile-ir" => Model::TileIr,
            _ => Model::Cat(registered_cat(m)),
        }
    }

    /// A model by name or path, as `--model` takes it: the registry's rules
    /// ([`crate::cat::registry`]), a relative path read from the current directory.
    pub fn load(name_or_path: &str) -> Result<Model, ModelError> {
        Model::load_from(name_or_path, None)
    }

    /// A model by name or path, as a `MANIFEST.csv` row names it: a relative path is read from
    /// `base` (the manifest's directory; `None`: the current directory).
    pub fn load_from(
        name_or_path: &str,
        base: Option<&std::path::Path>,
    ) -> Result<Model, ModelError> {
        match registry::resolve(name_or_path, base).map_err(ModelError::Unknown)? {
            registry::ModelRef::Registered(m) => Ok(Model::registered(m)),
            registry::ModelRef::File(path) => CatModel::load(&path)
                .map(|m| Model::Cat(Arc::new(m)))
                .map_err(ModelError::Cat),
        }
    }

    /// The cat model that gives this model its semantics.
    pub fn cat(&self) -> &Arc<CatModel> {
        static PTX_V60: OnceLock<Arc<CatModel>> = OnceLock::new();
        static PTX_V75: OnceLock<Arc<CatModel>> = OnceLock::new();
        static TILE_IR: OnceLock<Arc<CatModel>> = OnceLock::new();
        match self {
            Model::PtxV60 => builtin(&PTX_V60, "ptx-v6.0"),
            Model::PtxV75 => builtin(&PTX_V75, "ptx-v7.5"),
            Model::TileIr => builtin(&TILE_IR, "tile-ir"),
            Model::Cat(m) => m,
        }
    }

    /// Whether the model has a No-Thin-Air axiom (reads-from with dependencies is acyclic).
    pub fn forbids_thin_air(&self) -> bool {
        self.cat().forbids_thin_air()
    }

    /// Whether a cycle of reads-from and data flow may justify any value
    /// ([`CatModel::thin_air_values`]).
    pub fn thin_air_values(&self) -> bool {
        self.cat().thin_air_values()
    }

    /// Whether the model reads one of the base sets or relations named `names`
    /// ([`CatModel::reads_any`]).
    pub fn reads_any(&self, names: &[&str]) -> bool {
        self.cat().reads_any(names)
    }

    /// One of the built-in PTX models (`ptx-v6.0`, `ptx-v7.5`, `ptx-v8`): under PTX a racy weak
    /// read still returns a value the axioms allow, so races are reported only when asked for.
    pub fn is_ptx(&self) -> bool {
        matches!(self, Model::PtxV60 | Model::PtxV75)
            || Model::from_name("ptx-v8").as_ref() == Some(self)
    }

    /// Whether the model defines data races (a cat model with a `flag`).
    pub fn defines_races(&self) -> bool {
        self.cat()
            .checks()
            .iter()
            .any(|(_, class)| *class == crate::cat::CheckClass::Flag)
    }

    /// The model's registered name (`ptx-v6.0`, `ptx-v7.5`, `tile-ir`, or the cat model's
    /// own), as `--model` takes it and reports print it.
    pub fn name(&self) -> &str {
        match self {
            Model::PtxV60 => "ptx-v6.0",
            Model::PtxV75 => "ptx-v7.5",
            Model::TileIr => "tile-ir",
            Model::Cat(m) => m.name(),
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
