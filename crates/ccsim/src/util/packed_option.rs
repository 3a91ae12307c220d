//! Optional values in the space of the value: one value of the type is set aside to mean none.
//!
//! An `Option<u64>` or `Option<SimTime>` takes sixteen bytes, eight of them for one bit. Per
//! connection and per link direction those add up (with 10,000 flows, a few hundred kilobytes
//! each; docs/performance.md, memory), so state kept for every flow or link holds `Opt` where
//! the set-aside value cannot occur.

/// A type with a value that never occurs where `Opt` holds it.
pub trait Sentinel: Copy + Eq {
    const NONE: Self;
}

/// No connection sends 2^64 − 1 segments or bytes.
impl Sentinel for u64 {
    const NONE: u64 = u64::MAX;
}

/// No index of a link direction is 2^32 − 1 (`net::routing::NO_ROUTE`).
impl Sentinel for u32 {
    const NONE: u32 = u32::MAX;
}

/// An `Option<T>` in the size of `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opt<T: Sentinel>(T);

impl<T: Sentinel> Opt<T> {
    pub const NONE: Opt<T> = Opt(T::NONE);

    /// `x`; `Some(T::NONE)` reads back as none.
    #[inline(always)]
    pub fn of(x: Option<T>) -> Opt<T> {
        Opt(x.unwrap_or(T::NONE))
    }

    /// `x`, which must not be the set-aside value.
    #[inline(always)]
    pub fn some(x: T) -> Opt<T> {
        debug_assert!(x != T::NONE, "the value set aside for none");
        Opt(x)
    }

    #[inline(always)]
    pub fn get(self) -> Option<T> {
        (self.0 != T::NONE).then_some(self.0)
    }
}

impl<T: Sentinel> Default for Opt<T> {
    fn default() -> Opt<T> {
        Opt::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{OptTime, SimTime};

    #[test]
    fn values_come_back_and_none_is_none() {
        assert_eq!(Opt::of(Some(7u64)).get(), Some(7));
        assert_eq!(Opt::some(7u64), Opt::of(Some(7)));
        assert_eq!(Opt::<u64>::of(None).get(), None);
        assert_eq!(Opt::<u64>::default(), Opt::NONE);
        assert_eq!(OptTime::of(Some(SimTime::ZERO)).get(), Some(SimTime::ZERO));
        assert_eq!(std::mem::size_of::<OptTime>(), 8);
    }
}
