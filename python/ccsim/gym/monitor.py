"""The agent's flow in :mod:`ccsim.gym`: a congestion control that records what each monitor
interval shows and holds the window the agent sets.

It is an ordinary :class:`ccsim.CongestionControl`, so the sender's slow-start rules, ECN and
loss recovery work around it as around any algorithm. Its hooks see every ACK of new data
(``pkts_acked``), each change of the loss-recovery state (``set_state``) and each ECN echo, and
count them until the environment takes the interval (:meth:`AgentCC.take`). Given another
algorithm (``inner``), it only watches: every hook is that algorithm's, so a baseline (a Python
CUBIC, say) is measured exactly as the agent is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..cc import CongestionControl

# The smallest window the agent may hold, segments: Linux's floor for ssthresh
# (tcp_reno_ssthresh), below which fast retransmit has no duplicate ACKs to work with.
MIN_CWND = 2.0


@dataclass(frozen=True)
class IntervalStats:
    """What one monitor interval showed of the agent's flow (all counts for this interval).

    ``sent``: segments of new data sent (the highest sequence sent, as the interval's ACKs saw
    it, minus the one before); ``delivered``: segments newly acknowledged (cumulatively);
    ``acks``: ACKs of new data; ``rtt_samples``: RTT samples among them (Karn's rule), with
    their mean, least and greatest (seconds; an interval without a sample reports the smoothed
    RTT ``srtt_s`` for all three); ``min_rtt_s``: the flow's smallest RTT sample so far
    (infinite before the first); ``loss_events``: entries into fast recovery or the loss state
    (an RTO); ``ecn_acks``: ACKs that carried ECN-Echo; ``cwnd``: the window at the interval's
    end, segments; ``mss``: bytes per segment."""

    start_s: float
    end_s: float
    mss: int
    sent: int
    delivered: int
    acks: int
    rtt_samples: int
    rtt_mean_s: float
    rtt_min_s: float
    rtt_max_s: float
    min_rtt_s: float
    srtt_s: float
    loss_events: int
    ecn_acks: int
    cwnd: float

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    def _per_s(self, segments: int) -> float:
        return segments / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def delivered_pps(self) -> float:
        """Segments delivered per second."""
        return self._per_s(self.delivered)

    @property
    def delivery_rate_bps(self) -> float:
        """Bits of payload delivered per second."""
        return self.delivered_pps * self.mss * 8

    @property
    def send_rate_bps(self) -> float:
        """Bits of new payload sent per second."""
        return self._per_s(self.sent) * self.mss * 8

    @property
    def loss_fraction(self) -> float:
        """Loss events per segment sent (at most 1): a lower bound on the fraction of segments
        lost, since each event is at least one loss. The core does not yet tell a Python
        algorithm how many segments were lost."""
        if self.loss_events == 0:
            return 0.0
        return min(1.0, self.loss_events / max(self.sent, 1))

    @property
    def ecn_fraction(self) -> float:
        """The share of the interval's ACKs that carried ECN-Echo."""
        return self.ecn_acks / self.acks if self.acks else 0.0

    @property
    def latency_ratio(self) -> float:
        """Mean RTT over the flow's smallest (Aurora's latency ratio; 1 with no queue); 0
        before the first RTT sample."""
        if not math.isfinite(self.min_rtt_s) or self.min_rtt_s <= 0:
            return 0.0
        return self.rtt_mean_s / self.min_rtt_s


class AgentCC(CongestionControl):
    """Counts each interval's ACKs, RTT samples, loss events and ECN echoes of its flow and,
    without ``inner``, holds cwnd at ``target`` (segments; ``None``: at the initial window).

    Holding means: on each ACK outside loss recovery the window is set to ``target``, and after
    a loss or an ECN echo the slow-start threshold is ``target`` too, so that loss recovery
    brings the window back to it rather than to a cut. The agent alone decides the window."""

    def __init__(self, inner: CongestionControl | None = None):
        self.inner = inner
        self._inner_hooks = set(inner._defined_hooks()) if inner is not None else set()
        self.target: float | None = None
        self.mss = 0
        self.cwnd = 0.0
        self.srtt = 0.0
        self.min_rtt = math.inf
        self.high = 0  # the highest snd_nxt seen
        self._high_before = 0
        self._start_s = 0.0
        # The step of simulated time being run (ns, inclusive): every hook must fall inside it,
        # or the agent's window would apply at another time than the agent meant; `stray` is
        # the first hook time outside, for the environment to report.
        self.step_ns = (0, 0)
        self.stray: int | None = None
        self._clear()

    def _clear(self) -> None:
        self.delivered = self.acks = self.rtt_n = self.loss_events = self.ecn_acks = 0
        self.rtt_sum, self.rtt_lo, self.rtt_hi = 0.0, math.inf, 0.0

    def take(self, now_s: float) -> IntervalStats:
        """The interval from the last take (or the start) to ``now_s``; counting starts anew."""
        if self.rtt_n:
            mean, lo, hi = self.rtt_sum / self.rtt_n, self.rtt_lo, self.rtt_hi
        else:
            mean = lo = hi = self.srtt
        stats = IntervalStats(
            start_s=self._start_s, end_s=now_s, mss=self.mss,
            sent=self.high - self._high_before, delivered=self.delivered, acks=self.acks,
            rtt_samples=self.rtt_n, rtt_mean_s=mean, rtt_min_s=lo, rtt_max_s=hi,
            min_rtt_s=self.min_rtt, srtt_s=self.srtt, loss_events=self.loss_events,
            ecn_acks=self.ecn_acks, cwnd=self.cwnd,
        )  # fmt: skip
        self._start_s, self._high_before = now_s, self.high
        self._clear()
        return stats

    def _observe(self, conn: Any) -> None:
        t = conn.now_ns
        if self.stray is None and not self.step_ns[0] <= t <= self.step_ns[1]:
            self.stray = t
        self.mss = conn.mss
        self.cwnd = conn.cwnd
        self.srtt = conn.srtt
        self.min_rtt = conn.min_rtt
        self.high = max(self.high, conn.snd_nxt)

    def pkts_acked(self, conn: Any, ack: Any) -> None:
        self.acks += 1
        self.delivered += ack.segments
        if ack.ece:
            self.ecn_acks += 1
        rtt = ack.rtt
        if rtt is not None:
            self.rtt_n += 1
            self.rtt_sum += rtt
            self.rtt_lo = min(self.rtt_lo, rtt)
            self.rtt_hi = max(self.rtt_hi, rtt)
        self._observe(conn)
        if "pkts_acked" in self._inner_hooks:
            self.inner.pkts_acked(conn, ack)  # type: ignore[union-attr]

    def cong_avoid(self, conn: Any, ack: Any) -> None:
        self._observe(conn)
        if self.inner is not None:
            self.inner.cong_avoid(conn, ack)
        elif self.target is not None:
            conn.cwnd = self.target
        self.cwnd = conn.cwnd

    def ssthresh(self, conn: Any) -> float:
        if self.inner is not None:
            return self.inner.ssthresh(conn)
        return max(self.target if self.target is not None else conn.cwnd, MIN_CWND)

    def set_state(self, conn: Any, state: str) -> None:
        if state in ("recovery", "loss"):
            self.loss_events += 1
        self._observe(conn)
        if "set_state" in self._inner_hooks:
            self.inner.set_state(conn, state)  # type: ignore[union-attr]

    def cwnd_event(self, conn: Any, event: str) -> None:
        if "cwnd_event" in self._inner_hooks:
            self.inner.cwnd_event(conn, event)  # type: ignore[union-attr]
