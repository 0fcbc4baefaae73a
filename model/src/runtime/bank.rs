//! Shared-memory bank conflicts: 32 banks of 4-byte words. Accesses a warp issues together
//! (same source site, same warp, same dynamic occurrence) to different words of one bank are
//! served one after another; the degree is the largest number of distinct words one bank must
//! serve (1 = conflict-free; equal words are a broadcast).

use super::machine::BankKey;
use super::report::Site;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// Shared memory's banks: successive 32-bit words sit in successive banks, modulo 32.
pub const BANKS: u64 = 32;

/// The worst conflict seen at one access site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankConflict {
    /// The access site (a kernel source location or a PTX instruction).
    pub site: Site,
    /// Largest number of distinct words one bank served in one warp-wide access.
    pub degree: usize,
    /// The bank and block/warp where that happened.
    pub bank: u64,
    /// The block (CTA) of that access, by grid-wide index.
    pub block: u32,
    /// The warp of that access, within its block.
    pub warp: u32,
}

impl fmt::Display for BankConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.degree <= 1 {
            write!(f, "{}: conflict-free", self.site)
        } else {
            write!(
                f,
                "{}: {}-way bank conflict (bank {} served {} distinct words for warp {} of block {})",
                self.site, self.degree, self.bank, self.degree, self.warp, self.block
            )
        }
    }
}

/// The worst degree per site in one execution's accesses.
pub fn conflicts(accesses: &HashMap<BankKey, Vec<u64>>) -> Vec<BankConflict> {
    let mut worst: HashMap<Site, BankConflict> = HashMap::new();
    for (&(site, block, warp, _), words) in accesses {
        let mut per_bank: HashMap<u64, BTreeSet<u64>> = HashMap::new();
        for &w in words {
            per_bank.entry(w % BANKS).or_default().insert(w);
        }
        let (bank, degree) = per_bank
            .iter()
            .map(|(&b, ws)| (b, ws.len()))
            .max_by_key(|&(b, d)| (d, std::cmp::Reverse(b)))
            .unwrap_or((0, 0));
        let entry = worst.entry(site).or_insert(BankConflict {
            site,
            degree: 0,
            bank,
            block,
            warp,
        });
        if degree > entry.degree {
            *entry = BankConflict {
                site,
                degree,
                bank,
                block,
                warp,
            };
        }
    }
    let mut out: Vec<BankConflict> = worst.into_values().collect();
    out.sort_by_key(|c| (c.site.file(), c.site.line(), c.site.column()));
    out
}

/// Merge one execution's conflicts into the running worst-per-site list.
pub fn merge(into: &mut Vec<BankConflict>, more: Vec<BankConflict>) {
    for c in more {
        match into.iter_mut().find(|x| x.site == c.site) {
            Some(x) if c.degree > x.degree => *x = c,
            Some(_) => {}
            None => into.push(c),
        }
    }
    into.sort_by_key(|c| (c.site.file(), c.site.line(), c.site.column()));
}
