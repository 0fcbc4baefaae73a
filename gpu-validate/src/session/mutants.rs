//! `--mutants`: MC Mutants' mutation score. Each test whose weak outcome the model forbids is
//! weakened one ordering or scope at a time; a mutant whose (now allowed) weak outcome the device
//! shows is killed.

use super::core::Session;
use super::options::Test;
use super::output::{MutantRow, MutationScore, OperatorRow};
use crate::mutate::{self, Operator, Side};
use crate::{codegen, diff, oracle, record};
use scopecheck_model::litmus::Program;
use std::collections::BTreeMap;
use std::fmt::Write as _;

impl Session<'_> {
    /// Runs every live mutant of every test, then says the score and the table per operator;
    /// false when a test could not be judged or a violation showed.
    pub fn mutants(&mut self, tests: &[Test]) -> bool {
        let (mut live, mut killed) = (0usize, 0usize);
        let mut table: BTreeMap<(Operator, Side), (usize, usize)> = BTreeMap::new();
        let mut budget = 0u64;
        let mut ok = true;
        for t in tests {
            let harness = match codegen::generate(&t.program) {
                Ok(h) => h,
                Err(u) => {
                    self.skip(&t.file, u.to_string(), true);
                    continue;
                }
            };
            let model = self.options.model.clone();
            let allowed = match oracle::allowed(&t.program, &harness.observables, &model) {
                Ok(a) => a,
                Err(e) => {
                    self.skip(&t.file, e, false);
                    ok = false;
                    continue;
                }
            };
            let target =
                |p: &Program, values: &[i64]| diff::is_target(p, &harness.observables, values);
            let Some(states) = &allowed.states else {
                self.skip(
                    &t.file,
                    "--mutants needs a model (not `none`)".into(),
                    false,
                );
                ok = false;
                continue;
            };
            if states.iter().any(|s| target(&t.program, s)) {
                continue; // the model allows this shape's weak outcome: no mutants to make
            }
            // Mutants run in the environment of the test they come from.
            let (params, env) = self.params_for(t);
            budget = budget.max(params.launches << params.instances_log2.clamp(5, 26));
            self.say(&format!(
                "== {} (weak outcome forbidden by {model}; {env})",
                t.program.name
            ));
            for m in mutate::mutants(&t.program) {
                let Ok(mh) = codegen::generate(&m.program) else {
                    continue;
                };
                let Ok(ma) = oracle::allowed(&m.program, &mh.observables, &model) else {
                    continue;
                };
                if !ma
                    .states
                    .iter()
                    .flatten()
                    .any(|s| diff::is_target(&m.program, &mh.observables, s))
                {
                    continue; // still forbidden: not a live mutant
                }
                live += 1;
                let Some(rec) = self.run_one(t, &m.program, &params, &env) else {
                    ok = false;
                    continue;
                };
                let weak = rec.weak;
                let is_killed = weak > 0;
                killed += usize::from(is_killed);
                let row = table.entry((m.operator, m.side)).or_default();
                row.0 += 1;
                row.1 += usize::from(is_killed);
                self.say(&format!(
                    "  {:<40} {:<22} {:>12} instances, weak {:>9}  {}{}",
                    m.what,
                    m.operator.name(),
                    rec.instances,
                    weak,
                    if is_killed { "killed" } else { "survived" },
                    if rec.diff.spin_misses > 0 {
                        format!(" ({} spins gave up)", rec.diff.spin_misses)
                    } else {
                        String::new()
                    }
                ));
                if rec.diff.violations > 0 {
                    ok = false;
                    if let Ok(p) = record::write_violation(&self.options.violations, &rec) {
                        self.say(&format!("  VIOLATION recorded in {}", p.display()));
                    }
                }
                self.out.mutants.push(MutantRow {
                    test: t.program.name.clone(),
                    mutation: m.what.clone(),
                    operator: m.operator,
                    side: m.side,
                    instances: rec.instances,
                    weak,
                    killed: is_killed,
                    reproducible: rec.reproducible,
                });
                self.out.tests.push(rec);
            }
        }
        let mut text = format!(
            "mutation score: {killed}/{live} live mutants killed, budget {budget} instances each\n\
             {:<24} {:<6} {:>5} {:>7} {:>12}\n",
            "operator", "side", "live", "killed", "never shown"
        );
        for op in Operator::ALL {
            for ((o, side), (l, k)) in &table {
                if *o != op {
                    continue;
                }
                let _ = writeln!(
                    text,
                    "{:<24} {:<6} {:>5} {:>7} {:>12}",
                    op.name(),
                    side.name(),
                    l,
                    k,
                    l - k
                );
                self.out.operators.push(OperatorRow {
                    operator: op.name().into(),
                    side: side.name().into(),
                    live: *l,
                    killed: *k,
                    never_shown: l - k,
                });
            }
        }
        self.say(&text);
        self.out.mutation_score = Some(MutationScore {
            live,
            killed,
            budget_instances_per_mutant: budget,
        });
        ok
    }
}
