"""Congestion controls written in Python (`ccsim.CongestionControl`): a Reno that gives the
tables of the built-in `cc = "reno"` to the last bit (tests/test_python_cc.py), and a small
delay-based algorithm, the tutorial's example.

    python docs/examples/python_cc.py     # the delay-based one against CUBIC on a dumbbell
"""

from __future__ import annotations

import ccsim


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
