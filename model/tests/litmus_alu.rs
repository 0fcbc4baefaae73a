//! Register arithmetic and ordered comparisons in each dialect that has them (PTX and Vulkan
//! litmus, OpenCL C): every operator parses, prints back to the same program, and the
//! axiomatic engine and the operational runtime reach exactly the final states worked out by
//! hand from C11's and PTX's rules ([`AluOp::apply`]) — negative operands, truncating
//! division, `%` of negatives, division by zero, shifts past the width. A differential over
//! generated programs using the operations closes the file.
//!
//! Each test loads `x` in P0 while P1 stores to it, so the operation runs on a loaded (symbolic)
//! value and each program has two final states: one for `x`'s initial value, one for P1's.

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::differential::{self, sc};
use scopecheck_model::engine::Dfs;
use scopecheck_model::litmus::{parse, print, AluOp, Cmp, Instr, Program, Value};
use scopecheck_model::runtime::litmus::explore;
use std::collections::{BTreeMap, BTreeSet};

/// One final state's values of the registers named, in order.
type Row = Vec<Value>;

/// Parses `src`, checks that it prints back to the same program, and returns the values of
/// `regs` in every final state, after checking that the axiomatic engine (under `model`) and
/// the runtime reach the same ones.
fn states(src: &str, model: Model, regs: &[&str]) -> BTreeSet<Row> {
    let p = parse(src, "t.litmus").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let text = print(&p);
    let back = parse(&text, "printed").unwrap_or_else(|e| panic!("{e}\nprinted:\n{text}"));
    assert_eq!(back, p, "printed:\n{text}");
    let project = |r: &BTreeMap<String, Value>| -> Row {
        regs.iter()
            .map(|n| *r.get(*n).unwrap_or_else(|| panic!("no {n} in {r:?}")))
            .collect()
    };
    let a = analyze(&p, model, &Options::default()).expect("analyzes");
    assert!(!a.bounded, "{src}");
    let axiomatic: BTreeSet<Row> = a.states.iter().map(|s| project(&s.state.regs)).collect();
    let runtime: BTreeSet<Row> = explore(&p, &Dfs::default())
        .iter()
        .map(|s| project(&s.regs))
        .collect();
    assert_eq!(axiomatic, runtime, "the engines disagree on\n{src}");
    axiomatic
}

fn set(rows: &[[Value; 2]]) -> BTreeSet<Row> {
    rows.iter().map(|r| r.to_vec()).collect()
}

// --- PTX litmus ------------------------------------------------------------------------------

/// P0 loads `x` (initially `v0`; P1 stores `v1`) into `r0`, then runs `rows`.
fn ptx(v0: Value, v1: Value, rows: &[&str]) -> String {
    let mut s = format!(
        "PTX T\n{{\nx={v0};\n}}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | st.relaxed.gpu x, {v1} ;\n"
    );
    for r in rows {
        s.push_str(&format!(" {r} | ;\n"));
    }
    s.push_str("exists (P0:r0 == 0)\n");
    s
}

#[test]
fn ptx_every_operation_on_loaded_values() {
    const MIN: Value = i32::MIN as Value;
    // (instruction, x's initial value, P1's store, r1 after each).
    let cases: [(&str, Value, Value, Value, Value); 17] = [
        ("add r1, r0, 1", -3, 2147483647, -2, MIN),
        ("sub r1, 5, r0", 7, -3, -2, 8),
        ("mul r1, r0, 65536", -2, 65536, -131072, 0),
        ("mul.lo r1, r0, -3", 5, -4, -15, 12),
        ("div r1, r0, 2", -7, 7, -3, 3),
        ("div r1, 7, r0", -2, 0, -3, -1),
        ("div r1, r0, -1", MIN, 5, MIN, -5),
        ("rem r1, r0, 3", -7, 7, -1, 1),
        ("rem r1, 7, r0", -3, 0, 1, 7),
        ("and r1, r0, 6", -4, 3, 4, 2),
        ("or r1, r0, 1", -4, 2, -3, 3),
        ("xor r1, r0, -1", 5, -6, -6, 5),
        ("shl r1, 1, r0", 31, 32, MIN, 0),
        ("shl r1, r0, 4", -1, 3, -16, 48),
        ("shr r1, -16, r0", 2, 40, -4, -1),
        ("shr r1, r0, 1", -7, 7, -4, 3),
        ("shr r1, 16, r0", 2, -1, 4, 0),
    ];
    for (row, v0, v1, r0, r1) in cases {
        assert_eq!(
            states(&ptx(v0, v1, &[row]), Model::PtxV75, &["P0:r0", "P0:r1"]),
            set(&[[v0, r0], [v1, r1]]),
            "{row}"
        );
    }
}

