//! Mutants in the style of MC Mutants (Levine et al., ASPLOS 2023): each weakens exactly one
//! ordering or scope of a test whose weak outcome the model forbids. A mutant the model then
//! allows is *live*; the GPU *kills* it by showing the now-allowed weak outcome. The share of live
//! mutants killed within a fixed budget measures how well the harness provokes weak behaviour.

use scopecheck_model::litmus::{Access, Fence, Instr, Program, Stmt};
use scopecheck_model::scope::{Order, Scope};

/// A program with one ordering or scope weakened, and what was changed.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub what: String,
    pub program: Program,
}

/// Every single-step weakening of `p`.
pub fn mutants(p: &Program) -> Vec<Mutant> {
    let mut out = Vec::new();
    for (tid, t) in p.threads.iter().enumerate() {
        for (i, s) in t.body.iter().enumerate() {
            for (what, instr) in weakenings(&s.instr) {
                let mut m = p.clone();
                let at = format!("P{tid}#{i}");
                match instr {
                    Some(instr) => m.threads[tid].body[i] = Stmt { instr, ..s.clone() },
                    None => {
                        m.threads[tid].body.remove(i);
                    }
                }
                m.name = format!("{}~{at}:{what}", p.name);
                out.push(Mutant {
                    what: format!("{at} {what}"),
                    program: m,
                });
            }
        }
    }
    out
}

/// One-step weakenings of an instruction; `None` deletes it (fences only).
fn weakenings(i: &Instr) -> Vec<(String, Option<Instr>)> {
    let mut out = Vec::new();
    let with_access = |a: Access| -> Instr {
        let mut j = i.clone();
        match &mut j {
            Instr::Load { access, .. }
            | Instr::Store { access, .. }
            | Instr::Atom { access, .. }
            | Instr::Red { access, .. } => *access = a,
            _ => unreachable!("only memory accesses carry an access"),
        }
        j
    };
    match i {
        Instr::Load { access, .. }
        | Instr::Store { access, .. }
        | Instr::Atom { access, .. }
        | Instr::Red { access, .. } => {
            let is_rmw = matches!(i, Instr::Atom { .. } | Instr::Red { .. });
            for order in weaker_orders(access.order, is_rmw) {
                let scope = if order == Order::Weak {
                    None
                } else {
                    access.scope
                };
                out.push((
                    format!("{}->{}", access.order, order),
                    Some(with_access(Access {
                        order,
                        scope,
                        ..*access
                    })),
                ));
            }
            if let Some(scope) = access.scope {
                for narrower in narrower_scopes(scope) {
                    out.push((
                        format!("{scope}->{narrower}"),
                        Some(with_access(Access {
                            scope: Some(narrower),
                            ..*access
                        })),
                    ));
                }
            }
        }
        Instr::Fence(Fence::Sc(s)) => {
            out.push((
                format!("fence.sc.{s}->fence.acq_rel.{s}"),
                Some(Instr::Fence(Fence::AcqRel(*s))),
            ));
            for n in narrower_scopes(*s) {
                out.push((
                    format!("fence.sc.{s}->fence.sc.{n}"),
                    Some(Instr::Fence(Fence::Sc(n))),
                ));
            }
        }
        Instr::Fence(Fence::AcqRel(s)) => {
            out.push((format!("fence.acq_rel.{s} removed"), None));
            for n in narrower_scopes(*s) {
                out.push((
                    format!("fence.acq_rel.{s}->fence.acq_rel.{n}"),
                    Some(Instr::Fence(Fence::AcqRel(n))),
                ));
            }
        }
        _ => {}
    }
    out
}

/// One step down the order lattice. RMWs have no weak form.
fn weaker_orders(o: Order, is_rmw: bool) -> Vec<Order> {
    match o {
        Order::AcqRel => vec![Order::Acquire, Order::Release],
        Order::Acquire | Order::Release => vec![Order::Relaxed],
        Order::Relaxed if !is_rmw => vec![Order::Weak],
        _ => vec![],
    }
}

/// The next narrower scope (clusters skipped: the harness launches none).
fn narrower_scopes(s: Scope) -> Vec<Scope> {
    match s {
        Scope::Sys => vec![Scope::Gpu],
        Scope::Gpu => vec![Scope::Cta],
        Scope::Cluster => vec![Scope::Cta],
        Scope::Cta => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_passing_release_acquire_has_two_weakenings_per_access() {
        let src = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
        let p = scopecheck_model::litmus::parse(src, "mp.litmus").expect("parses");
        let names: Vec<String> = mutants(&p).into_iter().map(|m| m.what).collect();
        // Each relaxed access: ->weak and gpu->cta; release/acquire: ->relaxed and gpu->cta.
        assert_eq!(names.len(), 8, "{names:?}");
        assert!(names.contains(&"P0#1 release->relaxed".to_string()));
        assert!(names.contains(&"P1#0 gpu->cta".to_string()));
    }

    #[test]
    fn fences_are_weakened_narrowed_or_removed() {
        let src = "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.acq_rel.sys ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n";
        let p = scopecheck_model::litmus::parse(src, "sb.litmus").expect("parses");
        let ms = mutants(&p);
        let names: Vec<&str> = ms.iter().map(|m| m.what.as_str()).collect();
        assert!(
            names.contains(&"P0#1 fence.sc.gpu->fence.acq_rel.gpu"),
            "{names:?}"
        );
        assert!(
            names.contains(&"P0#1 fence.sc.gpu->fence.sc.cta"),
            "{names:?}"
        );
        assert!(
            names.contains(&"P1#1 fence.acq_rel.sys->fence.acq_rel.gpu"),
            "{names:?}"
        );
        let removed = ms
            .iter()
            .find(|m| m.what == "P1#1 fence.acq_rel.sys removed")
            .expect("removal");
        assert_eq!(removed.program.threads[1].body.len(), 2);
        assert_eq!(
            removed.program.threads[0], p.threads[0],
            "other threads untouched"
        );
    }
}
