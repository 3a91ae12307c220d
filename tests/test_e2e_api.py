"""The Python API end to end, on the real compiled core."""

import json
import math

import numpy as np
import pandas as pd
import pytest

core = pytest.importorskip("ccsim._core")

import ccsim  # noqa: E402
from ccsim.result import Result  # noqa: E402

FLOW_COLUMNS = [
    "flow", "kind", "src", "dst", "cc", "recovery", "start_s", "end_s", "last_arrival_s",
    "bytes_sent", "bytes_delivered", "packets_sent", "packets_delivered", "packets_dropped",
    "goodput_bps", "throughput_bps", "retransmits", "timeouts", "fast_retransmits", "rtt_mean_s",
    "rtt_min_s", "rtt_max_s", "rtt_samples", "size_bytes", "completion_s", "cwnd_final", "ecn",
    "ecn_reductions", "ce_marks", "acns", "acns_freezes", "acns_fallbacks", "acns_trend_keep",
    "acns_trend_fallback", "acns_trend_decrease", "owd_mean_s", "owd_max_s",
]  # fmt: skip
QUEUE_COLUMNS = [
    "link", "from", "to", "rate_bps", "arrivals", "departures", "drops_overflow", "drops_aqm",
    "drops_early", "drops_forced", "drops_loss", "marks", "marks_early", "marks_forced",
    "bytes_departed", "acns_freezes", "acns_fallbacks", "avg_len_pkts", "max_len_pkts",
    "avg_len_bytes", "max_len_bytes", "utilisation",
]  # fmt: skip


@pytest.fixture(scope="module")
def default_result():
    return ccsim.run(ccsim.default_scenario(), overrides={"duration": 10})


def test_tables_follow_the_contract(default_result):
    r = default_result
    assert list(r.flows.columns) == FLOW_COLUMNS
    assert list(r.queues.columns) == QUEUE_COLUMNS
    assert list(r.flows["flow"]) == ["tcp1", "tcp2", "cbr"]
    assert list(r.flows["cc"]) == ["reno", "reno", ""]
    # dumbbell with 3 pairs: bottleneck + 6 access links, two directions each
    assert len(r.queues) == 14
    assert set(r.series_names) == {"cwnd", "ssthresh", "srtt", "throughput", "queue"}


def test_packets_are_conserved(default_result):
    m = default_result.meta
    assert m["packets_injected"] == (
        m["packets_consumed"] + m["packets_dropped"] + m["packets_in_network"]
    )


def test_goodput_fits_the_bottleneck(default_result):
    f = default_result.flows
    assert (f["goodput_bps"] > 0).all()
    assert f["goodput_bps"].sum() <= 10e6 * 1.001
    assert (f["goodput_bps"] <= f["throughput_bps"] * 1.0001).all()
    assert 0.5 < ccsim.utilisation(default_result, "bottleneck") <= 1.0


def test_traces_are_labelled(default_result):
    cwnd = default_result.trace("cwnd")
    assert set(cwnd["flow"]) <= {"tcp1", "tcp2"}
    assert cwnd["time_s"].between(0, 10).all()
    q = default_result.trace("queue")
    assert "bottleneck:left->right" in set(q["queue"])
    j = ccsim.jain_over_time(default_result, flows=["tcp1", "tcp2"])
    assert ((j.dropna() > 0) & (j.dropna() <= 1 + 1e-12)).all()


def test_bandwidth_estimate_is_a_flow_series_for_the_algorithms_that_keep_one():
    from matplotlib.figure import Figure

    d = ccsim.default_scenario()
    d["duration"] = 5
    d["flows"][0].setdefault("tcp", {})["cc"] = "westwood"
    d["flows"][1].setdefault("tcp", {})["cc"] = "ndca"
    d["trace"] = {"series": ["bw_estimate"], "interval": "100ms"}
    r = ccsim.run(d)
    bw = r.trace("bw_estimate")
    assert list(bw.columns) == ["time_s", "flow", "value"]
    assert set(bw["flow"]) == {"tcp1", "tcp2"}  # not the CBR flow
    # Both settle within the 10 Mb/s bottleneck they share with 2 Mb/s of CBR.
    last = bw.groupby("flow", observed=True)["value"].last()
    assert ((last > 1e6) & (last < 10e6)).all(), last
    ax = Figure().add_subplot()
    r.plot("bw_estimate", ax=ax)
    assert ax.get_ylabel() == "estimate (Mb/s)"


