//! A test record as the text `scopecheck gpu` prints: the histogram against the model.

use crate::confidence;
use crate::diff::TestDiff;
use crate::record::TestRecord;
use std::fmt::Write as _;

/// A test's histogram as text.
pub fn format_record(rec: &TestRecord) -> String {
    let d: &TestDiff = &rec.diff;
    let mut out = String::new();
    let _ = writeln!(out, "== {} ({})", rec.name, rec.file);
    let _ = writeln!(
        out,
        "  model {}{}; {} instances in {:.3} s ({:.3e}/s)",
        d.model,
        if d.bounded { " (bounded)" } else { "" },
        rec.instances,
        rec.seconds,
        rec.instances_per_s
    );
    let fmt_state = |s: &std::collections::BTreeMap<String, i64>| {
        s.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for r in &d.observed {
        let _ = writeln!(
            out,
            "  {} {:<40} {:<10} {:>12} ({:.4}%)",
            if r.condition { "*" } else { " " },
            fmt_state(&r.state),
            match r.allowed {
                Some(true) => "allowed",
                Some(false) => "FORBIDDEN",
                None if d.bounded => "unjudged",
                None => "-",
            },
            r.count,
            100.0 * r.count as f64 / rec.instances.max(1) as f64
        );
    }
    for r in &d.not_seen {
        let _ = writeln!(
            out,
            "  {} {:<40} allowed, not seen",
            if r.condition { "*" } else { " " },
            fmt_state(&r.state)
        );
    }
    if d.timeouts + d.wide + d.lost > 0 {
        let _ = writeln!(
            out,
            "  unclassified: {} timed out, {} too wide, {} lost",
            d.timeouts, d.wide, d.lost
        );
    }
    if !d.unknown_keys.is_empty() {
        let _ = writeln!(
            out,
            "  classifier produced unknown keys: {:x?}",
            d.unknown_keys
        );
    }
    if let Some(e) = &rec.error {
        let _ = writeln!(out, "  stopped early: {e}");
    }
    if d.spin_misses > 0 {
        let _ = writeln!(
            out,
            "  spinning reader gave up (flag never seen, no final state): {} instances",
            d.spin_misses
        );
    }
    if d.filtered > 0 {
        let _ = writeln!(
            out,
            "  left out by the test's filter: {} instances",
            d.filtered
        );
    }
    let _ = writeln!(
        out,
        "  weak outcome: {} ({:.4}%); reproducible at {}: {} (needs {}); environment: {}",
        rec.weak,
        100.0 * rec.weak as f64 / rec.instances.max(1) as f64,
        rec.confidence,
        if rec.reproducible { "yes" } else { "no" },
        confidence::needed(rec.confidence),
        rec.env
    );
    out
}
