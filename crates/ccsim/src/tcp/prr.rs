//! Proportional Rate Reduction, RFC 6937, in Linux's form (`tcp_cwnd_reduction` and
//! `tcp_init_cwnd_reduction` in `net/ipv4/tcp_input.c`), as the window rule of SACK fast
//! recovery (`tcp.prr = true`).
//!
//! RFC 6675 sets cwnd to ssthresh at once, so the sender falls silent until the flight drains
//! below it and then sends a burst. PRR instead spreads the reduction over the round trip:
//! while the flight is above ssthresh it sends `ssthresh/prior_cwnd` of what is delivered
//! (the proportional part), and below it, where losses drained the pipe, it grows back
//! towards ssthresh no faster than slow start (the slow-start reduction bound, SSRB).
//! Each ACK in recovery sets
//!
//! ```text
//! prr_delivered += delivered by the ACK
//! if pipe > ssthresh:  sndcnt = ⌈ssthresh · prr_delivered / prior_cwnd⌉ − prr_out
//! else:                sndcnt = min(ssthresh − pipe,
//!                                   max(prr_delivered − prr_out, delivered) + [una advanced])
//! sndcnt = max(sndcnt, 1 if nothing was sent in recovery yet)
//! cwnd = pipe + sndcnt
//! ```
//!
//! and recovery ends with cwnd = ssthresh. Linux reduces the same way in its CWR state, after an
//! ECN echo (`tcp_enter_cwr`): the echo's ACK starts the reduction (it counts what that ACK
//! delivered), growth stops, the segments sent since are new data (`prr_out` is how far
//! SND.NXT has moved), and CWR ends with cwnd = ssthresh (`tcp_end_cwnd_reduction`); a loss
//! found during CWR continues the same reduction into recovery rather than starting another
//! (`tcp_enter_recovery` skips `tcp_init_cwnd_reduction` when already reducing). As Linux:
//! `prior_cwnd` (the window when recovery
//! began) stands for the RFC's RecoverFS, the slow-start bound adds its segment only on an ACK
//! that advances SND.UNA, and windows are whole segments. In ccsim's sender: `pipe` is RFC
//! 6675's (Linux's `tcp_packets_in_flight`), the segments an ACK delivers are those it newly
//! acknowledges or SACKs (one for the duplicate ACK that starts recovery), and the Linux
//! condition "no segment newly marked lost" on the extra segment is not applied.

use super::sender::Sender;

/// PRR's state during one recovery episode (Linux `prior_cwnd`, `prr_delivered`, `prr_out`).
#[derive(Clone, Debug, Default)]
pub(super) struct Prr {
    prior_cwnd: u64,
    delivered: u64,
    out: u64,
    /// `una + SACKed segments` after the last ACK: what the next ACK delivers is its growth.
    mark: u64,
    /// During a CWR reduction: SND.NXT when it began (what was sent since is `prr_out`).
    cwr_base: Option<u64>,
}

/// RFC 6937's `sndcnt` in Linux's integer form: what may be sent on this ACK.
pub fn prr_sndcnt(
    ssthresh: u64,
    prior_cwnd: u64,
    pipe: u64,
    prr_delivered: u64,
    prr_out: u64,
    delivered: u64,
    una_advanced: bool,
) -> u64 {
    let sndcnt = if pipe > ssthresh {
        // Proportional: ⌈ssthresh · prr_delivered / prior_cwnd⌉ − prr_out.
        let allowed = (ssthresh * prr_delivered).div_ceil(prior_cwnd.max(1));
        allowed.saturating_sub(prr_out)
    } else {
        // Slow-start reduction bound.
        let limit = prr_delivered.saturating_sub(prr_out).max(delivered) + una_advanced as u64;
        (ssthresh - pipe).min(limit)
    };
    // The fast retransmit always goes out.
    sndcnt.max((prr_out == 0) as u64)
}

impl Sender {
    /// Uses PRR as the window rule of SACK recovery.
    pub(super) fn with_prr(mut self) -> Sender {
        self.prr = Some(Box::default());
        self
    }

    /// SACK recovery begins (after ssthresh is set, before the fast retransmit): the window
    /// it starts from, and the first ACK's step (it delivered the one segment its SACK block
    /// newly covers).
    pub(super) fn prr_enter(&mut self) {
        let mark = self.una + self.board.n_sacked as u64;
        let high = self.high;
        let Some(p) = self.prr.as_deref_mut() else {
            return;
        };
        if let Some(base) = p.cwr_base.take() {
            // Already reducing for an ECN echo: the reduction goes on (this duplicate ACK's
            // delivery was counted in CWR), and from here sends are counted one by one.
            p.out = high - base;
            return;
        }
        *p = Prr {
            prior_cwnd: self.st.cwnd as u64,
            delivered: 0,
            out: 0,
            mark: mark.saturating_sub(1),
            cwr_base: None,
        };
        self.prr_ack(false);
    }

