//! Tile IR token annotations are SSA uses and definitions: a token waited for must be produced
//! by an earlier instruction of the same thread, never by the instruction itself; anything
//! else is a parse error at the instruction (a wait that orders nothing would be silently
//! accepted otherwise).

use scopecheck_model::litmus::parse;

fn tile(p0: &[&str], p1: &[&str]) -> String {
    let mut src = String::from("PTX tokens\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n");
    for i in 0..p0.len().max(p1.len()) {
        src += &format!(
            " {} | {} ;\n",
            p0.get(i).copied().unwrap_or(""),
            p1.get(i).copied().unwrap_or("")
        );
    }
    src + "exists (x == 1)\n"
}

fn error(src: &str) -> String {
    match parse(src, "tokens.litmus") {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_token_waited_for_is_produced_earlier_in_the_thread() {
    let ok = tile(
        &[
            "st.weak x, 1 [-> t0]",
            "st.weak y, 1 [t0 -> t1]",
            "ld.weak r0, y [t0, t1 ->]",
        ],
        &["ld.weak r1, x [->]"],
    );
    parse(&ok, "tokens.litmus").unwrap_or_else(|e| panic!("{e}"));
    // Never produced.
    let e = error(&tile(&["st.weak x, 1 [t9 ->]"], &["ld.weak r1, x"]));
    assert!(
        e.contains("token `t9` is not produced by an earlier instruction"),
        "{e}"
    );
    assert!(e.contains("tokens.litmus:4:"), "{e}");
    // Produced only later in the thread.
    let e = error(&tile(
        &["st.weak x, 1 [t0 ->]", "st.weak y, 1 [-> t0]"],
        &["ld.weak r1, x"],
    ));
    assert!(
        e.contains("token `t0` is not produced by an earlier"),
        "{e}"
    );
    // Produced by another thread only.
    let e = error(&tile(&["st.weak x, 1 [-> t0]"], &["ld.weak r1, x [t0 ->]"]));
    assert!(
        e.contains("token `t0` is not produced by an earlier"),
        "{e}"
    );
    // Among several, one unknown.
    let e = error(&tile(
        &["st.weak x, 1 [-> t0]", "st.weak y, 1 [t0, t1 ->]"],
        &["ld.weak r1, x"],
    ));
    assert!(e.contains("token `t1`"), "{e}");
}

#[test]
fn an_instruction_cannot_wait_for_its_own_token() {
    let e = error(&tile(&["st.weak x, 1 [t0 -> t0]"], &["ld.weak r1, x"]));
    assert!(
        e.contains("token `t0` is waited for by the instruction that produces it"),
        "{e}"
    );
    // Waiting for an earlier `t0` while producing the next one is a new definition: fine.
    let src = tile(
        &[
            "st.weak x, 1 [-> t0]",
            "st.weak y, 1 [t0 -> t0]",
            "ld.weak r0, x [t0 ->]",
        ],
        &["ld.weak r1, x"],
    );
    parse(&src, "tokens.litmus").unwrap_or_else(|e| panic!("{e}"));
}
