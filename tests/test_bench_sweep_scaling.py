"""bench/sweep_scaling.py: the efficiency table's arithmetic, and one real (tiny) timing."""

from __future__ import annotations

import sys
from pathlib import Path

import ccsim
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import sweep_scaling as bench  # noqa: E402
from sweep_base import base  # noqa: E402


def test_occupancy_start_and_tail_of_a_known_schedule():
    # Two workers over 10 s: a ran points of 4 s (done at 5) and 3 s (done at 8), b one of
    # 6 s (done at 7): 13 s of points in 20 s of the pool's time.
    t = bench.Timing(2, "points", 10.0, [(5.0, 4.0, "a"), (8.0, 3.0, "a"), (7.0, 6.0, "b")])
    assert t.busy == 13.0 and t.occupancy() == pytest.approx(0.65)
    assert t.start() == pytest.approx((1.0 + 1.0) / 2)  # each began its first point at 1 s
    assert t.tail() == pytest.approx((2.0 + 3.0) / 2)
    # A worker that ran nothing idled the whole time, at the start and at the end.
    idle = bench.Timing(3, "points", 10.0, t.points)
    assert idle.start() == pytest.approx((1.0 + 1.0 + 10.0) / 3)
    assert idle.tail() == pytest.approx((2.0 + 3.0 + 10.0) / 3)


def test_table_gives_speed_up_and_efficiency_against_one_worker():
    one = bench.Timing(1, "longest-first", 40.0, [(10.0 * k, 10.0, "w") for k in (1, 2, 3, 4)])
    four = bench.Timing(4, "longest-first", 12.5, [(12.0, 11.0, str(k)) for k in range(4)])
    other = bench.Timing(4, "points", 20.0, [(19.0, 11.0, str(k)) for k in range(4)])
    lines = bench.table([one, four, other])
    assert lines[0].split() == [
        "workers", "order", "wall", "s", "speed-up", "efficiency", "occupancy", "per", "point",
        "start", "s", "tail", "s",
    ]  # fmt: skip
    assert lines[1].split() == ["1", "longest-first", "40.0", "1.00x", "100%", "100%", "1.00x"] + [
        "0.0",
        "0.0",
    ]
    # 3.2x on 4 workers: 80 %; the points took 1.1x their time alone; 88 % of the pool busy.
    assert lines[2].split() == ["4", "longest-first", "12.5", "3.20x", "80%", "88%", "1.10x"] + [
        "1.0",
        "0.5",
    ]
    assert lines[3].split()[:5] == ["4", "points", "20.0", "2.00x", "50%"]


def test_default_workers_double_up_to_the_cores(monkeypatch):
    monkeypatch.setattr(bench.os, "cpu_count", lambda: 16)
    assert bench.default_workers() == [1, 2, 4, 8, 16]
    monkeypatch.setattr(bench.os, "cpu_count", lambda: 6)
    assert bench.default_workers() == [1, 2, 4, 6]


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("ccsim._core") is None, reason="needs the core"
)
def test_a_real_timing_records_every_point():
    sweep = ccsim.Sweep(base(1), {"topology.bottleneck.queue.limit": [10, 20, 40]})
    t = bench.run_once(sweep, {}, 1, "longest-first", None)
    assert len(t.points) == 3 and t.busy > 0 and 0 < t.occupancy() <= 1
