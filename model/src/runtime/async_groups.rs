//! A thread's groups of asynchronous copies: `cp.async`'s cp.async-groups and the bulk
//! async-groups of shared→global bulk copies (`cp.async.bulk ... .bulk_group`). Both work alike
//! (PTX ISA, *cp.async.commit_group* / *cp.async.bulk.commit_group*: a commit batches "all prior"
//! uncommitted copies of the thread into a new group, an empty one if there are none;
//! *cp.async.wait_group* / *cp.async.bulk.wait_group*: the thread waits "until only N or fewer of
//! the most recent ... groups are pending and all the prior ... groups committed by the executing
//! thread are complete"). A bulk wait may also be `.read`: "until all the bulk async operations in
//! the specified bulk async-group have completed reading from their source locations".
//!
//! Each group counts its copies not yet complete (and, for bulk copies, not yet done reading) and
//! keeps what the completed ones released, which the wait that covers the group joins.

use super::view::{View, ALL_LEVELS};

/// One group: copies not yet complete and not yet done reading, and what the complete ones (and
/// those done reading) released.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// Copies of the group not yet complete.
    pub outstanding: u32,
    /// Bulk copies of the group not yet done reading their sources.
    pub reading: u32,
    /// What the completed copies released (joined): what a wait covering the group joins.
    pub done: Option<View>,
    /// What the copies done reading released: what a `.read` wait covering the group joins.
    pub read_done: Option<View>,
}

/// A thread's groups by number; the open one (not yet committed) is number `open`.
#[derive(Clone, Debug, Default)]
pub struct AsyncGroups {
    /// The number of the open group, which the next commit closes.
    pub open: usize,
    /// Every group by number, up to the highest one issued into or committed.
    pub groups: Vec<Group>,
}

fn join(into: &mut Option<View>, v: &View) {
    match into {
        Some(d) => d.join(v, ALL_LEVELS),
        None => *into = Some(v.clone()),
    }
}

impl AsyncGroups {
    fn group(&mut self, g: usize) -> &mut Group {
        if self.groups.len() <= g {
            self.groups.resize(g + 1, Group::default());
        }
        &mut self.groups[g]
    }

    /// One more copy in the open group; `reads` when its source reads are waited for apart
    /// (bulk copies). Returns the group.
    pub fn issue(&mut self, reads: bool) -> usize {
        let g = self.open;
        let group = self.group(g);
        group.outstanding += 1;
        group.reading += u32::from(reads);
        g
    }

    /// Commit the open group (possibly empty); returns its number.
    pub fn commit(&mut self) -> usize {
        let g = self.open;
        self.group(g);
        self.open += 1;
        g
    }

    /// Committed groups with a copy not yet complete.
    pub fn pending(&self) -> usize {
        self.groups[..self.open.min(self.groups.len())]
            .iter()
            .filter(|g| g.outstanding > 0)
            .count()
    }

    /// A copy of group `g` finished reading its source; `released` is what that read releases.
    pub fn read_complete(&mut self, g: usize, released: &View) {
        let group = self.group(g);
        group.reading -= 1;
        join(&mut group.read_done, released);
    }

    /// A copy of group `g` completed; `released` is what its completion releases.
    pub fn complete(&mut self, g: usize, released: Option<&View>) {
        let group = self.group(g);
        group.outstanding -= 1;
        if let Some(v) = released {
            join(&mut group.done, v);
        }
    }

    /// Waiting for every committed group but the `n` most recent (their reads only, if `read`):
    /// `None` while one of them is not done, else what they released, to be joined once.
    pub fn ready(&mut self, n: usize, read: bool) -> Option<Vec<View>> {
        let upto = self.open.saturating_sub(n).min(self.groups.len());
        let waited = &mut self.groups[..upto];
        let busy = |g: &Group| match read {
            true => g.reading > 0,
            false => g.outstanding > 0,
        };
        if waited.iter().any(busy) {
            return None;
        }
        let released = waited.iter_mut().filter_map(|g| match read {
            true => g.read_done.take(),
            false => g.done.take(),
        });
        Some(released.collect())
    }
}
