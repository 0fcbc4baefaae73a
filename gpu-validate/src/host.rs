//! Litmus threads placed on the host (`P1@host`): run by CPU threads on mapped host memory,
//! beside the kernel that runs the GPU threads of the same instances.
//!
//! Every location, register and go flag of a test with a host thread lives in page-locked host
//! memory mapped into the GPU's address space (`cuMemHostAlloc` with `DEVICEMAP`), so the GPU's
//! `.sys` accesses and the CPU's accesses reach the same words. For each launch a CPU thread walks
//! the instances in a random order; for each it sets the instance's go flag (the GPU threads of a
//! host test poll it instead of counting arrivals: no GPU atomic on host memory is needed), waits
//! a short random time, then runs its litmus thread's instructions on that instance's locations.
//!
//! How a host instruction is executed, and why a verdict stays sound: the PTX ISA puts host
//! threads in the system scope, and the parser admits only `.sys` strong accesses and fences on
//! them. Each runs as the Rust (C++20) atomic of the same strength on the word — relaxed load or
//! store, acquire load, release store, an RMW with the corresponding ordering (a weak RMW as
//! relaxed, as on the GPU), `fence.sc.sys` as a sequentially consistent fence and
//! `fence.acq_rel.sys` as an acquire-release fence — and a weak access as a volatile access. These
//! are the operations the PTX memory model's C++ mapping sends to `.sys` operations of the same
//! semantics, so an execution of the host code is one of the litmus program's executions under
//! that mapping; Rust's compiler and the x86-64 hardware only ever narrow the set of outcomes.

use crate::codegen::layout::STEP_LIMIT;
use scopecheck_model::litmus::{Fence, Instr, Operand, Program, Reg, ThreadId};
use scopecheck_model::scope::Order;
use std::collections::HashMap;
use std::sync::atomic::{fence, AtomicU32, Ordering};

/// The device's hash (same constants as the harness's `mix`).
pub fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// The device's bijection on `[0, 2^k)` (same steps as the harness's `perm`).
pub fn perm(x: u32, key: u32, mask: u32, k: u32) -> u32 {
    let a = mix(key) | 1;
    let b = mix(key ^ 0x9e37_79b9);
    let c = mix(key.wrapping_add(0x632b_e5ab)) | 1;
    let mut x = x.wrapping_mul(a).wrapping_add(b) & mask;
    x ^= x >> k.div_ceil(2);
    x.wrapping_mul(c) & mask
}

/// Where one launch's instances live, in host addresses (the same words the GPU reaches
/// through their device addresses).
#[derive(Clone, Copy)]
pub struct Memory {
    pub mem: *mut u32,
    pub regs: *mut u32,
    pub go: *mut u32,
    /// log2 of the instances per launch.
    pub k: u32,
    /// Words between two locations' slots.
    pub stride: u32,
    /// Locations indexed through the per-launch permutation (as the kernel does).
    pub loc_perm: bool,
}

// SAFETY: the pointers name page-locked host memory that outlives every launch; host threads
// touch it only through atomics and volatile accesses, the GPU through its own instructions.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

/// One host litmus thread, ready to run on any instance.
#[derive(Clone, Debug)]
pub struct HostThread {
    thread: ThreadId,
    body: Vec<Instr>,
    regs: Vec<Reg>,
    initial: Vec<i64>,
    /// Which of `regs` goes to which saved word of the instance.
    saved: Vec<(usize, usize)>,
    /// Physical location index of each location id.
    physical: Vec<usize>,
    words: usize,
    timeout_word: usize,
    labels: HashMap<String, usize>,
}

/// Random pause iterations before a host thread starts an instance (after its go flag): spreads
/// the host's start over the window in which the GPU threads notice the flag.
const JITTER: u32 = 256;

