//! The parser accepts every shared Dartagnan test, the printer round-trips, and bad input gets a
//! one-line `file:line:col` error with a caret, never a panic.

use scopecheck_model::litmus::{self, Instr, Program, RmwOp};

/// Run by `shared_oracle.rs`, which reports it as skipped when there is no shared oracle.
pub fn parses_and_round_trips_every_oracle_test(shared: &std::path::Path) {
    let files = litmus::collect_files(&[shared.join("oracle/ptx/tests")]).unwrap();
    assert_eq!(files.len(), 169, "expected the 169 shared tests");
    for f in &files {
        let p = litmus::parse_file(f).unwrap_or_else(|e| panic!("{e}"));
        let printed = litmus::print(&p);
        let again = litmus::parse(&printed, "printed")
            .unwrap_or_else(|e| panic!("reparse of {}:\n{e}\n{printed}", f.display()));
        assert_eq!(p, again, "round trip of {}:\n{printed}", f.display());
    }
    println!("parsed and round-tripped {} tests", files.len());
}

const MP: &str = r#"PTX MP
"message passing"
{
x=0; y=0;
s @ surface aliases x;
P1:r0=0;
}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
                     | suld.weak r2, s      ;
exists (P1:r0 == 1 /\ P1:r1 == 0 \/ ~(x != 1))
"#;

#[test]
fn reads_the_dialect() {
    let p = litmus::parse(MP, "mp.litmus").unwrap();
    assert_eq!(p.name, "MP");
    assert_eq!(p.comments, vec!["message passing".to_string()]);
    assert_eq!(p.threads.len(), 2);
    assert_eq!(p.threads[1].placement.cta, 1);
    assert_eq!(p.threads[1].body.len(), 3);
    assert!(matches!(p.threads[0].body[1].instr, Instr::Store { .. }));
    assert_eq!(p.threads[1].body[2].span.line, 11);
    assert_eq!(
        p.physical(p.location_named("s").unwrap()),
        p.location_named("x").unwrap()
    );
    let again: Program = litmus::parse(&litmus::print(&p), "printed").unwrap();
    assert_eq!(p, again);
}

/// The error for `src`, checked to be `file:line:col: …` followed by the source line with the
/// error's range (from its column, `width` characters) underlined.
fn error_of(src: &str) -> litmus::LitmusError {
    let e = litmus::parse(src, "bad.litmus").expect_err("input must be rejected");
    let text = e.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(&format!("bad.litmus:{}:{}: ", e.span.line, e.span.col)),
        "{text}"
    );
    if e.source_line.trim().is_empty() {
        return e;
    }
    let (at, start) = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| {
            let shown = l.trim_end();
            let source = e.source_line.trim_end();
            shown
                .ends_with(source)
                .then(|| (i, shown.chars().count() - source.chars().count()))
        })
        .unwrap_or_else(|| panic!("the source line is shown:\n{text}"));
    let marks: Vec<usize> = lines[at + 1]
        .chars()
        .enumerate()
        .filter(|(_, c)| matches!(c, '─' | '┬'))
        .map(|(i, _)| i)
        .collect();
    let first = start + e.span.col as usize - 1;
    assert_eq!(
        marks,
        (first..first + e.width as usize).collect::<Vec<_>>(),
        "the range is underlined:\n{text}"
    );
    e
}

/// Several bad instructions and declarations in one file: each is reported, in order.
#[test]
fn every_recoverable_error_of_a_file_is_reported() {
    let src = MP
        .replace("x=0; y=0;", "x=0; y=zz;")
        .replace("st.weak x, 1", "st.bogus x, 1")
        .replace("ld.weak r1, x", "frob r1, x");
    let errors = litmus::parse_all(&src, "bad.litmus").unwrap_err();
    let found: Vec<(u32, u32)> = errors.iter().map(|e| (e.span.line, e.span.col)).collect();
    assert_eq!(found.len(), 3, "{errors:?}");
    assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?}");
    assert!(errors[0].message.contains("zz"), "{}", errors[0]);
    assert!(errors[1].message.contains(".bogus"), "{}", errors[1]);
    assert!(errors[2].message.contains("frob"), "{}", errors[2]);
    assert_eq!(litmus::parse(&src, "bad.litmus").unwrap_err(), errors[0]);
}

