//! Every model test that reads the shared oracle (Dartagnan's PTX suite with its verdicts, in
//! `shared/oracle/ptx` beside the repository or under `$SCOPECHECK_SHARED`), in one
//! `harness = false` target: without the oracle each is reported as *skipped*, in the closing line
//! `shared_oracle: N passed, N failed, N skipped`, never as passed (libtest has no run-time skip).
//! The checks themselves live next to their siblings in the files included here.

#[allow(dead_code, unused_imports)]
#[path = "axiomatic_states_only.rs"]
mod axiomatic_states_only;
mod common_shared;
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

use std::path::Path;
use std::process::ExitCode;

type Check = fn(&Path);

fn main() -> ExitCode {
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
    // Like libtest, free arguments select the checks whose name contains one of them.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let selected: Vec<(&str, Check)> = checks
        .into_iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    let shared = common_shared::shared_dir();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    println!("running {} tests", selected.len());
    for (name, check) in selected {
        match &shared {
            None => {
                println!(
                    "test {name} ... SKIPPED: no oracle/ptx/expected.csv in $SCOPECHECK_SHARED or ../shared"
                );
                skipped += 1;
            }
            Some(dir) => match std::panic::catch_unwind(|| check(dir)) {
                Ok(()) => {
                    println!("test {name} ... ok");
                    passed += 1;
                }
                Err(_) => {
                    println!("test {name} ... FAILED");
                    failed += 1;
                }
            },
        }
    }
    println!();
    println!("shared_oracle: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
