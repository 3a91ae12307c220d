"""The RED + ECN reproduction (seed paper 002): its scenario files validate and its grids expand
to the points the report's tables need. Fast: nothing is simulated."""

import importlib
import importlib.util
import json
from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from repro_support import claims_table, load_script, validated_points  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "scenarios" / "red-ecn.toml"
GRID = ROOT / "scenarios" / "red-ecn-sweep.toml"
READINGS = ROOT / "scenarios" / "red-ecn-readings-sweep.toml"
SCRIPT = ROOT / "docs" / "reproductions" / "red-ecn" / "run.py"

CC, RECOVERY = "flows[kind=tcp].tcp.cc", "flows[kind=tcp].tcp.recovery"
QUEUE, ECN = "topology.bottleneck.queue", "flows[kind=tcp].tcp.ecn"


@pytest.fixture(scope="module")
def repro():
    return load_script("red-ecn")


@pytest.fixture(scope="module")
def report(repro):
    # Loading the script put its folder on sys.path; its report module sits next to it.
    return importlib.import_module("red_ecn_report")


def combos(path):
    """The distinct axis combinations of a sweep file, in order, and its seeds."""
    _, points = validated_points(path)
    seen = {}
    for pt in points:
        seen.setdefault(json.dumps(pt.axes, sort_keys=True), pt.axes)
    return list(seen.values()), sorted({pt.seed for pt in points})


def test_base_scenario_is_the_papers_setup():
    d = ccsim.validate(BASE)
    assert d["defaults"] == "ns2"
    assert d["topology"]["pairs"] == 3
    red = d["topology"]["bottleneck"]["queue"]
    assert (red["kind"], red["min_th"], red["max_th"]) == ("red", 5, 15)
    assert (red["q_weight"], red["limit"], red["mode"]) == (0.0002, 20, "packets")
    assert [f["tcp"]["ecn"] for f in d["flows"]] == [True, True, True]


def test_grid_is_four_variants_by_three_queues(repro):
    points, seeds = combos(GRID)
    assert len(points) == 12
    assert seeds == list(range(1, 11))
    variants = [repro.VARIANTS[(p[CC], p[RECOVERY])] for p in points]
    queues = [repro.queue_label(p[QUEUE]) for p in points]
    # Variants vary slowest, as the rows of the paper's tables.
    assert variants == [v for v in ("Reno", "NewReno", "SACK", "Vegas") for _ in range(3)]
    assert queues == ["DropTail", "RED", "RED + ECN"] * 4
    # ECN on the senders exactly where the queue marks.
    for p, q in zip(points, queues):
        assert p[ECN] == (q == "RED + ECN")
        assert p[QUEUE].get("ecn", False) == (q == "RED + ECN")
    # ns-2's limit_ 20 for both queues: DropTail counts waiting packets only.
    assert {p[QUEUE]["limit"] for p in points} == {19, 20}


def test_readings_grid_crosses_six_readings_with_the_grid(repro):
    points, seeds = combos(READINGS)
    assert len(points) == 6 * 12
    assert len(seeds) == 5
    labels = list(dict.fromkeys(repro.reading_label(p) for p in points))
    assert labels[0] == "1 Mb/s, 200 B, window 20"
    assert len(labels) == 6


def test_the_papers_columns_imply_200_byte_packets_over_60_s(report):
    pa = report.paper_arithmetic()
    assert pa["bits"] == pytest.approx((80.0, 80.0))
    assert pa["div"][0] == pytest.approx(3.0, rel=2e-3)
    assert pa["div"][1] == pytest.approx(3.0, rel=2e-3)
    assert pa["T"][0] == pytest.approx(60.0, rel=1e-3)
    assert pa["T"][1] == pytest.approx(60.0, rel=1e-3)


BYTES = ROOT / "scenarios" / "red-ecn-bytes-sweep.toml"
QUICK = ROOT / "tests" / "repro_quick" / "red_ecn.json"


def test_bytes_grid_is_the_grid_with_ns2s_default_byte_mode(repro):
    points, seeds = combos(BYTES)
    packets, _ = combos(GRID)
    assert seeds == list(range(1, 11))
    assert len(points) == len(packets) == 12
    for b, p in zip(points, packets):
        # Only RED's mode differs; ns-2.35 counts its 5/15/20 in 500-byte units.
        assert {k: v for k, v in b.items() if k != QUEUE} == {
            k: v for k, v in p.items() if k != QUEUE
        }
        if p[QUEUE]["kind"] == "red":
            assert (p[QUEUE]["mode"], b[QUEUE]["mode"]) == ("packets", "bytes")
            assert b[QUEUE]["mean_pktsize"] == 500
            assert {k: v for k, v in b[QUEUE].items() if k != "mode"} == {
                k: v for k, v in p[QUEUE].items() if k != "mode"
            }
        else:
            assert b[QUEUE] == p[QUEUE]


def test_quick_mode_headline_numbers(repro, tmp_path):
    """The quick mode (both grids, 3 seeds) against the numbers committed in
    tests/repro_quick/red_ecn.json (regenerate with
    `python docs/reproductions/red-ecn/run.py --quick --headline tests/repro_quick/red_ecn.json`
    where a change is meant to move them, and say why). Tolerances: drops 10 % + 2 packets,
    queues 0.5 packets, ratios 10 %; which reading is nearer must not change."""
    got = repro.quick(workers=1, out=tmp_path)
    want = json.loads(QUICK.read_text())
    assert got["seeds"] == want["seeds"] == 3
    assert got["configs"].keys() == want["configs"].keys()
    for key, w in want["configs"].items():
        g = got["configs"][key]
        assert g["dropped"] == pytest.approx(w["dropped"], rel=0.1, abs=2), key
        assert g["avg_queue"] == pytest.approx(w["avg_queue"], abs=0.5), key
    for what, w in want["features"].items():
        g = got["features"][what]
        assert g["nearer"] == w["nearer"], what
        for reading in ("inferred", "literal"):
            assert g[reading] == pytest.approx(w[reading], rel=0.1), (what, reading)
    assert got["wins"] == want["wins"]
    # The headline of issue 34, whatever the committed file says: in byte mode the loss-based
    # variants queue about twice as long as Vegas, Vegas drops nothing, ECN drops a few.
    c = got["configs"]
    for v in ("Reno", "NewReno", "SACK"):
        assert c[f"RED (bytes) / {v}"]["avg_queue"] > 1.5 * c["RED (bytes) / Vegas"]["avg_queue"]
        assert c[f"RED + ECN (bytes) / {v}"]["dropped"] < 0.1 * c[f"RED (bytes) / {v}"]["dropped"]
    assert c["RED (bytes) / Vegas"]["dropped"] == 0
    assert got["wins"]["literal"] > got["wins"]["inferred"]


def test_report_opens_with_the_claims_table():
    """The first table after the provenance paragraph is the claims table, with a verdict
    column whose every cell is one of the verdicts the rules above it define."""
    header, rows = claims_table(ROOT / "docs" / "reproductions" / "red-ecn.md")
    assert {"claim", "the paper", "verdict", "reason"} <= set(header), header
    verdicts = {r[header.index("verdict")].strip("*") for r in rows}
    assert verdicts <= {"reproduced", "partly", "not reproduced"}, verdicts
    assert len(rows) >= 5
