//! herd's OpenCL C litmus dialect, production by production (Dat3M's `LitmusC.g4`, its C11
//! and OpenCL rules, and `LitmusAssertions.g4`): each form parses to what it means, prints back
//! to text that parses to the same program, and bad input is one error at its line and
//! column. Then what the new forms mean under `opencl.cat`: plain accesses to atomic objects,
//! and work-group barriers.

use scopecheck_model::axiomatic::{analyze, Model, Options};
use scopecheck_model::cat::CatModel;
use scopecheck_model::litmus::opencl::{CExpr, CStmt, InitItem, InitValue};
use scopecheck_model::litmus::{parse, print, AluOp, Instr, Program, Quantifier, RmwOp};
use scopecheck_model::scope::Order;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Parses, checks the round trip, and returns the program.
fn ok(src: &str) -> Program {
    let p = parse(src, "t.litmus").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let text = print(&p);
    let back = parse(&text, "printed").unwrap_or_else(|e| panic!("{e}\nprinted:\n{text}"));
    assert_eq!(back, p, "printed:\n{text}");
    p
}

/// The error's `line:col: message`.
fn err(src: &str) -> String {
    let e = parse(src, "t.litmus").expect_err("must be refused");
    format!("{}:{}: {}", e.span.line, e.span.col, e.message)
}

/// A one-kernel test over `global atomic_int* x, global int* y` with this body.
fn kernel(body: &str) -> String {
    format!(
        "OPENCL T\n{{ [x] = 0; [y] = 0; }}\nP0@wg 0, dev 0 (global atomic_int* x, global int* y) {{\n{body}\n}}\nexists (x = 0)\n"
    )
}

fn test(p: &Program) -> &scopecheck_model::litmus::opencl::OpenClTest {
    scopecheck_model::litmus::opencl::test_of(p).expect("an OpenCL test")
}

fn instrs(p: &Program, t: usize) -> Vec<&Instr> {
    p.threads[t].body.iter().map(|s| &s.instr).collect()
}

// --- main: header, descriptions, the tail -------------------------------------------------

#[test]
fn a_quoted_description_may_hold_escaped_quotes() {
    let src = "OPENCL SB \"a \\\"quoted\\\" word\"\n\"second \\\\ line\"\n{ [x] = 0; }\nP0 (global atomic_int* x) { atomic_store(x, 1); }\nexists (x = 1)\n";
    let p = ok(src);
    assert_eq!(p.name, "SB");
    assert_eq!(p.comments, ["a \"quoted\" word", "second \\ line"]);
    assert_eq!(err("OPENCL SB \"open\n{ }\n"), "1:11: unterminated string");
}

#[test]
fn the_tail_takes_every_quantifier_locations_and_filter() {
    for (cond, q) in [
        ("exists (x = 1)", Quantifier::Exists),
        ("~exists (x = 1)", Quantifier::NotExists),
        ("forall (x = 1 \\/ x = 0)", Quantifier::Forall),
        (
            "locations [x; 0:r0;] filter (0:r0 = 0) exists (x = 1)",
            Quantifier::Exists,
        ),
    ] {
        let src = format!(
            "OPENCL T\n{{ [x] = 0; }}\nP0 (global atomic_int* x) {{ int r0 = atomic_load(x); }}\n{cond}\n"
        );
        assert_eq!(ok(&src).condition.quantifier, q, "{cond}");
    }
}

// --- variableDeclaratorList ----------------------------------------------------------------

#[test]
fn every_global_declarator_form() {
    let src = "OPENCL T\n{\n  [x] = 1;\n  y = -2;\n  atomic_int z = ATOMIC_VAR_INIT(3);\n  int w;\n  volatile int v = 0x10;\n  P0:r0 = 5;\n  0:r1 = 6;\n  atomic_int a[2] = {7, 8};\n  int b[3];\n  int c[] = {9};\n  int d[2] = {4}\n};\nP0 (global atomic_int* x, global int* y, global atomic_int* z, global int* w, global int* v, global atomic_int* a, global int* b, global int* c, global int* d) {\n  int r2 = r0 + r1;\n}\nexists (a[1] = 8 /\\ [x] = 1 /\\ 0:r2 = 11 /\\ d[1] = 0)\n";
    let p = ok(src);
    let init = |name: &str| p.initial_value(p.location_named(name).expect(name));
    assert_eq!(
        ["x", "y", "z", "w", "v", "a[0]", "a[1]", "b[2]", "c[0]", "d[0]", "d[1]"].map(init),
        [1, -2, 3, 0, 16, 7, 8, 0, 9, 4, 0]
    );
    assert_eq!(p.reg_init.len(), 2);
    let t = test(&p);
    assert!(matches!(
        t.init[2].item,
        InitItem::Location {
            value: Some(InitValue::AtomicVarInit(3)),
            ..
        }
    ));
    assert!(matches!(
        t.init[9].item,
        InitItem::Array {
            len: 1,
            sized: false,
            ..
        }
    ));
}