#[test]
fn ptx_comparisons_as_values_and_in_branches() {
    // (comparison, right operand, x's initial value, P1's store: it holds for the first).
    let cases = [
        (Cmp::Eq, 3, 3, 4),
        (Cmp::Ne, 3, 4, 3),
        (Cmp::Lt, 0, -1, 0),
        (Cmp::Le, 0, 0, 1),
        (Cmp::Gt, -2, -1, -2),
        (Cmp::Ge, -2, -2, -3),
    ];
    for (cmp, k, yes, no) in cases {
        let name = cmp.name();
        let setp = format!("setp.{name} r1, r0, {k}");
        assert_eq!(
            states(&ptx(yes, no, &[&setp]), Model::PtxV75, &["P0:r0", "P0:r1"]),
            set(&[[yes, 1], [no, 0]]),
            "{setp}"
        );
        let branch = format!("b{name} r0, {k}, LC00");
        let rows = [
            branch.as_str(),
            "mov r1, 0",
            "goto LC01",
            "LC00:",
            "mov r1, 1",
            "LC01:",
        ];
        assert_eq!(
            states(&ptx(yes, no, &rows), Model::PtxV75, &["P0:r0", "P0:r1"]),
            set(&[[yes, 1], [no, 0]]),
            "{branch}"
        );
    }
}

#[test]
fn ptx_forms_parse_to_their_operation_and_print_as_written() {
    for op in AluOp::ALL {
        let row = format!("{} r1, r0, 2", op.name());
        let p = parse(&ptx(0, 1, &[&row]), "t").unwrap();
        assert_eq!(
            p.threads[0].body[1].instr,
            Instr::Alu {
                op,
                dst: scopecheck_model::litmus::Reg("r1".into()),
                a: scopecheck_model::litmus::Operand::Reg(scopecheck_model::litmus::Reg(
                    "r0".into()
                )),
                b: scopecheck_model::litmus::Operand::Imm(2),
            }
        );
        assert!(print(&p).contains(&row), "{}", print(&p));
    }
    let e = parse(&ptx(0, 1, &["setp.lo r1, r0, 2"]), "t").expect_err("unknown comparison");
    assert_eq!((e.span.line, e.span.col), (7, 2), "{}", e.message);
    assert!(
        e.message.contains("unknown comparison `lo`"),
        "{}",
        e.message
    );
    let e = parse(&ptx(0, 1, &["rem r1, r0"]), "t").expect_err("two operands");
    assert_eq!(e.span.line, 7, "{}", e.message);
}

