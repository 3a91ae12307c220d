//! Delivery-rate estimation, as Linux `net/ipv4/tcp_rate.c` and
//! draft-cheng-iccrg-delivery-rate-estimation describe it.
//!
//! Every segment remembers, when it is (re)sent, how much the connection had delivered then and
//! when (`TxRecord`, Linux's `tcp_skb_cb.tx`). An ACK that delivers segments (SACKs them or
//! acknowledges them cumulatively) yields one sample from the most recently sent of them: the
//! segments delivered since that one was sent, over the longer of its send phase and its ACK
//! phase (`max(snd_interval, rcv_interval)`), so that ACK compression cannot inflate the rate.
//! A sample shorter than the minimum RTT is invalid; one taken while the application left the
//! window unused is marked application-limited.
//!
//! Only connections that need it keep these records (an algorithm that sets its window from
//! rate samples, or a scenario that asks for the `delivery_rate` series): the others pay
//! nothing. Losses are counted as the sender marks segments lost: on the SACK scoreboard the
//! un-SACKed segments below RFC 6675's IsLost boundary, without SACK each fast retransmission,
//! and at a timeout every un-SACKed segment outstanding (Linux `tcp_enter_loss`).

use std::collections::VecDeque;

use super::cc::CongestionControl;
use super::sender::Sender;
use super::Io;
use crate::config::{Recovery, SeriesName};
use crate::time::{OptTime, SimTime};

/// One ACK's delivery-rate sample (Linux `struct rate_sample`): what an algorithm that sets its
/// window from the delivery rate (`CongestionControl::cong_control`) reads.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RateSample {
    /// The connection's delivered count when the segment the sample is taken from was sent.
    pub prior_delivered: u64,
    /// When that count was last reached (Linux `prior_mstamp`).
    pub prior_time: SimTime,
    /// Segments delivered over the interval (0 for an invalid sample).
    pub delivered: u64,
    /// The sampling interval, `max(snd_interval, rcv_interval)`; None for an invalid sample (no
    /// timing information, or an interval shorter than the minimum RTT).
    pub interval: Option<SimTime>,
    /// Send phase: from the first to the last send of the sampled window.
    pub snd_interval: SimTime,
    /// ACK phase: from `prior_time` to this ACK.
    pub rcv_interval: SimTime,
    /// Segments this ACK newly SACKed or acknowledged.
    pub acked_sacked: u64,
    /// Segments newly marked lost while handling this ACK.
    pub losses: u64,
    /// Segments in flight (not SACKed, not lost, or retransmitted) before this ACK.
    pub prior_in_flight: u64,
    /// Segments in flight after it (Linux `tcp_packets_in_flight`).
    pub in_flight: u64,
    /// The RTT of the most recently sent segment this ACK delivered, if it was never
    /// retransmitted (Linux `rs->rtt_us`, from send times rather than timestamps).
    pub rtt: Option<SimTime>,
    /// Some moment of the sampled window left the connection without data to send.
    pub is_app_limited: bool,
    /// The sample's segment was a retransmission.
    pub is_retrans: bool,
    /// Segments in flight when the sampled segment was sent (Linux `tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments marked lost since the sampled segment was sent, this ACK's included (BBRv3's
    /// `rs->lost`, Linux `tp->lost − tx.lost`).
    pub lost: u64,
    /// The flight reached the window in the current round (Linux `tp->is_cwnd_limited`, from
    /// the largest flight since SND.UNA passed the round's mark).
    pub is_cwnd_limited: bool,
    /// When the connection's delivered count last grew (Linux `delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Earliest departure time of the next transmission (Linux `tcp_wstamp_ns`): the ACK's
    /// time for an unpaced connection or one free to send.
    pub edt: SimTime,
}

impl RateSample {
    /// The delivery rate in segments per second, for a valid sample.
    pub fn rate(&self) -> Option<f64> {
        let t = self.interval?.as_secs_f64();
        (t > 0.0).then(|| self.delivered as f64 / t)
    }
}

