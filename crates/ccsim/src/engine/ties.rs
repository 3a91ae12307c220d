//! Sorting many keys that tie at one instant, in linear time.
//!
//! Events at one instant run in the order of their keys' low half (`Event::order`): the kind,
//! then a hash of the time and the index (the per-instant shuffle), then the index. Where
//! sources send in step (constant-rate sources started on a grid), dozens to hundreds of events
//! share an instant, in the wheel's tick (`wheel.rs`) and again as their packets merge into a
//! link (`net/inbound.rs`); a comparison sort of each costs O(log n) comparisons a packet
//! (docs/performance.md, 0.6.6). Keys that share their time and kind differ first in the
//! shuffle, which is evenly spread: dealt into about one bucket per key by its top bits, they
//! are in order bucket by bucket, and an insertion pass puts each bucket's few in order. The
//! result is a comparison sort's: keys in the queue are distinct, and equal ones would be the
//! same event.

use super::KIND_SHIFT;

/// Groups of at least this many are sorted by bucket; `sort_unstable` is quicker below it.
const BUCKETS_FROM: usize = 32;

/// At most 2^`MAX_BUCKET_BITS` buckets: larger groups share them, a few keys a bucket.
const MAX_BUCKET_BITS: u32 = 10;

/// The bucket, of 2^`bits`, of a key whose time and kind its group shares: the top bits of its
/// shuffle, which lies just below the kind in the key's low half. Keys in order have buckets
/// in order.
#[inline]
fn bucket(key: u128, bits: u32) -> usize {
    ((key as u64) >> (KIND_SHIFT - bits)) as usize & ((1 << bits) - 1)
}

/// The buckets' bounds, kept for their capacity.
#[derive(Default)]
pub(crate) struct TieSort {
    starts: Vec<u32>,
}

impl TieSort {
    /// Puts `items` into `out` in ascending order of `key` and returns true, where there are at
    /// least `BUCKETS_FROM` and their keys share time and kind; else returns false, `out`
    /// untouched, for the caller to sort them otherwise.
    pub(crate) fn sort<T: Copy>(
        &mut self,
        items: &[T],
        out: &mut Vec<T>,
        key: impl Fn(&T) -> u128,
    ) -> bool {
        let n = items.len();
        if n < BUCKETS_FROM {
            return false;
        }
        let instant = key(&items[0]) >> KIND_SHIFT;
        if items.iter().any(|x| key(x) >> KIND_SHIFT != instant) {
            return false;
        }
        let bits = (usize::BITS - (n - 1).leading_zeros()).min(MAX_BUCKET_BITS);
        // Counting sort: `starts[b + 1]` counts bucket b, then becomes where it starts.
        self.starts.clear();
        self.starts.resize((1 << bits) + 1, 0);
        for x in items {
            self.starts[bucket(key(x), bits) + 1] += 1;
        }
        for b in 1..self.starts.len() {
            self.starts[b] += self.starts[b - 1];
        }
        out.clear();
        out.extend_from_slice(items);
        for &x in items {
            let at = &mut self.starts[bucket(key(&x), bits)];
            out[*at as usize] = x;
            *at += 1;
        }
        // Buckets are in order; within one, insertion.
        for i in 1..n {
            let x = out[i];
            let k = key(&x);
            let mut j = i;
            while j > 0 && key(&out[j - 1]) > k {
                out[j] = out[j - 1];
                j -= 1;
            }
            out[j] = x;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Event;
    use crate::time::SimTime;

    #[test]
    fn buckets_follow_the_keys_and_spread_a_group() {
        // 100 feeders tied at one instant, in 128 buckets: buckets in key order, and no
        // bucket with more than a few (an even spread puts 0.78 in each).
        let mut keys: Vec<u128> = (0..100).map(|f| Event::Arrive(f).key(SimTime(5))).collect();
        keys.sort_unstable();
        let buckets: Vec<usize> = keys.iter().map(|&k| bucket(k, 7)).collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "{buckets:?}");
        let mut fill = [0; 128];
        for &b in &buckets {
            fill[b] += 1;
        }
        assert!(fill.iter().all(|&c| c <= 5), "{fill:?}");
    }

    #[test]
    fn sorts_a_large_group_of_one_instant_and_kind_and_leaves_the_rest() {
        let mut ties = TieSort::default();
        let mut out = vec![];
        // Sizes below, at and past `BUCKETS_FROM`, and past the most buckets (3,000 in
        // 1,024), in an order unrelated to the keys (i * 7919 mod n: every index once).
        for n in [31u32, 32, 100, 3000] {
            let keys: Vec<u128> = (0..n)
                .map(|i| Event::UdpSend((i * 7919) % n).key(SimTime(77)))
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            let done = ties.sort(&keys, &mut out, |&k| k);
            assert_eq!(done, n >= 32, "{n}");
            if done {
                assert_eq!(out, want, "{n}");
            }
        }
        // Two instants, or two kinds at one: not this sort's to do.
        out.clear();
        let two_times: Vec<u128> = (0..40u64)
            .map(|i| Event::UdpSend(i as u32).key(SimTime(i % 2)))
            .collect();
        assert!(!ties.sort(&two_times, &mut out, |&k| k));
        let two_kinds: Vec<u128> = (0..40u32)
            .map(|i| match i % 2 {
                0 => Event::UdpSend(i).key(SimTime(5)),
                _ => Event::Arrive(i).key(SimTime(5)),
            })
            .collect();
        assert!(!ties.sort(&two_kinds, &mut out, |&k| k));
        assert!(out.is_empty(), "left untouched");
    }
}