#[test]
fn ordered_comparisons_in_the_final_condition() {
    let src = ptx(-1, 1, &["add r1, r0, 0"]).replace(
        "exists (P0:r0 == 0)",
        "exists (P0:r1 < 0 /\\ P0:r0 <= -1 /\\ ~(P0:r1 >= 0) /\\ ~(P0:r1 > -1))",
    );
    let p = parse(&src, "t").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parse(&print(&p), "printed").unwrap(), p, "{}", print(&p));
    let a = analyze(&p, Model::PtxV75, &Options::default()).unwrap();
    assert!(a.holds, "x = -1 is read in some execution");
    // herd's atoms test equality only: an ordered one prints with its C operator.
    assert_eq!(
        scopecheck_model::herd::condition(&p),
        "exists (0:r1<0 /\\ 0:r0<=-1 /\\ not (0:r1>=0) /\\ not (0:r1>-1))"
    );
    let never = src.replace("P0:r1 < 0 /\\", "P0:r1 < -1 /\\");
    let p = parse(&never, "t").unwrap();
    assert!(
        !analyze(&p, Model::PtxV75, &Options::default())
            .unwrap()
            .holds
    );
}

// --- Dat3M's Vulkan litmus -------------------------------------------------------------------

fn vulkan(v0: Value, v1: Value, rows: &[&str]) -> String {
    let mut s = format!(
        "VULKAN T\n{{\nx={v0};\n}}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n ld.atom.dv.sc0 r0, x | st.atom.dv.sc0 x, {v1} ;\n"
    );
    for r in rows {
        s.push_str(&format!(" {r} | ;\n"));
    }
    s.push_str("exists (P0:r0 == 0)\n");
    s
}

fn vulkan_model() -> Model {
    Model::from_name("vulkan").expect("built in")
}

#[test]
fn vulkan_local_arithmetic_and_conditional_branches() {
    // `localAdd`, `localSub`, `localMul`, `localDiv`, with registers on either side.
    let cases: [(&str, Value, Value, Value, Value); 6] = [
        ("add r1, r0, -5", 3, -3, -2, -8),
        ("sub r1, r0, 4", 3, -3, -1, -7),
        ("sub r1, 4, r0", 3, -3, 1, 7),
        ("mul r1, r0, -3", 3, -3, -9, 9),
        ("div r1, r0, 2", 7, -7, 3, -3),
        ("div r1, 9, r0", 0, -4, -1, -2),
    ];
    for (row, v0, v1, r0, r1) in cases {
        assert_eq!(
            states(&vulkan(v0, v1, &[row]), vulkan_model(), &["P0:r0", "P0:r1"]),
            set(&[[v0, r0], [v1, r1]]),
            "{row}"
        );
    }
    // `branchCond`: `beq`, `bne`, `blt`, `ble`, `bgt`, `bge`.
    for (name, k, yes, no) in [
        ("beq", 1, 1, 2),
        ("bne", 1, 2, 1),
        ("blt", 1, 0, 1),
        ("ble", 1, 1, 2),
        ("bgt", -1, 0, -1),
        ("bge", -1, -1, -2),
    ] {
        let branch = format!("{name} r0, {k}, LC00");
        let rows = [
            branch.as_str(),
            "mov r1, 0",
            "goto LC01",
            "LC00:",
            "mov r1, 1",
            "LC01:",
        ];
        assert_eq!(
            states(&vulkan(yes, no, &rows), vulkan_model(), &["P0:r0", "P0:r1"]),
            set(&[[yes, 1], [no, 0]]),
            "{branch}"
        );
    }
}

// --- herd's OpenCL C -------------------------------------------------------------------------

/// P0 reads `x` (initially `v0`; P1 stores `v1`) into `r0`, then runs `body`.
fn opencl(v0: Value, v1: Value, body: &str) -> String {
    format!(
        "OPENCL T
{{ [x] = {v0}; }}
P0@wg 0, dev 0 (global atomic_int* x) {{
  int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);
  {body}
}}
P1@wg 1, dev 0 (global atomic_int* x) {{
  atomic_store_explicit(x, {v1}, memory_order_relaxed, memory_scope_device);
}}
exists (0:r0 = 0)
"
    )
}

fn opencl_model() -> Model {
    Model::from_name("opencl").expect("built in")
}