#[test]
fn bad_declarations_are_refused_where_they_are() {
    assert_eq!(
        err("OPENCL T\n{ x = 0; x = 1; }\nP0 (global int* x) { }\nexists (x = 0)\n"),
        "2:10: location `x` is declared twice"
    );
    assert_eq!(
        err("OPENCL T\n{ x = &y; }\nP0 (global int* x) { }\nexists (x = 0)\n"),
        "2:7: pointer values (`&x`) are not supported: locations hold integers"
    );
    assert_eq!(
        err("OPENCL T\n{ int a[1] = {1, 2}; }\nP0 (global int* a) { }\nexists (a[0] = 0)\n"),
        "2:7: array `a` has 1 elements but 2 values"
    );
    assert_eq!(
        err("OPENCL T\n{ atomic_t x = 0; }\nP0 (global int* x) { }\nexists (x = 0)\n"),
        "2:3: `atomic_t` is a Linux-kernel type, not an OpenCL C one"
    );
}

// --- threadDeclarator, threadArguments -----------------------------------------------------

#[test]
fn placements_and_every_parameter_form() {
    let src = "OPENCL T\n{ }\nP0 (volatile global atomic_int* x, __local int* y) { }\nP1@wg 1, dev 2 (global atomic_uint* x, int* y, __global uint* z) { }\nexists (x = 0)\n";
    let p = ok(src);
    assert_eq!(
        (p.threads[0].placement.cta, p.threads[0].placement.gpu),
        (0, 0)
    );
    assert_eq!(
        (p.threads[1].placement.cta, p.threads[1].placement.gpu),
        (1, 2)
    );
    let params = &test(&p).threads[0].params;
    assert!(params[0].volatile && params[0].atomic && !params[1].atomic);
    assert_eq!(
        err("OPENCL T\n{ }\nP0 (global int x) { }\nexists (x = 0)\n"),
        "3:12: a kernel parameter is a pointer to an integer: `global atomic_int* x`"
    );
    assert_eq!(
        err("OPENCL T\n{ }\nP1 (global int* x) { }\nexists (x = 0)\n"),
        "3:1: expected thread P0, found `P1`"
    );
}

// --- statements ------------------------------------------------------------------------------

#[test]
fn a_declaration_with_a_load_reads_memory() {
    let p = ok(&kernel(
        "int r0 = *y; int r1 = atomic_load(x); int r2; r2 = r0;",
    ));
    let body = instrs(&p, 0);
    assert!(matches!(body[0], Instr::Load { access, .. } if access.order == Order::Weak));
    assert!(matches!(body[1], Instr::Load { access, .. } if access.order == Order::Sc));
    assert!(matches!(body[2], Instr::Mov { .. }), "{body:?}");
    assert_eq!(
        err(&kernel("r9 = 1;")),
        "4:1: register `r9` is not declared (`int r9;`)"
    );
    assert_eq!(
        err(&kernel("int r0; int r0;")),
        "4:9: register `r0` is declared twice"
    );
    assert_eq!(
        err(&kernel("int x = 1;")),
        "4:5: `x` is a location: write `*x` to access it"
    );
}

#[test]
fn stores_expression_statements_and_empty_statements() {
    let p = ok(&kernel("*y = 1; ; atomic_fetch_add(x, 2); *y;"));
    let body = instrs(&p, 0);
    assert!(matches!(body[0], Instr::Store { .. }));
    assert!(matches!(body[1], Instr::Atom { op: RmwOp::Add, .. }));
    assert!(matches!(body[2], Instr::Load { .. }));
}

