//! A first-in first-out ring of small `Copy` items, for queues that every packet passes
//! through (a fed direction's inbound run, `inbound.rs`).
//!
//! `VecDeque` wraps its indices by comparison and keeps a capacity apart from its buffer; here
//! the capacity is a power of two and the ends are running counts, so an index is one mask and
//! pushing or taking one increment (docs/performance-history.md, 0.4.2).

/// Items at positions `head..tail` (running counts, wrapping), item `p` in
/// `slots[p & (len - 1)]`. The counts are 32 bits and the slots a boxed slice, so that a ring
/// takes 24 bytes of the link direction that holds it (`net/link.rs`); a ring never holds
/// 2^31 items (it would take tens of gigabytes), so the wrapped difference is its length.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    slots: Box<[T]>,
    head: u32,
    tail: u32,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            slots: Box::default(),
            head: 0,
            tail: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    #[inline]
    fn slot(&self, pos: u32) -> &T {
        &self.slots[pos as usize & (self.slots.len() - 1)]
    }

    #[inline]
    fn slot_mut(&mut self, pos: u32) -> &mut T {
        let mask = self.slots.len() - 1;
        &mut self.slots[pos as usize & mask]
    }

    /// Prefetches the slot the next `pop_front` reads and the one the next `push_back`
    /// writes (`util/prefetch.rs`).
    #[inline(always)]
    pub fn prefetch_ends(&self) {
        if !self.slots.is_empty() {
            for pos in [self.head, self.tail] {
                crate::util::prefetch::lines(self.slot(pos), std::mem::size_of::<T>());
            }
        }
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (!self.is_empty()).then(|| self.slot(self.head))
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        (!self.is_empty()).then(|| self.slot(self.tail.wrapping_sub(1)))
    }

    /// The `i`-th item from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len()).then(|| self.slot(self.head.wrapping_add(i as u32)))
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let x = *self.front()?;
        self.head = self.head.wrapping_add(1);
        Some(x)
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len() == self.slots.len() {
            self.grow(x);
        }
        *self.slot_mut(self.tail) = x;
        self.tail = self.tail.wrapping_add(1);
    }

    /// The position of the first item (positions are running counts: `from`).
    #[inline]
    pub fn head(&self) -> u32 {
        self.head
    }

    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        let pos = self.tail.wrapping_sub(1);
        (!self.is_empty()).then(|| self.slot_mut(pos))
    }

    /// The item at position `pos`, which must be on the ring (from the head to the back).
    pub fn at_mut(&mut self, pos: u32) -> &mut T {
        debug_assert!(
            pos.wrapping_sub(self.head) < self.len() as u32,
            "not on the ring"
        );
        self.slot_mut(pos)
    }

    /// Where the run of last items that `same` holds for starts: the position of the first of
    /// them (the tail's if the last item fails it).
    pub fn last_run_start(&self, same: impl Fn(&T) -> bool) -> u32 {
        let mut pos = self.tail;
        while pos != self.head && same(self.slot(pos.wrapping_sub(1))) {
            pos = pos.wrapping_sub(1);
        }
        pos
    }

    /// The items from position `pos` (at or after the head) to the back.
    pub fn from(&self, pos: u32) -> impl Iterator<Item = &T> {
        let n = self.tail.wrapping_sub(pos);
        (0..n).map(move |i| self.slot(pos.wrapping_add(i)))
    }

    /// Writes `items` over the items from position `pos` on (no further than the back).
    pub fn overwrite_from(&mut self, pos: u32, items: impl Iterator<Item = T>) {
        for (i, x) in items.enumerate() {
            debug_assert!((i as u32) < self.tail.wrapping_sub(pos), "past the back");
            *self.slot_mut(pos.wrapping_add(i as u32)) = x;
        }
    }

    /// Doubles the capacity (at least 4), every item keeping its position (`head`, `from`);
    /// `fill` pads the unused slots (any value: they are written before they are read).
    #[cold]
    fn grow(&mut self, fill: T) {
        let cap = (self.len() * 2).max(4);
        let mut slots = vec![fill; cap].into_boxed_slice();
        let mut pos = self.head;
        while pos != self.tail {
            slots[pos as usize & (cap - 1)] = *self.slot(pos);
            pos = pos.wrapping_add(1);
        }
        self.slots = slots;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn first_in_first_out_across_growth_and_wrap() {
        // Against VecDeque, with pushes and takes interleaved so that the ends wrap the ring
        // many times and it grows while wrapped; the capacity is the smallest power of two
        // (at least 4) that held the most items at once.
        let (mut r, mut v) = (Ring::default(), VecDeque::new());
        let (mut next, mut most) = (0u32, 0);
        for round in 0..200u32 {
            for _ in 0..(round % 7) {
                r.push_back(next);
                v.push_back(next);
                next += 1;
            }
            most = most.max(v.len());
            for _ in 0..(round % 5) {
                assert_eq!(r.pop_front(), v.pop_front());
            }
            assert_eq!(
                (r.len(), r.front(), r.back()),
                (v.len(), v.front(), v.back())
            );
        }
        assert_eq!(r.slots.len(), most.next_power_of_two().max(4));
        while let Some(x) = v.pop_front() {
            assert_eq!(r.pop_front(), Some(x));
        }
        assert_eq!((r.pop_front(), r.front(), r.back()), (None, None, None));
    }

    #[test]
    fn positions_survive_growth_and_name_runs_of_last_items() {
        let mut r = Ring::default();
        for x in [1u32, 2, 2, 2] {
            r.push_back(x);
        }
        assert_eq!(r.pop_front(), Some(1));
        let start = r.last_run_start(|&x| x == 2);
        assert_eq!(start, r.head(), "the run reaches the front");
        r.push_back(3);
        assert_eq!(
            r.last_run_start(|&x| x == 2),
            r.tail,
            "the last item fails it"
        );
        let tail_before = r.tail;
        // Growing (4 slots to 8) keeps every item at its position.
        for x in [4, 4, 4, 4] {
            r.push_back(x);
        }
        let fours = r.last_run_start(|&x| x == 4);
        assert_eq!(fours, tail_before);
        assert_eq!(
            r.from(start).copied().collect::<Vec<_>>(),
            [2, 2, 2, 3, 4, 4, 4, 4]
        );
        r.overwrite_from(fours, [7, 8, 9, 10].into_iter());
        assert_eq!(r.from(fours).copied().collect::<Vec<_>>(), [7, 8, 9, 10]);
        assert_eq!(r.front(), Some(&2));
    }

    #[test]
    fn the_running_counts_wrap_around() {
        // Counts started just below 2^32 pass it while the ring holds items and grows.
        let mut r: Ring<u32> = Ring {
            head: u32::MAX - 5,
            tail: u32::MAX - 5,
            ..Ring::default()
        };
        let mut v = VecDeque::new();
        for x in 0..40u32 {
            r.push_back(x);
            v.push_back(x);
            if x % 3 == 0 {
                assert_eq!(r.pop_front(), v.pop_front());
            }
            assert_eq!(
                (r.len(), r.front(), r.back()),
                (v.len(), v.front(), v.back())
            );
            assert_eq!(r.get(v.len() / 2), v.get(v.len() / 2));
        }
        while let Some(x) = v.pop_front() {
            assert_eq!(r.pop_front(), Some(x));
        }
        assert!(r.is_empty());
    }
}