#[test]
fn opencl_every_operator_follows_c() {
    const MIN: Value = i32::MIN as Value;
    let cases: [(&str, Value, Value, Value, Value); 21] = [
        ("int r1 = r0 + 1;", -3, 2147483647, -2, MIN),
        ("int r1 = 5 - r0;", 7, -3, -2, 8),
        ("int r1 = r0 * -3;", 5, -4, -15, 12),
        // C11 6.5.5p6: the quotient truncated toward zero ...
        ("int r1 = r0 / 2;", -7, 7, -3, 3),
        ("int r1 = r0 / -2;", -7, 7, 3, -3),
        // ... and the IR's value for a zero divisor.
        ("int r1 = 7 / r0;", -2, 0, -3, -1),
        // `(a/b)*b + a%b == a`: the remainder takes the dividend's sign.
        ("int r1 = r0 % 3;", -7, 7, -1, 1),
        ("int r1 = r0 % -3;", -7, 7, -1, 1),
        ("int r1 = 7 % r0;", -3, 0, 1, 7),
        ("int r1 = r0 & 6;", -4, 3, 4, 2),
        ("int r1 = r0 | 1;", -4, 2, -3, 3),
        ("int r1 = r0 ^ 5;", -1, 5, -6, 0),
        // OpenCL C 6.3.j: the amount modulo 32.
        ("int r1 = 1 << r0;", 31, 33, MIN, 2),
        ("int r1 = r0 << 4;", -1, 3, -16, 48),
        ("int r1 = r0 >> 1;", -7, 7, -4, 3),
        ("int r1 = -16 >> r0;", 2, 34, -4, -4),
        ("int r1 = r0 >> 32;", -8, 8, -8, 8),
        // Precedence: `<<` below `+`, `%` with `*`.
        ("int r1 = r0 + 1 << 2;", 1, -1, 8, 0),
        ("int r1 = r0 * 3 % 4;", 3, -3, 1, -1),
        ("int r1 = r0 - 1 - 1;", 0, 5, -2, 3),
        ("int r1 = (r0 < 0) + (r0 >= 5);", -1, 5, 1, 1),
    ];
    for (body, v0, v1, r0, r1) in cases {
        assert_eq!(
            states(&opencl(v0, v1, body), opencl_model(), &["P0:r0", "P0:r1"]),
            set(&[[v0, r0], [v1, r1]]),
            "{body}"
        );
    }
}

#[test]
fn opencl_comparisons_as_values_and_conditions() {
    for (op, k, yes, no) in [
        ("==", 3, 3, 4),
        ("!=", 3, 4, 3),
        ("<", 0, -1, 0),
        ("<=", 0, 0, 1),
        (">", -2, -1, -2),
        (">=", -2, -2, -3),
    ] {
        let value = format!("int r1 = r0 {op} {k};");
        assert_eq!(
            states(
                &opencl(yes, no, &value),
                opencl_model(),
                &["P0:r0", "P0:r1"]
            ),
            set(&[[yes, 1], [no, 0]]),
            "{value}"
        );
        let branch = format!("int r1 = 0; if (r0 {op} {k}) {{ r1 = 1; }} else {{ r1 = 2; }}");
        assert_eq!(
            states(
                &opencl(yes, no, &branch),
                opencl_model(),
                &["P0:r0", "P0:r1"]
            ),
            set(&[[yes, 1], [no, 2]]),
            "{branch}"
        );
        // Negated: the branch on the comparison's complement.
        let negated = format!("int r1 = 0; if (!(r0 {op} {k})) {{ r1 = 1; }}");
        assert_eq!(
            states(
                &opencl(yes, no, &negated),
                opencl_model(),
                &["P0:r0", "P0:r1"]
            ),
            set(&[[yes, 0], [no, 1]]),
            "{negated}"
        );
    }
}

// --- the engines on generated programs ------------------------------------------------------

/// xorshift64: a fixed, seedable sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn small(&mut self) -> Value {
        self.below(19) as Value - 9
    }
}

