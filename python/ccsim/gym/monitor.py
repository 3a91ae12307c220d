"""The agent's flow in :mod:`ccsim.gym`: a congestion control that records what each monitor
interval shows and holds the window (:class:`AgentCC`) or the pacing rate
(:class:`PacedAgentCC`) the agent sets.

It is an ordinary :class:`ccsim.CongestionControl`, so the sender's slow-start rules, ECN and
loss recovery work around it as around any algorithm. Its hooks see every ACK of new data
(``pkts_acked``), each change of the loss-recovery state (``set_state``) and each ECN echo, and
count them until the environment takes the interval (:meth:`AgentCC.take`). Given another
algorithm (``inner``), it only watches: every hook is that algorithm's, so a baseline (a Python
CUBIC, or a paced algorithm with ``cong_control``) is measured exactly as the agent is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..cc import HOOKS, CongestionControl

# The smallest window the agent may hold, segments: Linux's floor for ssthresh
# (tcp_reno_ssthresh), below which fast retransmit has no duplicate ACKs to work with.
MIN_CWND = 2.0
# The smallest window of a paced agent, segments: BBR's floor (bbr_cwnd_min_target in Linux's
# tcp_bbr.c), which keeps ACKs coming however low the rate.
MIN_PACED_CWND = 4.0
# The first pacing rate of a paced agent, before its first action: Linux's rule for a flow in
# slow start (tcp_update_pacing_rate, tcp_pacing_ss_ratio = 200 %): 2 · cwnd · mss / srtt.
INITIAL_RATE_RATIO = 2.0
# The hooks through which the monitor counts an interval, whatever drives the window.
WATCHED = ("pkts_acked", "set_state", "cwnd_event")


@dataclass(frozen=True)
class IntervalStats:
    """What one monitor interval showed of the agent's flow (all counts for this interval).

    ``sent``: segments of new data sent (the highest sequence sent, as the interval's ACKs saw
    it, minus the one before); ``delivered``: segments newly acknowledged (cumulatively);
    ``acks``: ACKs of new data; ``rtt_samples``: RTT samples among them (Karn's rule), with
    their mean, least and greatest (seconds; an interval without a sample reports the smoothed
    RTT ``srtt_s`` for all three); ``min_rtt_s``: the flow's smallest RTT sample so far
    (infinite before the first); ``loss_events``: entries into fast recovery or the loss state
    (an RTO); ``lost``: segments the sender newly marked lost (Linux's ``tp->lost``: on the
    SACK scoreboard, by fast retransmission without SACK, and all outstanding at a timeout),
    as the flow's last hook of the interval saw the count; ``ecn_acks``: ACKs that carried
    ECN-Echo; ``cwnd``: the window at the interval's end, segments; ``pacing_rate_bps``: the
    pacing rate then, bits per second of TCP segments (infinite: unpaced); ``mss``: bytes
    per segment."""

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
    lost: int
    ecn_acks: int
    cwnd: float
    pacing_rate_bps: float

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
        """Segments newly marked lost per segment of new data sent, at most 1 (a segment
        marked lost in this interval was mostly sent in an earlier one, and an interval may
        send nothing)."""
        if self.lost == 0:
            return 0.0
        return min(1.0, self.lost / max(self.sent, 1))

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
    """Counts each interval's ACKs, RTT samples, losses and ECN echoes of its flow and,
    without ``inner``, holds cwnd at ``target`` (segments; ``None``: at the initial window).

    Holding means: on each ACK outside loss recovery the window is set to ``target``, and after
    a loss or an ECN echo the slow-start threshold is ``target`` too, so that loss recovery
    brings the window back to it rather than to a cut. The agent alone decides the window.

    With ``inner``, the hooks are ``inner``'s (``ssthresh`` and ``cong_avoid``, or
    ``cong_control``; ``init``) behind the counting ones, and the flow is paced if ``inner``
    asks for it (``needs_pacing``)."""

    def __init__(self, inner: CongestionControl | None = None):
        self.inner = inner
        self._inner_hooks = set(inner._defined_hooks()) if inner is not None else set()
        if inner is not None:
            self.needs_pacing = inner.needs_pacing  # the core reads it from this instance
        self.target: float | None = None
        self.mss = 0
        self.cwnd = 0.0
        self.srtt = 0.0
        self.min_rtt = math.inf
        self.pacing_rate = math.inf  # bytes per second, as the flow's last hook left it
        self.high = 0  # the highest snd_nxt seen
        self._high_before = 0
        self.lost_total = 0  # conn.lost as last seen
        self._lost_before = 0
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
            lost=self.lost_total - self._lost_before, ecn_acks=self.ecn_acks, cwnd=self.cwnd,
            pacing_rate_bps=self.pacing_rate * 8,
        )  # fmt: skip
        self._start_s, self._high_before = now_s, self.high
        self._lost_before = self.lost_total
        self._clear()
        return stats

    def _defined_hooks(self) -> list[str]:
        """The hooks the core calls: the counting ones and, alone, the window's
        (``ssthresh`` and ``cong_avoid``), or with ``inner`` those ``inner`` defines; the
        class's other methods only forward to ``inner``."""
        hooks = set(WATCHED) | self._inner_hooks
        if "cong_control" not in self._inner_hooks:
            hooks |= {"ssthresh", "cong_avoid"}
        return [h for h in HOOKS if h in hooks]

    def _observe(self, conn: Any) -> None:
        t = conn.now_ns
        if self.stray is None and not self.step_ns[0] <= t <= self.step_ns[1]:
            self.stray = t
        self.mss = conn.mss
        self.cwnd = conn.cwnd
        self.srtt = conn.srtt
        self.min_rtt = conn.min_rtt
        self.high = max(self.high, conn.snd_nxt)
        self.lost_total = conn.lost
        self.pacing_rate = conn.pacing_rate

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
        self.pacing_rate = conn.pacing_rate

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

    def init(self, conn: Any) -> None:
        if "init" in self._inner_hooks:
            self.inner.init(conn)  # type: ignore[union-attr]
            self.pacing_rate = conn.pacing_rate

    def cong_control(self, conn: Any, rs: Any) -> None:
        self._observe(conn)
        if "cong_control" in self._inner_hooks:
            self.inner.cong_control(conn, rs)  # type: ignore[union-attr]
        self.cwnd = conn.cwnd
        self.pacing_rate = conn.pacing_rate