impl HostThread {
    /// Host litmus thread `thread` of `p`, writing its registers to the instance words `saved`
    /// names (the harness's saved-register list, followed by the timeout and spin words).
    pub fn new(p: &Program, saved: &[(ThreadId, Reg)], thread: ThreadId) -> HostThread {
        let body: Vec<Instr> = p.threads[thread]
            .body
            .iter()
            .map(|s| s.instr.clone())
            .collect();
        let mut regs: Vec<Reg> = Vec::new();
        let mut note = |r: &Reg| {
            if !regs.contains(r) {
                regs.push(r.clone());
            }
        };
        for i in &body {
            for r in i.regs() {
                note(r);
            }
        }
        for (t, r) in saved {
            if *t == thread {
                note(r);
            }
        }
        let words = saved.len() + 2;
        let timeout_word = saved.len();
        let saved = saved
            .iter()
            .enumerate()
            .filter(|(_, (t, _))| *t == thread)
            .map(|(word, (_, r))| (regs.iter().position(|x| x == r).expect("noted"), word))
            .collect();
        let initial = regs.iter().map(|r| p.initial_reg(thread, r)).collect();
        let labels = body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Instr::Label(l) => Some((l.clone(), i)),
                _ => None,
            })
            .collect();
        let physical = (0..p.locations.len()).map(|l| p.physical(l)).collect();
        HostThread {
            thread,
            body,
            regs,
            initial,
            saved,
            physical,
            words,
            timeout_word,
            labels,
        }
    }

    /// The litmus thread this runs.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// Run this thread on every instance of the launch with `seed`, in a random order, setting
    /// each instance's go flag first.
    pub fn run_launch(&self, m: &Memory, seed: u32) {
        let n = 1u32 << m.k;
        let mask = n - 1;
        let order_key = mix(seed ^ (0x300 + self.thread as u32));
        for i in 0..n {
            let inst = perm(i, order_key, mask, m.k);
            // SAFETY: `inst < n` and the go array has `n` words.
            unsafe { word(m.go, inst as usize) }.store(1, Ordering::Release);
            for _ in 0..(mix(seed ^ i) % JITTER) {
                std::hint::spin_loop();
            }
            self.run_instance(m, seed, inst);
        }
    }

    fn run_instance(&self, m: &Memory, seed: u32, inst: u32) {
        let n = 1u32 << m.k;
        let mask = n - 1;
        let loc = |l: usize| -> &AtomicU32 {
            let li = self.physical[l] as u32;
            let slot = if m.loc_perm {
                perm(inst, mix(seed ^ (0x200 + li)), mask, m.k)
            } else {
                inst
            };
            let index = (li as usize * n as usize + slot as usize) * m.stride.max(1) as usize;
            // SAFETY: the location array holds `locations * n * stride` words.
            unsafe { word(m.mem, index) }
        };
        let mut r: Vec<i64> = self.initial.clone();
        let reg = |regs: &[Reg], x: &Reg| regs.iter().position(|y| y == x).expect("noted");
        let val = |r: &[i64], o: &Operand| match o {
            Operand::Reg(x) => r[reg(&self.regs, x)],
            Operand::Imm(v) => *v,
        };
        let mut pc = 0;
        let mut steps = 0u32;
        let mut timed_out = false;
        while pc < self.body.len() {
            let mut next = pc + 1;
            match &self.body[pc] {
                Instr::Load {
                    access,
                    dst,
                    loc: l,
                } => {
                    let w = loc(*l);
                    let v = match access.order {
                        Order::Weak => volatile_load(w),
                        o => w.load(load_ordering(o)),
                    };
                    r[reg(&self.regs, dst)] = v as i32 as i64;
                }
                Instr::Store {
                    access,
                    loc: l,
                    value,
                } => {
                    let w = loc(*l);
                    let v = val(&r, value) as i32 as u32;
                    match access.order {
                        Order::Weak => volatile_store(w, v),
                        o => w.store(v, store_ordering(o)),
                    }
                }
                Instr::Atom {
                    access,
                    op,
                    dst,
                    loc: l,
                    operand,
                    new,
                } => {
                    let operand = val(&r, operand);
                    let new = new.as_ref().map_or(0, |o| val(&r, o));
                    let old = rmw(loc(*l), access.order, |old| {
                        op.apply(old as i32 as i64, operand, new)
                    });
                    r[reg(&self.regs, dst)] = old as i32 as i64;
                }
                Instr::Red {
                    access,
                    op,
                    loc: l,
                    operand,
                } => {
                    let operand = val(&r, operand);
                    rmw(loc(*l), access.order, |old| {
                        op.apply(old as i32 as i64, operand, 0)
                    });
                }
                Instr::Fence(Fence::Sc(_)) => fence(Ordering::SeqCst),
                Instr::Fence(Fence::AcqRel(_)) => fence(Ordering::AcqRel),
                Instr::Mov { dst, src } => {
                    let v = val(&r, src);
                    r[reg(&self.regs, dst)] = v;
                }
                Instr::Alu { op, dst, a, b } => {
                    r[reg(&self.regs, dst)] = op.apply(val(&r, a), val(&r, b));
                }
                Instr::Setp { cmp, dst, a, b } => {
                    r[reg(&self.regs, dst)] = i64::from(cmp.holds(val(&r, a), val(&r, b)));
                }
                Instr::Branch { cond, target } => {
                    let taken = match cond {
                        None => true,
                        Some((cmp, a, b)) => cmp.holds(val(&r, a), val(&r, b)),
                    };
                    if taken {
                        steps += 1;
                        if steps > STEP_LIMIT {
                            timed_out = true;
                            break;
                        }
                        next = self.labels[target];
                    }
                }
                // The parser admits nothing else on a host thread (labels are no-ops).
                _ => {}
            }
            pc = next;
        }
        let base = inst as usize * self.words;
        for &(ri, word_at) in &self.saved {
            // SAFETY: the register array holds `n * words` words.
            volatile_store(unsafe { word(m.regs, base + word_at) }, r[ri] as i32 as u32);
        }
        if timed_out {
            volatile_store(unsafe { word(m.regs, base + self.timeout_word) }, 1);
        }
    }
}

