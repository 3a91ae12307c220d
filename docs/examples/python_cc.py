"""Congestion controls written in Python (`ccsim.CongestionControl`): a Reno and a CUBIC that
give the tables of the built-in `cc = "reno"` and `cc = "cubic"` (linux profile) to the last
bit (tests/test_python_cc.py), and a small delay-based algorithm, the tutorial's example.

    python docs/examples/python_cc.py     # the delay-based one against CUBIC on a dumbbell
"""

from __future__ import annotations

import math
from fractions import Fraction

import ccsim


def _cbrt(x):
    """The cube root correctly rounded, as the core's f64::cbrt: the core links the cbrt of
    Rust's compiler-builtins (the libm crate's, correctly rounded after CORE-MATH), not the C
    library's, which can be an ulp off (glibc's is for K = cbrt(222.0375): CUBIC's window then
    parted from the core's). A first guess within a few ulps, then the neighbour whose rounding
    interval holds the exact root, by exact arithmetic on the midpoints' cubes. Called once per
    congestion epoch, so its cost does not matter."""
    if x == 0.0 or not math.isfinite(x):
        return x
    y = math.copysign(math.cbrt(abs(x)) if hasattr(math, "cbrt") else abs(x) ** (1.0 / 3.0), x)
    r = Fraction(x)
    while True:
        lo, hi = math.nextafter(y, -math.inf), math.nextafter(y, math.inf)
        if r < ((Fraction(lo) + Fraction(y)) / 2) ** 3:
            y = lo
        elif r > ((Fraction(y) + Fraction(hi)) / 2) ** 3:
            y = hi
        else:
            return y


class PyReno(ccsim.CongestionControl):
    """RFC 5681 AIMD in Linux's form (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`), as the
    core's `tcp/cc/reno.rs`: half the window after a loss, at least two segments."""

    def ssthresh(self, conn):
        return max(min(conn.cwnd, conn.rwnd) / 2.0, 2.0)

    def cong_avoid(self, conn, ack):
        acked = ack.acked
        if conn.in_slow_start:
            acked = conn.slow_start(acked)
            if acked <= 0:
                return
        conn.cong_avoid_ai(conn.cwnd, acked)


