//! Every model check that reads the shared oracle (Dartagnan's PTX, Vulkan and OpenCL suites with
//! their verdicts, in `shared/oracle` beside the repository or under `$SCOPECHECK_SHARED`), one
//! libtest-mimic trial each (`shared_oracle::FILE::CHECK`): without the oracle each is an
//! *ignored* trial that says why, never a pass (libtest has no run-time skip). The checks
//! themselves live next to their siblings in the files included here.

#[allow(dead_code, unused_imports)]
#[path = "axiomatic_states_only.rs"]
mod axiomatic_states_only;
#[allow(dead_code, unused_imports)]
#[path = "kernel_litmus.rs"]
mod kernel_litmus;
#[allow(dead_code, unused_imports)]
#[path = "litmus_parse.rs"]
mod litmus_parse;
#[allow(dead_code, unused_imports)]
#[path = "litmus_states.rs"]
mod litmus_states;
#[path = "oracle/opencl.rs"]
mod opencl_oracle;
#[path = "oracle/suite.rs"]
mod oracle_suite;
#[path = "oracle/ptx.rs"]
mod ptx_oracle;
#[path = "oracle/vulkan.rs"]
mod vulkan_oracle;

use libtest_mimic::{Completion, Trial};
use std::path::{Path, PathBuf};

type Check = fn(&Path);

/// One trial per check; each is ignored, with the reason, when `shared` is `None`.
pub fn trials(shared: Option<&Path>) -> Vec<Trial> {
    let checks: [(&str, Check); 9] = [
        (
            "litmus_parse::parses_and_round_trips_every_oracle_test",
            litmus_parse::parses_and_round_trips_every_oracle_test,
        ),
        (
            "axiomatic_states_only::agrees_with_counting_on_the_shared_oracle_tests",
            axiomatic_states_only::agrees_with_counting_on_the_shared_oracle_tests,
        ),
        (
            "ptx_oracle::ptx_models_agree_with_dartagnan",
            ptx_oracle::ptx_models_agree_with_dartagnan,
        ),
        (
            "litmus_states::agrees_with_the_dfs_on_the_shared_oracle_tests",
            litmus_states::agrees_with_the_dfs_on_the_shared_oracle_tests,
        ),
        (
            "kernel_litmus::runtime_outcomes_are_within_the_axiomatic_ones_on_the_oracle_tests",
            kernel_litmus::runtime_outcomes_are_within_the_axiomatic_ones_on_the_oracle_tests,
        ),
        (
            "vulkan_oracle::vulkan_tests_parse_and_round_trip",
            vulkan_oracle::vulkan_tests_parse_and_round_trip,
        ),
        (
            "vulkan_oracle::vulkan_models_agree_with_dartagnan",
            vulkan_oracle::vulkan_models_agree_with_dartagnan,
        ),
        (
            "opencl_oracle::opencl_tests_parse_and_round_trip",
            opencl_oracle::opencl_tests_parse_and_round_trip,
        ),
        (
            "opencl_oracle::opencl_model_agrees_with_dartagnan",
            opencl_oracle::opencl_model_agrees_with_dartagnan,
        ),
    ];
    checks
        .into_iter()
        .map(|(name, check)| {
            let shared: Option<PathBuf> = shared.map(Path::to_path_buf);
            Trial::ignorable_test(format!("shared_oracle::{name}"), move || match shared {
                None => Ok(Completion::ignored_with(
                    "no oracle/ptx/expected.csv in $SCOPECHECK_SHARED or ../shared",
                )),
                Some(dir) => {
                    check(&dir);
                    Ok(Completion::Completed)
                }
            })
        })
        .collect()
}
