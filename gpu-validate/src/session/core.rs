//! One device's session, and the step every mode shares: generate the harness, get the model's
//! allowed set, compile, run, diff.

use super::options::{Log, Options, Test};
use super::output::{Output, Skipped};
use crate::diff::{self, Allowed};
use crate::record::TestRecord;
use crate::runner::{Compiled, Gpu, Params};
use crate::{codegen, confidence, oracle, tune};
use scopecheck_model::litmus::{self, Program};
use std::fmt::Write as _;
use std::path::Path;

/// What one device does for a run: the options, the device, and the record it fills.
pub struct Session<'a> {
    /// What the run is asked to do.
    pub options: &'a Options,
    /// The device.
    pub gpu: &'a Gpu,
    /// When the run started (UTC).
    pub date: String,
    /// What `--json` writes for this device.
    pub out: Output,
    /// `[gpu N] ` when several devices print at once.
    pub prefix: String,
    /// Where lines go.
    pub log: &'a dyn Log,
}

impl Session<'_> {
    /// Says a block of lines at once, each with the device prefix (workers of several devices
    /// interleave whole blocks).
    pub fn say(&self, text: &str) {
        let mut block = String::new();
        for line in text.lines() {
            let _ = writeln!(block, "{}{line}", self.prefix);
        }
        self.log.out(&block);
    }

    /// The settings a test runs with, and where they came from.
    pub fn params_for(&mut self, t: &Test) -> (Params, String) {
        if self.options.tuned {
            if let Some(path) = tune::find_env(&t.file) {
                match tune::read_env(&path) {
                    Ok(env) => {
                        return (
                            self.options.with_env(&env.params),
                            format!("tuned: {}", path.display()),
                        )
                    }
                    Err(e) => self.say(&format!("{e}; using the command line's settings")),
                }
            }
        }
        (self.options.params.clone(), "command line".into())
    }

    /// Records a test that did not run: `unsupported` when the harness cannot express it.
    pub fn skip(&mut self, file: &Path, reason: String, unsupported: bool) {
        self.say(&format!("{}: {reason}", file.display()));
        let s = Skipped {
            file: file.display().to_string(),
            reason,
        };
        if unsupported {
            self.out.unsupported.push(s);
        } else {
            self.out.errors.push(s);
        }
    }

    /// Generate, compile and the model's allowed set, or why not.
    pub fn prepare(&mut self, file: &Path, program: &Program) -> Option<(Compiled, Allowed)> {
        let harness = match codegen::generate(program) {
            Ok(h) => h,
            Err(u) => {
                self.skip(file, u.to_string(), true);
                return None;
            }
        };
        let allowed = match oracle::allowed(program, &harness.observables, &self.options.model) {
            Ok(a) => a,
            Err(e) => {
                // The hardware's answer is still worth having: run, and list it unjudged.
                let reason = format!("{e}; running without a verdict");
                self.skip(file, reason.clone(), false);
                Allowed {
                    model: format!("{} (no verdict: {e})", self.options.model),
                    states: None,
                    bounded: false,
                }
            }
        };
        match self.gpu.compile(&harness) {
            Ok(c) => Some((c, allowed)),
            Err(e) => {
                self.skip(file, e.to_string(), false);
                None
            }
        }
    }

    /// Prepares and runs `program` (the test's own, or a mutant of it) with `params`.
    pub fn run_one(
        &mut self,
        t: &Test,
        program: &Program,
        params: &Params,
        env: &str,
    ) -> Option<TestRecord> {
        let (compiled, allowed) = self.prepare(&t.file, program)?;
        self.run_compiled(t, program, &compiled, &allowed, params, env)
    }

    /// Runs a compiled harness and diffs what it saw against `allowed`.
    pub fn run_compiled(
        &mut self,
        t: &Test,
        program: &Program,
        compiled: &Compiled,
        allowed: &Allowed,
        params: &Params,
        env: &str,
    ) -> Option<TestRecord> {
        let result = match self.gpu.run(compiled, params) {
            Ok(r) => r,
            Err(e) => {
                self.skip(&t.file, e.to_string(), false);
                return None;
            }
        };
        let d = diff::diff(program, &compiled.harness, allowed, &result);
        let weak = d.target_count(program, &compiled.harness.observables);
        Some(TestRecord {
            weak,
            reproducible: confidence::reproducible(weak, self.options.confidence),
            confidence: self.options.confidence,
            env: env.to_string(),
            name: program.name.clone(),
            file: t.file.display().to_string(),
            device: self.gpu.info.clone(),
            date: self.date.clone(),
            params: params.clone(),
            instances: result.instances,
            seconds: result.seconds,
            instances_per_s: result.instances as f64 / result.seconds.max(1e-9),
            diff: d,
            error: result.error,
            litmus: if program == &t.program {
                t.source.clone()
            } else {
                litmus::print(program)
            },
        })
    }
}