class PacedAgentCC(AgentCC):
    """The agent of the pacing actions: the flow is paced at ``rate`` (bytes per second of
    TCP segments, Linux's unit), in [``min_rate``, ``max_rate``], and its window held where it
    does not limit, as a rate-based sender (Aurora's) has none.

    It sets both on every ACK, in every state (``cong_control``, Linux's hook for algorithms
    that own their window, as BBR): the window is ``cwnd_gain`` bandwidth-delay products at
    ``max_rate`` (``cwnd_gain · max_rate · srtt / mss``, at least :data:`MIN_PACED_CWND`), so
    what is in flight is the rate's doing; loss recovery and ECN leave both alone (after a
    timeout the sender still sets its loss window, one segment, until the next ACK). Before the
    agent's first action (``rate`` None) the first ACK with an RTT sample sets ``rate`` to
    Linux's first pacing rate, 2 · cwnd · mss / srtt (:data:`INITIAL_RATE_RATIO`; the initial
    window over the first RTT, doubled as in slow start), within the bounds; until then, the
    flow has its initial window and the first ten segments leave unpaced, as in Linux."""

    needs_pacing = True

    def __init__(self, min_rate: float, max_rate: float, cwnd_gain: float):
        super().__init__()
        self.min_rate = min_rate
        self.max_rate = max_rate
        self.cwnd_gain = cwnd_gain
        self.rate: float | None = None

    def _defined_hooks(self) -> list[str]:
        return [h for h in HOOKS if h in (*WATCHED, "cong_control")]

    def cong_control(self, conn: Any, rs: Any) -> None:
        self._observe(conn)
        if conn.srtt > 0:
            if self.rate is None:
                first = INITIAL_RATE_RATIO * conn.cwnd * conn.mss / conn.srtt
                self.rate = min(max(first, self.min_rate), self.max_rate)
            bdp = self.max_rate * conn.srtt / conn.mss
            conn.cwnd = max(self.cwnd_gain * bdp, MIN_PACED_CWND)
        if self.rate is not None:
            conn.pacing_rate = self.rate
        self.cwnd = conn.cwnd
        self.pacing_rate = conn.pacing_rate