/// A two-thread message-passing shape whose values go through random register arithmetic and
/// comparisons (and, in every third program, a branch on one) before they are stored.
fn generated(seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let operation = |rng: &mut Rng, dst: &str, regs: &[&str]| {
        let a = regs[rng.below(regs.len() as u64) as usize];
        let b = match rng.below(3) {
            0 => regs[rng.below(regs.len() as u64) as usize].to_string(),
            _ => rng.small().to_string(),
        };
        let (a, b) = if rng.below(4) == 0 {
            (b, a.to_string())
        } else {
            (a.to_string(), b)
        };
        match rng.below(4) {
            0 => {
                let cmp = Cmp::ALL[rng.below(6) as usize];
                format!("setp.{} {dst}, {a}, {b}", cmp.name())
            }
            _ => {
                let op = AluOp::ALL[rng.below(10) as usize];
                format!("{} {dst}, {a}, {b}", op.name())
            }
        }
    };
    let mut p0 = vec![
        format!("st.relaxed.gpu x, {}", rng.small()),
        "ld.relaxed.gpu r0, y".to_string(),
    ];
    p0.push(operation(&mut rng, "r1", &["r0"]));
    p0.push(operation(&mut rng, "r2", &["r0", "r1"]));
    if seed.is_multiple_of(3) {
        let cmp = Cmp::ALL[rng.below(6) as usize];
        p0.push(format!("b{} r2, {}, LC00", cmp.name(), rng.small()));
        p0.push(operation(&mut rng, "r2", &["r1", "r2"]));
        p0.push("LC00:".to_string());
    }
    p0.push("st.relaxed.gpu z, r2".to_string());
    let mut p1 = vec!["ld.relaxed.gpu r0, x".to_string()];
    p1.push(operation(&mut rng, "r1", &["r0"]));
    p1.push("st.relaxed.gpu y, r1".to_string());
    p1.push("ld.relaxed.gpu r2, z".to_string());
    let rows = p0.len().max(p1.len());
    let mut s =
        format!("PTX G{seed}\n{{\nx=1;\ny=-2;\nz=0;\n}}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n");
    for i in 0..rows {
        let cell = |t: &[String]| t.get(i).cloned().unwrap_or_default();
        s.push_str(&format!(" {} | {} ;\n", cell(&p0), cell(&p1)));
    }
    s.push_str("exists (P1:r2 == 0)\n");
    s
}

#[test]
fn engines_and_sc_agree_on_generated_programs() {
    let (mut straight, mut branching, mut reached) = (0, 0, 0);
    let mut failures = Vec::new();
    for seed in 0..150 {
        let src = generated(seed);
        let p: Program = parse(&src, "generated").unwrap_or_else(|e| panic!("{e}\n{src}"));
        assert_eq!(parse(&print(&p), "printed").unwrap(), p, "{src}");
        match sc::final_states(&p) {
            Some(states) => {
                assert!(!states.is_empty(), "{src}");
                straight += 1;
            }
            None => branching += 1,
        }
        // The runtime's states are allowed by ptx-v7.5, and the SC states are allowed and
        // reached (`differential::check`).
        match differential::check(&p, &differential::Options::default()) {
            Ok(a) => {
                assert!(a.runtime_complete, "{src}");
                reached += a.reached;
            }
            Err(f) => failures.push(format!("seed {seed}: {f}")),
        }
        // The axiomatic engine and the runtime reach the same final states.
        let a = analyze(&p, Model::PtxV75, &Options::default()).expect("analyzes");
        let axiomatic: BTreeSet<_> = a.states.into_iter().map(|s| s.state.regs).collect();
        let runtime: BTreeSet<_> = explore(&p, &Dfs::default())
            .into_iter()
            .map(|s| s.regs)
            .collect();
        assert_eq!(axiomatic, runtime, "the engines disagree on\n{src}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{straight} straight-line and {branching} branching programs, {reached} states");
    assert!(straight >= 90 && branching >= 40, "{straight} {branching}");
}
