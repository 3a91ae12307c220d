"""The BBR-against-CUBIC example study (docs/examples/bbr_vs_cubic.py) on a small grid: buffer
sizes in packets, a row per run, BBR's share falling from a shallow to a deep buffer, and the
report built from the runs."""

import importlib.util
from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "examples" / "bbr_vs_cubic.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("bbr_vs_cubic", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_buffers_are_sized_in_bdp_of_the_40_ms_path(study):
    # 20 Mb/s × 40 ms = 100 kB: 66.7 packets of 1500 bytes; at least 2.
    assert study.buffer_packets(1.0) == 67
    assert study.buffer_packets(10.0) == 667
    assert study.buffer_packets(0.01) == 2
    assert study.left_for(2.0) == [{"delay": "21ms"}, {}]
    assert study.left_for(0.5) == [{}, {"delay": "21ms"}]


def test_bbr_takes_more_of_a_shallow_buffer_and_v3_less_than_v1_and_the_report_says_so(study):
    runs = study.study(buffers=(0.25, 10.0), ratios=(1.0,), starts=(0.5, 1.0), workers=0)
    assert len(runs) == 8
    s = study.summary(runs)

    def share(v, b):
        return s[(s["version"] == v) & (s["buffer_bdp"] == b)]["bbr_share"].iloc[0]

    shallow, deep = share("v1", 0.25), share("v1", 10.0)
    assert shallow > 0.8 and deep < 0.5
    # BBRv3 answers the shallow buffer's losses (inflight_hi, the 0.7 cuts): a smaller share.
    assert share("v3", 0.25) < shallow - 0.1
    assert (s["utilisation"] > 0.85).all()
    text = study.report(runs, s)
    assert f"| v1 | 0.25 | 17 | 1 | {shallow:.2f} |" in text
    assert f"| v3 | 0.25 | 17 | 1 | {share('v3', 0.25):.2f} |" in text
    assert "falls as the buffer deepens" in text
    assert "In every buffer of at most 1 BDP v3 takes less than v1" in text
