"""Python congestion control with pacing and delivery-rate samples: `needs_pacing` and
`conn.pacing_rate`, Linux's `cong_control` with a `RateSample`, `conn.delivered`/`lost`/
`app_limited`, and the errors of their misuse (issue 35)."""

from __future__ import annotations

import math

import ccsim
import pytest

pytest.importorskip("ccsim._core")

# A 1500-byte packet (1448 payload + 52 header) at 10 Mbit/s: the bottleneck's segments/s.
BOTTLENECK_SEGMENTS = 10e6 / 8 / 1500


def dumbbell(cc, rate="10Mbps", limit=20, duration="3s", series=(), loss=None, tcp=None):
    link = {"rate": rate, "delay": "20ms", "queue": {"kind": "droptail", "limit": limit}}
    if loss is not None:
        link["loss"] = loss
    d = {
        "name": "py-rate",
        "duration": duration,
        "topology": {"kind": "dumbbell", "pairs": 1, "bottleneck": link},
        "flows": [
            {
                "kind": "tcp",
                "name": "f0",
                "src": "s0",
                "dst": "d0",
                "tcp": {"cc": cc, **(tcp or {})},
            }
        ],
    }
    if series:
        d["trace"] = {"series": list(series)}
    return d


class FixedRate(ccsim.CongestionControl):
    """Reno's window, paced at a fixed rate (bytes per second) set once in init."""

    needs_pacing = True

    def __init__(self, rate=125_000.0):
        self.rate = rate

    def init(self, conn):
        conn.pacing_rate = self.rate

    def ssthresh(self, conn):
        return max(conn.cwnd / 2.0, 2.0)

    def cong_avoid(self, conn, ack):
        acked = conn.slow_start(ack.acked) if conn.in_slow_start else ack.acked
        conn.cong_avoid_ai(conn.cwnd, acked)


class Unasked(FixedRate):
    needs_pacing = False


def test_needs_pacing_spaces_packets_at_the_rate_the_algorithm_sets():
    """1 Mbit/s of packets on the wire through a 100 Mbit/s link: what is delivered is the
    first ten segments (Linux sends them unpaced) and one 1500-byte packet per 12 ms after."""
    duration = 3.0
    paced = ccsim.run(dumbbell(FixedRate(), rate="100Mbps", series=["pacing_rate", "cwnd"]))
    pacing = paced.trace("pacing_rate")
    assert list(pacing["value"]) == [1e6]  # bits per second, set once
    packets = paced.flows["packets_delivered"][0]
    bound = 10 + duration * 125_000.0 / 1500
    assert 0.95 * bound <= packets <= bound
    assert paced.flows["goodput_bps"][0] < 1e6

    # Without needs_pacing the rate it sets paces nothing (auto), nor with pacing = "off".
    for cc, tcp in [(Unasked(), {}), (FixedRate(), {"pacing": "off"})]:
        free = ccsim.run(dumbbell(cc, rate="100Mbps", series=["pacing_rate"], tcp=tcp))
        assert free.flows["goodput_bps"][0] > 10e6
        assert free.trace("pacing_rate").empty


def test_an_infinite_pacing_rate_is_unpaced():
    fast = ccsim.run(dumbbell(FixedRate(math.inf), rate="100Mbps", series=["pacing_rate"]))
    assert fast.flows["goodput_bps"][0] > 10e6
    assert fast.trace("pacing_rate").empty


def run_instance(make, **kw):
    """Runs `make()` as the flow's algorithm (registered, so that the instance the flow uses is
    the one returned) and returns the result and that instance."""
    made = []
    ccsim.register_cc("rate_test_cc", lambda: made.append(make()) or made[-1])
    result = ccsim.run(dumbbell("rate_test_cc", **kw))
    (cc,) = made
    return result, cc


