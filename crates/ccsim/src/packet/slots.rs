//! The arena's storage: packets at multiples of 32 bytes, so that each lies in exactly two
//! cache lines (`Packet`). The type itself keeps the alignment of its fields: aligned to 32,
//! every function with a packet on its stack realigned the stack, which cost 3–5 % on H and
//! b in the profile-guided build (docs/performance.md, 0.6.5). Only the storage is aligned,
//! in pairs of packets that start a line.

use std::mem::MaybeUninit;

use super::Packet;

/// Two packets, starting a cache line: the first in the pair's lines 0 and 1, the second in
/// lines 1 and 2.
#[repr(C, align(64))]
struct Pair([MaybeUninit<Packet>; 2]);

// The packets of consecutive pairs are contiguous: packet `i` is `i` packets from the first.
const _: () = assert!(std::mem::size_of::<Pair>() == 2 * std::mem::size_of::<Packet>());
const _: () = assert!(std::mem::size_of::<Packet>().is_multiple_of(32));

/// Packets `0..len`, every one initialised.
#[derive(Default)]
pub(super) struct Slots {
    pairs: Vec<Pair>,
    len: usize,
}

impl Slots {
    pub fn len(&self) -> usize {
        self.len
    }

    /// Appends `p`; returns its index.
    #[inline]
    pub fn push(&mut self, p: Packet) -> usize {
        let i = self.len;
        if i == 2 * self.pairs.len() {
            self.grow();
        }
        // SAFETY: packet `i` lies within `pairs` (grown above if it was full), and is not
        // initialised: writing it forgets nothing.
        unsafe { self.first_mut().add(i).write(p) };
        self.len = i + 1;
        i
    }

    /// Room for two more. Out of line: a new pair is rare once the arena has reached the
    /// packets in flight, and its temporary is the one value aligned to a line.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.pairs
            .push(Pair([MaybeUninit::uninit(), MaybeUninit::uninit()]));
    }

    /// Puts `p` in place of packet `i` without dropping the packet there: the caller knows it
    /// owns nothing (a freed packet's XCP header is dropped as it is freed). Nor is the old
    /// packet read, which with thousands of flows has left the cache.
    #[inline]
    pub fn overwrite(&mut self, i: usize, p: Packet) {
        assert!(i < self.len, "packet {i} of {}", self.len);
        // SAFETY: packet `i` is initialised (`i < len`); `write` does not drop it, which
        // leaks nothing, as above.
        unsafe { self.first_mut().add(i).write(p) }
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&Packet> {
        // SAFETY: packets `0..len` are initialised, contiguous from the first.
        (i < self.len).then(|| unsafe { &*self.first().add(i) })
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Packet> {
        // SAFETY: as `get`, borrowed mutably through `self`.
        (i < self.len).then(|| unsafe { &mut *self.first_mut().add(i) })
    }

    fn first(&self) -> *const Packet {
        self.pairs.as_ptr().cast()
    }

    fn first_mut(&mut self) -> *mut Packet {
        self.pairs.as_mut_ptr().cast()
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        for i in 0..self.len {
            // SAFETY: packets `0..len` are initialised, and dropped once, here.
            unsafe { std::ptr::drop_in_place(self.first_mut().add(i)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, XcpHeader};
    use crate::time::SimTime;

    #[test]
    fn packets_lie_in_two_lines_each_and_keep_their_values() {
        let mut s = Slots::default();
        for i in 0..9 {
            let mut p = Packet::new(i, Kind::TcpData, 0, 1, 1500, SimTime::ZERO);
            p.xcp = Some(Box::new(XcpHeader::default()));
            assert_eq!(s.push(p), i as usize);
        }
        for i in 0..9 {
            let p = s.get(i).expect("pushed");
            assert_eq!(p.flow, i as u32);
            let at = p as *const Packet as usize;
            assert_eq!(at % 32, 0, "packet {i}");
            assert_eq!(at / 64 + 1, (at + 95) / 64, "packet {i} spans two lines");
        }
        assert!(s.get(9).is_none());
        s.get_mut(4).expect("pushed").xcp = None;
        s.overwrite(4, Packet::new(40, Kind::TcpAck, 1, 0, 52, SimTime::ZERO));
        assert_eq!(s.get(4).map(|p| (p.flow, p.kind)), Some((40, Kind::TcpAck)));
        assert_eq!(s.len(), 9);
        // Dropping the store drops the eight headers still held (Miri or a leak checker
        // would see one left behind).
    }
}