#[test]
fn truncated_file() {
    let src = &MP[..MP.find("exists").unwrap()];
    let e = error_of(src);
    assert!(e.message.contains("missing final condition"), "{e}");
    let e = error_of("PTX T\n{ x=0;\n");
    assert!(e.message.contains("unterminated"), "{e}");
    assert_eq!((e.span.line, e.span.col), (2, 1));
    let e = error_of("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == ");
    assert!(e.message.contains("ends too early"), "{e}");
}

#[test]
fn unknown_instruction() {
    let e = error_of(&MP.replace("ld.weak r1, x", "ldx.weak r1, x"));
    assert!(e.message.contains("unknown instruction `ldx.weak`"), "{e}");
    assert_eq!((e.span.line, e.span.col), (10, 24));
    let e = error_of(&MP.replace("st.release.gpu y, 1", "st.release.xpu y, 1"));
    assert!(e.message.contains("unknown qualifier `.xpu`"), "{e}");
}

#[test]
fn undefined_register() {
    let e = error_of(&MP.replace("st.weak x, 1 ", "st.weak x, r7"));
    assert!(e.message.contains("register `r7` of P0"), "{e}");
    assert_eq!((e.span.line, e.span.col), (9, 2));
    let e = error_of(&MP.replace("P1:r0 == 1", "P1:r9 == 1"));
    assert!(e.message.contains("`r9`"), "{e}");
}

#[test]
fn undefined_location() {
    // As in herd7, an instruction may name a location the initial state leaves out (it holds 0),
    // but the condition and aliases may only name locations that exist.
    let p = litmus::parse(&MP.replace("ld.weak r1, x", "ld.weak r1, z"), "ok.litmus").unwrap();
    assert_eq!(p.initial_value(p.location_named("z").unwrap()), 0);
    let e = error_of(&MP.replace("x != 1", "w != 1"));
    assert!(e.message.contains("undefined location `w`"), "{e}");
    assert_eq!((e.span.line, e.span.col), (12, 39));
    let e = error_of(&MP.replace("surface aliases x", "surface aliases q"));
    assert!(
        e.message.contains("alias of undeclared location `q`"),
        "{e}"
    );
    assert_eq!((e.span.line, e.span.col), (5, 21));
}

#[test]
fn thread_placed_twice() {
    let e = error_of(&MP.replace("P1@cta 1,gpu 0", "P0@cta 1,gpu 0"));
    assert!(e.message.contains("thread P0 is placed twice"), "{e}");
    assert_eq!((e.span.line, e.span.col), (8, 24));
}

#[test]
fn condition_names_a_missing_thread() {
    let e = error_of(&MP.replace("P1:r0 == 1", "P2:r0 == 1"));
    assert!(e.message.contains("thread P2"), "{e}");
    assert_eq!(e.span.line, 12);
}

#[test]
fn other_malformed_input_is_an_error_not_a_panic() {
    for bad in [
        "",
        "PTX",
        "PTX T\n\"open comment",
        "PTX T\n{ x=0 }\n P0@cta 0,gpu 0 ;\n goto L1 ;\nexists (x == 0)",
        "PTX T\n{ x=0 }\n P0@cta 0,gpu 0 ;\n ld.acquire r0, x ;\nexists (x == 0)",
        "PTX T\n{ x=0 }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 ;\nexists (x == 0)",
        "PTX T\n{ x=0 }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 0",
        "PTX T\n{ x=0 }\n P0@cta 0,gpu 0 \n st.weak x, 1 ;\nexists (x == 0)",
        "PTX T\n{ x=zero }\n P0@cta 0,gpu 0 ;\nexists (x == 0)",
        "PTX T\n{ y @ magic aliases x; }\n P0@cta 0,gpu 0 ;\nexists (y == 0)",
        "PTX T\n{ x=0; P3:r0=1; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 0)",
    ] {
        error_of(bad);
    }
}

/// herd's tail (`locations`, `filter`) and `(* *)` comments survive a round trip; the comments
/// are blanks, so positions after them stay those of the file.
#[test]
fn herd_locations_filter_and_comments_round_trip() {
    let src = "\u{feff}PTX T (* c *)\n{ x=0; (* (* nested *) *) }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nlocations [x; 0:r0;]\nfilter (0:r0 == 0)\n~exists (x == 1 (* c *))\n";
    let p = litmus::parse(src, "t").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.observed.len(), 2);
    assert!(p.filter.is_some());
    let again = litmus::parse(&litmus::print(&p), "printed").unwrap();
    assert_eq!(p, again);
    let bad = src.replace("(x == 1", "(x == 1 /\\ zz == 0");
    let e = litmus::parse(&bad, "t").unwrap_err();
    assert_eq!((e.span.line, e.span.col), (7, 20), "{e}");
}

