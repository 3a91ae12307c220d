//! A timing wheel: the event queue's store for events within its horizon (`mod.rs`).
//!
//! Time is cut into ticks of `2^shift` ns and the wheel has `N` buckets, one per tick of the
//! horizon `[cur, cur + N)` ticks, where `cur` is the tick of the last event taken. A bucket
//! holds the keys of its tick as a short linked list in one pool of nodes, and a two-level
//! bitmap marks the buckets in use, so finding the next event is a scan of a word or two and of
//! its bucket, however many events wait (Varghese and Lauck 1987; Brown's calendar queue, 1988,
//! is the same idea with a variable width). Keys beyond the horizon are refused; the caller
//! keeps them in a heap. Every key in the wheel lies in `[cur, cur + N)`, so bucket order
//! from `cur` is time order, and no bucket ever holds two ticks.
//!
//! A bucket's list is unordered, so taking its smallest key is a scan. Where a bucket holds
//! several (thousands of flows put a few events in each tick), the first take scans it and
//! moves the rest into `run`, sorted, from which the following takes are one pop each. The
//! run holds every key up to the end of its last tick (`run_hi`): keys pushed into those
//! ticks are inserted in order, so while it is not empty its last key is the smallest. The
//! run tells which events come next (`upcoming`), which the simulation uses to fetch their
//! state into the cache ahead of time (`sim/prefetching.rs`); with `look_ahead` the wheel keeps at least
//! two keys in it, taking the next bucket in before the run's tick is done, so that the first
//! events of each tick are known ahead too.

use super::TieSort;

/// Buckets: 2^14.
const BITS: u32 = 14;
pub const N: u64 = 1 << BITS;
const MASK: usize = N as usize - 1;
const WORDS: usize = N as usize / 64;
const SUMMARY: usize = WORDS / 64;
const NIL: u32 = u32::MAX;
/// `Found::node` of a key taken from `run`.
const RUN: u32 = u32::MAX - 1;
/// How many keys `look_ahead` keeps in the run: the next event and the one after
/// (`EventQueue::upcoming`).
const AHEAD: usize = 2;

/// Where `peek` found the smallest key.
#[derive(Clone, Copy)]
pub struct Found {
    bucket: usize,
    prev: u32,
    node: u32,
    pub key: u128,
}

#[derive(Clone, Copy)]
struct Node {
    key: u128,
    next: u32,
}

pub struct Wheel {
    shift: u32,
    cur: u64,
    heads: Vec<u32>,
    /// Bit `b` of word `b / 64`: bucket `b` is in use.
    bits: Vec<u64>,
    /// Bit `w`: word `w` of `bits` is not zero.
    summary: [u64; SUMMARY],
    nodes: Vec<Node>,
    free: u32,
    len: usize,
    /// While not empty, every key of a tick up to `run_hi`, in descending order (the smallest
    /// last); the buckets of those ticks are then empty and their bits clear.
    run: Vec<u128>,
    run_hi: u64,
    /// A large tick of one instant sorted by bucket (`ties.rs`), ascending, before it is
    /// reversed into `run`; kept for its capacity.
    sorted: Vec<u128>,
    ties: TieSort,
    /// Whether to keep `AHEAD` keys in the run where the wheel has them.
    look_ahead: bool,
}

/// The first set bit at or after `from` in `words`, if any.
#[inline]
fn first_set(words: &[u64], from: usize) -> Option<usize> {
    let mut i = from / 64;
    let mut m = *words.get(i)? & (u64::MAX << (from % 64));
    loop {
        if m != 0 {
            return Some(i * 64 + m.trailing_zeros() as usize);
        }
        i += 1;
        m = *words.get(i)?;
    }
}

impl Wheel {
    /// A wheel of ticks of `2^shift` ns.
    pub fn new(shift: u32) -> Wheel {
        Wheel {
            shift,
            cur: 0,
            heads: vec![NIL; N as usize],
            bits: vec![0; WORDS],
            summary: [0; SUMMARY],
            nodes: Vec::new(),
            free: NIL,
            len: 0,
            run: Vec::new(),
            run_hi: 0,
            sorted: Vec::new(),
            ties: TieSort::default(),
            look_ahead: false,
        }
    }

