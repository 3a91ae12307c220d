"""The L4S example study (docs/examples/l4s.py) on a small grid: per-packet queueing delay from a
packet trace, Prague kept below DualPI2's 1 ms step while CUBIC sits near the classic target, a
step queue starving Not-ECT CUBIC, and the report built from the runs."""

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "examples" / "l4s.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("l4s_study", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["l4s_study"] = mod  # so that worker processes can find its functions
    spec.loader.exec_module(mod)
    return mod


def test_the_bottleneck_carries_all_but_four_ms_of_the_base_rtt(study):
    sc = study.scenario("step", "dctcp-ect1", 10, 1.5, seed=3)
    assert sc["topology"]["bottleneck"]["delay"] == "3ms"
    assert sc["topology"]["bottleneck"]["queue"] == {"kind": "step", "threshold": 12, "limit": 1000}
    assert sc["flows"][0]["tcp"]["cc"] == {"kind": "dctcp", "ect1": True}
    assert sc["flows"][1]["start"] == 1.5 and sc["seed"] == 3


def test_queueing_delay_is_arrival_to_start_of_transmission_at_the_bottleneck(study):
    rows = [
        # uid, event, from, kind, flow, time
        (1, "+", "left", "tcp", "a", 1.000),
        (1, "-", "left", "tcp", "a", 1.002),
        (1, "r", "left", "tcp", "a", 1.010),
        (2, "+", "left", "tcp", "b", 1.001),
        (2, "d", "left", "tcp", "b", 1.004),  # dropped at dequeue: no wait counted
        (3, "+", "right", "ack", "a", 1.003),  # the reverse direction is not counted
        (3, "-", "right", "ack", "a", 1.009),
        (4, "+", "left", "tcp", "b", 1.005),
        (4, "-", "left", "tcp", "b", 1.0055),
    ]
    p = pd.DataFrame(rows, columns=["uid", "event", "from", "kind", "flow", "time_s"])
    w = study.queueing_delays(p).sort_index()
    assert list(w.index) == [1, 4]
    assert list(w["flow"]) == ["a", "b"]
    assert w["wait_ms"].tolist() == pytest.approx([2.0, 0.5])


def test_dualpi2_separates_the_delays_and_a_step_queue_starves_cubic(study):
    runs = study.study(queues=("dualpi2", "step"), mixes=("prague",), rtts=(10,), reps=2, workers=0)
    assert len(runs) == 8
    s = study.summary(runs)
    pi2 = s[s["queue"] == "dualpi2"].iloc[0]
    assert pi2["first_p99_ms"] < 1.0  # below the L queue's 1 ms step
    assert 8 < pi2["cubic_p50_ms"] < 25  # near the classic queue's 15 ms target
    assert 0.4 < pi2["share"] < 0.75
    step = s[s["queue"] == "step"].iloc[0]
    assert step["share"] > 0.9
    text = study.report(runs, s)
    assert f"| dualpi2 | prague | 10 | {pi2['share']:.2f} |" in text
    assert "DualPI2 separates the delays" in text
    assert "A step queue starves Not-ECT traffic" not in text  # needs the cubic baseline
