//! The model's side of the diff: the axiomatic engine's allowed final states, projected onto the
//! observables the GPU classifies.

use crate::codegen::Observable;
use crate::diff::Allowed;
use scopecheck_model::axiomatic::{self, Model, Options};
use scopecheck_model::litmus::{Program, Value};

/// A model by name or `.cat` path, by the model registry's rules
/// (`scopecheck_model::cat::registry`).
pub fn model(name: &str) -> Result<Model, String> {
    Model::load(name).map_err(|e| e.to_string())
}

/// Every final state the model allows, projected onto `observables`; `none` asks no model.
pub fn allowed(
    program: &Program,
    observables: &[Observable],
    model_name: &str,
) -> Result<Allowed, String> {
    if model_name == "none" {
        return Ok(Allowed {
            model: "none".into(),
            states: None,
            bounded: false,
        });
    }
    let m = model(model_name)?;
    // The observables may name any location.
    let opts = Options {
        memory: axiomatic::FinalMemory::All,
        ..Options::default()
    };
    let analysis =
        axiomatic::analyze(program, m, &opts).map_err(|e| format!("axiomatic engine: {e}"))?;
    let states = analysis
        .states
        .iter()
        .map(|sc| {
            observables
                .iter()
                .map(|o| -> Value {
                    match o {
                        Observable::Reg(t, r) => sc
                            .state
                            .regs
                            .get(&format!("P{t}:{r}"))
                            .copied()
                            .unwrap_or_else(|| program.initial_reg(*t, r)),
                        Observable::Loc(l) => sc
                            .state
                            .mem
                            .get(&program.locations[*l].name)
                            .copied()
                            .unwrap_or_else(|| program.initial_value(*l)),
                    }
                })
                .collect()
        })
        .collect();
    Ok(Allowed {
        model: model_name.to_string(),
        states: Some(states),
        bounded: analysis.bounded,
    })
}
