//! TEMPORARY until the axiomatic branch is merged: only `--model none`.
use crate::codegen::Observable;
use crate::diff::Allowed;
use scopecheck_model::litmus::Program;
pub fn allowed(_: &Program, _: &[Observable], model_name: &str) -> Result<Allowed, String> {
    if model_name == "none" {
        return Ok(Allowed { model: "none".into(), states: None, bounded: false });
    }
    Err(format!("model `{model_name}`: the axiomatic engine is not merged yet"))
}
