"""The ACNS reproduction (seed paper 000, docs/reproductions/acns/run.py): its variants of the
paper's scenario, the replications, the verdict rules, the model verification's flows, and the
quick mode's headline numbers (tests/repro_quick/acns.json)."""

import importlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from repro_support import load_script, validated_points  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SWEEP = ROOT / "scenarios" / "acns-sweep.toml"
QUICK = ROOT / "tests" / "repro_quick" / "acns.json"


@pytest.fixture(scope="module")
def repro():
    return load_script("acns")


def test_variants_switch_every_router_and_flow(repro):
    plain = ccsim.validate(repro.scenario("3Mbps", acns=False))
    assert {link["queue"]["kind"] for link in plain["topology"]["links"]} == {"droptail"}
    assert all("acns" not in f.get("tcp", {}) for f in plain["flows"])
    printed = ccsim.validate(repro.scenario("3Mbps", weight="printed"))
    assert {link["queue"].get("weight") for link in printed["topology"]["links"]} == {"printed"}
    every = ccsim.validate(repro.scenario("3Mbps", request="every-packet"))
    tcp = [f["tcp"] for f in every["flows"] if f["kind"] == "tcp"]
    assert [t["acns"] for t in tcp] == [{"request": "every-packet"}] * 3
    rates = {link["name"]: link["rate"] for link in every["topology"]["links"]}
    assert rates["last-mile-a"] == rates["last-mile-b"] == "3Mbps"
    assert rates["core"] == "1Gbps"


def test_profiles_buffers_and_tcp_variants(repro):
    """ns-2's `limit_ N` holds N − 1 waiting packets, Linux's limit N; the TCP variant and the
    recovery reach every TCP flow and no UDP flow; the receive window never limits."""
    ns2 = ccsim.validate(repro.scenario(profile="ns2", buffer=300, cc="reno", recovery="newreno"))
    linux = ccsim.validate(repro.scenario(profile="linux", buffer=300))
    assert ns2["defaults"] == "ns2" and linux["defaults"] == "linux"
    assert {link["queue"]["limit"] for link in ns2["topology"]["links"]} == {299}
    assert {link["queue"]["limit"] for link in linux["topology"]["links"]} == {300}
    tcp = [f for f in ns2["flows"] if f["kind"] == "tcp"]
    assert [(f["tcp"]["cc"], f["tcp"]["recovery"]) for f in tcp] == [("reno", "newreno")] * 3
    assert all(f["tcp"]["rwnd"] >= 1_000_000 for f in tcp)
    assert all("tcp" not in f for f in ns2["flows"] if f["kind"] == "cbr")


def test_replications_pair_acns_with_no_acns(repro):
    """Each replication shifts the three TCP starts by U(0, 150 ms), the same shifts with and
    without ACNS, so the differences are paired; the UDP starts stay the paper's."""
    setup = importlib.import_module("acns_setup")
    off, on = setup.Config("ns2").pair()
    a, b = (repro.shifted_sweep(c, 5) for c in (off, on))
    pa, pb = (sw.points(sw.base_scenario()) for sw in (a, b))
    assert len(pa) == len(pb) == 5
    assert [p.axes for p in pa] == [p.axes for p in pb]
    shifts = setup.start_shifts(5)
    assert shifts.shape == (5, 3) and (shifts >= 0).all() and (shifts < 0.15).all()
    assert len({tuple(row) for row in shifts}) == 5
    starts = [float(pa[0].axes[f"flows[{i}].start"].rstrip("s")) for i in range(3)]
    assert starts == pytest.approx(np.array([0.1, 15.1, 30.1]) + shifts[0], abs=1e-4)
    # Every configuration once: the CUBIC rows of the TCP-variant grid are the main runs.
    all_configs = [c for group in setup.configs().values() for c in group]
    assert len({c.slug for c in all_configs}) == len(set(all_configs))


