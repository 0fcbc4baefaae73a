//! The final states asked about ([`super::allowed_among`]), in the forms the search tests them:
//! per list of register names (a combination of thread paths fixes which registers there are and
//! in what order), the wanted register values, each register's wanted values, and the wanted
//! memories per register values. Built once per list of names, not per combination of paths.

use super::targets::Memories;
use super::FinalState;
use crate::hash::Mix;
use crate::litmus::{Program, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// The wanted states of one program.
pub struct Wanted {
    states: Vec<FinalState>,
    /// The reported physical locations' names, in order (the order of a memory).
    locations: Vec<String>,
    by_names: RefCell<HashMap<Vec<String>, Rc<ForRegisters>>>,
}

/// The wanted states for one list of register names.
#[derive(Default)]
pub struct ForRegisters {
    /// The wanted register values, in the list's order.
    pub registers: HashSet<Vec<Value>, BuildHasherDefault<Mix>>,
    /// Per register of the list, every value it has in some wanted state.
    pub columns: Vec<Vec<Value>>,
    /// The wanted memories per register values.
    pub memories: Memories,
}

impl Wanted {
    /// `observed`: per location, whether final states report it ([`super::observed_locations`]).
    pub fn new(p: &Program, observed: &[bool], states: Vec<FinalState>) -> Wanted {
        let locations = (0..p.locations.len())
            .filter(|&l| p.physical(l) == l && observed[l])
            .map(|l| p.locations[l].name.clone())
            .collect();
        Wanted {
            states,
            locations,
            by_names: RefCell::default(),
        }
    }

    /// How many states are wanted.
    pub fn count(&self) -> usize {
        self.states.len()
    }

    /// The wanted states whose registers are exactly `names` (`P0:r1`, ...), in that order.
    pub fn for_registers(&self, names: &[String]) -> Rc<ForRegisters> {
        if let Some(found) = self.by_names.borrow().get(names) {
            return found.clone();
        }
        let mut f = ForRegisters {
            columns: vec![Vec::new(); names.len()],
            ..ForRegisters::default()
        };
        for state in &self.states {
            if state.regs.len() != names.len() || state.mem.len() != self.locations.len() {
                continue;
            }
            let regs: Option<Vec<Value>> =
                names.iter().map(|n| state.regs.get(n).copied()).collect();
            let mem: Option<Vec<Value>> = self
                .locations
                .iter()
                .map(|n| state.mem.get(n).copied())
                .collect();
            let (Some(regs), Some(mem)) = (regs, mem) else {
                continue;
            };
            for (column, &v) in f.columns.iter_mut().zip(&regs) {
                if !column.contains(&v) {
                    column.push(v);
                }
            }
            f.registers.insert(regs.clone());
            f.memories.entry(regs).or_default().push(mem);
        }
        let f = Rc::new(f);
        self.by_names.borrow_mut().insert(names.to_vec(), f.clone());
        f
    }
}
