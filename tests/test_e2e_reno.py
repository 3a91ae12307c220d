"""One Reno flow through a DropTail bottleneck: the issue's fidelity checks, end to end.

10 Mb/s, 40 ms RTT, 100-packet queue, 60 s, Linux profile (1448-byte segments, 1500 bytes on
the wire). BDP = 10e6 * 0.040 / (1500 * 8) = 33.3 packets, so the window peaks near
BDP + Q = 133.3 (+1 on the transmitter) and halves to about (BDP + Q) / 2.
"""

import numpy as np
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

BDP = 10e6 * 0.040 / (1500 * 8)
Q = 100
# Propagation 2 * (18 + 1 + 1) ms, a 1500-byte packet serialised at 10 and twice at
# 100 Mb/s, a 52-byte ACK at 10 and twice at 100 Mb/s.
BASE_RTT = 0.040 + 1500 * 8 / 10e6 + 2 * 1500 * 8 / 100e6 + 52 * 8 / 10e6 + 2 * 52 * 8 / 100e6


def reno_scenario(**tcp):
    return ccsim.Scenario(
        name="reno-60s",
        duration=60,
        topology=ccsim.Dumbbell(
            pairs=1,
            bottleneck=ccsim.Link(rate="10Mbps", delay="18ms", queue=ccsim.DropTail(limit=Q)),
            access=ccsim.Link(rate="100Mbps", delay="1ms"),
        ),
        flows=[ccsim.TcpFlow("reno", "s0", "d0", cc="reno", **tcp)],
        trace=ccsim.Trace(["cwnd", "ssthresh", "throughput"], throughput_bin="1s"),
    )


@pytest.fixture(scope="module")
def reno():
    return ccsim.run(reno_scenario())


def conserved(r):
    m = r.meta
    return m["packets_injected"] == (
        m["packets_consumed"] + m["packets_dropped"] + m["packets_in_network"]
    )


def test_conservation(reno):
    assert conserved(reno)


def test_utilisation_after_slow_start(reno):
    tp = reno.trace("throughput")
    after = tp[tp.time_s > 5]
    # Goodput counts payload; the link carries 1500 bytes per 1448 of payload.
    wire = after.value.mean() * 1500 / 1448
    assert wire / 10e6 >= 0.98


def test_sawtooth_between_half_and_full_bdp_plus_queue(reno):
    ss = reno.trace("ssthresh")
    cuts = ss[(ss.time_s > 5) & np.isfinite(ss.value)].value.to_numpy()
    assert len(cuts) >= 4, "several congestion epochs in 55 s"
    assert np.all(np.abs(cuts - (BDP + Q) / 2) < 0.1 * (BDP + Q) / 2), cuts
    cw = reno.trace("cwnd")
    steady = cw[cw.time_s > 5].value.to_numpy()
    assert abs(steady.max() - (BDP + Q)) < 0.1 * (BDP + Q), steady.max()
    # Troughs: after each halving the window restarts near (BDP + Q) / 2.
    assert abs(np.percentile(steady, 1) - (BDP + Q) / 2) < 0.15 * (BDP + Q) / 2


def test_mean_rtt_is_base_rtt_plus_mean_queueing_delay(reno):
    f = reno.flows.iloc[0]
    q = reno.queues[(reno.queues.link == "bottleneck") & (reno.queues["from"] == "left")].iloc[0]
    expected = BASE_RTT + q.avg_len_bytes * 8 / 10e6
    assert abs(f.rtt_mean_s - expected) / expected < 0.04, (f.rtt_mean_s, expected)


def test_same_seed_identical_different_seed_differs():
    lossy = reno_scenario().to_dict()
    lossy["duration"] = 10
    lossy["topology"]["bottleneck"]["loss"] = {"kind": "bernoulli", "p": 0.01}
    a = ccsim.run(lossy, seed=3)
    b = ccsim.run(lossy, seed=3)
    c = ccsim.run(lossy, seed=4)
    assert conserved(a) and conserved(c)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    assert a.trace("cwnd").equals(b.trace("cwnd"))
    assert not a.flows.equals(c.flows)
