"""The training example (docs/examples/gym_train.py) in its quick form: it trains, compares
with CUBIC on the same link under the same reward, scores BBR episode-level beside CUBIC, and
writes its figure and report."""

import importlib.util
import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("ccsim._core")
pytest.importorskip("gymnasium")
pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("gym_train", EXAMPLES / "gym_train.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_quick_run_trains_compares_with_cubic_and_reports(example, tmp_path):
    out = example.main(["--quick", "--out", str(tmp_path)])
    assert [c["iteration"] for c in out["curve"]] == [0, 1]
    assert len(out["theta"]) == len(example.FEATURES)
    (row,) = out["evaluation"]
    for who in ("policy", "cubic"):
        assert math.isfinite(row[who]["reward"]) and row[who]["goodput_mbps"] > 0
    # CUBIC's reward in training is the one evaluated: the same link, reward and seed.
    assert out["baseline"][(10, 20)] == row["cubic"]["reward"]
    # BBR, run by ccsim.run on the environment's scenario and scored episode-level, as CUBIC.
    bbr, cubic_episode = row["bbr"], row["cubic"]["episode_level"]
    for who in (bbr, cubic_episode):
        assert all(math.isfinite(who[k]) for k in ("reward", "goodput_mbps", "rtt_ms"))
        assert 0 <= who["retransmit_fraction"] <= 1
    # A BBR run on another link or without its flow would miss this: above half the 10 Mbit/s
    # bottleneck and below it (goodput is payload; the rate counts headers too).
    assert 5 < bbr["goodput_mbps"] < 10
    assert bbr["rtt_ms"] >= 44.0  # the link's base RTT, 2 × (20 + 2) ms
    # The approximation, calibrated on CUBIC: its episode-level reward near its per-interval.
    assert cubic_episode["reward"] == pytest.approx(row["cubic"]["reward"], rel=0.25)
    assert (tmp_path / "figures" / "gym-train.png").stat().st_size > 10_000
    page = (tmp_path / "gym-train.md").read_text()
    assert "| 10 Mb/s, 20 ms |" in page and "figures/gym-train.png" in page
    assert "2 iterations of 4 policies" in page
    assert "## BBR, scored episode-level" in page and f"| {bbr['reward']:.2f} |" in page


def test_features_are_scale_free(example):
    """The same queueing on a fast and a slow link gives the same features."""
    import numpy as np

    names = list(example.OBSERVATIONS)

    def obs(mbps, ratio):
        one = np.zeros(len(names), dtype=np.float32)
        one[names.index("send_mbps")] = one[names.index("delivery_mbps")] = mbps
        one[names.index("latency_ratio")] = ratio
        return np.concatenate([one, one])

    np.testing.assert_array_equal(example.features(obs(5, 1.5)), example.features(obs(50, 1.5)))
    assert example.features(obs(5, 1.5))[0] == pytest.approx(0.5)