    /// An ECN echo starts a CWR reduction (Linux `tcp_enter_cwr`, after ssthresh is set):
    /// `before` is `una + SACKed segments` before the echo's ACK, whose delivery counts.
    pub(super) fn prr_enter_cwr(&mut self, before: u64, una_advanced: bool) {
        let cwnd = self.st.cwnd as u64;
        let high = self.high;
        let Some(p) = self.prr.as_deref_mut() else {
            return;
        };
        *p = Prr {
            prior_cwnd: cwnd,
            delivered: 0,
            out: 0,
            mark: before,
            cwr_base: Some(high),
        };
        self.prr_ack(una_advanced);
    }

    /// CWR ends: cwnd = ssthresh (Linux `tcp_end_cwnd_reduction`).
    pub(super) fn prr_end_cwr(&mut self) {
        if let Some(p) = self.prr.as_deref_mut() {
            p.cwr_base = None;
            self.st.cwnd = self.st.ssthresh;
        }
    }

    /// An ACK in SACK recovery: the window for what it may release.
    pub(super) fn prr_ack(&mut self, una_advanced: bool) {
        let now = self.una + self.board.n_sacked as u64;
        let pipe = self.recovery_pipe();
        let ssthresh = self.st.ssthresh.max(0.0) as u64;
        let Some(p) = self.prr.as_deref_mut() else {
            return;
        };
        if let Some(base) = p.cwr_base {
            p.out = self.high - base;
        }
        let delivered = now.saturating_sub(p.mark);
        p.mark = now;
        if delivered == 0 {
            return; // Linux: nothing newly delivered, the window stays
        }
        p.delivered += delivered;
        let sndcnt = prr_sndcnt(
            ssthresh,
            p.prior_cwnd,
            pipe,
            p.delivered,
            p.out,
            delivered,
            una_advanced,
        );
        self.st.cwnd = (pipe + sndcnt) as f64;
    }