#[test]
fn labelled_barriers_with_flags_and_scopes() {
    let p = ok(&kernel(
        "B1: barrier(CLK_GLOBAL_MEM_FENCE);\nB2: barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);",
    ));
    let t = test(&p);
    assert!(matches!(
        t.threads[0].body[0].stmt,
        CStmt::Barrier {
            id: 1,
            scope: None,
            ..
        }
    ));
    let CStmt::Barrier { flags, .. } = t.threads[0].body[1].stmt else {
        panic!("a barrier")
    };
    assert!(flags.global && flags.local && flags.local_first);
    assert!(instrs(&p, 0)
        .iter()
        .all(|i| matches!(i, Instr::Barrier { .. })));
    assert_eq!(
        err(&kernel("barrier(CLK_GLOBAL_MEM_FENCE);")),
        "4:1: a barrier is labelled with its id: `B1: barrier(...)`"
    );
    assert_eq!(
        err(&kernel("X1: barrier(CLK_GLOBAL_MEM_FENCE);")),
        "4:1: `X1:` is not a barrier label (`B` and a number, as in `B1: barrier(...)`)"
    );
    assert_eq!(
        err(&kernel("B1: barrier(CLK_GLOBAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")),
        "4:36: expected `CLK_GLOBAL_MEM_FENCE` or `CLK_LOCAL_MEM_FENCE` (once each), found `CLK_GLOBAL_MEM_FENCE`"
    );
}

#[test]
fn if_else_and_while_with_statements_or_blocks() {
    let p = ok(&kernel(
        "int r0 = atomic_load(x);\nif (r0 == 1) *y = 1; else { *y = 2; }\nif (r0) { *y = 3; }\nwhile (r0 != 0) r0 = atomic_load(x);",
    ));
    let t = test(&p);
    assert!(
        matches!(&t.threads[0].body[1].stmt, CStmt::If(_, a, b) if a.len() == 1 && b.len() == 1)
    );
    assert!(matches!(&t.threads[0].body[2].stmt, CStmt::If(_, _, b) if b.is_empty()));
    assert!(matches!(&t.threads[0].body[3].stmt, CStmt::While(..)));
    // The loop branches back to its head.
    let labels = instrs(&p, 0)
        .iter()
        .filter(|i| matches!(i, Instr::Label(_)))
        .count();
    assert!(labels >= 5, "{labels}");
}

// --- expressions -----------------------------------------------------------------------------

#[test]
fn operators_bind_as_in_c_and_parentheses_are_kept() {
    let p = ok(&kernel(
        "int r0 = 1; int r1 = r0 + 2 == 3 && !(r0 != 1) || false;\nint r2 = (int) (r0 - 1);\nint r3 = true;",
    ));
    let CStmt::Decl(_, _, Some(e)) = &test(&p).threads[0].body[1].stmt else {
        panic!("a declaration")
    };
    // `((r0 + 2) == 3 && !(...)) || false`.
    let CExpr::Binary(top, left, _) = e else {
        panic!("{e:?}")
    };
    assert_eq!(top.symbol(), "||");
    assert!(matches!(&**left, CExpr::Binary(op, ..) if op.symbol() == "&&"));
}

// --- calls -----------------------------------------------------------------------------------

#[test]
fn every_atomic_function_in_both_forms() {
    let body = "int r0 = atomic_load(x);\n\
        r0 = atomic_load_explicit(x, memory_order_acquire);\n\
        r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_work_group);\n\
        atomic_store(x, 1);\n\
        atomic_store_explicit(x, 1, memory_order_release, memory_scope_all_svm_devices);\n\
        r0 = atomic_exchange(x, 2);\n\
        r0 = atomic_exchange_explicit(x, 2, memory_order_acq_rel, memory_scope_device);\n\
        r0 = atomic_fetch_add(x, 1); r0 = atomic_fetch_sub(x, 1); r0 = atomic_fetch_or(x, 1);\n\
        r0 = atomic_fetch_xor(x, 1); r0 = atomic_fetch_and(x, 1); r0 = atomic_fetch_min(x, 1);\n\
        r0 = atomic_fetch_max_explicit(x, 1, memory_order_seq_cst);\n\
        r0 = atomic_compare_exchange_strong(x, y, 3);\n\
        r0 = atomic_compare_exchange_strong_explicit(x, y, 3, memory_order_acq_rel, memory_order_acquire, memory_scope_work_group);\n\
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_work_item);\n\
        atomic_work_item_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);";
    let p = ok(&kernel(body));
    let ops: BTreeSet<String> = instrs(&p, 0)
        .iter()
        .filter_map(|i| match i {
            Instr::Atom { op, .. } => Some(format!("{op:?}")),
            _ => None,
        })
        .collect();
    for op in [
        "Exch", "Add", "Sub", "Or", "Xor", "And", "Min", "Max", "Cas",
    ] {
        assert!(ops.contains(op), "{op} missing from {ops:?}");
    }
    assert_eq!(
        instrs(&p, 0)
            .iter()
            .filter(|i| matches!(i, Instr::Fence(_)))
            .count(),
        2
    );
}

