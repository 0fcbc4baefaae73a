//! Tile IR token order inside one tile block.
//!
//! In Tile IR, program order does not order the memory operations of a tile block: only token
//! order does (an operation waits for the operations whose tokens it consumes, transitively).
//! So two accesses of one tile block to one element, at least one a write, race unless token
//! order relates them — the race check skips same-thread pairs for ordinary operations, and this
//! module adds the check for token-ordered ones.
//!
//! Scope of the model: the operational runtime checks token order *within* a tile block. Across
//! blocks, synchronization still treats a block's operations in program order (stronger than
//! Tile IR, where a release publishes only what is token-ordered before it); the axiomatic
//! `tile-ir` model covers that part.

use super::machine::{Halt, Machine};
use super::report::FailureKind;
use std::sync::Arc;

pub mod state;

use self::state::OpRec;
pub use self::state::{TokenLog, TokenOp};

impl Machine {
    /// Start a token-ordered operation that waits for the operations `after` (token ids); its
    /// own id is its token. With `run == false` it is only a token join (no accesses).
    pub fn token_begin(&mut self, t: usize, after: &[u32], run: bool) -> u32 {
        if self.tokens.is_empty() {
            self.tokens = vec![TokenLog::default(); self.setup.threads.len()];
        }
        let log = &mut self.tokens[t];
        let mut closure: Vec<u32> = Vec::new();
        for &a in after {
            closure.push(a);
            closure.extend_from_slice(&log.ops[a as usize].after);
        }
        closure.sort_unstable();
        closure.dedup();
        let id = log.ops.len() as u32;
        log.ops.push(OpRec {
            after: closure,
            accesses: Vec::new(),
        });
        if run {
            Arc::make_mut(&mut self.threads[t]).token_op = Some(TokenOp { id });
        }
        id
    }

    /// Thread `t`'s token-ordered operation is over: its later accesses are its own again.
    pub fn token_end(&mut self, t: usize) {
        Arc::make_mut(&mut self.threads[t]).token_op = None;
    }

    /// Called by every race check: a token-ordered access must be token-ordered after every
    /// conflicting earlier token-ordered access of its own tile block.
    pub(super) fn token_check(
        &mut self,
        t: usize,
        loc: usize,
        write: bool,
        event: usize,
    ) -> Result<(), Halt> {
        let Some(op) = self.threads[t].token_op else {
            return Ok(());
        };
        let log = &self.tokens[t];
        let me = &log.ops[op.id as usize];
        let conflict = log.ops.iter().enumerate().find_map(|(id, o)| {
            if id as u32 == op.id || me.after.binary_search(&(id as u32)).is_ok() {
                return None;
            }
            o.accesses
                .iter()
                .find(|&&(l, w, _)| l == loc && (w || write))
                .map(|&(_, _, e)| e)
        });
        if let Some(prior) = conflict {
            let name = self.setup.locs[loc].name.clone();
            let who = self.setup.threads[t].name.clone();
            let details = vec![
                format!("#{prior} {}", self.describe(prior)),
                format!("#{event} {}", self.describe(event)),
                format!(
                    "both are accesses of {who}, but Tile IR orders a tile block's memory \
                     operations only by tokens, not by program order: make the second wait for \
                     the first's token"
                ),
            ];
            self.fail(
                FailureKind::DataRace,
                format!("data race on {name}: two accesses of {who} not ordered by tokens"),
                details,
            );
            return Err(Halt);
        }
        self.tokens[t].ops[op.id as usize]
            .accesses
            .push((loc, write, event));
        Ok(())
    }
}

impl super::Ctx {
    /// Start a token-ordered operation after the operations `after`; returns its token
    /// ([`Machine::token_begin`]).
    pub fn token_begin(&self, after: &[u32], run: bool) -> u32 {
        self.step(|m| Ok(m.token_begin(self.thread, after, run)))
    }

    /// End this thread's token-ordered operation ([`Machine::token_end`]).
    pub fn token_end(&self) {
        self.step(|m| {
            m.token_end(self.thread);
            Ok(())
        })
    }
}
