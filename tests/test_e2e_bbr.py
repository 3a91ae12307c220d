"""BBR v1 and pacing end to end: their signature behaviours on dumbbells.

Each test states the behaviour the sources describe (Cardwell et al. 2016; Linux
`tcp_bbr.c`, `tcp_output.c`) and checks the simulated runs show it.
"""

from __future__ import annotations

import ccsim
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ccsim._core")

# BBR's states as the `cc_mode` series numbers them.
STARTUP, DRAIN, PROBE_BW, PROBE_RTT = 0, 1, 2, 3


def dumbbell(flows, *, rate="10Mbps", delay="20ms", limit=200, duration="35s", series=()):
    return {
        "name": "bbr-e2e",
        "duration": duration,
        "seed": 1,
        "defaults": "linux",
        "topology": {
            "kind": "dumbbell",
            "pairs": len(flows),
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": {"kind": "droptail", "limit": limit},
            },
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [
            {"kind": "tcp", "name": name, "src": f"s{i}", "dst": f"d{i}", "tcp": tcp}
            for i, (name, tcp) in enumerate(flows)
        ],
        "trace": {"series": list(series), "interval": "10ms"},
    }


def entries(mode: pd.DataFrame, state: int) -> np.ndarray:
    """Times at which the `cc_mode` series enters ``state``."""
    v = mode["value"].to_numpy()
    t = mode["time_s"].to_numpy()
    starts = (v == state) & np.concatenate([[True], v[:-1] != state])
    return t[starts]


@pytest.fixture(scope="module")
def one_bbr():
    return ccsim.run(dumbbell([("bbr", {"cc": "bbr"})], series=["queue", "cc_mode", "min_rtt"]))


def test_one_bbr_flow_keeps_a_few_packets_queued_at_near_full_utilisation(one_bbr):
    bottleneck = one_bbr.queues.iloc[0]
    assert bottleneck["link"] == "bottleneck"
    # Cruising at the estimated rate, the queue holds a few packets (the quantisation budget
    # and the 5/4 phase's probe), far below the 200-packet buffer a CUBIC flow would fill.
    assert bottleneck["avg_len_pkts"] < 10
    assert bottleneck["drops_overflow"] == 0
    assert bottleneck["utilisation"] > 0.93
    assert one_bbr.flows["retransmits"].iloc[0] == 0


def test_startup_ends_within_a_second_and_probe_rtt_comes_every_ten_seconds(one_bbr):
    mode = one_bbr.trace("cc_mode")
    drain = entries(mode, DRAIN)
    # From 10 segments to a 36-segment BDP takes a few 44 ms rounds, then three rounds without
    # 25 % more bandwidth: Startup ends well within the first second.
    assert len(drain) == 1 and drain[0] < 1.0
    probes = entries(mode, PROBE_RTT)
    # The min-RTT estimate expires 10 s after its last refresh, and ProbeRTT refreshes it:
    # entries about every 10 s (plus the 200 ms and the round spent in ProbeRTT).
    assert len(probes) == 3
    assert np.all(np.abs(np.diff(probes) - 10.2) < 0.3), probes
    # ProbeRTT lasts at least 200 ms and about one round more.
    leaves = entries(mode, PROBE_BW)
    for p in probes:
        after = leaves[leaves > p]
        assert 0.2 <= after[0] - p < 0.5


def test_min_rtt_is_the_path_s_round_trip(one_bbr):
    m = one_bbr.trace("min_rtt")
    # First the handshake's: 2 × (20 + 2 × 1) ms of propagation and two 52-byte packets'
    # transmission (41.6 µs at 10 Mb/s, 4.2 µs at each 100 Mb/s access link).
    assert m["value"].iloc[0] == pytest.approx(0.044 + 2 * (41.6e-6 + 2 * 4.16e-6), abs=1e-6)
    # After the first ProbeRTT, a data segment's: 1500 bytes take 1.2 ms at the bottleneck and
    # 0.12 ms on each access link, its ACK 50 µs.
    later = m[m["time_s"] > 11]["value"]
    assert later.min() == pytest.approx(0.044 + 1.2e-3 + 0.24e-3 + 50e-6, abs=1e-4)


def share_of_bbr(limit: int) -> float:
    r = ccsim.run(
        dumbbell(
            [("bbr", {"cc": "bbr"}), ("cubic", {"cc": "cubic"})],
            rate="20Mbps",
            delay="28ms",
            limit=limit,
            duration="40s",
        )
    )
    g = r.flows["goodput_bps"].to_numpy()
    return g[0] / g.sum()


def test_bbr_takes_more_against_cubic_in_shallow_buffers_than_in_deep_ones():
    # BDP at 20 Mb/s and 60 ms: 100 packets. Published measurements (Hock, Bless & Zitterbart,
    # ICNP 2017; Ware et al., IMC 2019) find BBR v1 dominant in shallow buffers and CUBIC
    # gaining as the buffer deepens, since BBR caps its flight at about 2 BDP.
    shallow = share_of_bbr(50)
    deep = share_of_bbr(800)
    assert shallow > 0.6
    assert deep < shallow - 0.2


def test_pacing_removes_self_drops_at_a_small_sender_buffer():
    # An initial window of 100 segments into a 20-packet access queue: unpaced, the burst
    # overflows the sender's own link; paced (Linux's rule from the handshake's RTT, 200 % of
    # cwnd/srtt), only the first ten leave back to back, and nothing is dropped there.
    def run(pacing: str):
        d = dumbbell([("f", {"cc": "cubic", "initial_window": 100, "pacing": pacing})])
        d["topology"]["bottleneck"]["rate"] = "1Gbps"
        d["topology"]["bottleneck"]["queue"]["limit"] = 1000
        d["topology"]["access"] = {
            "rate": "10Gbps",
            "delay": "1ms",
            "queue": {"kind": "droptail", "limit": 20},
        }
        d["duration"] = "2s"
        q = ccsim.run(d).queues.set_index("link")
        return int(q.loc["access_s0"].iloc[0]["drops_overflow"])

    assert run("off") > 50
    assert run("on") == 0


def test_bad_pacing_settings_name_their_field():
    d = dumbbell([("f", {"cc": "cubic", "pacing": "sometimes"})])
    with pytest.raises(ccsim.ScenarioError, match="pacing"):
        ccsim.run(d)
    d = dumbbell([("f", {"cc": "cubic", "pacing_ca_ratio": 0})])
    with pytest.raises(ccsim.ScenarioError, match="pacing_ca_ratio"):
        ccsim.run(d)
    d = dumbbell([("f", {"cc": {"kind": "bbr", "cwnd_gain": -2}})])
    with pytest.raises(ccsim.ScenarioError, match="cwnd_gain"):
        ccsim.run(d)


def test_bad_bbr3_parameters_name_their_field():
    for field, value in (("beta", 1.5), ("loss_thresh", 0), ("probe_rtt_win_ms", 20_000)):
        d = dumbbell([("f", {"cc": {"kind": "bbr3", field: value}})])
        with pytest.raises(ccsim.ScenarioError, match=field):
            ccsim.run(d)
    d = dumbbell([("f", {"cc": {"kind": "bbr3", "betta": 0.7}})])
    with pytest.raises(ccsim.ScenarioError, match="betta"):
        ccsim.run(d)