#[test]
fn functions_and_orders_outside_opencl_c_are_refused() {
    for (body, col, message) in [
        ("int r0 = atomic_compare_exchange_weak(x, y, 1);", 10, "atomic_compare_exchange_weak may fail spuriously, which is not modelled: use atomic_compare_exchange_strong"),
        ("atomic_thread_fence(memory_order_seq_cst);", 1, "atomic_thread_fence is C11's; OpenCL C fences are atomic_work_item_fence(flags, order, scope)"),
        ("int r0 = atomic_load_explicit(x, memory_order_consume);", 34, "`memory_order_consume` is not an OpenCL C memory order (OpenCL C 6.13.11.4)"),
        ("int r0 = atomic_load_explicit(x, memory_order_release);", 10, "atomic_load: \"The order argument shall not be memory_order_release nor memory_order_acq_rel\""),
        ("atomic_store_explicit(x, 1, memory_order_acquire);", 1, "atomic_store: \"The order argument shall not be memory_order_acquire, nor memory_order_acq_rel\""),
        ("int r0 = READ_ONCE(*x);", 10, "`READ_ONCE` is a Linux-kernel primitive, not OpenCL C"),
        ("int r0 = atomic_fetch_nand(x, 1);", 10, "unknown atomic function `atomic_fetch_nand`"),
        ("int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_galaxy);", 56, "expected a `memory_scope_...`, found `memory_scope_galaxy`"),
        ("int r0 = atomic_load(z);", 22, "`z` is not a parameter of this kernel"),
    ] {
        assert_eq!(err(&kernel(body)), format!("4:{col}: {message}"), "{body}");
    }
}

#[test]
fn array_elements_are_reached_by_offsets() {
    let src = "OPENCL T\n{ atomic_int a[3] = {0, 0, 0}; }\nP0 (global atomic_int* a) {\n  atomic_store(a + 2, 1);\n  int r0 = *(a + 1);\n  int r1 = atomic_load((a));\n}\nexists (a[2] = 1)\n";
    let p = ok(src);
    let locs: Vec<usize> = instrs(&p, 0).iter().filter_map(|i| i.location()).collect();
    let a = |k: usize| p.location_named(&format!("a[{k}]")).unwrap();
    assert_eq!(locs, [a(2), a(1), a(0)]);
    assert_eq!(
        err("OPENCL T\n{ int a[2]; }\nP0 (global int* a) { *(a + 2) = 1; }\nexists (a[0] = 0)\n"),
        "3:28: `a + 2` is outside `a`, which has 2 element(s)"
    );
}

// --- what they mean under opencl.cat ----------------------------------------------------------

fn opencl() -> Model {
    Model::Cat(Arc::new(CatModel::builtin("opencl").expect("built in")))
}

/// Every final state's values of the condition's terms, and whether some execution races.
fn states(src: &str) -> (BTreeSet<String>, bool) {
    let p = parse(src, "t.litmus").unwrap_or_else(|e| panic!("{e}"));
    let a = analyze(&p, opencl(), &Options::default()).expect("analyzes");
    let states = a.states.iter().map(|s| s.state.to_string()).collect();
    (states, a.racy_executions > 0)
}

fn lb(ty: &str) -> String {
    format!(
        "OPENCL LB\n{{ [x] = 0; [y] = 0; }}\nP0@wg 0, dev 0 (global {ty}* x, global {ty}* y) {{ int r0 = *x; *y = 1; }}\nP1@wg 1, dev 0 (global {ty}* x, global {ty}* y) {{ int r1 = *y; *x = 1; }}\nexists (0:r0 = 1 /\\ 1:r1 = 1)\n"
    )
}