/// A condition at the parser's limits is walked (printed, compared, cloned, evaluated,
/// serialized, dropped) on a thread with a small stack without overflowing it.
#[test]
fn conditions_at_the_limits_are_safe_on_a_small_stack() {
    use scopecheck_model::litmus::parse::{MAX_NESTING, MAX_OPERATORS};
    let chain = vec!["P0:r0 == 0"; MAX_OPERATORS + 1].join(" /\\ ");
    let nested = format!(
        "{}P0:r0 == 0{}",
        "(".repeat(MAX_NESTING - 1),
        ")".repeat(MAX_NESTING - 1)
    );
    for cond in [chain, nested] {
        let src =
            format!("PTX T\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists ({cond})\n");
        std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || {
                let p = litmus::parse(&src, "t").unwrap_or_else(|e| panic!("{e}"));
                let printed = litmus::print(&p);
                let again = litmus::parse(&printed, "printed").unwrap();
                assert_eq!(p, again.clone());
                serde_json::to_string(&again).unwrap();
                let state = scopecheck_model::axiomatic::FinalState::default();
                assert!(scopecheck_model::axiomatic::condition_holds_on(&p, &state));
            })
            .unwrap()
            .join()
            .unwrap();
    }
}

/// Every `atom`/`red` operation PTX has, with the order, scope, state space and type
/// qualifiers in PTX's order, reads and prints back; `red` refuses the operations PTX's `red`
/// does not have, at the instruction.
#[test]
fn every_atom_and_red_operation_round_trips() {
    for op in RmwOp::ALL {
        let atom = if op == RmwOp::Cas {
            format!("atom.acq_rel.gpu.global.{}.b32 r0, x, 1, 2", op.name())
        } else {
            format!("atom.acquire.cta.global.{}.u32 r0, x, 3", op.name())
        };
        let red = if op.reduces() {
            format!("red.release.sys.global.{}.u32 y, 2", op.name())
        } else {
            "st.weak y, 1".to_string()
        };
        let src = format!(
            "PTX T\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0 ;\n {atom} ;\n {red} ;\nexists (P0:r0 == 0)\n"
        );
        let p = litmus::parse(&src, "t.litmus").unwrap_or_else(|e| panic!("{e}"));
        let Instr::Atom {
            op: got, access, ..
        } = &p.threads[0].body[0].instr
        else {
            panic!("{src}")
        };
        assert_eq!(*got, op, "{src}");
        assert!(access.scope.is_some());
        if op.reduces() {
            assert!(
                matches!(p.threads[0].body[1].instr, Instr::Red { op: r, .. } if r == op),
                "{src}"
            );
        }
        let printed = litmus::print(&p);
        assert!(
            printed.contains(&format!(".{} r0, x", op.name())),
            "{printed}"
        );
        assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);
    }
    for op in ["exch", "cas"] {
        let e = error_of(&MP.replace("st.weak x, 1 ", &format!("red.gpu.{op} x, 1")));
        assert!(e.message.contains(&format!("`red` has no `.{op}`")), "{e}");
        assert_eq!((e.span.line, e.span.col), (9, 2));
    }
    let e = error_of(&MP.replace("st.weak x, 1 ", "atom.gpu.nand r5, x"));
    assert!(e.message.contains("unknown qualifier `.nand`"), "{e}");
    assert_eq!((e.span.line, e.span.col), (9, 11));
    let e = error_of(&MP.replace("st.weak x, 1 ", "atom.gpu r5, x, 1"));
    assert!(e.message.contains("needs an operation (`.add`"), "{e}");
}

/// `ld.global.nc` reads as a weak load through the texture path, prints back as written, and
/// refuses an order or scope and a form without `.global`.
#[test]
fn ld_global_nc_round_trips_and_rejects_orders() {
    let src = MP.replace("ld.weak r1, x", "ld.global.nc.u32 r1, x");
    let p = litmus::parse(&src, "nc.litmus").unwrap_or_else(|e| panic!("{e}"));
    let Instr::Load { access, .. } = &p.threads[1].body[1].instr else {
        panic!("{src}")
    };
    assert_eq!(access.proxy, litmus::Proxy::Texture);
    assert_eq!(access.scope, None);
    let printed = litmus::print(&p);
    assert!(printed.contains("ld.global.nc r1, x"), "{printed}");
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);
    let e = error_of(&MP.replace("ld.weak r1, x", "ld.global.nc.relaxed.gpu r1, x"));
    assert!(e.message.contains("takes no memory order or scope"), "{e}");
    assert_eq!((e.span.line, e.span.col), (10, 24));
    let e = error_of(&MP.replace("ld.weak r1, x", "ld.nc r1, x"));
    assert!(e.message.contains("write `ld.global.nc`"), "{e}");
}

