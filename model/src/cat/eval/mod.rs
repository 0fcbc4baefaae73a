//! Evaluation of a compiled model over one set of events. [`Prepared::new`] turns the model's
//! graph into a plan for these events: what reads none of the execution's choices is computed
//! once; operations a statically empty operand decides are dropped; unions, intersections
//! with static relations and restrictions to static sets fold into one masked union per
//! node (`[W]; (vloc & r); [W] | [M]; (scta & r); [M]` is `r & m`, one pass). [`Eval`] then
//! computes what a check asks for under the choices of one candidate execution, and its
//! [`Memo`] keeps, from one evaluation to the next, every value that reads none of the
//! choices that changed (reads-from changes at every prefix the enumeration checks, coherence
//! and the synchronization far less often).

mod base;
mod evaluate;
mod plan;
mod prepare;
mod val;

pub use evaluate::Eval;
pub use plan::{Memo, Prepared};
pub use val::Val;
