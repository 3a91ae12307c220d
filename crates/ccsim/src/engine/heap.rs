//! A 4-ary min-heap of 128-bit keys: the event queue's store for events beyond the wheel's
//! horizon (`wheel.rs`), and its reference in tests.
//!
//! Four children per node halve a binary heap's depth, and the four keys of a node share a
//! cache line; a pop walks the hole at the root down to a leaf along the smallest children
//! (Floyd's trick: one tournament per level, no comparison with the entry being placed) and
//! sifts the last entry up from there.

const ARITY: usize = 4;

#[derive(Default)]
pub struct Heap4 {
    keys: Vec<u128>,
}

impl Heap4 {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.keys.first().copied()
    }

    pub fn push(&mut self, key: u128) {
        self.keys.push(key);
        self.sift_up(self.keys.len() - 1, key);
    }

    pub fn pop(&mut self) -> Option<u128> {
        let top = self.peek()?;
        let last = self.keys.pop().expect("not empty");
        let n = self.keys.len();
        if n > 0 {
            let hole = self.hole_down(n);
            self.sift_up(hole, last);
        }
        Some(top)
    }

    /// Moves the hole at the root down along the smallest children (the first `n` entries are
    /// the heap) to a leaf; returns where it ends.
    fn hole_down(&mut self, n: usize) -> usize {
        assert!(n <= self.keys.len());
        let k = self.keys.as_mut_ptr();
        let mut hole = 0;
        // SAFETY: every index read or written is below `n`, checked against the length above:
        // children `first..first + 4` only when `first + 4 <= n`, else `first..n`.
        unsafe {
            loop {
                let first = ARITY * hole + 1;
                let best = if first + ARITY <= n {
                    // A full node: a branch-free tournament (the winner is unpredictable, so
                    // conditional moves beat branches).
                    let a = first + (*k.add(first + 1) < *k.add(first)) as usize;
                    let b = first + 2 + (*k.add(first + 3) < *k.add(first + 2)) as usize;
                    if *k.add(b) < *k.add(a) {
                        b
                    } else {
                        a
                    }
                } else if first < n {
                    let mut best = first;
                    for c in first + 1..n {
                        if *k.add(c) < *k.add(best) {
                            best = c;
                        }
                    }
                    best
                } else {
                    return hole;
                };
                *k.add(hole) = *k.add(best);
                hole = best;
            }
        }
    }

    fn sift_up(&mut self, mut i: usize, key: u128) {
        assert!(i < self.keys.len());
        let k = self.keys.as_mut_ptr();
        // SAFETY: `i` is in bounds (checked above) and parents are smaller indices.
        unsafe {
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if *k.add(parent) <= key {
                    break;
                }
                *k.add(i) = *k.add(parent);
                i = parent;
            }
            *k.add(i) = key;
        }
    }
}
