"""Send jitter (`tcp.send_jitter`, ns-2's `overhead_`): in a deterministic simulation which
flow loses at an overflow is decided by exact phase, so sub-millisecond changes of delay swing
results; a little jitter, averaged over seeds, takes that dependence away."""

from __future__ import annotations

import copy
from pathlib import Path

import ccsim
import numpy as np
import pytest

pytest.importorskip("ccsim._core")

ROOT = Path(__file__).resolve().parent.parent
# The far flow's extra one-way delay around dumbbell-reno's 41 ms (80 ms more RTT), ±0.8 ms.
DELAYS_MS = (40.2, 40.6, 41.0, 41.4, 41.8)


def far_goodput(delay_ms: float, jitter: str | None, seed: int) -> float:
    d = ccsim.load(ROOT / "scenarios" / "dumbbell-reno.toml")
    d = copy.deepcopy(d)
    d.pop("trace", None)
    d["seed"] = seed
    d["topology"]["left"] = [{}, {"delay": f"{delay_ms}ms"}]
    for f in d["flows"]:
        if f["kind"] == "tcp" and jitter:
            f["tcp"]["send_jitter"] = jitter
    r = ccsim.run(d)
    return float(r.flows.set_index("flow").loc["far", "goodput_bps"]) / 1e6


def test_jitter_averaged_over_seeds_removes_the_dependence_on_exact_delay():
    exact = [far_goodput(x, None, 7) for x in DELAYS_MS]
    averaged = [np.mean([far_goodput(x, "1ms", s) for s in range(1, 11)]) for x in DELAYS_MS]
    spread_exact = max(exact) - min(exact)
    spread_averaged = max(averaged) - min(averaged)
    # Without jitter the far flow's goodput moves by a third of its value over 1.6 ms.
    assert spread_exact > 0.25 * np.mean(exact)
    # With 1 ms of jitter, ten seeds a point: the spread falls to well under half.
    assert spread_averaged < 0.5 * spread_exact, (exact, averaged)


def test_jitter_is_reproducible_from_the_seed_and_changes_with_it():
    a = far_goodput(41.0, "1ms", 3)
    assert far_goodput(41.0, "1ms", 3) == a
    assert far_goodput(41.0, "1ms", 4) != a


def test_jitter_above_a_second_is_refused():
    d = ccsim.load(ROOT / "scenarios" / "dumbbell-reno.toml")
    d["flows"][0]["tcp"]["send_jitter"] = "2s"
    with pytest.raises(ccsim.ScenarioError, match="send_jitter"):
        ccsim.run(d)


def test_the_fast_and_reference_routes_agree_under_jitter():
    d = ccsim.load(ROOT / "scenarios" / "dumbbell-reno.toml")
    d.pop("trace", None)
    for f in d["flows"]:
        if f["kind"] == "tcp":
            f["tcp"]["send_jitter"] = "0.5ms"
    fast = ccsim.run(d)
    d["engine"] = "reference"
    reference = ccsim.run(d)
    assert fast.flows.equals(reference.flows)
    assert fast.queues.equals(reference.queues)
