"""The web-FCT example study (docs/examples/web_fct.py) on a small grid: its capped mean is
the Pareto formula's, the table has a row per load, queue and size class, completion times
grow with the load, and the report is built from the table."""

import importlib.util
from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "examples" / "web_fct.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("web_fct", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_capped_mean_is_the_paretos(study):
    # β = 60 kB·0.2/1.2 = 10 kB; 10⁴^1.2 · (5·10⁶)^−0.2 / 0.2 = 14,427 bytes off the mean.
    assert study.capped_mean() == pytest.approx(45_573.0, abs=1.0)
    # 10 % of 20 Mb/s in transfers of 45.573 kB: 5.486 a second.
    assert study.arrival_rate(0.1) == pytest.approx(2e6 / (8 * 45_573.0), rel=1e-4)


def test_small_grid(study):
    t = study.study(loads=(0.3, 0.9), seeds=1, arrivals_s=20.0)
    assert len(t) == 2 * 2 * 3
    assert set(t["class"]) == {"short", "long", "all"}
    for queue in ("DropTail", "CoDel"):
        short = t[(t["queue"] == queue) & (t["class"] == "short")].set_index("load")
        assert short.loc[0.9, "mean_s"] > short.loc[0.3, "mean_s"] > 0.03
        # The drawn sizes offer about the nominal load (a heavy tail, 20 s: within half).
        alls = t[(t["queue"] == queue) & (t["class"] == "all")].set_index("load")
        assert (abs(alls["offered"] / alls.index - 1) < 0.5).all(), alls["offered"]
    text = study.report(t)
    assert "| 90% | " in text and "| CoDel |" in text and "1 seed(s)" in text
    assert "20 s of arrivals" in text