#[test]
fn a_host_thread_is_placed_with_at_host_and_runs_sys_operations_only() {
    let src = "PTX H\n{ x=0; y=0; }\n P0@host | P1@cta 0,gpu 0 ;\n st.relaxed.sys x, 1 | ld.acquire.sys r0, y ;\n fence.sc.sys | ld.weak r1, x ;\n st.release.sys y, 1 | ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let p = litmus::parse(src, "h.litmus").unwrap();
    assert!(p.threads[0].placement.is_host());
    assert!(!p.threads[1].placement.is_host());
    let printed = litmus::print(&p);
    assert!(printed.contains("P0@host"), "{printed}");
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);
    for (bad, says) in [
        ("st.relaxed.gpu x, 1", "strong accesses are `.sys`"),
        ("fence.acq_rel.cta", "fences are `.sys`"),
        ("bar.cta.sync 0", "GPU instructions"),
    ] {
        let e = error_of(&src.replace("st.relaxed.sys x, 1", bad)).to_string();
        assert!(e.contains("h.litmus:4:2") || e.contains(":4:2"), "{e}");
        assert!(e.contains(says), "{bad}: {e}");
    }
    let e = error_of(&src.replace("P1@cta 0,gpu 0", "P1@cta 0,gpu 4294967295")).to_string();
    assert!(e.contains("GPU ids must be below"), "{e}");
}

const CP_ASYNC: &str = r#"PTX cp-async
"cp.async forms"
{
x=1; y=0; z=2; w=0;
}
 P0@cta 0,gpu 0                     ;
 cp.async.ca.shared.global y, x, 4  ;
 cp.async.commit_group              ;
 cp.async.cg.shared.global w, z, 16 ;
 cp.async.wait_group 1              ;
 cp.async.wait_all                  ;
 ld.weak r0, y                      ;
exists (P0:r0 == 0)
"#;

/// `cp.async` and its group instructions parse, print back to the same program, and bad forms
/// are refused where they are wrong.
#[test]
fn cp_async_round_trips_and_rejects_bad_forms() {
    let p = litmus::parse(CP_ASYNC, "cp.litmus").unwrap_or_else(|e| panic!("{e}"));
    let body: Vec<&Instr> = p.threads[0].body.iter().map(|s| &s.instr).collect();
    let (x, y) = (
        p.location_named("x").unwrap(),
        p.location_named("y").unwrap(),
    );
    assert_eq!(body[0], &Instr::CpAsync { dst: y, src: x });
    assert_eq!(body[1], &Instr::CpAsyncCommit);
    assert_eq!(body[3], &Instr::CpAsyncWait { n: 1, all: false });
    assert_eq!(body[4], &Instr::CpAsyncWait { n: 0, all: true });
    assert!(p.uses_cp_async());
    let printed = litmus::print(&p);
    assert!(
        printed.contains("cp.async.ca.shared.global y, x, 4"),
        "{printed}"
    );
    assert!(printed.contains("cp.async.wait_group 1"), "{printed}");
    assert!(printed.contains("cp.async.wait_all"), "{printed}");
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);

    let e = error_of(&CP_ASYNC.replace("y, x, 4", "y, x, 3"));
    assert!(e.message.contains("4, 8 or 16 bytes"), "{e}");
    assert_eq!((e.span.line, e.span.col), (7, 34));
    let e = error_of(&CP_ASYNC.replace("wait_group 1", "wait_group -1"));
    assert!(e.message.contains("number of groups"), "{e}");
    let e = error_of(&CP_ASYNC.replace("cp.async.cg.shared.global", "cp.async.bulk.shared.global"));
    assert!(
        e.message
            .contains("unknown bulk copy `cp.async.bulk.shared.global`"),
        "{e}"
    );
    assert_eq!((e.span.line, e.span.col), (9, 2));
    let e = error_of(&CP_ASYNC.replace("y, x, 4", "y, y, 4"));
    assert!(e.message.contains("different locations"), "{e}");
    let e = error_of(&CP_ASYNC.replace("cp.async.commit_group ", "cp.async.commit_group x"));
    assert!(e.message.contains("takes 0 operands"), "{e}");
}