class ConstantWindow(ccsim.CongestionControl):
    """Linux's cong_control holding the window at `w` segments; it notes the window the sender
    left it on each call, and every rate sample."""

    def __init__(self, w=30.0):
        self.w = w
        self.seen_cwnd: list[float] = []
        self.samples: list[tuple] = []

    def init(self, conn):
        conn.cwnd = self.w

    def cong_control(self, conn, rs):
        self.seen_cwnd.append(conn.cwnd)
        self.samples.append((conn.now, conn.delivered, conn.lost, conn.min_rtt, rs))
        conn.cwnd = self.w


def test_cong_control_keeps_its_window_through_loss_recovery():
    """Three packets lost on the bottleneck: the sender retransmits them (SACK recovery) but
    leaves the window to the algorithm; ssthresh, left out, stays as it was."""
    loss = {"kind": "list", "packets": [200, 203, 400]}
    series = ["cwnd", "ssthresh", "recovery"]
    result, cc = run_instance(ConstantWindow, limit=100, loss=loss, series=series)
    flow = result.flows.iloc[0]
    assert flow["fast_retransmits"] == 2 and flow["retransmits"] == 3 and flow["timeouts"] == 0
    assert list(result.trace("recovery")["value"]) == [0.0, 1.0, 0.0, 1.0, 0.0]
    # Before the handshake's end (init), the initial window.
    cwnd = list(result.trace("cwnd")["value"])
    assert cwnd[0] == 10.0 and set(cwnd[1:]) == {30.0}
    assert set(result.trace("ssthresh")["value"]) == {math.inf}
    assert set(cc.seen_cwnd) == {30.0}
    assert cc.samples[-1][2] == 3  # conn.lost
    assert sum(rs.losses for *_, rs in cc.samples) == 3


def test_rate_samples_on_a_dumbbell_are_the_cores_and_sane():
    """A window of 40 segments fills the 33-segment path without loss: the samples reach the
    bottleneck's rate and never exceed it, the delivered count grows by what each ACK
    delivers, and the rates are the core's delivery_rate series."""
    result, cc = run_instance(lambda: ConstantWindow(40.0), limit=100, series=["delivery_rate"])
    assert result.flows["packets_dropped"][0] == 0
    samples = cc.samples
    assert len(samples) > 500
    delivered_before = 0
    rates = []
    for now, delivered, lost, min_rtt, rs in samples:
        assert delivered == delivered_before + rs.acked_sacked
        delivered_before = delivered
        assert lost == 0 and rs.losses == 0 and not rs.is_retrans
        assert rs.in_flight <= 40 and rs.prior_in_flight <= 40
        assert rs.delivered_time == now
        if rs.rtt is not None:
            assert 0.04 <= rs.rtt < 0.1
        if rs.interval is None:
            assert rs.rate is None
            continue
        assert rs.interval >= min_rtt
        assert rs.delivered == delivered - rs.prior_delivered > 0
        assert rs.rate == pytest.approx(rs.delivered / rs.interval, rel=1e-12)
        rates.append((now, rs.rate))
    assert all(r <= BOTTLENECK_SEGMENTS * (1 + 1e-9) for _, r in rates)
    assert max(r for _, r in rates) > 0.95 * BOTTLENECK_SEGMENTS
    assert samples[-1][1] >= result.flows["packets_delivered"][0] - 40
    series = result.trace("delivery_rate")
    assert list(series["time_s"]) == pytest.approx([t for t, _ in rates], abs=1e-9)
    assert list(series["value"]) == pytest.approx([r * 1448 * 8 for _, r in rates], rel=1e-12)


class SetsApp(ConstantWindow):
    marked = -1

    def cong_control(self, conn, rs):
        if self.marked < 0 and conn.now > 1.0:
            conn.app_limited = conn.delivered + 100
            self.marked = conn.delivered
        super().cong_control(conn, rs)