/// A segment's snapshot of the connection's delivery when it was last sent.
#[derive(Copy, Clone, Debug)]
pub(super) struct TxRecord {
    delivered: u64,
    /// `delivered_time` then; NONE once SACKed, so that its cumulative ACK samples it no more.
    delivered_time: OptTime,
    first_tx: SimTime,
    in_flight: u32,
    /// The connection's lost count when sent (BBRv3's `tx.lost`).
    lost: u64,
    app_limited: bool,
    /// Counted as delivered (SACKed once). Kept when the segment is sent again after a timeout
    /// made the sender forget its SACK marks: the receiver has it, and counting it a second
    /// time would inflate the delivered count and every rate sampled across it.
    counted: bool,
}

/// The connection's delivery state and its segments' records.
#[derive(Clone, Debug, Default)]
pub(super) struct RateSampler {
    /// One per segment in `[una, high)`, beside `Sender::segs`.
    records: VecDeque<TxRecord>,
    /// Send time of the most recently delivered segment sampled (Linux `first_tx_mstamp`).
    first_tx: SimTime,
    /// When `delivered` last grew (Linux `delivered_mstamp`).
    delivered_time: SimTime,
    /// Segments below it that are not SACKed have been counted lost (SACK scoreboard).
    lost_mark: u64,
    /// The sample being gathered from the current ACK.
    rs: RateSample,
    /// End of the sampled segment, to break ties between equal send times.
    last_end: u64,
    have_prior: bool,
    /// Newest send time among the segments this ACK delivered that were never retransmitted.
    rtt_sent: OptTime,
    /// The sampled segment's `TxRecord::lost`.
    prior_lost: u64,
    /// The last ACK's sample.
    last: Option<RateSample>,
}

impl Sender {
    /// Keeps delivery-rate records from now on (before any data is sent).
    pub fn with_rate_sampling(mut self) -> Sender {
        if self.rate.is_none() {
            self.rate = Some(Box::default());
        }
        self
    }

    /// The delivery-rate sample of the last ACK, for a connection that samples the rate.
    pub fn last_rate_sample(&self) -> Option<RateSample> {
        self.rate.as_ref().and_then(|r| r.last)
    }

    /// Records segment `seg`, just sent at `now` (`new` data, or a retransmission), as Linux
    /// `tcp_rate_skb_sent`.
    #[inline(never)]
    pub(super) fn rate_sent(&mut self, seg: u64, new: bool, now: SimTime) {
        // Nothing was outstanding before this segment.
        let was_empty = new && seg == self.una;
        let (delivered, lost) = (self.st.delivered, self.st.lost);
        let app_limited = self.st.app_limited != 0;
        let in_flight = self.pipe().min(u32::MAX as u64) as u32;
        let idx = (seg - self.una) as usize;
        let Some(r) = self.rate.as_mut() else {
            return;
        };
        if was_empty {
            // Nothing was outstanding: a sample's interval starts at this send.
            r.first_tx = now;
            r.delivered_time = now;
        }
        let mut rec = TxRecord {
            delivered,
            delivered_time: OptTime::some(r.delivered_time),
            first_tx: r.first_tx,
            in_flight,
            lost,
            app_limited,
            counted: false,
        };
        if idx == r.records.len() {
            r.records.push_back(rec);
        } else {
            rec.counted = r.records[idx].counted;
            r.records[idx] = rec;
        }
    }