/// # Safety
/// `base + index` must lie inside a live allocation of `u32` words.
unsafe fn word<'a>(base: *mut u32, index: usize) -> &'a AtomicU32 {
    // SAFETY: in bounds by the caller's promise; `AtomicU32` has `u32`'s layout.
    unsafe { &*(base.add(index) as *const AtomicU32) }
}

fn volatile_load(w: &AtomicU32) -> u32 {
    // SAFETY: a valid, aligned word.
    unsafe { std::ptr::read_volatile(w.as_ptr()) }
}

fn volatile_store(w: &AtomicU32, v: u32) {
    // SAFETY: a valid, aligned word.
    unsafe { std::ptr::write_volatile(w.as_ptr(), v) }
}

fn load_ordering(o: Order) -> Ordering {
    if o.is_acquire() {
        Ordering::Acquire
    } else {
        Ordering::Relaxed
    }
}

fn store_ordering(o: Order) -> Ordering {
    if o.is_release() {
        Ordering::Release
    } else {
        Ordering::Relaxed
    }
}

/// An RMW as a compare-and-swap loop with the access's ordering (weak as relaxed); `f` gives the
/// value written, or `None` for a failed CAS, which then only reads. Returns the old value.
fn rmw(w: &AtomicU32, order: Order, f: impl Fn(u32) -> Option<i64>) -> u32 {
    let (success, failure) = match (order.is_acquire(), order.is_release()) {
        (true, true) => (Ordering::AcqRel, Ordering::Acquire),
        (true, false) => (Ordering::Acquire, Ordering::Acquire),
        (false, true) => (Ordering::Release, Ordering::Relaxed),
        (false, false) => (Ordering::Relaxed, Ordering::Relaxed),
    };
    let mut old = w.load(failure);
    loop {
        let Some(new) = f(old) else {
            return old;
        };
        match w.compare_exchange_weak(old, new as i32 as u32, success, failure) {
            Ok(_) => return old,
            Err(seen) => old = seen,
        }
    }
}
