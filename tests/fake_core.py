"""A stand-in for ``ccsim._core`` that follows its contract, for tests that run without a build.

``synthetic_results`` builds a results dict with known values: three flows (two TCP, one CBR)
over a 10 Mb/s bottleneck for ``duration`` seconds, three queue directions, and cwnd,
throughput and queue series.
"""

from __future__ import annotations

import json
import math
import types

import numpy as np


def col(values, dtype: str):
    """A numeric column as the core sends it: (numpy dtype string, raw bytes)."""
    arr = np.asarray(values, dtype=np.dtype(dtype))
    return (arr.dtype.str, arr.tobytes())


def synthetic_results(name: str = "synthetic", duration: float = 10.0) -> dict:
    nan = float("nan")
    flows = {
        "flow": ["tcp1", "tcp2", "cbr"],
        "kind": ["tcp", "tcp", "cbr"],
        "src": ["s0", "s1", "s2"],
        "dst": ["d0", "d1", "d2"],
        "cc": ["reno", "reno", ""],
        "recovery": ["newreno", "newreno", ""],
        "start_s": col([0.0, 0.5, 0.0], "<f8"),
        "end_s": col([duration] * 3, "<f8"),
        "last_arrival_s": col([duration - 0.01] * 3, "<f8"),
        "bytes_sent": col([5_100_000, 4_700_000, 2_500_000], "<u8"),
        "bytes_delivered": col([5_000_000, 4_500_000, 2_400_000], "<u8"),
        "packets_sent": col([3500, 3250, 2500], "<u8"),
        "packets_delivered": col([3450, 3100, 2400], "<u8"),
        "packets_dropped": col([50, 150, 100], "<u8"),
        "goodput_bps": col([4e6, 3.789e6, 1.92e6], "<f8"),
        "throughput_bps": col([4.05e6, 3.9e6, 1.92e6], "<f8"),
        "retransmits": col([50, 150, 0], "<u8"),
        "timeouts": col([0, 2, 0], "<u8"),
        "fast_retransmits": col([12, 20, 0], "<u8"),
        "rtt_mean_s": col([0.0615, 0.0702, nan], "<f8"),
        "rtt_min_s": col([0.042, 0.042, nan], "<f8"),
        "rtt_max_s": col([0.1, 0.12, nan], "<f8"),
        "rtt_samples": col([3400, 3000, 0], "<u8"),
        "size_bytes": col([0, 2_000_000, 0], "<u8"),
        "completion_s": col([nan, 4.25, nan], "<f8"),
        "cwnd_final": col([17.5, 9.0, nan], "<f8"),
        "ecn": col([0, 0, 0], "<u8"),
        "ecn_reductions": col([0, 0, 0], "<u8"),
        "ce_marks": col([0, 0, 0], "<u8"),
        "acns": col([0, 0, 0], "<u8"),
        "acns_freezes": col([0, 0, 0], "<u8"),
        "acns_fallbacks": col([0, 0, 0], "<u8"),
        "acns_trend_keep": col([0, 0, 0], "<u8"),
        "acns_trend_fallback": col([0, 0, 0], "<u8"),
        "acns_trend_decrease": col([0, 0, 0], "<u8"),
        "owd_mean_s": col([0.031, 0.035, 0.022], "<f8"),
        "owd_max_s": col([0.06, 0.07, 0.03], "<f8"),
    }
    queues = {
        "link": ["bottleneck", "bottleneck", "access_s0"],
        "from": ["left", "right", "s0"],
        "to": ["right", "left", "left"],
        "rate_bps": col([10e6, 10e6, 100e6], "<f8"),
        "arrivals": col([9000, 6500, 3500], "<u8"),
        "departures": col([8700, 6500, 3500], "<u8"),
        "drops_overflow": col([300, 0, 0], "<u8"),
        "drops_aqm": col([0, 0, 0], "<u8"),
        "drops_early": col([0, 0, 0], "<u8"),
        "drops_forced": col([0, 0, 0], "<u8"),
        "drops_loss": col([0, 0, 0], "<u8"),
        "marks": col([0, 0, 0], "<u8"),
        "marks_early": col([0, 0, 0], "<u8"),
        "marks_forced": col([0, 0, 0], "<u8"),
        "bytes_departed": col([12_000_000, 340_000, 5_200_000], "<u8"),
        "acns_freezes": col([0, 0, 0], "<u8"),
        "acns_fallbacks": col([0, 0, 0], "<u8"),
        "avg_len_pkts": col([40.5, 0.0, 0.1], "<f8"),
        "max_len_pkts": col([100, 0, 2], "<u8"),
        "avg_len_bytes": col([60000.0, 0.0, 150.0], "<f8"),
        "max_len_bytes": col([150000, 0, 3000], "<u8"),
        "utilisation": col([0.96, 0.027, 0.041], "<f8"),
    }
    t = np.round(np.arange(0.0, duration, 0.01), 6)
    cwnd_t = np.concatenate([t, t[t >= 0.5]])
    cwnd_id = np.concatenate([np.zeros(len(t)), np.ones(int(np.sum(t >= 0.5)))])
    cwnd_v = 10.0 + (cwnd_t * 7.0) % 30.0
    bins = np.round(np.arange(0.1, duration + 1e-9, 0.1), 6)
    tp_t, tp_id, tp_v = [], [], []
    for i, (start, rate) in enumerate([(0.0, 4e6), (0.5, 4e6), (0.0, 2e6)]):
        active = bins[bins > start]
        tp_t.append(active)
        tp_id.append(np.full(len(active), i))
        tp_v.append(np.full(len(active), rate))
    q_t = np.concatenate([t, t, t])
    q_id = np.repeat([0, 1, 2], len(t))
    q_v = np.concatenate([(t * 13.0) % 100.0, np.zeros(len(t)), (t * 10).astype(int) % 3])
    series = {
        "cwnd": {
            "time_s": col(cwnd_t, "<f8"),
            "id": col(cwnd_id, "<u4"),
            "value": col(cwnd_v, "<f8"),
        },
        "throughput": {
            "time_s": col(np.concatenate(tp_t), "<f8"),
            "id": col(np.concatenate(tp_id), "<u4"),
            "value": col(np.concatenate(tp_v), "<f8"),
        },
        "queue": {"time_s": col(q_t, "<f8"), "id": col(q_id, "<u4"), "value": col(q_v, "<f8")},
    }
    meta = {
        "name": name,
        "seed": 1,
        "duration_s": duration,
        "events": 123456,
        "packets_injected": 20000,
        "packets_consumed": 19650,
        "packets_dropped": 300,
        "packets_in_network": 50,
        "packets_peak": 80,
    }
    return {"meta": meta, "flows": flows, "queues": queues, "series": series}


