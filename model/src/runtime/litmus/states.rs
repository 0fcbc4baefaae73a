//! Exhaustive exploration of a litmus program by state caching, for speed.
//!
//! A litmus thread is plain data (a program counter and registers, [`ThreadRun`]), so a whole
//! configuration — machine plus threads — can be cloned at every decision and compared with the
//! ones already seen. The search steps the same [`Machine`] the engines drive, one visible
//! operation at a time, and branches on which thread goes next and which store a load reads. It
//! reaches exactly the final states the exhaustive engines reach ([`crate::engine::Dfs`] replays
//! every decision sequence from the start instead), in far fewer steps:
//!
//! - *State caching*: interleavings that lead to the same configuration continue once. The key
//!   ([`Machine::state_key`]) leaves out how a configuration was reached (trace, event numbers).
//! - *Persistent sets*: only a set of threads whose next operations commute with everything the
//!   other threads may still do is stepped (a fence that is not `fence.sc` commutes with
//!   everything; an access with every operation on other locations, and a load with loads).
//!   This keeps every final state (persistent sets preserve all terminal states of an acyclic
//!   state space). Programs with barriers (cluster barriers too) are explored without it: a
//!   barrier, and a thread's exit, change what other threads may do; so are programs with `cp.async` or bulk copies,
//!   whose copy agents ([`Config`]) the search steps like threads.

use super::thread::{Next, ThreadRun};
use super::{LitmusModel, Options, Outcomes};
use crate::axiomatic::FinalState;
use crate::hash::{hash_words, Identity, Mix};
use crate::litmus::{AsyncOp, Fence, Instr, Program};
use crate::runtime::async_copy::AgentNext;
use crate::runtime::features::FEATURES;
use crate::runtime::machine::{Halt, Machine, Status};
use crate::runtime::report::FailureKind;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

/// The configurations seen so far, by key: the keys themselves (compared exactly), end to end
/// in one arena, found through their hash (keys with equal hashes are chained).
#[derive(Default)]
struct Seen {
    arena: Vec<u64>,
    /// Per key: where it starts in `arena`, and the next key with the same hash.
    keys: Vec<(usize, u32)>,
    first_with_hash: HashMap<u64, u32, BuildHasherDefault<Identity>>,
}

impl Seen {
    fn key(&self, i: u32) -> &[u64] {
        let start = self.keys[i as usize].0;
        let end = self
            .keys
            .get(i as usize + 1)
            .map_or(self.arena.len(), |k| k.0);
        &self.arena[start..end]
    }

    /// Whether `key` is new (and from now on seen).
    fn insert(&mut self, key: &[u64]) -> bool {
        let hash = hash_words(key);
        let new = self.keys.len() as u32;
        let mut chain = match self.first_with_hash.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(new);
                None
            }
            Entry::Occupied(slot) => Some(*slot.get()),
        };
        while let Some(i) = chain {
            if self.key(i) == key {
                return false;
            }
            let next = self.keys[i as usize].1;
            if next == u32::MAX {
                self.keys[i as usize].1 = new;
                break;
            }
            chain = Some(next);
        }
        self.keys.push((self.arena.len(), u32::MAX));
        self.arena.extend_from_slice(key);
        true
    }

    fn len(&self) -> usize {
        self.keys.len()
    }
}

