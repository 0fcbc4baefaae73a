//! Values along reads-from: stored operands computed from loaded values, and thin-air cycles.

use super::build::*;
use scopecheck_model::axiomatic::*;
use scopecheck_model::litmus::*;

#[test]
fn values_follow_reads_from_into_stored_operands() {
    // x := x + r0 with r0 loaded from x: once guessed from a value domain closed under
    // addition, now computed along reads-from.
    let p = parsed(
        "PTX add-loaded
{ x=0; }
 P0@cta 0,gpu 0             | P1@cta 1,gpu 0             ;
 ld.relaxed.gpu r0, x       | red.relaxed.gpu.add x, 1   ;
 red.relaxed.gpu.add x, r0  |                            ;
forall ((P0:r0 == 0 /\\ x == 1) \\/ (P0:r0 == 1 /\\ x == 2))
",
    );
    // Tile IR orders P0's two operations by no token: the load may read the red's own write,
    // `x := x + r0` with r0 that very value, a cycle of reads-from and data flow; but no value
    // out of thin air (Tile IR 7.9), so only the values the writes produce: the same outcomes.
    for model in Model::ALL {
        let a = analyze(&p, model.clone(), &Options::default()).unwrap();
        assert!(a.holds, "{model}");
        assert_eq!(a.states.len(), 2, "{model}: both outcomes are reachable");
    }
    // A model with neither the axiom nor that promise lets the cycle justify any value.
    let a = analyze(&p, tile_ir_with_thin_air(), &Options::default()).unwrap();
    assert!(!a.holds && a.states.len() > 2);
}

/// `tile-ir.cat` without its `withoutthinair` option: a cycle of reads-from and data flow may
/// justify any value (as in Vulkan and OpenCL, whose models have no No-Thin-Air axiom).
fn tile_ir_with_thin_air() -> Model {
    let text = scopecheck_model::cat::builtin_text("tile-ir").expect("built in");
    let text = text.replacen(" withoutthinair", "", 1);
    let m =
        scopecheck_model::cat::CatModel::parse("tile-ir-thin-air.cat", &text).expect("it compiles");
    assert!(m.thin_air_values());
    Model::Cat(std::sync::Arc::new(m))
}

#[test]
fn a_value_cycle_through_reads_from_is_thin_air() {
    // Load buffering that copies: each read could justify the other's value. The PTX models'
    // No-Thin-Air axiom rejects the cycle. Tile IR keeps it (program dependencies do not
    // order, 7.5) with the values in play only, here the initial 0 ("the implementation will
    // not provide values out of thin air", 7.9). A model with neither lets the cycle take any
    // value: the initial 0, a value the condition names (42), or one named nowhere.
    let lb = |condition: &str| {
        parsed(&format!(
            "PTX LB-copy
{{ x=0; y=0; }}
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 ld.relaxed.gpu r0, x  | ld.relaxed.gpu r1, y  ;
 st.relaxed.gpu y, r0  | st.relaxed.gpu x, r1  ;
{condition}
"
        ))
    };
    let holds = |p: &Program, m: Model| analyze(p, m, &Options::default()).unwrap().holds;
    let zero = lb("forall (P0:r0 == 0 /\\ P1:r1 == 0)");
    assert!(
        holds(&zero, Model::PtxV75),
        "No-Thin-Air leaves the initial values only"
    );
    assert!(holds(&zero, Model::TileIr), "the values in play only");
    assert!(
        !holds(&zero, tile_ir_with_thin_air()),
        "a value named nowhere justifies itself"
    );
    let named = lb("exists (P0:r0 == 42 /\\ P1:r1 == 42)");
    assert!(!holds(&named, Model::PtxV75));
    assert!(!holds(&named, Model::TileIr));
    assert!(holds(&named, tile_ir_with_thin_air()));
    // Two independent cycles may take equal or different values out of thin air.
    let two = parsed(
        "PTX two-cycles
{ x=0; y=0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 ld.relaxed.gpu r0, x  | ld.relaxed.gpu r1, y  ;
 st.relaxed.gpu x, r0  | st.relaxed.gpu y, r1  ;
exists (P0:r0 != 0 /\\ P1:r1 != 0 /\\ P0:r0 != P1:r1)
",
    );
    assert!(!holds(&two, Model::TileIr));
    assert!(holds(&two, tile_ir_with_thin_air()));
}
