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
    samples = {1: base, 2: base - 2.0, 3: base - 3.0 + noise}
    rel = ass.relation(samples)
    assert (rel[1, 2], rel[2, 1], rel[1, 3], rel[2, 3]) == (1, -1, 0, 0)
    # Each pair on its own test: 1 ahead of 2, but 3 ties both, so no ">" may be shown (the
    # old rule compared 3 with the best of the group above only and showed "1 > 2 = 3").
    assert ass.rank(samples) == [[1, 2, 3]]
    assert ass.best(samples) == {1, 3}
    assert ass.parse_rank("3 > 2 > 1 = 4") == [[3], [2], [1, 4]]
    assert ass.show_rank([[2], [4, 1]]) == "2 > 1 = 4"
    # pairs the paper orders strictly: same way, tied, opposite, by the pairwise relation
    rel = ass.relation({3: np.array([10.0]), 2: np.array([10.0]), 1: np.array([9.0]),
                        4: np.array([8.0])})  # fmt: skip
    assert ass.pairs([[3], [2], [1, 4]], rel) == (4, 1, 0)
    assert ass.pairs([[1], [2]], ass.relation({1: np.array([1.0]), 2: np.array([2.0])})) == (
        0, 0, 1,
    )  # fmt: skip
    # "2 > 1" where ASS2 − LSS = +6.9 ± 7.1 kb/s is a tie, not an agreement
    lss = np.array([100.0, 90.0, 110.0, 95.0, 105.0])
    ass2 = lss + np.array([14.0, 0.0, 13.5, -1.0, 8.0])  # mean +6.9
    assert ass.compare(ass2, lss) == 0
    assert ass.pairs([[2], [1]], ass.relation({1: lss, 2: ass2})) == (0, 1, 0)


def test_per_seed_pairs_counts_each_seed_on_its_own():
    ass = _script()
    import pandas as pd

    rows = []
    for seed, (a, b) in enumerate([(10.0, 5.0), (5.0, 10.0), (10.0, 10.0)], start=1):
        for alg, v in (("limited", a), ("ass2", b)):
            rows.append({ass.RATE: "10Mbps", ass.LOSS: 0.0, ass.IW: 2, ass.LIMIT: 49,
                         ass.ALG: alg, "seed": seed, "goodput_bps": v * 1e3})  # fmt: skip
    grid = ass.Grid(pd.DataFrame(rows), ass.GRID)
    out = ass.per_seed_pairs(grid, [("10Mbps", 0.0, 2, 50, "1 > 2")])
    assert out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]


def test_every_paper_claim_names_a_grid_case():
    ass = _script()
    cases = {(c[0], c[1], c[2]) for c in ass.CLAIMS}
    assert cases == {(r, lo, iw) for r in ass.RATES for lo in ass.LOSSES for iw in ass.IWS}
    for _rate, _loss, _iw, ifq, text, _src in ass.CLAIMS:
        assert ifq is None or ifq in ass.IFQS
        algs = [a for g in ass.parse_rank(text) for a in g]
        assert len(algs) == len(set(algs)) and set(algs) <= {1, 2, 3, 4}


QUICK = ROOT / "tests" / "repro_quick" / "ass.json"


def test_quick_mode_headline_numbers(tmp_path):
    """The quick mode (first 5 s with send jitter at IFQ 15 and 50; 20 % loss at IFQ 50; 3
    seeds) against tests/repro_quick/ass.json (regenerate with
    `python docs/reproductions/ass.py --quick --headline tests/repro_quick/ass.json` where a
    change is meant to move them, and say why). Split counts within 2 pairs, per-seed means
    within 1, differences within 15 % + 1 kb/s; the sign of each pairwise test must not
    change."""
    import json

    got = _script().quick(workers=1, out=tmp_path)
    want = json.loads(QUICK.read_text())
    assert got["seeds"] == want["seeds"] == 3
    assert got["startup_split_tested"] == pytest.approx(want["startup_split_tested"], abs=2)
    assert got["startup_split_per_seed_mean"] == pytest.approx(
        want["startup_split_per_seed_mean"], abs=1
    )
    assert got["loss_differences"].keys() == want["loss_differences"].keys()
    for k, w in want["loss_differences"].items():
        g = got["loss_differences"][k]
        assert g["sign"] == w["sign"], k
        assert g["mean"] == pytest.approx(w["mean"], rel=0.15, abs=1.0), k
        assert g["half_width"] == pytest.approx(w["half_width"], rel=0.15, abs=1.0), k
    # every pair the paper orders is counted once, whichever way
    assert sum(got["startup_split_tested"]) == sum(want["startup_split_tested"])
