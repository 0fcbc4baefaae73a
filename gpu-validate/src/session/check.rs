//! The default mode: run every test, print its histogram, record violations; `--tune` first
//! searches an environment per test.

use super::core::Session;
use super::options::Test;
use super::output::TunedRow;
use super::text::format_record;
use crate::record::{self, TestRecord};
use crate::tune::{self, TunedEnv};

impl Session<'_> {
    /// Runs every test and says its diff; false when anything failed or a violation showed.
    pub fn check_all(&mut self, tests: &[Test]) -> bool {
        let mut ok = true;
        for t in tests {
            let rec = if let Some(n) = self.options.tune {
                self.tune_and_run(t, n)
            } else {
                let (params, env) = self.params_for(t);
                self.run_one(t, &t.program, &params, &env)
            };
            let Some(rec) = rec else {
                ok = false;
                continue;
            };
            self.say(&format_record(&rec));
            if rec.diff.violations > 0 {
                ok = false;
                match record::write_violation(&self.options.violations, &rec) {
                    Ok(p) => self.say(&format!("  VIOLATION recorded in {}", p.display())),
                    Err(e) => self
                        .log
                        .err(&format!("  VIOLATION could not be recorded: {e}")),
                }
            }
            if rec.error.is_some() || !rec.diff.unknown_keys.is_empty() {
                ok = false;
            }
            self.out.tests.push(rec);
        }
        ok
    }

    /// `--tune N`: samples environments, keeps the best, writes it beside the test, runs with it.
    pub fn tune_and_run(&mut self, t: &Test, n: usize) -> Option<TestRecord> {
        let (compiled, allowed) = self.prepare(&t.file, &t.program)?;
        let (base, _) = self.params_for(t);
        let budget = self.options.tune_budget;
        let trials = match tune::tune(
            self.gpu,
            &compiled,
            &t.program,
            &allowed,
            &base,
            n.max(1),
            budget,
        ) {
            Ok(tr) => tr,
            Err(e) => {
                self.skip(&t.file, e.to_string(), false);
                return None;
            }
        };
        let best = trials[0].clone();
        let default_rate = trials
            .iter()
            .find(|tr| tr.params.seed == base.seed)
            .map_or(0.0, |tr| tr.rate);
        let env = TunedEnv {
            test: t.program.name.clone(),
            device: self.gpu.info.clone(),
            date: self.date.clone(),
            budget_per_trial: budget,
            params: best.params.clone(),
            rate: best.rate,
            trials,
        };
        let path = tune::env_path(&t.file);
        let json = serde_json::to_string_pretty(&env).expect("environments serialise");
        if let Err(e) = std::fs::write(&path, json + "\n") {
            self.skip(&t.file, format!("writing {}: {e}", path.display()), false);
            return None;
        }
        self.say(&format!(
            "{}: tuned over {} environments of {} instances: weak rate {:.4}% (defaults {:.4}%), written to {}",
            t.file.display(),
            env.trials.len(),
            budget,
            100.0 * best.rate,
            100.0 * default_rate,
            path.display()
        ));
        self.out.tuned.push(TunedRow {
            test: t.program.name.clone(),
            env_file: path.display().to_string(),
            trials: env.trials.len(),
            budget_per_trial: budget,
            rate: best.rate,
            default_rate,
        });
        let params = self.options.with_env(&best.params);
        let source = format!("tuned: {}", path.display());
        self.run_compiled(t, &t.program, &compiled, &allowed, &params, &source)
    }
}