    /// Segment `seg` was delivered (SACKed, or cumulatively acknowledged without having been
    /// SACKed), as Linux `tcp_rate_skb_delivered`.
    #[inline(never)]
    pub(super) fn rate_delivered(&mut self, seg: u64, sacked: bool) {
        let idx = (seg - self.una) as usize;
        let meta = self.segs[idx];
        let end = seg + 1;
        let Some(r) = self.rate.as_mut() else {
            return;
        };
        if r.records[idx].counted {
            return;
        }
        r.records[idx].counted = true;
        self.st.delivered += 1;
        r.rs.acked_sacked += 1;
        let sent = meta.sent();
        if !meta.retx() && r.rtt_sent.get().is_none_or(|t| sent > t) {
            r.rtt_sent = OptTime::some(sent);
        }
        let rec = &mut r.records[idx];
        let Some(prior_time) = rec.delivered_time.get() else {
            return;
        };
        let newer = sent > r.first_tx || (sent == r.first_tx && end > r.last_end);
        // Linux takes the first candidate, and any while the chosen one had delivered none.
        if r.rs.prior_delivered == 0 || newer {
            r.have_prior = true;
            r.rs.prior_delivered = rec.delivered;
            r.rs.prior_time = prior_time;
            r.rs.is_app_limited = rec.app_limited;
            r.rs.is_retrans = meta.retx();
            r.rs.tx_in_flight = rec.in_flight as u64;
            r.prior_lost = rec.lost;
            r.last_end = end;
            r.first_tx = sent;
            r.rs.snd_interval = sent.saturating_sub(rec.first_tx);
        }
        if sacked {
            rec.delivered_time = OptTime::NONE;
        }
    }

    /// The segments of the runs `new` were SACKed for the first time.
    #[inline(never)]
    pub(super) fn rate_sacked(&mut self, new: &[(u64, u64)]) {
        for &(x, y) in new {
            for s in x..y {
                self.rate_delivered(s, true);
            }
        }
    }

    /// The cumulative ACK `ack` delivers the segments below it not SACKed before, whose
    /// records then leave with them.
    #[inline(never)]
    pub(super) fn rate_acked(&mut self, ack: u64) {
        for s in self.una..ack {
            self.rate_delivered(s, false);
        }
        if let Some(r) = self.rate.as_mut() {
            r.records.drain(..(ack - self.una) as usize);
        }
    }

    /// Segments newly counted lost.
    #[inline(never)]
    pub(super) fn rate_lost(&mut self, n: u64) {
        self.st.lost += n;
        if let Some(r) = self.rate.as_mut() {
            r.rs.losses += n;
        }
    }

    /// Counts the un-SACKed segments the scoreboard now deems lost (RFC 6675 IsLost), once each.
    #[inline(never)]
    pub(super) fn rate_mark_lost(&mut self) {
        // RACK counts what it marks lost itself (`rack.rs`).
        if self.rate.is_some() && self.p.recovery == Recovery::Sack && !self.rack_detects() {
            self.mark_lost_below(self.scan().lost_below);
        }
    }

    /// A timeout: every un-SACKed segment outstanding is lost (Linux `tcp_enter_loss`).
    #[inline(never)]
    pub(super) fn rate_timeout(&mut self) {
        self.mark_lost_below(self.high);
    }

    /// Segment `seg`, not SACKed, is newly counted lost (Linux `tcp_mark_skb_lost`): the
    /// algorithm hears of it with the segment's own delivery snapshot (BBRv3's
    /// `skb_marked_lost`).
    pub(super) fn rate_seg_lost(&mut self, seg: u64) {
        self.rate_lost(1);
        let Some(r) = self.rate.as_ref() else {
            return;
        };
        let Some(rec) = r.records.get((seg - self.una) as usize) else {
            return;
        };
        let rs = RateSample {
            tx_in_flight: rec.in_flight as u64,
            lost: self.st.lost - rec.lost,
            is_app_limited: rec.app_limited,
            ..RateSample::default()
        };
        self.cc.skb_marked_lost(&mut self.st, &rs);
    }

    /// Counts as lost, once each, the un-SACKed segments below `top` not counted before.
    fn mark_lost_below(&mut self, top: u64) {
        let Some(mark) = self.rate.as_ref().map(|r| r.lost_mark) else {
            return;
        };
        let from = mark.max(self.una);
        if top <= from {
            return;
        }
        for s in from..top {
            if !self.segs[(s - self.una) as usize].sacked() && !self.rack_marked_lost(s) {
                self.rate_seg_lost(s);
            }
        }
        if let Some(r) = self.rate.as_mut() {
            r.lost_mark = top;
        }
    }