def test_same_seed_same_result_whatever_the_chunking():
    s = ccsim.default_scenario()
    s["duration"] = 5
    a = ccsim.run(s)
    # The core run in one call, without the runner's run_until chunks.
    sim = core.Simulation(json.dumps(s))
    b = Result.from_core(sim.finish(), s)
    assert sim.now == pytest.approx(sim.duration)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.queues, b.queues)
    for name in a.series_names:
        pd.testing.assert_frame_equal(a.trace(name), b.trace(name))
    assert a.meta["events"] == b.meta["events"]


def test_run_advances_in_chunks_to_the_end(monkeypatch):
    # issue 33, defect 2: web-fct.toml's chunks stopped at 0.84 s of 40 s (the core rounds a
    # target to whole ns) and finish() ran the rest with no progress and no Ctrl-C.
    from pathlib import Path

    from ccsim import runner

    seen = {}

    class Recording:
        def __init__(self, sim):
            self.sim, self.duration = sim, sim.duration

        @property
        def now(self):
            return self.sim.now

        def run_until(self, t):
            self.sim.run_until(t)
            seen.setdefault("chunks", []).append(self.sim.now)

        def finish(self):
            seen["finished_from"] = self.sim.now
            return self.sim.finish()

    make = runner._native.simulation
    monkeypatch.setattr(
        runner._native, "simulation", lambda *args, **kw: Recording(make(*args, **kw))
    )
    web = Path(__file__).resolve().parent.parent / "scenarios" / "web-fct.toml"
    r = ccsim.run(web)
    assert seen["finished_from"] == r.meta["duration_s"] and len(seen["chunks"]) > 3


def test_finite_flow_over_a_chain():
    s = ccsim.Scenario(
        name="chain",
        duration=20,
        topology=ccsim.Chain([ccsim.Link("10Mbps", "5ms"), ccsim.Link("5Mbps", "10ms")]),
        flows=[ccsim.TcpFlow("t", "n0", "n2", size="1MB", recovery="sack")],
    )
    r = ccsim.run(s)
    f = r.flows.iloc[0]
    assert f["bytes_delivered"] == 1_000_000
    assert 0 < f["completion_s"] < 20 and not math.isnan(f["completion_s"])
    assert f["recovery"] == "sack"


def test_onoff_background_beside_tcp():
    # 2 Mb/s bursts of mean 50 ms every 250 ms on average: about 0.4 Mb/s beside a Reno flow.
    s = ccsim.Scenario(
        name="onoff",
        duration=60,
        topology=ccsim.Dumbbell(2, bottleneck=ccsim.Link("10Mbps", "10ms")),
        flows=[
            ccsim.TcpFlow("t", "s0", "d0"),
            ccsim.OnOffFlow("bg", "s1", "d1", "2Mbps", on="50ms", off="200ms"),
        ],
    )
    r = ccsim.run(s)
    bg = r.flows.set_index("flow").loc["bg"]
    assert bg["kind"] == "onoff" and bg["cc"] == ""
    assert 0.3e6 < bg["throughput_bps"] < 0.5e6
    assert r.flows.set_index("flow").loc["t", "goodput_bps"] > 8e6
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(s, overrides={"flows.bg.shape": 2})
    assert e.value.path == "flows[1].shape"


def test_poisson_transfers_report_completion_times():
    s = ccsim.Scenario(
        name="web",
        duration=30,
        topology=ccsim.Dumbbell(1, bottleneck=ccsim.Link("10Mbps", "10ms")),
        flows=[ccsim.TcpArrivals("web", "s0", "d0", 4, "50kB", stop=25, cc="cubic")],
    )
    r = ccsim.run(s)
    assert list(r.flows["flow"][:2]) == ["web.0", "web.1"]
    assert 60 < len(r.flows) < 140  # 4 per second for 25 s: 100
    assert (r.flows["bytes_delivered"] == 50_000).all()
    assert (r.flows["size_bytes"] == 50_000).all()
    assert r.flows["completion_s"].between(0.05, 5).all()
    # The summary gives the transfers one row, with their mean completion time.
    assert r.transfer_groups() == ["web"] * len(r.flows)
    lines = r.summary_table().splitlines()
    n = len(r.flows)
    assert len(lines) == 3 and lines[2].startswith(f"web.* ({n}/{n})  tcp_arrivals")
    assert lines[2].split()[-1] == f"{r.flows['completion_s'].mean():.3f}"
    t = ccsim.completion_times(r)
    assert list(t["transfers"]) == [n] and list(t["completed"]) == [n]
    # An entry whose draws start nothing still has its row.
    quiet = ccsim.run(s, overrides={"flows.web.arrival_rate": 1e-6})
    assert len(quiet.flows) == 0
    t = ccsim.completion_times(quiet)
    assert list(t["group"]) == ["web"] and list(t["transfers"]) == [0]
    assert np.isnan(t["mean_s"].iloc[0])
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(s, overrides={"flows.web.tcp.cc": "nope"})
    assert e.value.path.startswith("flows[0].tcp.cc")


