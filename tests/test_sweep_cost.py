"""The expected cost of sweep points, and the longest-first order it gives: the estimate ranks
points as the core's own event counts do, and the order changes no result."""

import importlib.util
import math

import ccsim
import pandas as pd
import pytest
from ccsim.sweep_cost import bits_per_second, estimate, longest_first, seconds, size_bytes
from ccsim.sweep_run import execute
from sweep_base import AXES, base

needs_core = pytest.mark.skipif(
    importlib.util.find_spec("ccsim._core") is None, reason="needs the compiled core"
)


def chain(*links, flows=None, duration=10):
    return {
        "duration": duration,
        "topology": {"kind": "chain", "links": list(links)},
        "flows": flows or [{"kind": "tcp", "name": "f", "src": "n0", "dst": f"n{len(links)}"}],
    }


def link(rate="10Mbps", delay="10ms", p=None):
    spec = {"rate": rate, "delay": delay}
    if p is not None:
        spec["loss"] = {"kind": "bernoulli", "p": p}
    return spec


def test_units_as_the_core_reads_them():
    assert bits_per_second("2.5Gb/s") == 2.5e9 and bits_per_second("64kbps") == 64e3
    assert bits_per_second("10MBPS") == 1e7 and bits_per_second(5e6) == 5e6
    assert seconds("20ms") == pytest.approx(0.02) and seconds("2min") == 120 and seconds(3) == 3
    assert size_bytes("64KiB") == 65536 and size_bytes("1500B") == 1500 and size_bytes(7) == 7


def test_cost_grows_with_time_rate_and_hops():
    one = estimate(chain(link()))
    assert estimate(chain(link(), duration=20)) == pytest.approx(2 * one)
    assert estimate(chain(link("20Mbps"))) == pytest.approx(2 * one)
    # Three hops at the same narrowest rate: three times the packet-hops.
    assert estimate(chain(link("100Mbps"), link(), link("100Mbps"))) == pytest.approx(3 * one)
    # A flow active for half the run, half the cost.
    half = [{"kind": "tcp", "name": "f", "src": "n0", "dst": "n1", "start": "5s"}]
    assert estimate(chain(link(), flows=half)) == pytest.approx(one / 2)


def test_random_loss_slows_tcp_as_mathis_et_al_say():
    # MSS 1460 B over a 100 ms round trip: 1460*8/0.1*sqrt(1.5/p) bit/s, below 1 Gb/s here.
    costs = [estimate(chain(link("1Gbps", "50ms", p))) for p in (1e-4, 1e-5, 1e-6)]
    assert costs[0] < costs[1] < costs[2]
    assert costs[1] / costs[0] == pytest.approx(math.sqrt(10))
    lossless = estimate(chain(link("1Gbps", "50ms")))
    assert lossless / costs[2] == pytest.approx(1e9 / (1460 * 8 / 0.1 * math.sqrt(1.5e6)))


def test_flows_share_their_bottleneck():
    d = {
        "duration": 10,
        "topology": {"kind": "dumbbell", "pairs": 2, "bottleneck": link()},
        "flows": [{"kind": "tcp", "name": "a", "src": "s0", "dst": "d0"}],
    }
    one = estimate(d)
    d["flows"].append({"kind": "tcp", "name": "b", "src": "s1", "dst": "d1"})
    assert estimate(d) == pytest.approx(one)  # two bulk flows fill the same 10 Mb/s
    # 3 hops; TCP: 1460 + 40 B packets and half as many ACKs; CBR: 1000 B packets, no ACKs.
    assert one == pytest.approx(10e6 * 10 / ((1460 + 40) * 8) * 3 * 1.5)
    d["flows"] = [{"kind": "cbr", "name": "c", "src": "s0", "dst": "d0", "rate": "1Mbps"}]
    assert estimate(d) == pytest.approx(1e6 * 10 / (1000 * 8) * 3)


def test_explicit_paths_are_shortest_in_hops():
    topo = {
        "kind": "explicit",
        "nodes": ["a", "b", "c", "d"],
        "links": [
            {"name": "ab", "a": "a", "b": "b", **link()},
            {"name": "bc", "a": "b", "b": "c", **link()},
            {"name": "cd", "a": "c", "b": "d", **link()},
            {"name": "ad", "a": "a", "b": "d", **link()},
        ],
    }
    flow = {"kind": "tcp", "name": "f", "src": "d", "dst": "b"}  # d-a-b, not d-c-b-... either
    two = estimate({"duration": 10, "topology": topo, "flows": [flow]})
    one = estimate(chain(link()))
    assert two == pytest.approx(2 * one)


def test_an_unreadable_scenario_goes_first():
    odd = chain(link("10 furlongs"))
    assert estimate(odd) == math.inf
    costs = {"a": 1.0, "b": 5.0, "c": math.inf, "d": 5.0}
    assert longest_first(costs, ["a", "b", "c", "d"]) == ["c", "b", "d", "a"]


@needs_core
def test_estimate_ranks_points_as_the_packet_hops_they_simulate():
    # What the estimate stands for, counted by the core: packets sent on every link direction.
    axes = {
        "topology.bottleneck.rate": ["5Mbps", "50Mbps", "20Mbps"],
        "topology.bottleneck.loss.p": [0.01, 0.0001],
        "duration": [2, 8],
    }
    queues = ccsim.sweep(base(), axes, workers=0, table="queues", progress=False)
    hops = queues.groupby("point").departures.sum()
    points = queues.drop_duplicates("point").set_index("point")[list(axes)]
    est = [
        estimate(ccsim.runner.prepare(base(), overrides=dict(row))) for _, row in points.iterrows()
    ]
    pairs = [(a, b) for a in range(len(est)) for b in range(len(est)) if est[a] > 2 * est[b]]
    assert len(pairs) > 30  # the grid's points differ enough to tell
    # Where the estimate expects twice the work, there is more: the order it gives is right.
    assert [(a, b) for a, b in pairs if hops.iat[a] <= hops.iat[b]] == []
    assert pd.Series(est).rank().corr(hops.reset_index(drop=True).rank()) > 0.85


@needs_core
def test_longest_first_changes_the_order_not_the_results(tmp_path):
    axes = {"topology.bottleneck.rate": ["5Mbps", "50Mbps", "20Mbps"], **AXES}
    ran = []
    got = ccsim.sweep(base(), axes, workers=0, progress=False, on_point=ran.append)
    rate = [bits_per_second(i.point.axes["topology.bottleneck.rate"]) for i in ran]
    assert rate == sorted(rate, reverse=True)  # 50, 50, ..., 20, ..., 5 Mb/s

    sw = ccsim.Sweep(base(), axes)
    in_order = []
    plain = execute(sw, workers=0, progress=False, order="points", on_point=in_order.append)
    assert [i.point.index for i in in_order] == list(range(len(in_order)))
    pd.testing.assert_frame_equal(plain.table("flows"), got)
    pooled = execute(sw, workers=2, progress=False, output=tmp_path)
    pd.testing.assert_frame_equal(pooled.table("flows"), got)
