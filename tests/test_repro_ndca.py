"""The NDCA-TCP reproduction (seed paper 003, docs/reproductions/ndca.py): its scenario files
validate, its grids expand to the points the report needs, and the report's fairness numbers
are computed as it says. Fast: nothing is simulated."""

import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from ccsim.sweep_spec import resolve  # noqa: E402
from ccsim.sweep_store import canonical_json, point_key  # noqa: E402
from repro_support import load_script, validated_points  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCEN = ROOT / "scenarios"
BASE = SCEN / "ndca.toml"
GRID = SCEN / "ndca-sweep.toml"
SENSITIVITY = SCEN / "ndca-sensitivity-sweep.toml"
FAIR_BASE = SCEN / "ndca-fairness.toml"
FAIR_GRID = SCEN / "ndca-fairness-sweep.toml"
SCRIPT = ROOT / "docs" / "reproductions" / "ndca.py"

LOSS = "topology.links[2].loss.p"


@pytest.fixture(scope="module")
def repro():
    return load_script("ndca")


@pytest.fixture(scope="module")
def setup(repro):
    # Loading the script put its folder on sys.path; its setup module sits next to it.
    return importlib.import_module("ndca_setup")


def expand(path):
    """Every point of a sweep file resolved and validated; (scenarios, points)."""
    base, points = validated_points(path)
    return [resolve(base, p) for p in points], points


def keys(scenarios):
    return {point_key(canonical_json(s), ccsim.__version__) for s in scenarios}


def test_base_scenario_is_the_papers_path():
    d = ccsim.validate(BASE)
    assert d["defaults"] == "ns2" and d["duration"] == "120s"
    links = d["topology"]["links"]
    assert [(lk["rate"], lk["delay"]) for lk in links] == [
        ("2.5Gbps", "1ms"),
        ("2.5Gbps", "1ms"),
        ("1Gbps", "49ms"),
    ]
    # random loss only on the 1 Gb/s link; one-BDP DropTail buffers (1 Gb/s x 102 ms / 1500 B)
    assert [("loss" in lk) for lk in links] == [False, False, True]
    assert {lk["queue"]["limit"] for lk in links} == {8500}
    (flow,) = d["flows"]
    assert (flow["src"], flow["dst"]) == ("n0", "n3")
    tcp = flow["tcp"]
    assert tcp["cc"] == {"kind": "ndca", "n": 10, "alpha": 1.2, "hold": True}
    assert tcp["recovery"] == "reno" and tcp["mss"] == 1460
    # ns-2's window_ far above what the path holds (BDP + buffer = 17 000 packets), and the
    # initial ssthresh equal to it
    assert tcp["initial_ssthresh"] >= 5 * 17_000
    assert tcp["rwnd"] == tcp["initial_ssthresh"] * tcp["mss"]


def test_grid_is_two_algorithms_by_four_loss_rates(setup):
    scenarios, points = expand(GRID)
    assert len(points) == 2 * 4 * 10
    assert sorted({p.seed for p in points}) == list(range(1, 11))
    losses = [s["topology"]["links"][2]["loss"]["p"] for s in scenarios]
    assert sorted(set(losses), reverse=True) == [1e-4, 1e-5, 1e-6, 1e-7]
    for s in scenarios:
        (flow,) = s["flows"]
        # the flow is named after its algorithm, which the report's tables rely on
        assert setup.alg_of(flow["tcp"]["cc"]) == flow["name"]
        assert s["trace"]["series"] == []
        assert "loss" not in s["topology"]["links"][0]
    assert {s["flows"][0]["name"] for s in scenarios} == {"ndca", "highspeed"}


def test_sensitivity_grid_shares_the_main_grids_points():
    main, _ = expand(GRID)
    sens, points = expand(SENSITIVITY)
    configs = {
        (
            s["topology"]["links"][2]["queue"]["limit"],
            s["flows"][0]["tcp"]["recovery"],
            s["flows"][0]["name"],
            s["topology"]["links"][2]["loss"]["p"],
        )
        for s in sens
    }
    assert len(configs) == 3 * 2 * 2 * 4
    assert {c[0] for c in configs} == {500, 2000, 8500}
    assert {c[1] for c in configs} == {"reno", "sack"}
    # the buffer is set on every link alike
    assert all(len({lk["queue"]["limit"] for lk in s["topology"]["links"]}) == 1 for s in sens)
    # its one-BDP Reno points are the main grid's (same scenario, same key): computed once
    seeds = len({p.seed for p in points})
    assert len(keys(main) & keys(sens)) == 2 * 4 * seeds