    /// Segments in flight as Linux counts them (`tcp_packets_in_flight`): outstanding, less
    /// the SACKed and the lost, plus the retransmitted.
    pub(super) fn pipe(&self) -> u64 {
        if let Some(r) = self
            .rack
            .as_deref()
            .filter(|r| r.in_charge(self.st.ca_state))
        {
            r.in_flight(self.high - self.una, self.board.n_sacked as u64)
        } else if self.p.recovery == Recovery::Sack && self.board.n_sacked > 0 {
            self.scan().pipe
        } else {
            self.high - self.una
        }
    }

    /// Starts gathering the sample of an ACK.
    #[inline(never)]
    pub(super) fn rate_ack_begins(&mut self) {
        let prior_in_flight = self.pipe();
        if let Some(r) = self.rate.as_mut() {
            r.rs = RateSample {
                prior_in_flight,
                ..RateSample::default()
            };
            r.have_prior = false;
            r.last_end = 0;
            r.rtt_sent = OptTime::NONE;
        }
    }

    /// Finishes the ACK's sample (Linux `tcp_rate_gen`), records it and returns it.
    #[inline(never)]
    pub(super) fn rate_ack_ends(&mut self, io: &mut Io) -> Option<RateSample> {
        self.rate_mark_lost();
        let in_flight = self.pipe();
        let min_rtt = self.st.min_rtt;
        let (delivered, lost, now) = (self.st.delivered, self.st.lost, io.now);
        // Linux `tcp_cwnd_validate`'s flag: the round's largest flight against the window.
        let is_cwnd_limited = self.max_flight >= self.st.cwnd as u64;
        if self.st.app_limited != 0 && delivered > self.st.app_limited {
            self.st.app_limited = 0; // the bubble is acknowledged and gone
        }
        let r = self.rate.as_mut()?;
        if r.rs.acked_sacked > 0 {
            r.delivered_time = now;
        }
        let mut rs = r.rs;
        rs.in_flight = in_flight;
        rs.is_cwnd_limited = is_cwnd_limited;
        rs.delivered_time = r.delivered_time;
        rs.rtt = r.rtt_sent.get().map(|t| now - t);
        rs.edt = self
            .pacer
            .as_deref()
            .map_or(now, |p| p.next_send().max(now));
        if r.have_prior {
            rs.lost = lost - r.prior_lost;
            rs.delivered = delivered - rs.prior_delivered;
            rs.rcv_interval = now.saturating_sub(rs.prior_time);
            let interval = rs.snd_interval.max(rs.rcv_interval);
            // Shorter than the minimum RTT: a spurious retransmission or a stale record.
            rs.interval = (interval >= min_rtt || min_rtt == SimTime::MAX).then_some(interval);
        }
        r.last = Some(rs);
        if let Some(bps) = rs.rate() {
            let bits = bps * self.p.mss as f64 * 8.0;
            io.rec
                .record(SeriesName::DeliveryRate, self.flow, now, bits);
        }
        Some(rs)
    }

    /// Marks the connection application-limited if it has nothing to send while the window
    /// and lost segments would let it (Linux `tcp_rate_check_app_limited`).
    #[inline(never)]
    pub(super) fn rate_check_app_limited(&mut self) {
        if self.rate.is_none() || self.app_has(self.high) {
            return;
        }
        let in_flight = self.pipe();
        let lost_waiting = self.p.recovery == Recovery::Sack
            && self.board.n_sacked > 0
            && self.board.first_unsacked_from(self.high_rxt.max(self.una)) < self.scan().lost_below;
        if (in_flight as f64) < self.st.cwnd && !lost_waiting {
            self.st.app_limited = (self.st.delivered + in_flight).max(1);
        }
    }
}

#[cfg(test)]
#[path = "rate_tests.rs"]
mod tests;
