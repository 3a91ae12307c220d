"""Builders produce exactly the schema's dicts; TOML files load into the same dicts."""

import pytest
from ccsim import (
    Bernoulli,
    CbrFlow,
    Chain,
    Cobalt,
    DropTail,
    DualPi2,
    Dumbbell,
    Explicit,
    FqPie,
    GilbertElliott,
    Link,
    LinkOverride,
    LossList,
    OnOffFlow,
    Outage,
    Red,
    Scenario,
    ScenarioError,
    Step,
    TcpArrivals,
    TcpFlow,
    Trace,
    default_scenario,
    load,
)


def test_link_omits_none_and_nests_kinds():
    link = Link("10Mbps", "20ms", queue=DropTail(limit=100), loss=Bernoulli(0.01))
    assert link.to_dict() == {
        "rate": "10Mbps",
        "delay": "20ms",
        "queue": {"kind": "droptail", "limit": 100},
        "loss": {"kind": "bernoulli", "p": 0.01},
    }


def test_loss_models():
    assert GilbertElliott(0.01, 0.3).to_dict() == {
        "kind": "gilbert_elliott",
        "p_gb": 0.01,
        "p_bg": 0.3,
        "loss_good": 0.0,
        "loss_bad": 1.0,
    }
    assert Outage([(1, "1.5s"), (3, 4)]).to_dict() == {
        "kind": "outage",
        "intervals": [[1, "1.5s"], [3, 4]],
    }
    assert LossList([3, 7]).to_dict() == {"kind": "list", "packets": [3, 7]}
    assert DropTail(limit_bytes="64KiB").to_dict() == {"kind": "droptail", "limit_bytes": "64KiB"}
    assert DualPi2(step_thresh="1ms", coupling_factor=2).to_dict() == {
        "kind": "dualpi2",
        "coupling_factor": 2,
        "step_thresh": "1ms",
    }
    assert Step(threshold=20, nodrop=True).to_dict() == {
        "kind": "step",
        "threshold": 20,
        "nodrop": True,
    }
    assert FqPie(ecn=True, ecn_prob=20).to_dict() == {"kind": "fq_pie", "ecn": True, "ecn_prob": 20}
    assert Cobalt(p_inc=0.01).to_dict() == {"kind": "cobalt", "p_inc": 0.01}
    assert Red(adaptive=True, interval="1s").to_dict() == {
        "kind": "red",
        "adaptive": True,
        "interval": "1s",
    }


def test_dumbbell_with_overrides():
    d = Dumbbell(
        pairs=2,
        bottleneck=Link(1e7, 0.02),
        left=[LinkOverride(delay="5ms"), LinkOverride(delay="50ms", loss=LossList([1]))],
    )
    assert d.to_dict() == {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {"rate": 1e7, "delay": 0.02},
        "left": [{"delay": "5ms"}, {"delay": "50ms", "loss": {"kind": "list", "packets": [1]}}],
    }