/// C11 5.1.2.4 binds a read to its visible side effect only for non-atomic objects: plain
/// reads of `atomic_int` objects read any write coherence allows (and race).
#[test]
fn plain_reads_of_atomic_objects_are_not_bound_to_visible_side_effects() {
    let (atomic, racy) = states(&lb("atomic_int"));
    assert!(atomic.len() >= 3, "{atomic:?}");
    assert!(racy);
    let (plain, racy) = states(&lb("int"));
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert!(racy);
}

fn barrier_mp(flags: &str, wg1: u32) -> String {
    format!(
        "OPENCL MP-barrier\n{{ [x] = 0; }}\nP0@wg 0, dev 0 (global int* x) {{ *x = 1; B0: barrier({flags}); }}\nP1@wg {wg1}, dev 0 (global int* x) {{ B0: barrier({flags}); int r0 = *x; }}\nexists (1:r0 = 0)\n"
    )
}

/// OpenCL C §6.13.8: a work-group barrier orders the memory its flags name between the
/// work-items of the work-group, and only those.
#[test]
fn a_work_group_barrier_orders_the_regions_its_flags_name() {
    let p = parse(&barrier_mp("CLK_GLOBAL_MEM_FENCE", 0), "t").unwrap();
    let a = analyze(&p, opencl(), &Options::default()).expect("analyzes");
    assert_eq!(
        (a.holds, a.racy_executions),
        (false, 0),
        "global flag, one work-group"
    );
    let p = parse(&barrier_mp("CLK_LOCAL_MEM_FENCE", 0), "t").unwrap();
    let a = analyze(&p, opencl(), &Options::default()).expect("analyzes");
    assert!(a.racy_executions > 0, "local flag: global memory unordered");
    let p = parse(&barrier_mp("CLK_GLOBAL_MEM_FENCE", 1), "t").unwrap();
    let a = analyze(&p, opencl(), &Options::default()).expect("analyzes");
    assert!(
        a.racy_executions > 0,
        "two work-groups meet at no barrier instance"
    );
}

// --- Dat3M's LitmusVulkan.g4 -------------------------------------------------------------------

fn vulkan(rows: &str) -> String {
    format!(
        "VULKAN T \"a \\\"quoted\\\" description\"\n{{\nP0:r0=0;\nx=0;\n}}\n P0@sg 0, wg 0, qf 0 ;\n{rows}\nexists (x == 0)\n"
    )
}

#[test]
fn vulkan_rmw_operations_and_local_arithmetic() {
    let p = ok(&vulkan(
        " rmw.atom.acq_rel.dv.sc0.and r0, x, 6 ;\n rmw.atom.dv.sc0.or r0, x, 1 ;\n rmw.atom.dv.sc0.xor r0, x, 3 ;\n rmw.atom.dv.sc0.sub r0, x, 1 ;\n rmw.atom.dv.sc0 r0, x, 2 ;\n sub r1, r0, 1 ;",
    ));
    assert_eq!(p.comments, ["a \"quoted\" description"]);
    let ops: Vec<RmwOp> = instrs(&p, 0)
        .iter()
        .filter_map(|i| match i {
            Instr::Atom { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        [RmwOp::And, RmwOp::Or, RmwOp::Xor, RmwOp::Sub, RmwOp::Exch]
    );
    assert!(matches!(
        instrs(&p, 0)[5],
        Instr::Alu { op: AluOp::Sub, .. }
    ));
}

#[test]
fn vulkan_forms_the_ir_lacks_are_refused_where_written() {
    assert_eq!(
        err(&vulkan(" rmw.atom.dv.sc0.mul r0, x, 2 ;")),
        "7:18: `rmw.mul` is not supported: the IR's read-modify-writes do not multiply or divide"
    );
}

#[test]
fn nesting_past_the_bound_is_an_error_not_a_crash() {
    let deep_if = format!("{}*y = 1;", "if (1) ".repeat(100_000));
    assert!(err(&kernel(&deep_if)).contains("nested too deep: more than 64 blocks or parentheses"));
    let deep_paren = format!("int r0 = {}1{};", "(".repeat(100_000), ")".repeat(100_000));
    assert!(err(&kernel(&deep_paren)).contains("nested too deep"));
    let deep_not = format!("int r0 = {}1;", "!".repeat(100_000));
    assert!(err(&kernel(&deep_not)).contains("nested too deep"));
    // Within the bound, all is read.
    ok(&kernel(&format!(
        "int r0 = {}1{};",
        "(".repeat(60),
        ")".repeat(60)
    )));
}
