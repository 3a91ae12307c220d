"""The NDCA-TCP reproduction (seed paper 003, docs/reproductions/ndca/run.py): its scenario files
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
SCRIPT = ROOT / "docs" / "reproductions" / "ndca" / "run.py"

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


# --- interval D: the hold runs ------------------------------------------------------------------

HOLD_BASE = SCEN / "ndca-hold.toml"
HOLD_GRID = SCEN / "ndca-hold-sweep.toml"


@pytest.fixture(scope="module")
def hold(repro):
    return importlib.import_module("ndca_hold")


def test_hold_scenario_is_four_flows_on_a_fixed_link_with_a_burst():
    d = ccsim.validate(HOLD_BASE)
    assert d["defaults"] == "ns2" and d["duration"] == "60s"
    tcp = [f for f in d["flows"] if f["kind"] == "tcp"]
    (cbr,) = [f for f in d["flows"] if f["kind"] == "cbr"]
    assert len(tcp) == 4 and [f.get("start", "0s") for f in tcp] == ["0s", "1s", "2s", "3s"]
    assert all(f["tcp"]["cc"] == {"kind": "ndca", "n": 10, "alpha": 1.2, "hold": True} for f in tcp)
    # the burst that raises the RTT: 20 to 30 s, 40 % of the link
    assert (cbr["start"], cbr["stop"], cbr["rate"]) == ("20s", "30s", "40Mbps")
    bn = d["topology"]["bottleneck"]
    assert bn["rate"] == "100Mbps" and "loss" not in bn  # fixed bandwidth, no random loss
    # a buffer of one BDP: 100 Mb/s x 44 ms / 1500 B = 367 packets
    assert bn["queue"]["limit"] == round(100e6 * 0.044 / (8 * 1500))
    # the send jitter must not cap a flow below the link: at most 2 / jitter segments a second
    assert all(f["tcp"]["send_jitter"] == "50us" for f in tcp) and 2 / 50e-6 > 100e6 / 12000


def test_hold_grid_is_settings_by_profiles_by_seeds(hold):
    scenarios, points = expand(HOLD_GRID)
    assert len(points) == 5 * 2 * 10
    settings = {hold.setting_of(s["flows"][0]["tcp"]["cc"]) for s in scenarios}
    assert settings == set(hold.SETTINGS) == {"off", "1.05", "1.1", "1.2", "1.5"}
    assert {(s["defaults"], s["flows"][0]["tcp"]["recovery"]) for s in scenarios} == {
        ("ns2", "reno"),
        ("linux", "sack"),
    }
    for s in scenarios:  # every TCP flow alike, and the hold series recorded
        ccs = {canonical_json(f["tcp"]["cc"]) for f in s["flows"] if f["kind"] == "tcp"}
        assert len(ccs) == 1 and "cwnd_hold" in s["trace"]["series"]
    # the same grid without cross traffic
    none = hold.hold_sweeps()["none"]
    base = none.base_scenario()
    assert [f["kind"] for f in resolve(base, none.points(base)[0])["flows"]] == ["tcp"] * 4


def test_hold_statistics_from_the_series(hold):
    # one flow from 1 s: held 1.0-1.5 s, then from 20 s to the end (60 s), 20 ms samples
    t = np.round(np.arange(0.0, 60.0, 0.02), 2)
    held = ((t >= 1.0) & (t < 1.5)) | (t >= 20.0)
    series = pd.DataFrame(
        {
            "point": 0,
            "series": ["cwnd_hold"] * len(t) + ["cwnd"] * len(t),
            "time_s": np.concatenate([t, t]),
            "flow": "ndca2",
            "value": np.concatenate([held.astype(float), np.where(held, 50.0, 80.0)]),
        }
    )
    (row,) = hold.hold_stats(series, {"ndca2": 1.0}).to_dict("records")
    since = t >= 1.0
    assert row["held_share"] == pytest.approx(held[since].mean())
    assert row["longest_s"] == pytest.approx(40.0)
    assert row["held_after_burst"] and row["cwnd_held"] == pytest.approx(50.0)
    # a break after the burst: not held to the end
    series.loc[(series["series"] == "cwnd_hold") & (series["time_s"] == 45.0), "value"] = 0.0
    (row,) = hold.hold_stats(series, {"ndca2": 1.0}).to_dict("records")
    assert not row["held_after_burst"] and row["longest_s"] == pytest.approx(25.0)


def test_paired_differences_pair_by_seed(hold):
    rows = []
    for seed, base in ((1, 80.0), (2, 90.0), (3, 70.0)):
        for setting, add in (("off", 0.0), ("1.2", 10.0)):
            rows.append(
                {"cross": "burst", "profile": "ns2", "seed": seed, "setting": setting,
                 "goodput": base + add, "jain": 0.9, "overflow": 5.0, "avg_queue": 1.0,
                 "rtt_ms": 50.0, "timeouts": 2.0}
            )  # fmt: skip
    d = hold.paired_differences(pd.DataFrame(rows)).loc[("burst", "ns2", "1.2")]
    # the seeds differ by 20 Mb/s, the difference by none: paired, the interval is zero
    assert d["goodput_mean"] == pytest.approx(10.0) and d["goodput_ci95"] == pytest.approx(0.0)


def test_template_sections_are_filled_or_refused(repro):
    prose = importlib.import_module("ndca_prose")
    names = set(prose.sections())
    assert names == {
        "intro", "claims_intro", "fig6_intro", "hold", "fig6_full_note", "setup", "setup_notes",
        "fidelity", "closing",
    }  # fmt: skip
    with pytest.raises(KeyError, match="section 'hold'"):
        prose.render("hold", hold_seeds=10)
    assert "$" not in prose.render("claims_intro")


def test_full_seeds_out_of_range_is_refused(repro, capsys):
    with pytest.raises(SystemExit):
        repro.main(["--full-seeds", "11"])
    assert "--full-seeds: 11 is not between 0 and 10" in capsys.readouterr().err


QUICK = ROOT / "tests" / "repro_quick" / "ndca.json"


def test_quick_mode_headline_numbers(repro, tmp_path):
    """The quick mode (first 20 s of the Fig. 6 grid at 1e-4 and 1e-5; the hold runs with the
    burst, hold off and α 1.2, both profiles; 3 seeds) against tests/repro_quick/ndca.json
    (regenerate with `python docs/reproductions/ndca/run.py --quick --headline
    tests/repro_quick/ndca.json` where a change of the core moves them on purpose)."""
    import json

    got = importlib.import_module("ndca_quick").quick(workers=1, out=tmp_path)
    want = json.loads(QUICK.read_text())
    assert got["seeds"] == want["seeds"]
    # NDCA-TCP's start-up never overflows the buffer; the goodputs within 10 %
    assert got["ndca_overflow_first_20s"] == want["ndca_overflow_first_20s"] == 0
    assert got["fig6_first_20s"].keys() == want["fig6_first_20s"].keys()
    for k, w in want["fig6_first_20s"].items():
        assert got["fig6_first_20s"][k] == pytest.approx(w, rel=0.1), k
    g, w = got["hold"], want["hold"]
    assert g.keys() == w.keys()
    for prof in ("ns2", "linux"):
        # the hold off never holds; on, the cwnd_hold series shows it acting
        assert g[f"{prof} off held_share"] == 0 and g[f"{prof} off longest_s"] == 0
        assert g[f"{prof} 1.2 held_share"] > 0.3
    tol = {"goodput": (0.05, 1.0), "avg_queue": (0.2, 10.0), "jain": (0.0, 0.05),
           "held_share": (0.0, 0.1), "longest_s": (0.0, 5.0), "stuck": (0.0, 1.0)}  # fmt: skip
    for k, v in w.items():
        rel, abs_ = tol[k.rsplit(" ", 1)[1]]
        assert g[k] == pytest.approx(v, rel=rel, abs=abs_), k