    /// Keeps the next two keys in the run where the wheel has them (`upcoming`), at the cost
    /// of sorting every bucket, even one of a single key, through it.
    pub fn look_ahead(&mut self, on: bool) {
        self.look_ahead = on;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn tick(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    /// Moves the start of the horizon to the tick of time `key` (the event just taken, no
    /// later than any key in the wheel).
    #[inline]
    pub fn set_cur(&mut self, key: u128) {
        self.cur = self.tick(key);
    }

    /// Stores `key` if it falls within the horizon; returns whether it did.
    #[inline]
    pub fn push(&mut self, key: u128) -> bool {
        // A key before `cur` (none should be) wraps to a huge distance and is refused too.
        let tick = self.tick(key);
        if tick.wrapping_sub(self.cur) >= N {
            return false;
        }
        self.len += 1;
        if tick <= self.run_hi && !self.run.is_empty() {
            let at = self.run.partition_point(|&k| k > key);
            self.run.insert(at, key);
            return true;
        }
        let b = tick as usize & MASK;
        let head = self.heads[b];
        let node = Node { key, next: head };
        let i = if self.free == NIL {
            self.nodes.push(node);
            self.nodes.len() as u32 - 1
        } else {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        };
        self.heads[b] = i;
        if head == NIL {
            self.bits[b / 64] |= 1 << (b % 64);
            self.summary[b / 4096] |= 1 << ((b / 64) % 64);
        }
        true
    }

    /// The first bucket in use from `cur` on, in ring order.
    #[inline(always)]
    fn first_bucket(&self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let p = self.cur as usize & MASK;
        let w = p / 64;
        let m = self.bits[w] & (u64::MAX << (p % 64));
        if m != 0 {
            return Some(w * 64 + m.trailing_zeros() as usize);
        }
        // Later words, then from the start of the ring (which may bring back word `w`, whose
        // bits at or after `p` are clear).
        let ws = first_set(&self.summary, w + 1).or_else(|| first_set(&self.summary, 0))?;
        Some(ws * 64 + self.bits[ws].trailing_zeros() as usize)
    }

    /// The smallest key and where it is.
    #[inline]
    pub fn peek(&self) -> Option<Found> {
        if let Some(&key) = self.run.last() {
            return Some(Found {
                bucket: 0,
                prev: NIL,
                node: RUN,
                key,
            });
        }
        let b = self.first_bucket()?;
        let head = self.heads[b];
        let n = self.nodes[head as usize];
        let mut found = Found {
            bucket: b,
            prev: NIL,
            node: head,
            key: n.key,
        };
        // Most buckets hold one event; the rest a few.
        let (mut prev, mut i) = (head, n.next);
        while i != NIL {
            let n = self.nodes[i as usize];
            if n.key < found.key {
                found = Found {
                    bucket: b,
                    prev,
                    node: i,
                    key: n.key,
                };
            }
            (prev, i) = (i, n.next);
        }
        Some(found)
    }

    /// Removes the key `peek` found.
    #[inline]
    pub fn remove(&mut self, f: Found) {
        self.len -= 1;
        if f.node == RUN {
            self.run.pop();
        } else {
            let b = f.bucket;
            let next = self.nodes[f.node as usize].next;
            if f.prev == NIL {
                self.heads[b] = next;
            } else {
                self.nodes[f.prev as usize].next = next;
            }
            self.nodes[f.node as usize].next = self.free;
            self.free = f.node;
            if self.heads[b] != NIL {
                // The run was empty (its keys come first): the rest of the tick forms it.
                self.take_run(b);
            } else {
                self.clear_bit(b);
            }
        }
        if self.look_ahead && self.run.len() < AHEAD {
            self.fill_run();
        }
    }

    /// Takes the next buckets into the run until it holds `AHEAD` keys or the wheel has no
    /// more (`look_ahead`). Kept out of `remove`, which runs for every event.
    #[inline(never)]
    fn fill_run(&mut self) {
        while self.run.len() < AHEAD && self.len > self.run.len() {
            let Some(b) = self.first_bucket() else { break };
            self.take_run(b);
        }
    }

    /// Moves bucket `b`'s list, the first in use, into the run, sorted: its keys come after
    /// the one there may be (`AHEAD`), of an earlier tick.
    fn take_run(&mut self, b: usize) {
        debug_assert!(self.run.len() < AHEAD);
        let kept = self.run.pop();
        let mut i = std::mem::replace(&mut self.heads[b], NIL);
        while i != NIL {
            let n = self.nodes[i as usize];
            self.run.push(n.key);
            self.nodes[i as usize].next = self.free;
            self.free = i;
            i = n.next;
        }
        if self.ties.sort(&self.run, &mut self.sorted, |&k| k) {
            self.run.clear();
            self.run.extend(self.sorted.iter().rev());
        } else {
            self.run.sort_unstable_by(|a, b| b.cmp(a));
        }
        self.run.extend(kept);
        self.run_hi = self.tick(self.run[0]);
        self.clear_bit(b);
    }

    #[inline]
    fn clear_bit(&mut self, b: usize) {
        self.bits[b / 64] &= !(1 << (b % 64));
        if self.bits[b / 64] == 0 {
            self.summary[b / 4096] &= !(1 << ((b / 64) % 64));
        }
    }

    /// The keys of the run, in descending order: the last is the next to be taken, unless keys
    /// pushed in the meantime, or the caller's heap's, come first.
    #[inline]
    pub fn upcoming(&self) -> &[u128] {
        &self.run
    }
}
