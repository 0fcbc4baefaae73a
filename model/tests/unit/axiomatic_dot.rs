//! Tests of `axiomatic::dot`.

use scopecheck_model::axiomatic::dot::*;
use scopecheck_model::axiomatic::{analyze, Options};
use scopecheck_model::axiomatic::{condition_holds_on, Analysis, Model};
use scopecheck_model::litmus::parse;
use scopecheck_model::litmus::Program;
use std::path::Path;

const MP: &str = "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       | P2@cta 2,gpu 0 ;
 st.weak x, 1        | ld.acquire.gpu r0, y | ld.weak r2, x  ;
 st.release.gpu y, 1 | ld.weak r1, x        |                ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

fn witness(src: &str) -> (Program, Analysis) {
    let p = parse(src, "MP.litmus").unwrap();
    let opts = Options {
        witnesses: true,
        ..Options::default()
    };
    let a = analyze(&p, Model::PtxV75, &opts).unwrap();
    (p, a)
}

#[test]
fn the_title_names_model_and_state_and_says_why_when_the_condition_fails() {
    let (p, a) = witness(MP);
    assert!(!a.holds);
    let dot = render_analysis(&p, &Model::PtxV75, &a).unwrap();
    let title = dot.lines().nth(1).unwrap();
    assert!(title.contains("MP under ptx-v7.5"), "{title}");
    assert!(
        title.contains(&format!("final state {}", a.states[0].state)),
        "{title}"
    );
    assert!(
        title.contains(
            "does not hold: no allowed state satisfies it; drawn: the first allowed state"
        ),
        "{title}"
    );
    let holds = MP.replace("P1:r1 == 0", "P1:r1 == 1");
    let (p, a) = witness(&holds);
    let dot = render_analysis(&p, &Model::PtxV75, &a).unwrap();
    let chosen = choose(&p, &a).unwrap();
    assert!(condition_holds_on(&p, &a.states[chosen.state].state));
    assert!(
        dot.contains("it satisfies the condition, so the condition holds"),
        "{dot}"
    );
}

#[test]
fn threads_are_ranked_left_to_right_and_the_legend_lists_the_edges_drawn() {
    let (p, a) = witness(MP);
    let dot = render_analysis(&p, &Model::PtxV75, &a).unwrap();
    let first = |t: usize| {
        let line = dot
            .lines()
            .skip_while(|l| !l.contains(&format!("cluster_p{t} ")))
            .nth(1)
            .unwrap();
        line.trim().split(' ').next().unwrap().to_string()
    };
    let (f0, f1, f2) = (first(0), first(1), first(2));
    assert!(
        dot.contains(&format!("{{ rank=same; {f0}; {f1}; {f2} }}")),
        "{dot}"
    );
    assert!(
        dot.contains(&format!("{f0} -> {f1} -> {f2} [style=invis];")),
        "{dot}"
    );
    assert!(dot.contains("cluster_legend"), "{dot}");
    assert!(dot.contains("reads-from"), "{dot}");
    assert!(
        !dot.contains("sc (bold)"),
        "no fence.sc, no legend row: {dot}"
    );
    // Positions are spelled out; edge labels take part in the layout.
    assert!(dot.contains("\\nline 4, column 2"), "{dot}");
    assert!(dot.contains("[label=\"rf\", color=red"), "{dot}");
    assert!(dot.contains("splines=true"), "{dot}");
}

#[test]
fn witness_file_names_are_unique() {
    let files = [
        Path::new("a/MP.litmus"),
        Path::new("b/MP.litmus"),
        Path::new("c/SB.litmus"),
        Path::new("c/SB.litmus"),
        Path::new("/x/y/LB.litmus"),
    ];
    assert_eq!(
        file_names(&files),
        ["a-MP.dot", "b-MP.dot", "SB.dot", "SB-2.dot", "LB.dot"]
    );
}