class ScenarioError(ValueError):
    pass


def _check(text: str) -> dict:
    """A tiny subset of the real validation, enough to exercise error translation."""
    d = json.loads(text)
    if "duration" not in d:
        raise ScenarioError("duration", "missing field `duration`")
    if not isinstance(d["duration"], (int, float)):
        raise ScenarioError("duration", "this fake core only accepts seconds as a number")
    kind = d.get("topology", {}).get("kind")
    if kind not in ("dumbbell", "chain", "explicit"):
        raise ScenarioError(
            "topology.kind",
            f'unknown topology kind "{kind}": expected one of "dumbbell", "chain", "explicit"',
        )
    for i, f in enumerate(d.get("flows", [])):
        rec = f.get("tcp", {}).get("recovery")
        if rec is not None and rec not in ("tahoe", "reno", "newreno", "sack"):
            raise ScenarioError(f"flows[{i}].tcp.recovery", f'unknown variant "{rec}"')
    return d


class Simulation:
    # What the last Simulation was given and asked, for tests to inspect.
    calls: list = []
    last_json = ""

    # Where finish() found the clock: the runner's chunks should have reached the end.
    finished_from: float | None = None

    def __init__(self, text: str):
        self._d = _check(text)
        # Whole nanoseconds, as the core keeps time (SimTime), rounded to the nearest as
        # SimTime::from_secs_f64 does: a float target can land a fraction of a ns short.
        self._end = _ns(float(self._d["duration"]))
        self._now = 0
        Simulation.calls = []
        Simulation.last_json = text
        Simulation.finished_from = None

    @property
    def duration(self) -> float:
        return self._end / 1e9

    @property
    def now(self) -> float:
        return self._now / 1e9

    def run_until(self, t: float) -> None:
        Simulation.calls.append(t)
        self._now = min(max(self._now, _ns(float(t))), self._end)

    def finish(self) -> dict:
        Simulation.finished_from = self.now
        self._now = self._end
        return synthetic_results(self._d.get("name", "scenario"), duration=self.duration)


def _ns(seconds: float) -> int:
    return max(0, int(math.floor(seconds * 1e9 + 0.5)))


def make_module() -> types.ModuleType:
    m = types.ModuleType("ccsim._core")
    m.version = lambda: "0.0.0-fake"
    m.source = lambda: "0" * 16
    m.build = lambda: "release"
    m.schema = lambda: json.dumps({"title": "Scenario", "type": "object", "properties": {}})
    m.ScenarioError = ScenarioError
    m.validate = lambda text: (_check(text), None)[1]
    m.Simulation = Simulation
    return m