/// The final states the runtime reaches on `p` over every schedule and every choice of store,
/// found by state caching. `executions` counts distinct final configurations, `configurations`
/// every distinct configuration visited; past `opts.max_configurations` the search stops and
/// says so (`complete: false`).
pub fn explore_states(p: &Program, opts: &Options) -> Outcomes {
    let model = LitmusModel::new(p, opts);
    let setup = Arc::new(model.setup(p, opts));
    let footprints = Footprints::new(&model, p);
    let threads = setup.threads.len();
    let mut out = Outcomes::default();
    if threads > 64 {
        out.error = Some(format!(
            "the state-caching search runs at most 64 threads; this program has {threads}"
        ));
        return out;
    }
    let mut machine = Machine::new(setup, &FEATURES);
    machine.trace = false;
    machine.spin_loops = false;
    for loc in &mut machine.locs {
        std::sync::Arc::make_mut(loc).mirror = Vec::new();
    }
    let mut initial = Config {
        m: machine,
        runs: (0..p.threads.len())
            .map(|t| ThreadRun::new(&model, t))
            .collect(),
    };
    let _ = initial.settle(&model);
    let mut seen = Seen::default();
    let mut stack = Vec::new();
    let mut scratch = Vec::new();
    let mut complete = true;
    let mut finals: HashSet<Vec<i64>, BuildHasherDefault<Mix>> = HashSet::default();
    let mut forks: Vec<(usize, usize)> = Vec::new();
    let mut push = |c: Config, stack: &mut Vec<Config>, seen: &mut Seen| {
        scratch.clear();
        c.key(&mut scratch);
        if seen.insert(&scratch) {
            stack.push(c);
        }
    };
    push(initial, &mut stack, &mut seen);
    while let Some(c) = stack.pop() {
        if seen.len() as u64 > opts.max_configurations {
            complete = false;
            break;
        }
        if let Some(f) = &c.m.failure {
            if f.kind == FailureKind::DataRace {
                unreachable!("litmus setups do not stop on races");
            }
            out.cut += 1;
            continue;
        }
        if c.m.halted {
            out.cut += 1;
            continue;
        }
        if (0..threads).all(|t| c.finished(t)) {
            out.executions += 1;
            let racy = c.m.races > 0;
            out.racy += u64::from(racy);
            // Many final configurations share a final state: compare values (and whether the
            // run raced) before building it.
            let values: Vec<i64> = c
                .runs
                .iter()
                .flat_map(|r| r.regs.iter().copied())
                .chain((0..model.names.len()).map(|l| c.m.final_value(l) as i64))
                .chain([i64::from(racy)])
                .collect();
            if finals.insert(values) {
                let state = c.final_state(&model);
                if racy {
                    out.racy_states.insert(state.clone());
                }
                out.states.insert(state);
            }
            continue;
        }
        let enabled = (0..threads)
            .filter(|&t| !c.finished(t) && *c.m.status(t) == Status::Running)
            .fold(0u64, |set, t| set | 1 << t);
        if enabled == 0 {
            // Every blocked state is diagnosed as a deadlock by the machine; this is a backstop.
            out.cut += 1;
            continue;
        }
        // Every successor forks `c`, except the last one, which takes it over.
        forks.clear();
        for t in members(footprints.persistent(&c, enabled)) {
            forks.extend((0..c.options(&model, t)).map(|choice| (t, choice)));
        }
        let mut c = Some(c);
        while let Some((t, choice)) = forks.pop() {
            let mut next = if forks.is_empty() {
                c.take()
                    .expect("the last successor takes the configuration")
            } else {
                c.as_ref().expect("kept for later successors").clone()
            };
            let _ = next.step(&model, t, &|_| choice);
            push(next, &mut stack, &mut seen);
        }
    }
    out.configurations = seen.len() as u64;
    out.complete = complete && out.cut == 0;
    out
}

/// The threads in a set (one bit per thread).
fn members(set: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |t| set & (1 << t) != 0)
}

/// The machine and every litmus thread's interpreter. The machine's threads past `runs` are
/// the CTAs' `cp.async` copy agents, which the machine steps itself.
#[derive(Clone)]
struct Config {
    m: Machine,
    runs: Vec<ThreadRun>,
}

impl Config {
    /// Whether thread `t` (a litmus thread or a copy agent) has exited.
    fn finished(&self, t: usize) -> bool {
        match self.runs.get(t) {
            Some(run) => run.finished,
            None => *self.m.status(t) == Status::Done,
        }
    }

    fn key(&self, key: &mut Vec<u64>) {
        self.m.state_key(key);
        for r in &self.runs {
            key.extend([r.pc as u64, r.finished as u64]);
            key.push(r.cluster_arrival.map_or(u64::MAX, u64::from));
            key.extend(r.regs.iter().map(|&v| v as u64));
            key.push(r.back_taken.len() as u64);
            key.extend(r.back_taken.iter().map(|&n| n as u64));
        }
    }

