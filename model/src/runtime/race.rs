//! Data races and scoped races.
//!
//! Two accesses to one location conflict when at least one writes. A conflict is a race when
//! neither precedes the other in causality order and they are not morally strong (PTX "Data
//! Race"). Causality order is happens-before (base causality: the views' clocks) plus a write
//! observed by a morally strong read followed by base causality (the views' observed writes). If, at some widening level,
//! the pair becomes ordered or morally strong, the race is *scoped*: widening the strong
//! operations to that level's scope fixes it.

use super::describe::describe_event;
use super::memory::AccessRec;
use super::report::{scope_label, Event, EventKind, FailureKind};
use super::setup::Setup;
use super::sync::{morally_strong, Actor};
use super::view::{View, LEVELS};
use crate::scope::Scope;

/// A race found at a new access: the earlier access it races with, and the scope that would fix
/// it, if any.
pub struct Race {
    /// The earlier conflicting access, unordered with the new one and not morally strong with it.
    pub prior: AccessRec,
    /// The narrowest scope at which the pair is ordered or morally strong (a scoped race);
    /// `None` when no scope fixes it (a plain data race).
    pub fix: Option<Scope>,
}

/// The first earlier access racing with a new access by `actor` (whose view is `view`).
pub fn find_race(accesses: &[AccessRec], view: &View, actor: &Actor, write: bool) -> Option<Race> {
    let t = actor.thread;
    for p in accesses {
        let u = p.actor.thread;
        // Causality order, not only happens-before: a write this thread observed (or learnt of
        // through base causality after someone observed it) is ordered before the new access.
        if u == t || !(p.write || write) || view.causes(0, u, p.epoch) {
            continue;
        }
        let ms = morally_strong(&p.actor, actor);
        if ms & 1 != 0 {
            continue;
        }
        let fix = (1..LEVELS)
            .find(|&level| view.causes(level, u, p.epoch) || ms & (1 << level) != 0)
            .map(|level| Scope::ALL[level]);
        return Some(Race {
            prior: p.clone(),
            fix,
        });
    }
    None
}

impl Race {
    /// Kind, headline and detail lines for a report.
    pub fn describe(
        &self,
        setup: &Setup,
        events: &[Event],
        loc: usize,
        event: usize,
    ) -> (FailureKind, String, Vec<String>) {
        let name = &setup.locs[loc].name;
        let kind = match self.fix {
            Some(fix) => FailureKind::ScopedRace { fix },
            None => FailureKind::DataRace,
        };
        let (a, b) = (&events[self.prior.event - 1], &events[event - 1]);
        let mut details = vec![
            format!("#{} {}", self.prior.event, describe_event(setup, a)),
            format!("#{event} {}", describe_event(setup, b)),
        ];
        let (ta, tb) = (&setup.threads[a.thread], &setup.threads[b.thread]);
        let both_strong = self.prior.actor.strong() && strong_event(&b.what);
        let headline = match self.fix {
            Some(fix) if both_strong => {
                details.push(format!(
                    "both are strong, but not morally strong: their scopes do not include each other's \
                     thread ({} and {}); with scope {} they would be",
                    ta.name,
                    tb.name,
                    scope_label(fix)
                ));
                format!(
                    "scoped race on {name}: fix by using scope {}",
                    scope_label(fix)
                )
            }
            Some(fix) => {
                details.push(format!(
                    "they are unordered because the synchronization between {} and {} uses too narrow \
                     a scope; with scope {} on the synchronizing operations they would be ordered",
                    ta.name,
                    tb.name,
                    scope_label(fix)
                ));
                format!(
                    "scoped race on {name}: fix by using scope {}",
                    scope_label(fix)
                )
            }
            None => {
                details.push(
                    "neither happens before the other, and they are not both strong (no scope would \
                     order them: add release/acquire synchronization or a barrier)"
                        .to_string(),
                );
                format!("data race on {name}")
            }
        };
        (kind, headline, details)
    }
}

fn strong_event(what: &EventKind) -> bool {
    match what {
        EventKind::Load { scope, .. } | EventKind::Store { scope, .. } => scope.is_some(),
        EventKind::Rmw { .. } => true,
        _ => false,
    }
}