def test_verdict_rules(repro):
    stats = importlib.import_module("acns_stats")
    Est = stats.Est
    assert stats.effect_verdict(Est(40.0, 8.0), 44.5) == "holds"
    assert stats.effect_verdict(Est(25.0, 4.0), 44.5) == "partly"
    assert stats.effect_verdict(Est(2.0, 3.0), 44.5) == "does not hold"  # contains zero
    assert stats.effect_verdict(Est(-6.0, 0.5), 44.5) == "does not hold"  # wrong side
    # beyond the noise but a negligible share of the paper's: 2 ms against 746 ms
    assert stats.effect_verdict(Est(-0.002, 0.001), -0.746) == "does not hold"
    assert stats.Est(-0.0021, 0.0010).fmt(".3f", " s", signed=True) == "−0.002 ± 0.001 s"
    rng = np.random.default_rng(1)
    n = 10
    noise = rng.normal(0.0, 0.01, (n, 3))
    df = pd.DataFrame(np.array([0.3, 0.7, 1.0]) + noise, columns=["avg1", "avg2", "avg3"])
    assert stats.order_verdict(df, (3, 2, 1))[0] == "holds"
    assert stats.ranking(df) == "#3 > #2 > #1"
    flipped = df.assign(avg1=df["avg2"] + 0.15)  # #3 > #1 > #2: the first flow still leads
    assert stats.order_verdict(flipped, (3, 2, 1))[0] == "partly"
    assert stats.ranking(flipped) == "#3 > #1 > #2"
    tie = df.assign(avg2=df["avg1"] + rng.normal(0.0, 0.01, n))
    assert stats.ranking(tie).startswith("#3 > ") and " ≈ " in stats.ranking(tie)
    off = pd.DataFrame({"loss": [200.0, 240.0, 260.0, 236.0]})
    assert stats.loss_verdict(off.assign(loss=[2.0, 0.0, 3.0, 1.0]), off, 0.05) == "holds"
    assert stats.loss_verdict(off.assign(loss=[90.0, 100.0, 80.0, 95.0]), off, 0.05) == "partly"
    assert stats.loss_verdict(off, off, 0.05) == "does not hold"


def test_model_flows_share_lifetimes_across_cases(repro):
    model = importlib.import_module("acns_model")
    (normal, dscp), (zero, dscp0) = (model.flows(c) for c in ("normal priorities", "priority 0"))
    assert len(normal) == model.FLOWS
    times = [(f["start"], f["stop"]) for f in normal]
    assert times == [(f["start"], f["stop"]) for f in zero]
    assert (dscp0 == 0).all() and 0 <= dscp.min() and dscp.max() <= 63
    assert 20 < dscp.mean() < 44  # N(32, 12), clipped
    other, _ = model.flows("normal priorities", model.SEED + 1)
    assert [f["start"] for f in other] != [f["start"] for f in normal]  # draws differ
    none = ccsim.validate(model.scenario("no ACNS"))
    assert none["topology"]["bottleneck"]["queue"]["kind"] == "droptail"
    assert all("acns" not in f["tcp"] for f in none["flows"])
    ccsim.validate(model.scenario("normal priorities"))


def test_the_sweep_file_crosses_weights_and_last_mile_rates():
    base, points = validated_points(SWEEP)
    assert len(points) == 8
    names = [link["name"] for link in base["topology"]["links"]]
    assert names[3] == "last-mile-a" and names[5] == "last-mile-b"


def test_quick_mode_headline_numbers(repro, tmp_path):
    """The quick mode (the CUBIC pair in both profiles at 50 packets and in ns2 at 300; 6
    start-shift replications) against tests/repro_quick/acns.json (regenerate with
    `python docs/reproductions/acns/run.py --quick --headline tests/repro_quick/acns.json` where a
    change is meant to move them, and say why). The sign of every paired difference (its
    interval against zero) must not change; means within 25 % of the recorded value (plus a
    floor of 1 % / 5 ms / 20 packets / 0.05 Mb/s), half-widths within 50 % plus the floor."""
    got = repro.quick(workers=1, out=tmp_path)
    want = json.loads(QUICK.read_text())
    assert got["replications"] == want["replications"] == repro.QUICK_REPLICATIONS
    floor = {"thr": 1.0, "rtt": 1.0, "rtt_max": 0.005, "loss": 20.0}
    cases = [k for k in want if k != "replications"]
    assert sorted(cases) == sorted(k for k in got if k != "replications")
    for case in cases:
        assert got[case].keys() == want[case].keys()
        for k, w in want[case].items():
            g, fl = got[case][k], floor.get(k, 0.05)
            assert g["sign"] == w["sign"], (case, k)
            assert g["mean"] == pytest.approx(w["mean"], rel=0.25, abs=fl), (case, k)
            assert g["half_width"] == pytest.approx(w["half_width"], rel=0.5, abs=fl), (case, k)