class PyCubic(ccsim.CongestionControl):
    """CUBIC as Linux's `tcp_cubic.c` 2.3 with HyStart, as the core's `tcp/cc/cubic.rs` under
    the linux profile (RFC 9438's window function in Linux's counter form). Times are kept in
    whole nanoseconds (`conn.now_ns`, `ack.rtt_ns`), as the core keeps them, so that the
    arithmetic is the core's to the last bit; `x * x * x` is Rust's `powi(3)`."""

    HYSTART_LOW_WINDOW = 16.0
    HYSTART_ACK_DELTA_NS = 2_000_000
    HYSTART_DELAY_MIN_NS = 4_000_000
    HYSTART_DELAY_MAX_NS = 16_000_000
    HYSTART_MIN_SAMPLES = 8

    def __init__(self, beta=0.7, c=0.4, hystart=True):
        self.beta, self.c, self.hystart = beta, c, hystart
        self.alpha = 3.0 * (1.0 - beta) / (1.0 + beta)
        self._fresh()

    def _fresh(self):
        self.w_max = 0.0
        self.epoch_start = None
        self.origin = self.k = self.w_est = 0.0
        self.delay_min = None
        self.found = self.exit_pending = False
        self.round_start = self.last_ack = self.end_seq = 0
        self.curr_rtt = None
        self.sample_cnt = 0

    def _round(self, conn):
        self.round_start = self.last_ack = conn.now_ns
        self.end_seq = conn.snd_nxt
        self.curr_rtt = None
        self.sample_cnt = 0

    def _reset(self, conn):
        self._fresh()
        self._round(conn)

    def ssthresh(self, conn):
        return max(min(conn.cwnd, conn.rwnd) * self.beta, 2.0)

    def _update(self, conn, acked):
        cwnd = conn.cwnd
        if self.epoch_start is None:
            self.epoch_start = conn.now_ns
            self.w_est = cwnd
            if self.w_max <= cwnd:
                self.k, self.origin = 0.0, cwnd
            else:
                self.k, self.origin = _cbrt((self.w_max - cwnd) / self.c), self.w_max
        t = (conn.now_ns - self.epoch_start + (self.delay_min or 0)) / 1e9
        d = t - self.k
        target = self.origin + self.c * (d * d * d)
        cnt = cwnd / (target - cwnd) if target > cwnd else 100.0 * cwnd
        if self.w_max == 0.0:
            cnt = min(cnt, 20.0)  # the bandwidth still unknown: at least 5 % per RTT
        self.w_est += self.alpha * acked / cwnd
        if self.w_est > cwnd:
            cnt = min(cnt, cwnd / (self.w_est - cwnd))
        return max(cnt, 2.0)

    def cong_avoid(self, conn, ack):
        pending, self.exit_pending = self.exit_pending, False
        if pending and conn.in_slow_start:
            conn.ssthresh = conn.cwnd  # HyStart found the exit on this ACK's sample
        acked = ack.acked
        if conn.in_slow_start:
            acked = conn.slow_start(acked)
            if acked <= 0:
                return
        conn.cong_avoid_ai(self._update(conn, acked), acked)

    def pkts_acked(self, conn, ack):
        if ack.rtt_ns is None:
            return
        if self.epoch_start is not None and conn.now_ns - self.epoch_start < 1_000_000_000:
            return  # delay samples right after a reduction are discarded
        delay = max(ack.rtt_ns, 1_000)
        d_min = delay if self.delay_min is None else min(self.delay_min, delay)
        self.delay_min = d_min
        if self.hystart and not self.found and conn.in_slow_start:
            self._hystart(conn, delay, d_min)

    def _hystart(self, conn, delay, d_min):
        if conn.snd_una > self.end_seq:
            self._round(conn)
        if conn.cwnd < self.HYSTART_LOW_WINDOW:
            return
        now = conn.now_ns
        if now - self.last_ack <= self.HYSTART_ACK_DELTA_NS:  # the ACK train goes on
            self.last_ack = now
            if now - self.round_start > d_min // 2:
                self.found = True
        self.curr_rtt = delay if self.curr_rtt is None else min(self.curr_rtt, delay)
        if self.sample_cnt < self.HYSTART_MIN_SAMPLES:
            self.sample_cnt += 1
        else:
            thresh = min(max(d_min // 8, self.HYSTART_DELAY_MIN_NS), self.HYSTART_DELAY_MAX_NS)
            if self.curr_rtt > d_min + thresh:
                self.found = True
        if self.found:
            self.exit_pending = True

    def set_state(self, conn, state):
        if state in ("recovery", "cwr"):
            w = min(conn.cwnd, conn.rwnd)
            self.epoch_start = None
            self.w_max = w * (1.0 + self.beta) / 2.0 if w < self.w_max else w
            self.exit_pending = False
        elif state == "loss":
            self._reset(conn)

    def cwnd_event(self, conn, event):
        if event == "timeout":
            self._reset(conn)


class DelayAimd(ccsim.CongestionControl):
    """Reno's growth, but a window held while the RTT is more than `threshold` above the
    smallest seen (a queue building), and a gentler cut (`beta`) on loss."""

    def __init__(self, threshold=0.005, beta=0.7):
        self.threshold = threshold
        self.beta = beta
        self.rtt = None

    def pkts_acked(self, conn, ack):
        if ack.rtt is not None:
            self.rtt = ack.rtt

    def ssthresh(self, conn):
        return max(conn.cwnd * self.beta, 2.0)

    def cong_avoid(self, conn, ack):
        acked = ack.acked
        if conn.in_slow_start:
            acked = conn.slow_start(acked)
            if acked <= 0:
                return
        queued = self.rtt is not None and self.rtt - conn.min_rtt > self.threshold
        if not queued:
            conn.cong_avoid_ai(conn.cwnd, acked)


def main() -> None:
    sc = ccsim.Scenario(
        name="delay-aimd-vs-cubic",
        duration="30s",
        topology=ccsim.Dumbbell(
            pairs=2,
            bottleneck=ccsim.Link(rate="10Mbps", delay="20ms", queue=ccsim.DropTail(limit=100)),
        ),
        flows=[
            ccsim.TcpFlow("delay", "s0", "d0", cc=DelayAimd()),
            ccsim.TcpFlow("cubic", "s1", "d1", cc="cubic"),
        ],
    )
    print(ccsim.run(sc).summary_table())


if __name__ == "__main__":
    main()