    /// How many transitions thread `t` has next: one per store its next load may read.
    fn options(&self, model: &LitmusModel, t: usize) -> usize {
        let Some(run) = self.runs.get(t) else {
            // A copy agent reads the newest store of the source (see `runtime::async_copy`).
            return 1;
        };
        match run.next_load(model, t) {
            Some(loc) => self.m.readable(t, loc),
            None => 1,
        }
    }

    /// Thread `t`'s next transition: its visible operation, then the local statements of every
    /// running thread up to their next visible one (or their exit), so that a running thread
    /// always stands at a visible operation.
    fn step(
        &mut self,
        model: &LitmusModel,
        t: usize,
        choose: &dyn Fn(usize) -> usize,
    ) -> Result<(), Halt> {
        match self.runs.get_mut(t) {
            Some(run) => {
                run.exec(model, t, &mut self.m, None, choose)?;
            }
            None => self.m.agent_step(t)?,
        }
        // Nobody parks here: woken threads are simply running again.
        self.m.wake.clear();
        self.settle(model)
    }

    /// Run the local statements of every running thread; exit those with none left (an exit
    /// may complete a barrier and wake others, so repeat until nothing changes). A running
    /// copy agent takes up its next copy, or goes idle, or exits, so that it too stands at a
    /// visible step (an element or a completion).
    fn settle(&mut self, model: &LitmusModel) -> Result<(), Halt> {
        loop {
            let mut changed = false;
            for a in self.runs.len()..self.m.threads.len() {
                while *self.m.status(a) == Status::Running {
                    match self.m.agent_next(a) {
                        AgentNext::Element { .. }
                        | AgentNext::Read(_)
                        | AgentNext::Write(_)
                        | AgentNext::Complete => break,
                        AgentNext::Idle => {
                            self.m.agent_idle(a)?;
                        }
                        AgentNext::Exit => {
                            self.m.exit(a);
                            self.m.wake.clear();
                            if self.m.halted {
                                return Err(Halt);
                            }
                        }
                    }
                }
            }
            for t in 0..self.runs.len() {
                if self.runs[t].finished || *self.m.status(t) != Status::Running {
                    continue;
                }
                match self.runs[t].advance(model, t) {
                    Next::Visible => {}
                    Next::Finished => {
                        self.finish(t)?;
                        changed = true;
                    }
                    Next::Failed(message) => return self.fail(message),
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// Registers from the threads, memory from the machine.
    fn final_state(&self, model: &LitmusModel) -> FinalState {
        let regs = self
            .runs
            .iter()
            .enumerate()
            .flat_map(|(t, run)| run.recorded(model, t));
        model.final_state_with(&self.m, regs)
    }

    fn finish(&mut self, t: usize) -> Result<(), Halt> {
        self.runs[t].finished = true;
        self.m.exit(t);
        self.m.wake.clear();
        if self.m.halted {
            return Err(Halt);
        }
        Ok(())
    }

    fn fail(&mut self, message: String) -> Result<(), Halt> {
        self.m.fail(FailureKind::Assertion, message, vec![]);
        self.m.wake.clear();
        Err(Halt)
    }
}

/// Per thread and statement, the locations the thread may still read and write from there on,
/// and whether a `fence.sc` is still ahead: what its next operation must commute with.
struct Footprints {
    /// `None` when the program is explored without persistent sets (barriers, or more
    /// locations than a mask holds).
    ahead: Option<Vec<Vec<Footprint>>>,
    /// Per thread and statement, the statement's own footprint.
    own: Vec<Vec<Footprint>>,
}

#[derive(Copy, Clone, Default)]
struct Footprint {
    reads: u64,
    writes: u64,
    sc_fence: bool,
}

impl Footprint {
    fn add(&mut self, other: Footprint) {
        self.reads |= other.reads;
        self.writes |= other.writes;
        self.sc_fence |= other.sc_fence;
    }
}

impl Footprints {
    fn new(model: &LitmusModel, p: &Program) -> Footprints {
        let barriers = p.threads.iter().any(|th| {
            th.body.iter().any(|s| {
                matches!(
                    s.instr,
                    Instr::Barrier { .. }
                        | Instr::WarpSync { .. }
                        | Instr::Async(AsyncOp::ClusterArrive { .. } | AsyncOp::ClusterWait)
                )
            })
        });
        // A copy agent's steps have no footprint of their own here: with `cp.async` or bulk
        // copies, every enabled thread is stepped.
        let bulk_copies = model.threads.iter().flatten().any(|s| s.agent.is_some());
        if barriers || p.uses_cp_async() || bulk_copies || model.names.len() > 64 {
            return Footprints {
                ahead: None,
                own: Vec::new(),
            };
        }
        let loc_of = &model.loc_of;
        let footprint = |i: &Instr| {
            let mut f = Footprint::default();
            match i {
                Instr::Load { loc, .. } => f.reads = 1 << loc_of[*loc],
                Instr::Store { loc, .. } => f.writes = 1 << loc_of[*loc],
                Instr::Atom { loc, .. } | Instr::Red { loc, .. } => {
                    f.reads = 1 << loc_of[*loc];
                    f.writes = 1 << loc_of[*loc];
                }
                Instr::Fence(Fence::Sc(_)) => f.sc_fence = true,
                Instr::Async(AsyncOp::MbarrierTryWait { bar, .. }) => f.reads = 1 << loc_of[*bar],
                Instr::Async(op) => {
                    if let Some(bar) = op.mbarrier() {
                        f.reads = 1 << loc_of[bar];
                        f.writes = 1 << loc_of[bar];
                    }
                }
                _ => {}
            }
            f
        };
        let own: Vec<Vec<Footprint>> = p
            .threads
            .iter()
            .map(|th| th.body.iter().map(|s| footprint(&s.instr)).collect())
            .collect();
        let ahead = own
            .iter()
            .zip(&p.threads)
            .map(|(own, th)| {
                let mut from = vec![Footprint::default(); own.len() + 1];
                for i in (0..own.len()).rev() {
                    from[i] = from[i + 1];
                    from[i].add(own[i]);
                }
                // A branch may go back anywhere: the whole body stays ahead.
                if th
                    .body
                    .iter()
                    .any(|s| matches!(s.instr, Instr::Branch { .. }))
                {
                    let whole = from[0];
                    from.iter_mut().for_each(|f| *f = whole);
                }
                from
            })
            .collect();
        Footprints {
            ahead: Some(ahead),
            own,
        }
    }

    /// A persistent set of threads to step: the smallest conflict closure of one enabled thread
    /// (every thread whose remaining operations may conflict with the next operation of a
    /// thread in the set joins it), so that nothing the threads outside it may still do depends
    /// on what the set does next. Every enabled thread when there is no footprint.
    fn persistent(&self, c: &Config, enabled: u64) -> u64 {
        let Some(ahead) = &self.ahead else {
            return enabled;
        };
        let unfinished = (0..c.runs.len())
            .filter(|&t| !c.runs[t].finished)
            .fold(0u64, |set, t| set | 1 << t);
        let mut best = enabled;
        for seed in members(enabled) {
            let (mut set, mut todo) = (1u64 << seed, 1u64 << seed);
            while todo != 0 && set.count_ones() < best.count_ones() {
                let u = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let Some(&next) = self.own[u].get(c.runs[u].pc) else {
                    continue;
                };
                for v in members(unfinished & !set) {
                    if Self::conflicts(next, ahead[v][c.runs[v].pc]) {
                        set |= 1 << v;
                        todo |= 1 << v;
                    }
                }
            }
            // A closure cut short at `best`'s size is no smaller, so it is never taken.
            if set.count_ones() < best.count_ones() {
                best = set;
            }
            if best.count_ones() == 1 {
                break;
            }
        }
        best
    }

    /// Whether an operation with footprint `next` may fail to commute with some operation of
    /// `rest`: it writes what `rest` accesses, reads what `rest` writes, or both hold a
    /// `fence.sc`. (Fences that are not `fence.sc` have empty footprints and commute with
    /// everything; barriers would not, but programs with barriers have no footprints.)
    fn conflicts(next: Footprint, rest: Footprint) -> bool {
        next.writes & (rest.reads | rest.writes) != 0
            || next.reads & rest.writes != 0
            || (next.sc_fence && rest.sc_fence)
    }
}