const WARP_MP: &str = r#"PTX warp
{
x=0;
}
 P0@cta 0,gpu 0     | P1@cta 0,gpu 0     | P2@cta 1,gpu 0 ;
 st.weak x, 1       | bar.warp.sync 3    | ld.weak r1, x  ;
 bar.warp.sync 0x3  | ld.weak r0, x      |                ;
exists (P1:r0 == 0)
"#;

/// `bar.warp.sync membermask` parses (decimal or hexadecimal mask), prints back to the same
/// program, places lanes by CTA in program order, and refuses masks that leave out the executing
/// lane or name lanes without a thread.
#[test]
fn bar_warp_sync_round_trips_and_checks_its_mask() {
    let p = litmus::parse(WARP_MP, "warp.litmus").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.threads[0].body[1].instr, Instr::WarpSync { mask: 3 });
    assert_eq!(p.threads[1].body[0].instr, Instr::WarpSync { mask: 3 });
    assert_eq!((p.lane(0), p.lane(1), p.lane(2)), (0, 1, 0));
    assert!(p.uses_warps());
    let printed = litmus::print(&p);
    assert!(printed.contains("bar.warp.sync 0x3"), "{printed}");
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);

    let e = error_of(&WARP_MP.replace("bar.warp.sync 3 ", "bar.warp.sync 1 "));
    assert!(e.message.contains("P1 is lane 1"), "{e}");
    assert_eq!((e.span.line, e.span.col), (6, 23));
    let e = error_of(&WARP_MP.replace("bar.warp.sync 0x3", "bar.warp.sync 0x7"));
    assert!(
        e.message.contains("names lane 2, past the 2 threads"),
        "{e}"
    );
    let e = error_of(&WARP_MP.replace("bar.warp.sync 0x3", "bar.warp.sync r0 "));
    assert!(e.message.contains("expected a member mask"), "{e}");
    assert_eq!((e.span.line, e.span.col), (7, 16));
    let e = error_of(&WARP_MP.replace("bar.warp.sync 0x3", "bar.warp.sync 0  "));
    assert!(e.message.contains("at least one lane"), "{e}");
    let e = error_of(&WARP_MP.replace("bar.warp.sync 0x3", "bar.warp.arrive 3"));
    assert!(
        e.message.contains("unknown instruction `bar.warp.arrive`"),
        "{e}"
    );
    let e = error_of(&WARP_MP.replace("bar.warp.sync 0x3", "bar.warp.sync 3, 3"));
    assert!(e.message.contains("takes 1 operand"), "{e}");
}

const EXCHANGES: &str = r#"PTX exchanges
{
x=0;
}
 P0@cta 0,gpu 0                           | P1@cta 0,gpu 0                           | P2@host   ;
 ld.weak r0, 5                            | ld.weak r0, x                            | st.sys.relaxed x, 1 ;
 shfl.sync.down.b32 r1, r0, 1, 0x1e1f, 3  | shfl.sync.down.b32 r1, r0, 1, 0x1e1f, 3  |                     ;
 shfl.sync.idx.b32 r2, r0, 1, 0x1f, 0x3   | shfl.sync.bfly.b32 r2, 7, 1, 0x1f, 0x3   |                     ;
 shfl.sync.up.b32 r3, r0, 1, 0, 0x3       | shfl.sync.up.b32 r3, r0, 1, 0, 0x3       |                     ;
 vote.sync.ballot.b32 r4, r0, 0x3         | vote.sync.ballot.b32 r4, 1, 0x3          |                     ;
 vote.sync.any.pred r5, 0, 0x3            | vote.sync.all.pred r5, r0, 0x3           |                     ;
exists (P0:r1 == 0 /\ P1:r4 == 3)
"#;

/// The warp exchanges of thread `t` of `p`, as written.
fn exchanges_of(p: &litmus::Program, t: usize) -> Vec<&scopecheck_model::litmus::warp::WarpOp> {
    use scopecheck_model::litmus::warp::WarpPart;
    p.threads[t]
        .body
        .iter()
        .filter_map(|s| match &s.warp {
            Some(WarpPart::Start(op)) => Some(op),
            _ => None,
        })
        .collect()
}