def test_packet_trace(tmp_path):
    s = ccsim.default_scenario()
    s["duration"] = 5
    s["trace"]["packets"] = ["bottleneck"]
    r = ccsim.run(s)
    p = r.packets
    assert list(p.columns) == [
        "time_s", "event", "cause", "link", "from", "to", "flow", "kind", "size", "payload",
        "seq", "ack", "flags", "window", "options", "ce", "ecn", "cmi", "dscp", "uid", "sent_s",
    ]  # fmt: skip
    assert set(p["event"]) == {"+", "-", "d", "r"} and set(p["link"]) == {"bottleneck"}
    assert p["time_s"].is_monotonic_increasing
    fwd = r.queues[(r.queues["link"] == "bottleneck") & (r.queues["from"] == "left")].iloc[0]
    mine = p[p["from"] == "left"]
    assert (mine["event"] == "+").sum() == fwd["arrivals"]
    assert (mine["event"] == "d").sum() == fwd["drops_overflow"]
    # Each packet's number is its own: one `+` per number at the direction.
    assert mine[mine["event"] == "+"]["uid"].is_unique
    # Tracing changes no result.
    plain = ccsim.run({**s, "trace": {**s["trace"], "packets": []}})
    assert plain.packets.empty
    pd.testing.assert_frame_equal(plain.flows, r.flows)
    r.save(tmp_path / "out", figures=False)
    back = ccsim.Result.load(tmp_path / "out")
    pd.testing.assert_frame_equal(back.packets, p)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(s, overrides={"trace.packets": ["nope"]})
    assert e.value.path == "trace.packets[0]"


def test_errors_are_ccsim_errors():
    s = ccsim.default_scenario()
    s["flows"][1]["tcp"]["recovery"] = "vegas"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(s)
    assert type(e.value) is ccsim.ScenarioError
    assert e.value.path == "flows[1].tcp.recovery"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate({"duration": 1})
    assert e.value.path == "topology" and "topology" in e.value.message


def test_save_and_load(default_result, tmp_path):
    default_result.save(tmp_path)
    back = ccsim.Result.load(tmp_path)
    pd.testing.assert_frame_equal(back.flows, default_result.flows)
    np.testing.assert_array_equal(
        back.trace("cwnd")["value"].to_numpy(), default_result.trace("cwnd")["value"].to_numpy()
    )


def test_version_matches_core():
    assert ccsim.__version__ == core.version()


def test_goodput_of_a_stopped_flow_is_over_its_delivery():
    # Issue 33: a 5 Mb/s CBR stopped at 0.2 s over a 64 kb/s bottleneck delivers its queued
    # packets for seconds after the stop; over `stop - start` its goodput read 268 kb/s.
    s = ccsim.Scenario(
        name="stopped",
        duration=30,
        topology=ccsim.Dumbbell(
            1, bottleneck=ccsim.Link("64kbps", "10ms", queue=ccsim.DropTail(200))
        ),
        flows=[ccsim.CbrFlow("c", "s0", "d0", "5Mbps", stop=0.2)],
    )
    c = ccsim.run(s).flows.set_index("flow").loc["c"]
    assert c["end_s"] == 0.2 and c["last_arrival_s"] > 10
    assert 0.9 * 64e3 < c["goodput_bps"] <= 64e3
    assert c["goodput_bps"] == pytest.approx(c["bytes_delivered"] * 8 / c["last_arrival_s"])
