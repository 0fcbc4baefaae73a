//! `--bench`: instances/s for several launch shapes instead of diffing.

use super::core::Session;
use super::options::Test;
use super::output::BenchRow;
use crate::runner::Params;

/// The shapes benchmarked: (instances per launch as a power of two, stride in words).
pub const SHAPES: [(u32, u32); 5] = [(16, 32), (20, 32), (22, 32), (22, 8), (22, 1)];

impl Session<'_> {
    /// Runs each test at every shape of [`SHAPES`] (at least 1e8 instances after one warm-up
    /// launch) and says its rate; false when a run failed or showed a violation.
    pub fn bench(&mut self, tests: &[Test]) -> bool {
        let mut ok = true;
        for t in tests {
            for (k, stride) in SHAPES {
                let mut params = self.options.params.clone();
                params.instances_log2 = k;
                params.stride = stride;
                params.launches = (100_000_000u64)
                    .div_ceil(1 << k)
                    .max(self.options.iterations.min(1 << 10));
                params.batch = params.launches;
                let warm_up = Params {
                    launches: 1,
                    ..params.clone()
                };
                let _ = self.run_one(t, &t.program, &warm_up, "command line");
                let Some(rec) = self.run_one(t, &t.program, &params, "command line") else {
                    ok = false;
                    break;
                };
                let rate = rec.diff.condition_count() as f64 / rec.instances.max(1) as f64;
                self.say(&format!(
                    "bench {}: 2^{k} instances/launch, stride {stride}: {} instances in {:.3} s = {:.3e} instances/s (condition {:.3}%)",
                    t.program.name,
                    rec.instances,
                    rec.seconds,
                    rec.instances_per_s,
                    100.0 * rate
                ));
                ok &= rec.error.is_none() && rec.diff.violations == 0;
                self.out.bench.push(BenchRow {
                    test: t.program.name.clone(),
                    instances_log2: k,
                    stride,
                    instances: rec.instances,
                    seconds: rec.seconds,
                    instances_per_s: rec.instances_per_s,
                    condition_rate: rate,
                });
                self.out.tests.push(rec);
            }
        }
        ok
    }
}