const MATCHES: &str = r#"PTX matches
{
x=0;
}
 P0@cta 0,gpu 0                  | P1@cta 0,gpu 0                 ;
 ld.weak r0, x                   | ld.weak r0, x                  ;
 match.any.sync.b32 r1, r0, 0x3 | match.any.sync.b32 r1, 7, 0x3 ;
 match.all.sync.b32 r2, 7, 0x3  | match.all.sync.b32 r2, r0, 0x3 ;
 vote.sync.uni.pred r3, r0, 0x3 | vote.sync.uni.pred r3, 1, 0x3 ;
exists (P0:r1 == 3)
"#;

/// `match.any.sync`, `match.all.sync` and `vote.sync.uni` parse, lower like the other
/// exchanges (`litmus::warp`), print back as written, give the PTX values (every lane reads
/// x = 0: lane 0 matches 0 against lane 1's 7, lane 1's 0 against lane 0's 7, and the uni vote
/// sees predicates false and true), and refuse what the dialect cannot lower, at the operand.
#[test]
fn match_and_vote_uni_round_trip_and_give_the_ptx_values() {
    use scopecheck_model::axiomatic::{analyze, Model, Options};
    use scopecheck_model::litmus::warp::{VoteMode, WarpOp};
    let p = litmus::parse(MATCHES, "matches.litmus").unwrap_or_else(|e| panic!("{e}"));
    let ops = exchanges_of(&p, 0);
    assert!(matches!(
        ops[0],
        WarpOp::Match {
            all: false,
            mask: 3,
            ..
        }
    ));
    assert!(matches!(
        ops[1],
        WarpOp::Match {
            all: true,
            mask: 3,
            ..
        }
    ));
    assert!(matches!(
        ops[2],
        WarpOp::Vote {
            mode: VoteMode::Uni,
            ..
        }
    ));
    let printed = litmus::print(&p);
    for text in [
        "match.any.sync.b32 r1, r0, 0x3",
        "match.all.sync.b32 r2, r0, 0x3",
        "vote.sync.uni.pred r3, 1, 0x3",
    ] {
        assert!(printed.contains(text), "{printed}");
    }
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);

    let states = analyze(&p, Model::PtxV75, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .states;
    let regs: Vec<Vec<(String, i64)>> = states
        .iter()
        .map(|s| {
            s.state
                .regs
                .iter()
                .filter(|(r, _)| !r.ends_with(":r0"))
                .map(|(r, v)| (r.clone(), *v))
                .collect()
        })
        .collect();
    let want: Vec<(String, i64)> = [
        ("P0:r1", 1),
        ("P0:r2", 0),
        ("P0:r3", 0),
        ("P1:r1", 2),
        ("P1:r2", 0),
        ("P1:r3", 0),
    ]
    .into_iter()
    .map(|(r, v)| (r.to_string(), v))
    .collect();
    assert_eq!(regs, [want]);

    let e = error_of(&MATCHES.replace("match.any.sync.b32 r1, r0", "match.any.sync.b32 r0, r0"));
    assert!(e.message.contains("source `r0` is its destination"), "{e}");
    assert_eq!((e.span.line, e.span.col), (7, 25));
    let e = error_of(&MATCHES.replace("match.all.sync.b32 r2, 7,", "match.all.sync.b64 r2, 7,"));
    assert!(
        e.message
            .contains("unknown instruction `match.all.sync.b64`"),
        "{e}"
    );
    let e = error_of(&MATCHES.replace("r2, 7, 0x3 ", "r2, 7, 0x2 "));
    assert!(e.message.contains("P0 is lane 0"), "{e}");
}