def test_fairness_runs_are_two_flows_of_one_algorithm(repro, setup):
    base = ccsim.validate(FAIR_BASE)
    assert base["topology"] == ccsim.validate(BASE)["topology"]
    assert "throughput" in base["trace"]["series"]
    scenarios, points = expand(FAIR_GRID)
    assert len(points) == 2 * 2 * 10
    cases = set()
    for s, p in zip(scenarios, points):
        a, b = s["flows"]
        assert a["tcp"]["cc"] == b["tcp"]["cc"]
        alg = setup.alg_of(a["tcp"]["cc"])
        assert (a["name"], b["name"]) == (f"{alg}-1", f"{alg}-2")
        assert a.get("start") in (None, "0s") and b["start"] == p.axes[repro.START2]
        cases.add((alg, b["start"]))
    assert cases == {(a, s) for a in ("ndca", "highspeed") for s in ("20s", "0s")}


def fake_result(start2: float, second: list[float]) -> ccsim.Result:
    """Two flows' goodput in 1 s bins: the first a constant 10, the second as given from its
    start on."""
    t = np.arange(1.0, 1.0 + len(second) + start2)
    first = np.full(len(t), 10.0)
    other = np.concatenate([np.zeros(int(start2)), np.asarray(second, dtype=float)])
    frame = pd.DataFrame(
        {
            "time_s": np.concatenate([t, t]),
            "flow": ["a"] * len(t) + ["b"] * len(t),
            "value": np.concatenate([first, other]),
        }
    )
    flows = pd.DataFrame(
        {"flow": ["a", "b"], "start_s": [0.0, start2], "end_s": [t[-1]] * 2, "packets_dropped": 0}
    )
    return ccsim.Result({}, {}, flows, pd.DataFrame(), {"throughput": frame})


def test_fairness_numbers_count_from_the_second_flows_start(repro):
    class P:  # the two fields of a sweep point the report reads
        def __init__(self, start):
            self.axes = {repro.FAIR_CC: "ndca", repro.START2: start}
            self.seed = 1

    # the newcomer gets 1, 4, 8, then 10 per bin: index 0.59, 0.94, 0.99, 1.0 ...
    r = fake_result(20.0, [1.0, 4.0, 8.0] + [10.0] * 30)
    points = [P("20s")]
    jr = repro.jain_runs([r], points)
    assert jr["since_s"].iloc[0] == pytest.approx(1.0)  # the bin (20, 21]
    assert jr["jain"].iloc[0] == pytest.approx(ccsim.jain_index([10.0, 1.0]))
    fs = repro.fairness_summary(jr, [r], points)
    row = fs.iloc[0]
    assert row["first_s"] == pytest.approx(3.0)  # [10, 8] is the first bin at >= 0.95
    assert row["jain_total"] == pytest.approx(ccsim.jain_index([10.0, np.mean(r.trace(
        "throughput").query("flow == 'b' and time_s > 20")["value"])]))  # fmt: skip
    assert 0.95 < row["mean_all"] < 1.0


def test_setup_constants(setup):
    # RFC 3649: w = 0.12 / p^0.835, about 83 000 segments at p = 1e-7
    w = setup.hs_response_bps(np.array([1e-7])) * setup.BASE_RTT_S / (8 * setup.MSS)
    assert w[0] == pytest.approx(83_000, rel=0.02)
    # the path: 102 ms round trip, 8500 packets of 1500 B in flight at 1 Gb/s
    assert setup.BDP_PKTS == 8500
    assert [setup.loss_label(p) for p in setup.LOSSES] == ["1e-4", "1e-5", "1e-6", "1e-7"]
    assert setup.MAIN_BUFFER in setup.BUFFERS and setup.MAIN_RECOVERY in setup.RECOVERIES
