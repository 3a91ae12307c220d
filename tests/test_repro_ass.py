"""The Advanced Slow Start reproduction (docs/reproductions/ass.py): its scenario files validate,
the grid expands to the paper's 192 configurations, and the ranking helpers of the report do
what the report says. Fast: nothing is simulated."""

from pathlib import Path

import numpy as np
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from ccsim.sweep_spec import check, resolve  # noqa: E402
from repro_support import load_script  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "scenarios" / "ass-chain.toml"
SWEEP = ROOT / "scenarios" / "ass-sweep.toml"


def _script():
    return load_script("ass")


def test_base_scenario_validates():
    d = ccsim.validate(BASE)  # raises ScenarioError if invalid
    tcp = d["flows"][0]["tcp"]
    assert d["defaults"] == "ns2" and d["duration"] == "250s"
    assert tcp["recovery"] == "sack" and tcp["slow_start"]["max_ssthresh"] == 100
    assert tcp["rwnd"] >= 100_000  # ns-2's window_ raised well above 20 packets
    assert tcp["timestamps"] is False  # ns-2's timestamps_ false: no workaround
    assert [link["delay"] for link in d["topology"]["links"]] == ["10ms"] * 3


def test_sweep_expands_to_the_paper_grid():
    sw = ccsim.load_sweep(SWEEP)
    base = sw.base_scenario()
    points = sw.points(base)
    configs = {tuple(sorted((k, str(v)) for k, v in p.axes.items())) for p in points}
    assert len(configs) == 2 * 2 * 2 * 6 * 4 == 192
    assert len(points) == 192 * sw.replications
    axes = dict(p for g in sw.groups for p in g)
    assert axes["topology.links.*.queue.limit"] == [4, 14, 24, 49, 99, 199]  # IFQ - 1
    assert axes["flows.*.tcp.slow_start.kind"] == ["limited", "ass2", "ass3", "ass4"]
    assert axes["topology.links[1].loss.p"] == [0.0, 0.2]
    # a corner point: 0.3 Mb/s, 20 % loss on n1-n2 only, RFC 3390 window, IFQ 200, ASS4
    last = resolve(base, points[-1])
    links = last["topology"]["links"]
    assert links[1]["rate"] == "10Mbps" and links[1]["loss"]["p"] == 0.2
    assert "loss" not in links[0] and "loss" not in links[2]
    assert all(link["queue"]["limit"] == 199 for link in links)
    assert last["flows"][0]["tcp"]["initial_window"] == "rfc3390"
    # every configuration is a valid scenario (one seed each: seeds change nothing here)
    first_seed = [p for p in points if p.replication == 0]
    good, bad = check(base, first_seed)
    assert bad == [] and len(good) == 192


def test_ranking_helpers():
    ass = _script()
    # one value each (deterministic runs): ties within 0.5 %
    one = {1: [100.0], 2: [99.8], 3: [90.0], 4: [80.0]}
    assert ass.rank({k: np.array(v) for k, v in one.items()}) == [[1, 2], [3], [4]]
    # paired seeds: a steady small lead is an order, a noisy large one a tie
    base = np.array([100.0, 120.0, 80.0, 110.0, 90.0])
    noise = np.array([9.0, -8.0, 7.0, -9.0, 1.0])  # mean 0
    groups = ass.rank({1: base, 2: base - 2.0, 3: base - 3.0 + noise})
    assert groups == [[1], [2, 3]]
    assert ass.parse_rank("3 > 2 > 1 = 4") == [[3], [2], [1, 4]]
    assert ass.show_rank([[2], [4, 1]]) == "2 > 1 = 4"
    # pairs the paper orders strictly: same way, tied, opposite
    assert ass.pairs([[3], [2], [1, 4]], [[2, 3], [1], [4]]) == (4, 1, 0)
    assert ass.pairs([[1], [2]], [[2], [1]]) == (0, 0, 1)


def test_every_paper_claim_names_a_grid_case():
    ass = _script()
    cases = {(c[0], c[1], c[2]) for c in ass.CLAIMS}
    assert cases == {(r, lo, iw) for r in ass.RATES for lo in ass.LOSSES for iw in ass.IWS}
    for _rate, _loss, _iw, ifq, text, _src in ass.CLAIMS:
        assert ifq is None or ifq in ass.IFQS
        algs = [a for g in ass.parse_rank(text) for a in g]
        assert len(algs) == len(set(algs)) and set(algs) <= {1, 2, 3, 4}
