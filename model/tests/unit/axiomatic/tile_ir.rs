//! Tile IR: tests in litmus syntax with `[waits-for -> produces]` token annotations.

use scopecheck_model::axiomatic::*;

/// Tile IR: tests in litmus syntax with `[waits-for -> produces]` token annotations.
fn tile(src: &str) -> Analysis {
    let p = scopecheck_model::litmus::parse(src, "tile.litmus").unwrap_or_else(|e| panic!("{e}"));
    analyze(&p, Model::TileIr, &Options::default()).unwrap()
}

const TILE_MP: &str = "PTX tile-MP
{ x=0; flag=0; }
 P0@cta 0,gpu 0                    | P1@cta 1,gpu 0                      ;
 st.weak x, 1 WRITER               | ld.acquire.device r0, flag READER   ;
 st.release.device flag, 1 RELEASE | ld.weak r1, x AFTER                 ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

#[test]
fn tile_ir_orders_a_tile_block_by_tokens_only() {
    let with_tokens = TILE_MP
        .replace("WRITER", "[-> t0]")
        .replace("RELEASE", "[t0 ->]")
        .replace("READER", "[-> t1]")
        .replace("AFTER", "[t1 ->]");
    let a = tile(&with_tokens);
    assert!(
        !a.holds,
        "token-ordered release/acquire at device scope forbids the stale read"
    );
    assert!(
        a.racy_executions > 0,
        "reading x after missing the flag races with the writer"
    );

    // Reading x only once the flag is seen: data-race free.
    let guarded = "PTX tile-MP-guarded
{ x=0; flag=0; }
 P0@cta 0,gpu 0                    | P1@cta 1,gpu 0                           ;
 st.weak x, 1 [-> t0]              | ld.acquire.device r0, flag [-> t1]       ;
 st.release.device flag, 1 [t0 ->] | bne r0, 1, LC00                          ;
                                   | ld.weak r1, x [t1 ->]                    ;
                                   | LC00:                                    ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";
    let a = tile(guarded);
    assert!(!a.holds);
    assert_eq!(a.racy_executions, 0, "the data is published, not raced on");

    let no_tokens = TILE_MP
        .replace(" WRITER", "")
        .replace(" RELEASE", "")
        .replace(" READER", "")
        .replace(" AFTER", "");
    let a = tile(&no_tokens);
    assert!(
        a.holds,
        "program order alone does not order a tile block's accesses"
    );
    assert!(a.racy_executions > 0, "the weak accesses to x race");

    // The same text under PTX: program order does order them.
    let p = scopecheck_model::litmus::parse(&no_tokens, "mp.litmus").unwrap();
    assert!(
        !analyze(&p, Model::PtxV75, &Options::default())
            .unwrap()
            .holds
    );
}

#[test]
fn tile_ir_reads_its_own_writes_only_through_tokens() {
    let src = "PTX tile-own
{ x=0; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1 A ;
 ld.weak r0, x B ;
exists (P0:r0 == 0)
";
    let unordered = tile(&src.replace(" A", "").replace(" B", ""));
    assert!(unordered.holds, "the load may run before the store");
    assert!(
        unordered.racy_executions > 0,
        "two unordered accesses of one tile block race"
    );
    let ordered = tile(&src.replace(" A", " [-> t]").replace(" B", " [t ->]"));
    assert!(!ordered.holds);
    assert_eq!(ordered.racy_executions, 0);
}

#[test]
fn tile_ir_tokens_print_and_parse_back() {
    let src = TILE_MP
        .replace("WRITER", "[-> t0]")
        .replace("RELEASE", "[t0 ->]")
        .replace("READER", "[-> t1]")
        .replace("AFTER", "[t1, t1 -> t2]");
    let p = scopecheck_model::litmus::parse(&src, "t.litmus").unwrap();
    // A token names a value of its own tile block's program: the reader waits on its own `t1`
    // (twice, to print and parse a list); the writer's `t0` is not its to name.
    assert_eq!(
        p.threads[1].body[1].token.as_ref().unwrap().after,
        vec!["t1".to_string(), "t1".to_string()]
    );
    let foreign =
        scopecheck_model::litmus::parse(&src.replace("[t1, t1 -> t2]", "[t0 -> t2]"), "f.litmus")
            .unwrap_err();
    assert!(
        foreign
            .message
            .contains("earlier instruction of this thread"),
        "{foreign}"
    );
    let again =
        scopecheck_model::litmus::parse(&scopecheck_model::litmus::print(&p), "again.litmus")
            .unwrap();
    assert_eq!(again, p);
    let bad =
        scopecheck_model::litmus::parse(&src.replace("[-> t0]", "[t0]"), "bad.litmus").unwrap_err();
    assert!(bad.message.contains("->"), "{bad}");
}
