//! The shapes of the published GPU weak-memory campaigns (IRIW, ISA2, RWC, WRC, Z6.3, 3.2W,
//! 2+2W, WRW+2W, WWC, MP, SB, and LB for the mutation table), written out as PTX litmus tests in
//! every combination of ordering, scope and thread placement.
//!
//! Each shape is a cycle of program-order and communication edges; its condition asks for the
//! final state that closes the cycle (the *weak outcome*). The variants:
//! - orderings: `relaxed` (every access `.relaxed`); `rel-acq` (in each thread, an access that
//!   follows another becomes a release if it writes, an access that precedes another becomes an
//!   acquire if it reads); `fence-sc` and `fence-acq_rel` (that fence between every two accesses
//!   of a thread, accesses relaxed);
//! - scopes: every access and fence at `.gpu`, or at `.cta`;
//! - placements: `xcta` (every thread its own CTA), `1cta` (all threads in CTA 0) and, for shapes
//!   of three or more threads, `split` (the first half of the threads in CTA 0, the rest in CTA 1).
//!
//! No verdict is written into the files: the harness asks the model for each one when it runs.

use std::fmt::Write;

/// One access of a shape's thread.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// Store `value` to the location.
    W(&'static str, i64),
    /// Load the location into `r<n>`.
    R(&'static str, u32),
}

/// One clause of a condition: a thread's register or a location's final value.
#[derive(Clone, Copy, Debug)]
enum Is {
    Reg(usize, u32, i64),
    Loc(&'static str, i64),
}

/// A shape: its threads' accesses and the clauses of its weak outcome.
pub struct Shape {
    pub name: &'static str,
    threads: Vec<Vec<Op>>,
    weak: Vec<Is>,
}

use Is::{Loc, Reg};
use Op::{R, W};

/// The twelve shapes.
pub fn shapes() -> Vec<Shape> {
    let s = |name, threads, weak| Shape {
        name,
        threads,
        weak,
    };
    vec![
        s(
            "MP",
            vec![vec![W("x", 1), W("y", 1)], vec![R("y", 0), R("x", 1)]],
            vec![Reg(1, 0, 1), Reg(1, 1, 0)],
        ),
        s(
            "SB",
            vec![vec![W("x", 1), R("y", 0)], vec![W("y", 1), R("x", 0)]],
            vec![Reg(0, 0, 0), Reg(1, 0, 0)],
        ),
        s(
            "LB",
            vec![vec![R("x", 0), W("y", 1)], vec![R("y", 0), W("x", 1)]],
            vec![Reg(0, 0, 1), Reg(1, 0, 1)],
        ),
        s(
            "2+2W",
            vec![vec![W("x", 1), W("y", 2)], vec![W("y", 1), W("x", 2)]],
            vec![Loc("x", 1), Loc("y", 1)],
        ),
        s(
            "IRIW",
            vec![
                vec![W("x", 1)],
                vec![R("x", 0), R("y", 1)],
                vec![W("y", 1)],
                vec![R("y", 0), R("x", 1)],
            ],
            vec![Reg(1, 0, 1), Reg(1, 1, 0), Reg(3, 0, 1), Reg(3, 1, 0)],
        ),
        s(
            "ISA2",
            vec![
                vec![W("x", 1), W("y", 1)],
                vec![R("y", 0), W("z", 1)],
                vec![R("z", 0), R("x", 1)],
            ],
            vec![Reg(1, 0, 1), Reg(2, 0, 1), Reg(2, 1, 0)],
        ),
        s(
            "RWC",
            vec![
                vec![W("x", 1)],
                vec![R("x", 0), R("y", 1)],
                vec![W("y", 1), R("x", 0)],
            ],
            vec![Reg(1, 0, 1), Reg(1, 1, 0), Reg(2, 0, 0)],
        ),
        s(
            "WRC",
            vec![
                vec![W("x", 1)],
                vec![R("x", 0), W("y", 1)],
                vec![R("y", 0), R("x", 1)],
            ],
            vec![Reg(1, 0, 1), Reg(2, 0, 1), Reg(2, 1, 0)],
        ),
        s(
            "Z6.3",
            vec![
                vec![W("x", 1), W("y", 1)],
                vec![W("y", 2), W("z", 1)],
                vec![R("z", 0), R("x", 1)],
            ],
            vec![Loc("y", 2), Reg(2, 0, 1), Reg(2, 1, 0)],
        ),
        s(
            "3.2W",
            vec![
                vec![W("x", 1), W("y", 2)],
                vec![W("y", 1), W("z", 2)],
                vec![W("z", 1), W("x", 2)],
            ],
            vec![Loc("x", 1), Loc("y", 1), Loc("z", 1)],
        ),
        s(
            "WRW+2W",
            vec![
                vec![W("x", 1)],
                vec![R("x", 0), W("y", 1)],
                vec![W("y", 2), W("x", 2)],
            ],
            vec![Reg(1, 0, 1), Loc("y", 2), Loc("x", 1)],
        ),
        s(
            "WWC",
            vec![
                vec![W("x", 2)],
                vec![R("x", 0), W("y", 1)],
                vec![R("y", 0), W("x", 1)],
            ],
            vec![Reg(1, 0, 2), Reg(2, 0, 1), Loc("x", 2)],
        ),
    ]
}

/// How the accesses of one variant are ordered.
pub const ORDERINGS: [&str; 4] = ["relaxed", "rel-acq", "fence-sc", "fence-acq_rel"];
/// The scope every access and fence of one variant carries.
pub const SCOPES: [&str; 2] = ["gpu", "cta"];

impl Shape {
    /// The placements this shape is written in.
    pub fn placements(&self) -> Vec<&'static str> {
        if self.threads.len() > 2 {
            vec!["xcta", "1cta", "split"]
        } else {
            vec!["xcta", "1cta"]
        }
    }

    /// The file stem of one variant: `MP+rel-acq+gpu+xcta`.
    pub fn variant_name(&self, ordering: &str, scope: &str, placement: &str) -> String {
        format!("{}+{ordering}+{scope}+{placement}", self.name)
    }

    fn cta(&self, placement: &str, thread: usize) -> usize {
        match placement {
            "xcta" => thread,
            "1cta" => 0,
            _ => usize::from(2 * thread >= self.threads.len()),
        }
    }

    /// The litmus text of one variant.
    pub fn litmus(&self, ordering: &str, scope: &str, placement: &str) -> String {
        let mut locs: Vec<&str> = Vec::new();
        for op in self.threads.iter().flatten() {
            let (W(l, _) | R(l, _)) = *op;
            if !locs.contains(&l) {
                locs.push(l);
            }
        }
        locs.sort_unstable();
        let columns: Vec<Vec<String>> = self
            .threads
            .iter()
            .map(|ops| {
                let mut col = Vec::new();
                for (i, op) in ops.iter().enumerate() {
                    let (before, after) = (i > 0, i + 1 < ops.len());
                    let order = match (ordering, op) {
                        ("rel-acq", W(..)) if before => "release",
                        ("rel-acq", R(..)) if after => "acquire",
                        _ => "relaxed",
                    };
                    if before && ordering.starts_with("fence-") {
                        col.push(format!("fence.{}.{scope}", &ordering[6..]));
                    }
                    col.push(match *op {
                        W(l, v) => format!("st.{order}.{scope} {l}, {v}"),
                        R(l, r) => format!("ld.{order}.{scope} r{r}, {l}"),
                    });
                }
                col
            })
            .collect();
        let mut out = String::new();
        let _ = writeln!(out, "PTX {}", self.variant_name(ordering, scope, placement));
        let _ = writeln!(
            out,
            "\"{}: ordering {ordering}, scope .{scope}, placement {placement} (generated by scopecheck_gpu::shapes)\"",
            self.name
        );
        let inits: Vec<String> = locs.iter().map(|l| format!("{l}=0;")).collect();
        let _ = writeln!(out, "{{\n{}\n}}", inits.join(" "));
        let header: Vec<String> = (0..self.threads.len())
            .map(|t| format!("P{t}@cta {},gpu 0", self.cta(placement, t)))
            .collect();
        let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
        let mut table = vec![header];
        for r in 0..rows {
            table.push(
                columns
                    .iter()
                    .map(|c| c.get(r).cloned().unwrap_or_default())
                    .collect(),
            );
        }
        let widths: Vec<usize> = (0..columns.len())
            .map(|c| table.iter().map(|row| row[c].len()).max().unwrap_or(0))
            .collect();
        for row in &table {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!(" {cell:<w$} "))
                .collect();
            let _ = writeln!(out, "{};", cells.join("|").trim_end());
        }
        let clauses: Vec<String> = self
            .weak
            .iter()
            .map(|c| match *c {
                Reg(t, r, v) => format!("P{t}:r{r} == {v}"),
                Loc(l, v) => format!("{l} == {v}"),
            })
            .collect();
        let _ = writeln!(out, "exists\n({})", clauses.join(" /\\ "));
        out
    }

    /// Every variant of this shape: (placement, file stem, litmus text).
    pub fn variants(&self) -> Vec<(&'static str, String, String)> {
        let mut out = Vec::new();
        for ordering in ORDERINGS {
            for scope in SCOPES {
                for placement in self.placements() {
                    out.push((
                        placement,
                        self.variant_name(ordering, scope, placement),
                        self.litmus(ordering, scope, placement),
                    ));
                }
            }
        }
        out
    }
}

/// Every variant of every shape, as (relative path `SHAPE/PLACEMENT/stem.litmus`, text). One
/// directory per shape and placement, so that one tuned environment (`env.json` there) serves
/// the variants that share both.
pub fn all_variants() -> Vec<(String, String)> {
    shapes()
        .iter()
        .flat_map(|s| {
            s.variants()
                .into_iter()
                .map(move |(placement, stem, text)| {
                    (format!("{}/{placement}/{stem}.litmus", s.name), text)
                })
        })
        .collect()
}
