//! What a front end other than PTX's adds to a program, as plain data the models read: the
//! qualifiers of its statements (an order and the names of the cat base sets their events belong
//! to), its hierarchy of thread groups, the relations between threads it declares, and which
//! front end it is (with what the front end keeps of its source to print the test back).
//!
//! The IR knows no dialect: each front end lowers what its instructions mean
//! into these fields and reads them back to print; a cat model names the sets and relations,
//! and the evaluator looks the names up here.

use super::operand::ThreadId;
use crate::scope::Order;
use serde::{Deserialize, Serialize, Serializer};
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// What a front end says one statement means beyond its IR instruction: the memory order its
/// events have for the model (a memory barrier's semantics, a compare-exchange's two orders)
/// and the cat base sets they belong to (`AV`, `NONPRIV`, `SC0`, `WG`, `GLOBAL`, `NAL`, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Qualifiers {
    /// The order of the statement's events, in place of the instruction's own (`Weak` for a
    /// non-atomic access, `Relaxed` for no semantics).
    pub order: Order,
    /// A compare-exchange's order on failure: the order of its read when it fails (then it only
    /// reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_order: Option<Order>,
    /// The names of the cat base sets the statement's events belong to.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub tags: BTreeSet<String>,
    /// For a barrier: the level of the program's [`Groups`] whose instance it meets in (the
    /// threads of one instance of that level meet at it); `None`: the CTA, as in PTX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<usize>,
}

impl Qualifiers {
    /// Qualifiers of this order, in no base set.
    pub fn new(order: Order) -> Qualifiers {
        Qualifiers {
            order,
            fail_order: None,
            tags: BTreeSet::new(),
            group: None,
        }
    }

    /// Whether the events are in the base set named `tag`.
    pub fn has(&self, tag: &str) -> bool {
        self.tags.contains(tag)
    }

    /// Puts the events in the base set named `tag`.
    pub fn tag(&mut self, tag: impl Into<String>) {
        self.tags.insert(tag.into());
    }

    /// The order an event of the statement has: a compare-exchange that failed reads with its
    /// failure order (C11 7.17.7.4: "if false, ... memory is affected according to the value of
    /// failure").
    pub fn event_order(&self, failed_cas: bool) -> Order {
        match (failed_cas, self.fail_order) {
            (true, Some(o)) => o,
            _ => self.order,
        }
    }
}

/// A front end's hierarchy of thread groups (subgroups, workgroups, queue families, devices,
/// ...): the cat relation `s<level>` (`ssg`, `swg`, `sqf`) relates
/// the events of threads of one instance of a level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Groups {
    /// The levels' names as the dialect writes them in placements (`sg`, `wg`, `qf`),
    /// narrowest first.
    pub levels: Vec<String>,
    /// Each thread's id at each level, by thread then level. An id is numbered within the
    /// instance of the next wider level (subgroup 0 of workgroup 1 is not subgroup 0 of
    /// workgroup 0), so the instance of level `l` holding a thread is its ids from `l` on.
    pub ids: Vec<Vec<u32>>,
}

impl Groups {
    /// The level named `name`, if the hierarchy has one.
    pub fn level(&self, name: &str) -> Option<usize> {
        self.levels.iter().position(|l| l == name)
    }

    /// A key naming the instance of `level` that holds thread `t`: its ids from the widest
    /// level down to `level`, then `u32::MAX` for each narrower level (so every key of one
    /// hierarchy has one length and keys of nested instances sort together).
    pub fn instance(&self, t: ThreadId, level: usize) -> Vec<u32> {
        let ids = &self.ids[t];
        (0..ids.len())
            .rev()
            .map(|l| if l >= level { ids[l] } else { u32::MAX })
            .collect()
    }

    /// The placement of thread `t` as the dialect writes it: `sg 0, wg 1, qf 0`.
    pub fn placement(&self, t: ThreadId) -> String {
        self.levels
            .iter()
            .zip(&self.ids[t])
            .map(|(l, id)| format!("{l} {id}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The front end a program was written in, when not PTX's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Front {
    /// The dialect's name as the header writes it (its first word).
    pub dialect: String,
    /// What the front end keeps of the test beyond the IR to print it back (a C dialect's
    /// kernels as written); `None` when the IR is all it needs. Not read back from JSON.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

impl Front {
    /// A front end's mark, with nothing kept of its source.
    pub fn new(dialect: &str) -> Front {
        Front {
            dialect: dialect.to_string(),
            source: None,
        }
    }
}

/// A front end's own view of its test's source, which the IR holds without knowing its type;
/// any plain data type that compares, prints for debugging and serializes is one.
pub trait SourceData: Any + fmt::Debug + Send + Sync {
    /// Whether `other` is the same source (equality of programs compares it).
    fn same(&self, other: &dyn SourceData) -> bool;
    /// The source as JSON (what serializing a program writes).
    fn to_json(&self) -> serde_json::Value;
}

impl<T: Any + fmt::Debug + Send + Sync + PartialEq + Serialize> SourceData for T {
    fn same(&self, other: &dyn SourceData) -> bool {
        (other as &dyn Any).downcast_ref::<T>() == Some(self)
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// A front end's source data ([`SourceData`]), shared between clones of the program.
#[derive(Clone)]
pub struct Source(Arc<dyn SourceData>);

impl Source {
    /// Wraps a front end's source data.
    pub fn new(data: impl SourceData) -> Source {
        Source(Arc::new(data))
    }

    /// The data, if it is a `T`.
    pub fn get<T: SourceData>(&self) -> Option<&T> {
        (&*self.0 as &dyn Any).downcast_ref::<T>()
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        self.0.same(&*other.0)
    }
}

impl Eq for Source {}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for Source {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.to_json().serialize(s)
    }
}

/// Relations between threads a test declares (`ssw`: system-synchronizes-with), by the cat name of the
/// relation: each pair `(a, b)` relates every event of thread `a` to every event of thread `b`,
/// and the relation is closed transitively.
pub type ThreadRelations = BTreeMap<String, Vec<(ThreadId, ThreadId)>>;
