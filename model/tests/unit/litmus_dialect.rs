//! Tests of `litmus::dialect`.

use scopecheck_model::litmus::dialect::*;
use scopecheck_model::litmus::parse;

const VULKAN_MP: &str = "VULKAN mp\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n \
                         st.sc0 x, 1 | ld.sc0 r0, x ;\nexists (P1:r0 == 1)\n";

#[test]
fn a_test_is_refused_by_a_model_that_reads_none_of_its_dialects_names() {
    let p = parse(VULKAN_MP, "mp.litmus").unwrap();
    assert_eq!(of(&p).map(|d| d.name), Some("VULKAN"));
    let none = |_: &[&str]| false;
    let reads_av = |names: &[&str]| names.contains(&"AV");
    assert_eq!(
        refusal(&p, none),
        Some("a Vulkan test needs a Vulkan model: --model vulkan.cat (or vulkan-nochains.cat)")
    );
    assert_eq!(refusal(&p, reads_av), None);
    // A PTX test needs no dialect's model.
    let ptx = "PTX mp\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let p = parse(ptx, "mp.litmus").unwrap();
    assert_eq!((of(&p), refusal(&p, none)), (None, None));
}

#[test]
fn every_dialect_has_its_own_names_and_a_distinct_header() {
    for (i, d) in DIALECTS.iter().enumerate() {
        assert!(!d.own_names.is_empty(), "{}", d.name);
        assert!(DIALECTS[..i].iter().all(|e| e.name != d.name));
    }
}