/// `shfl.sync` (up/down/bfly/idx) and `vote.sync` (all/any/ballot) parse, lower to the slots and
/// barriers of `litmus::warp`, print back as written (without the slots), and refuse forms PTX
/// leaves undefined or the dialect does not have, at the instruction.
#[test]
fn shfl_and_vote_round_trip_and_check_their_lanes() {
    use scopecheck_model::litmus::warp::{is_slot, ShflMode, VoteMode, WarpOp};
    let p = litmus::parse(EXCHANGES, "exchanges.litmus").unwrap_or_else(|e| panic!("{e}"));
    let slots: Vec<&str> = p
        .locations
        .iter()
        .filter(|l| is_slot(l))
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(slots, ["P0%lane", "P0%vote", "P1%lane", "P1%vote"]);
    let ops = exchanges_of(&p, 1);
    assert_eq!(ops.len(), 5);
    assert!(matches!(
        ops[1],
        WarpOp::Shfl {
            mode: ShflMode::Bfly,
            b: 1,
            c: 0x1f,
            mask: 3,
            ..
        }
    ));
    assert!(matches!(
        ops[4],
        WarpOp::Vote {
            mode: VoteMode::All,
            mask: 3,
            ..
        }
    ));
    assert!(p.uses_warps());
    let printed = litmus::print(&p);
    assert!(
        printed.contains("shfl.sync.down.b32 r1, r0, 1, 0x1e1f, 0x3"),
        "{printed}"
    );
    assert!(
        printed.contains("vote.sync.ballot.b32 r4, 1, 0x3"),
        "{printed}"
    );
    assert!(!printed.contains('%'), "{printed}");
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);

    // Lane 1 shuffling down by 1 within the whole warp (c = 0x1f) reads lane 2: no such lane.
    let e = error_of(&EXCHANGES.replace("0x1e1f", "0x001f"));
    assert!(e.message.contains("would read lane 2"), "{e}");
    assert_eq!((e.span.line, e.span.col), (7, 45));
    let e = error_of(&EXCHANGES.replace(
        "vote.sync.any.pred r5, 0, 0x3 ",
        "vote.sync.any.pred r5, 0, 0x2 ",
    ));
    assert!(e.message.contains("P0 is lane 0"), "{e}");
    let e = error_of(&EXCHANGES.replace("shfl.sync.idx.b32 r2", "shfl.sync.rot.b32 r2"));
    assert!(
        e.message
            .contains("unknown instruction `shfl.sync.rot.b32`"),
        "{e}"
    );
    let e = error_of(&EXCHANGES.replace("vote.sync.any.pred", "vote.sync.none.pred"));
    assert!(
        e.message
            .contains("unknown instruction `vote.sync.none.pred`"),
        "{e}"
    );
    let e = error_of(&EXCHANGES.replace("r2, r0, 1, 0x1f", "r2, r0, 40, 0x1f"));
    assert!(e.message.contains("expected a lane or lane offset"), "{e}");
    let e = error_of(&EXCHANGES.replace(
        "r3, r0, 1, 0, 0x3       | shfl",
        "r3, r0, 1, 0x3          | shfl",
    ));
    assert!(e.message.contains("takes 5 operands"), "{e}");
    let e = error_of(&EXCHANGES.replace("st.sys.relaxed x, 1 ;", "vote.sync.any.pred r0, 1, 1 ;"));
    assert!(e.message.contains("a host thread has no warp"), "{e}");
}