def test_app_limited_set_by_the_algorithm_marks_the_coming_samples():
    """Linux's tp->app_limited as BBR's ProbeRTT sets it: the segments sent until the
    delivered count passes the mark are sampled as application-limited; those before are not,
    and the sender clears the mark once it is passed."""
    _, cc = run_instance(lambda: SetsApp(40.0), limit=100, duration="2s")
    marked = cc.marked
    sent_in_bubble = [rs for *_, rs in cc.samples if marked < rs.prior_delivered <= marked + 100]
    # ACKs of two segments each: 50 samples from the 100 segments.
    assert len(sent_in_bubble) >= 45 and all(rs.is_app_limited for rs in sent_in_bubble)
    before = [rs for *_, rs in cc.samples if rs.prior_delivered < marked]
    after = [rs for *_, rs in cc.samples if rs.prior_delivered > marked + 100]
    assert len(before) > 50 and not any(rs.is_app_limited for rs in before)
    assert len(after) > 50 and not any(rs.is_app_limited for rs in after)


class NegativePacing(FixedRate):
    def init(self, conn):
        conn.pacing_rate = -5.0


class NanPacing(ConstantWindow):
    needs_pacing = True

    def cong_control(self, conn, rs):
        super().cong_control(conn, rs)
        if conn.now > 0.3:
            conn.pacing_rate = math.nan


class NegativeAppLimited(ConstantWindow):
    def cong_control(self, conn, rs):
        conn.app_limited = -1


class PacesInPktsAcked(FixedRate):
    def pkts_acked(self, conn, ack):
        conn.pacing_rate = 2e5


@pytest.mark.parametrize(
    "cls, hook, reason",
    [
        (NegativePacing, "init", "pacing_rate = -5: the pacing rate must be a positive number"),
        (NanPacing, "cong_control", "pacing_rate = NaN"),
        (NegativeAppLimited, "cong_control", "app_limited = -1: expected a whole number"),
        (PacesInPktsAcked, "pkts_acked", "changed pacing_rate or app_limited"),
    ],
)
def test_bad_pacing_rate_or_app_limited_stops_the_run_naming_hook_flow_and_time(cls, hook, reason):
    with pytest.raises(ccsim.CongestionControlError) as e:
        ccsim.run(dumbbell(cls(), duration="5s"))
    err = e.value
    assert err.hook == hook and err.flow == "f0" and 0 <= err.time_s < 5
    assert reason in str(err), str(err)
    if cls is NanPacing:
        assert err.time_s > 0.3


def test_cong_control_excludes_cong_avoid_and_needs_pacing_is_a_bool():
    class Both(ConstantWindow):
        def cong_avoid(self, conn, ack):
            pass

    class Neither(ccsim.CongestionControl):
        def init(self, conn):
            pass

    class Vague(FixedRate):
        needs_pacing = 1

    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.tcp\.cc.*defines both"):
        ccsim.run(dumbbell(Both()))
    with pytest.raises(ccsim.ScenarioError, match=r"defines no ssthresh.*or cong_control"):
        ccsim.run(dumbbell(Neither()))
    with pytest.raises(ccsim.ScenarioError, match=r"Vague\.needs_pacing = 1: expected True or"):
        ccsim.run(dumbbell(Vague()))


def test_an_algorithm_without_the_new_hooks_keeps_no_rate_state():
    """A Reno-style class pays for no delivery-rate records: conn.delivered stays 0."""
    seen = set()

    class Plain(ccsim.CongestionControl):
        def ssthresh(self, conn):
            return max(conn.cwnd / 2.0, 2.0)

        def cong_avoid(self, conn, ack):
            conn.cong_avoid_ai(conn.cwnd, ack.acked)

        def pkts_acked(self, conn, ack):
            seen.add((conn.delivered, conn.lost, conn.app_limited, conn.pacing_rate))

    ccsim.run(dumbbell(Plain(), duration="1s"))
    assert seen == {(0, 0, 0, math.inf)}