    /// A segment was sent during recovery.
    pub(super) fn prr_sent(&mut self) {
        if let Some(p) = self.prr.as_deref_mut() {
            p.out += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 §6's first example: 20 segments out, one lost, ssthresh 10 (half of
    /// prior_cwnd 20); every duplicate ACK delivers one segment. The flight stays above
    /// ssthresh, so PRR sends one segment for every two delivered.
    #[test]
    fn proportional_part_sends_half_of_what_is_delivered() {
        let (ssthresh, prior) = (10, 20);
        let mut out = 0;
        let mut pipe = 19; // the lost segment no longer counts
        let mut sent = vec![];
        for delivered in 1..=10u64 {
            pipe -= 1; // one segment left the network
            let s = prr_sndcnt(ssthresh, prior, pipe, delivered, out, 1, false);
            // ⌈10 · delivered / 20⌉ − out: 1, 0, 1, 0, ... (the first is the retransmission)
            assert_eq!(s, (10 * delivered).div_ceil(20) - out, "ACK {delivered}");
            out += s;
            pipe += s;
            sent.push(s);
        }
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
        // After 10 ACKs, 5 sent: the flight fell from 19 towards ssthresh, 14 now.
        assert_eq!((out, pipe), (5, 14));
    }

    /// The RFC's second example: losses drained the pipe below ssthresh. The slow-start
    /// reduction bound lets the sender send what was delivered plus one per ACK that advances
    /// SND.UNA, up to ssthresh; the conservative bound (without the extra segment) only what
    /// was delivered.
    #[test]
    fn below_ssthresh_the_window_grows_back_no_faster_than_slow_start() {
        // ssthresh 10, pipe 4 after heavy losses, 6 delivered and 6 sent so far.
        assert_eq!(prr_sndcnt(10, 20, 4, 6, 6, 1, false), 1);
        assert_eq!(prr_sndcnt(10, 20, 4, 6, 6, 1, true), 2);
        // A stretch ACK delivering 3: three, and one more as it advances SND.UNA.
        assert_eq!(prr_sndcnt(10, 20, 4, 9, 6, 3, true), 4);
        // Never beyond ssthresh: with pipe 9 only one fits.
        assert_eq!(prr_sndcnt(10, 20, 9, 9, 6, 3, true), 1);
        // Sent ahead (prr_out > prr_delivered): still what this ACK delivered.
        assert_eq!(prr_sndcnt(10, 20, 4, 6, 8, 2, false), 2);
        // At ssthresh exactly: nothing more.
        assert_eq!(prr_sndcnt(10, 20, 10, 6, 6, 1, true), 0);
    }

    #[test]
    fn the_fast_retransmit_always_goes_out() {
        // With a proportional share of nothing (ssthresh 0, a degenerate window) the first
        // segment still leaves, and only the first.
        assert_eq!(prr_sndcnt(0, 20, 19, 1, 0, 1, false), 1);
        assert_eq!(prr_sndcnt(0, 20, 19, 2, 1, 1, false), 0);
    }

    /// A SACK sender with 20 segments out whose first is lost; every further segment's
    /// duplicate ACK SACKs it. Returns how many segments it sent after each ACK.
    fn recovery_sends(prr: bool) -> Vec<usize> {
        use crate::tcp::test_rig::Rig;
        use crate::time::SimTime;

        let mut p = crate::tcp::test_rig::classic_linux();
        (p.handshake, p.timestamps, p.mss, p.initial_window) = (false, false, 1000, 20);
        p.prr = prr;
        let mut r = Rig::start(&p);
        (1..20u64)
            .map(|k| {
                r.ack(10 + k, 0, false, SimTime::ZERO, Some((1, k + 1)))
                    .len()
            })
            .collect()
    }

    #[test]
    fn in_a_sender_prr_spreads_the_reduction_over_the_round_trip() {
        // The first two duplicate ACKs each release a new segment (Limited Transmit, RFC
        // 3042): 22 out. The third starts recovery (Reno: ssthresh 10, prior_cwnd 20) and
        // the fast retransmission; the flight is then 18 + 1.
        let prr = recovery_sends(true);
        let rfc6675 = recovery_sends(false);
        // PRR: after d segments delivered, ⌈10 · d / 20⌉ sent — one every other ACK — while
        // the flight 19 − d + ⌈d/2⌉ is above 10; at d = 17 it is 10, ssthresh, and stays.
        assert_eq!(
            prr,
            [1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]
        );
        // RFC 6675: cwnd = 10 at once, so silence until the flight falls below it (nine
        // ACKs), then one segment an ACK: the same amount, late and in a run.
        assert_eq!(
            rfc6675,
            [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
        );
    }

    /// An ECN sender with 20 segments out: the first ACK carries ECE, the rest not. Returns
    /// how many segments it sent after each ACK (ACK k acknowledges segments below k), and
    /// the window after the last.
    fn cwr_sends(prr: bool, acks: u64) -> (Vec<usize>, f64) {
        use crate::tcp::test_rig::Rig;
        use crate::time::SimTime;

        let mut p = crate::tcp::test_rig::classic_linux();
        (p.handshake, p.ecn, p.initial_window) = (false, true, 20);
        p.prr = prr;
        let mut r = Rig::start(&p);
        let sent = (1..=acks)
            .map(|k| r.ack(10 + k, k, k == 1, SimTime::ZERO, None).len())
            .collect();
        (sent, r.s.st.cwnd)
    }

    #[test]
    fn an_ecn_echo_is_answered_by_prr_over_the_round_trip() {
        // Linux's CWR state under PRR: ssthresh 10 (Reno), prior_cwnd 20, one segment
        // delivered per ACK. The echo's own ACK delivers one: ⌈10 · 1/20⌉ = 1 segment goes out
        // (pipe 19 + 1); then one every other ACK, ⌈10 · d/20⌉ − prr_out, with no growth,
        // while the flight 20 − d + ⌈d/2⌉ is above ssthresh (to the 18th ACK). At the 19th it
        // is 10: the slow-start bound's ssthresh − pipe = 0; at the 20th, 9: one more.
        let (sent, _) = cwr_sends(true, 20);
        let mut want: Vec<usize> = (1..=18).map(|k| k % 2).collect();
        want.extend([0, 1]);
        assert_eq!(sent, want);
        // The 21st ACK covers segment 20, the first sent after the cut: CWR ends with
        // cwnd = ssthresh (`tcp_end_cwnd_reduction`), and Reno's growth on the same ACK, as
        // Linux's `tcp_cong_control` after the state change: 10 + 1/10; the flight of 9 leaves
        // room for one.
        let (sent, cwnd) = cwr_sends(true, 21);
        assert_eq!(sent[20], 1);
        assert!((cwnd - 10.1).abs() < 1e-12);
        // RFC 3168 at once: cwnd 10, silence until the flight falls below it.
        let (sent, _) = cwr_sends(false, 12);
        assert_eq!(&sent[..9], &[0; 9]);
        assert!(sent[10] > 0);
    }
}