const REDUX_ELECT: &str = r#"PTX redux-elect
{
x=0;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                 ;
 ld.weak r0, x                  | ld.weak r0, x                  ;
 redux.sync.add.u32 r1, 5, 0x3  | redux.sync.add.u32 r1, r0, 0x3 ;
 redux.sync.min.s32 r2, -4, 0x3 | redux.sync.min.s32 r2, 3, 0x3  ;
 redux.sync.max.u32 r3, 2, 0x3  | redux.sync.max.u32 r3, 9, 0x3  ;
 redux.sync.and.b32 r4, 6, 0x3  | redux.sync.and.b32 r4, 3, 0x3  ;
 redux.sync.or.b32 r5, 6, 0x3   | redux.sync.or.b32 r5, 3, 0x3   ;
 redux.sync.xor.b32 r6, 6, 0x3  | redux.sync.xor.b32 r6, 3, 0x3  ;
 elect.sync r7, 0x3             | elect.sync r7, 0x3             ;
exists (P0:r7 == 1)
"#;

/// `redux.sync` (every `.op` with each type the PTX ISA allows it) and `elect.sync` parse,
/// print back as written and round-trip; each reduction and the election give the PTX values
/// one at a time (a program with all of them is too large to enumerate quickly); the types the
/// ISA does not pair with an operation, a wrong operand count and `elect.sync` on a host thread
/// are refused at the instruction.
#[test]
fn redux_and_elect_round_trip_and_give_the_ptx_values() {
    use scopecheck_model::axiomatic::{analyze, Model, Options};
    use scopecheck_model::litmus::warp::{ReduxOp, ReduxType, WarpOp};
    let p = litmus::parse(REDUX_ELECT, "redux.litmus").unwrap_or_else(|e| panic!("{e}"));
    let ops = exchanges_of(&p, 1);
    let reductions: Vec<(ReduxOp, ReduxType)> = ops
        .iter()
        .filter_map(|op| match op {
            WarpOp::Redux {
                op, ty, mask: 3, ..
            } => Some((*op, *ty)),
            _ => None,
        })
        .collect();
    assert_eq!(
        reductions,
        [
            (ReduxOp::Add, ReduxType::U32),
            (ReduxOp::Min, ReduxType::S32),
            (ReduxOp::Max, ReduxType::U32),
            (ReduxOp::And, ReduxType::B32),
            (ReduxOp::Or, ReduxType::B32),
            (ReduxOp::Xor, ReduxType::B32),
        ]
    );
    assert!(matches!(ops[6], WarpOp::Elect { mask: 3, .. }));
    let printed = litmus::print(&p);
    for text in [
        "redux.sync.add.u32 r1, r0, 0x3",
        "redux.sync.min.s32 r2, -4, 0x3",
        "redux.sync.xor.b32 r6, 3, 0x3",
        "elect.sync r7, 0x3",
    ] {
        assert!(printed.contains(text), "{printed}");
    }
    assert_eq!(litmus::parse(&printed, "printed").unwrap(), p);

    // Each instruction alone, with lane 0's and lane 1's operands: every lane gets the value.
    for (line, want) in [
        (
            "redux.sync.add.u32 r1, 5, 0x3  | redux.sync.add.u32 r1, 7, 0x3",
            12,
        ),
        (
            "redux.sync.min.s32 r1, -4, 0x3 | redux.sync.min.s32 r1, 3, 0x3",
            -4,
        ),
        (
            "redux.sync.max.u32 r1, 2, 0x3  | redux.sync.max.u32 r1, 9, 0x3",
            9,
        ),
        (
            "redux.sync.and.b32 r1, 6, 0x3  | redux.sync.and.b32 r1, 3, 0x3",
            2,
        ),
        (
            "redux.sync.or.b32 r1, 6, 0x3   | redux.sync.or.b32 r1, 3, 0x3",
            7,
        ),
        (
            "redux.sync.xor.b32 r1, 6, 0x3  | redux.sync.xor.b32 r1, 3, 0x3",
            5,
        ),
    ] {
        let src = format!(
            "PTX one\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n {line} ;\nexists (P0:r1 == 0)\n"
        );
        let p = litmus::parse(&src, "one.litmus").unwrap_or_else(|e| panic!("{e}"));
        let states = analyze(&p, Model::PtxV75, &Options::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .states;
        let regs: Vec<Vec<i64>> = states
            .iter()
            .map(|s| s.state.regs.values().copied().collect())
            .collect();
        assert_eq!(regs, [vec![want, want]], "{line}");
    }
    // The election: either lane, both lanes agreeing.
    let src = "PTX e\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n elect.sync r1, 0x3 | elect.sync r1, 0x3 ;\nexists (P0:r1 == 0)\n";
    let p = litmus::parse(src, "e.litmus").unwrap_or_else(|e| panic!("{e}"));
    let states = analyze(&p, Model::PtxV75, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .states;
    let regs: Vec<Vec<i64>> = states
        .iter()
        .map(|s| s.state.regs.values().copied().collect())
        .collect();
    assert_eq!(regs, [vec![0, 0], vec![1, 1]]);

    for (from, to, message) in [
        (
            "redux.sync.and.b32 r4, 6,",
            "redux.sync.and.u32 r4, 6,",
            "unknown instruction `redux.sync.and.u32`",
        ),
        (
            "redux.sync.add.u32 r1, 5,",
            "redux.sync.add.b32 r1, 5,",
            "unknown instruction `redux.sync.add.b32`",
        ),
        (
            "redux.sync.max.u32 r3, 2,",
            "redux.sync.mul.u32 r3, 2,",
            "unknown instruction `redux.sync.mul.u32`",
        ),
        (
            "elect.sync r7, 0x3             |",
            "elect.sync r7, 1, 0x3          |",
            "takes 2 operands",
        ),
        (
            "elect.sync r7, 0x3             |",
            "elect.any r7, 0x3              |",
            "unknown instruction `elect.any`",
        ),
        (
            "elect.sync r7, 0x3             |",
            "elect.sync r7, 0x2             |",
            "P0 is lane 0",
        ),
    ] {
        assert!(REDUX_ELECT.contains(from), "{from}");
        let e = error_of(&REDUX_ELECT.replace(from, to));
        assert!(e.message.contains(message), "{to}: {e}");
        let line = REDUX_ELECT.lines().position(|l| l.contains(from)).unwrap() + 1;
        assert_eq!(e.span.line as usize, line, "{e}");
    }
}
