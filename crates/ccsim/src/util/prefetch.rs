//! Software prefetch: asking the processor to bring memory into the cache before it is read.
//!
//! With thousands of flows, the state an event touches (its link direction, the packet that
//! arrives, the flow it belongs to) has left the cache since that flow's last packet, and each
//! first touch waits for memory. The event queue knows which events come next (`engine/`), so
//! the simulation asks for their state while the current event runs (`sim.rs`). A prefetch is a
//! hint: it never faults, changes no result, and costs an instruction when the line is there.

/// Prefetches the cache lines that `bytes` bytes from `p` reach into every cache level.
#[inline(always)]
pub fn lines<T>(p: *const T, bytes: usize) {
    if bytes <= 64 {
        // At most two lines: the first and the last byte's, without a loop (most callers pass
        // a constant size, so this test folds away). Where they share a line the second
        // prefetch finds it on its way.
        line(p as usize);
        line((p as usize).wrapping_add(bytes.max(1) - 1));
        return;
    }
    let first = p as usize & !63;
    let last = (p as usize).wrapping_add(bytes.max(1) - 1) & !63;
    let mut at = first;
    loop {
        line(at);
        if at >= last {
            break;
        }
        at += 64;
    }
}

/// Prefetches the `bytes` bytes from `p`, which starts a cache line (a type aligned to 64):
/// a constant size unrolls into one prefetch per line.
#[inline(always)]
pub fn aligned_lines<T>(p: *const T, bytes: usize) {
    debug_assert_eq!(p as usize % 64, 0, "not at the start of a line");
    for i in 0..bytes.div_ceil(64) {
        line((p as usize).wrapping_add(64 * i));
    }
}

#[inline(always)]
fn line(addr: usize) {
    // SAFETY: a prefetch never faults and writes nothing, whatever the address; SSE, which
    // the instruction needs, is part of every x86-64 processor.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(addr as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_any_address_is_harmless() {
        let v = [7u64; 40];
        lines(v.as_ptr(), std::mem::size_of_val(&v));
        lines(std::ptr::null::<u8>(), 1);
        lines(usize::MAX as *const u8, 64);
        aligned_lines(std::ptr::null::<u8>(), 256);
        assert_eq!(v[39], 7);
    }
}