def test_chain_and_explicit():
    assert Chain([Link("1Mbps", "1ms"), Link("2Mbps", "2ms", name="slow")]).to_dict() == {
        "kind": "chain",
        "links": [
            {"rate": "1Mbps", "delay": "1ms"},
            {"rate": "2Mbps", "delay": "2ms", "name": "slow"},
        ],
    }
    e = Explicit(["a", "b"], [Link("1Mbps", "1ms", name="ab", a="a", b="b")])
    assert e.to_dict() == {
        "kind": "explicit",
        "nodes": ["a", "b"],
        "links": [{"name": "ab", "a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
    }


def test_tcp_flow_settings_go_to_tcp_table():
    f = TcpFlow("f", "s0", "d0", start=1, size="1MB", cc="reno", recovery="sack", mss=None)
    assert f.to_dict() == {
        "kind": "tcp",
        "name": "f",
        "src": "s0",
        "dst": "d0",
        "start": 1,
        "size": "1MB",
        "tcp": {"cc": "reno", "recovery": "sack"},
    }
    assert "tcp" not in TcpFlow("g", "a", "b").to_dict()
    assert TcpFlow("g", "a", "b", cc="reno") == TcpFlow("g", "a", "b", cc="reno")


def test_cbr_flow():
    assert CbrFlow("c", "s1", "d1", "2Mbps", packet_size=1000).to_dict() == {
        "kind": "cbr",
        "name": "c",
        "src": "s1",
        "dst": "d1",
        "rate": "2Mbps",
        "packet_size": 1000,
        "dscp": 0,
    }


def test_onoff_flow():
    f = OnOffFlow("bg", "s1", "d1", "2Mbps", on="20ms", off="80ms", distribution="pareto")
    assert f.to_dict() == {
        "kind": "onoff",
        "name": "bg",
        "src": "s1",
        "dst": "d1",
        "rate": "2Mbps",
        "on": "20ms",
        "off": "80ms",
        "distribution": "pareto",
        "dscp": 0,
    }


def test_tcp_arrivals():
    size = {"distribution": "pareto", "mean": "100kB", "shape": 1.2}
    f = TcpArrivals("web", "s0", "d0", 5, size, stop=60, cc="cubic")
    assert f.to_dict() == {
        "kind": "tcp_arrivals",
        "name": "web",
        "src": "s0",
        "dst": "d0",
        "arrival_rate": 5,
        "size": size,
        "stop": 60,
        "tcp": {"cc": "cubic"},
    }
    assert "tcp" not in TcpArrivals("web", "s0", "d0", 5, "10kB").to_dict()


def test_dicts_mix_with_builders():
    s = Scenario(
        "mix",
        10,
        {"kind": "chain", "links": [Link(1e6, 0.01)]},
        [{"kind": "tcp", "name": "t", "src": "n0", "dst": "n1", "stop": None}],
    )
    assert s.to_dict() == {
        "name": "mix",
        "duration": 10,
        "seed": 1,
        "defaults": "linux",
        "topology": {"kind": "chain", "links": [{"rate": 1e6, "delay": 0.01}]},
        "flows": [{"kind": "tcp", "name": "t", "src": "n0", "dst": "n1"}],
    }


TOML = """
name = "default"
duration = 30
seed = 1
defaults = "linux"

[topology]
kind = "dumbbell"
pairs = 3
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "droptail", limit = 100 } }
access = { rate = "100Mbps", delay = "1ms" }

[[flows]]
kind = "tcp"
name = "tcp1"
src = "s0"
dst = "d0"
start = 0
tcp = { cc = "reno" }

[[flows]]
kind = "tcp"
name = "tcp2"
src = "s1"
dst = "d1"
start = 0.5
tcp.cc = "reno"

[[flows]]
kind = "cbr"
name = "cbr"
src = "s2"
dst = "d2"
rate = "2Mbps"
packet_size = 1000
dscp = 0

[trace]
series = ["cwnd", "ssthresh", "srtt", "throughput", "queue"]
interval = "10ms"
"""


def test_default_scenario_matches_toml_and_builders(tmp_path):
    path = tmp_path / "default.toml"
    path.write_text(TOML)
    assert load(path) == default_scenario()
    assert load(str(path)) == default_scenario()


def test_default_scenario_is_fresh_each_time():
    a = default_scenario()
    a["flows"].clear()
    assert len(default_scenario()["flows"]) == 3


def test_trace_builder():
    assert Trace(["cwnd"], throughput_bin="50ms").to_dict() == {
        "series": ["cwnd"],
        "throughput_bin": "50ms",
    }
    assert Trace(packets=["bottleneck"]).to_dict() == {"series": [], "packets": ["bottleneck"]}


def test_toml_syntax_error_has_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nduration = \n')
    with pytest.raises(ScenarioError) as e:
        load(path)
    assert e.value.path == ""
    assert "line 2" in e.value.message and "bad.toml" in e.value.message


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.toml")


def test_numpy_values_become_plain():
    import numpy as np

    d = LossList(np.arange(3)).to_dict()
    assert d == {"kind": "list", "packets": [0, 1, 2]}
    assert type(d["packets"][0]) is int
    assert type(Bernoulli(np.float64(0.5)).to_dict()["p"]) is float
