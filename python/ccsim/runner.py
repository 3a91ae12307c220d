"""Running scenarios: from a builder, a dict or a TOML file to a :class:`Result`."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from typing import IO, Any, Union

from . import _native
from .errors import ScenarioError
from .overrides import set_path
from .result import Result
from .scenario import load, to_plain
from .value_check import check_values

ScenarioLike = Union[dict, str, os.PathLike, Any]  # Any: a builder with to_dict()

# Simulated time is advanced in chunks sized to take about this much wall time, so that a
# progress line updates and Ctrl-C is honoured (the core releases the GIL inside run_until,
# and Python handles signals only between calls) at negligible cost.
CHUNK_WALL_S = 0.25


def prepare(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The scenario dict that would run: loaded (a path), converted (a builder) or copied
    (a dict, which is never modified), then ``seed`` and each ``path → value`` override
    applied with :func:`ccsim.set_path`."""
    if isinstance(scenario, (str, os.PathLike)):
        d = load(scenario)
    elif isinstance(scenario, dict) or hasattr(scenario, "to_dict"):
        # Bounded first: to_plain recurses (value_check.py).
        check_values(scenario)
        # to_plain builds new containers (the caller's dict is left alone) and turns builders
        # nested in a hand-written dict into plain dicts.
        d = to_plain(scenario)
    else:
        raise TypeError(
            "scenario must be a ccsim.Scenario, a dict or a path to a TOML file, "
            f"not {type(scenario).__name__}"
        )
    if seed is not None:
        d["seed"] = int(seed)
    for path, value in (overrides or {}).items():
        set_path(d, path, value)
    return d


def _json_default(obj: Any) -> Any:
    # numpy scalars come from sweeps over np.linspace & co.; paths from user code.
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"a {type(obj).__name__} ({obj!r}) has no place in a scenario")


def to_json(d: dict[str, Any]) -> str:
    """JSON text of a scenario dict for the core; a value JSON cannot hold (NaN, a date, an
    arbitrary object) raises :class:`ScenarioError`, at its path where it is a number or
    nested too deep (value_check.py)."""
    check_values(d)
    try:
        return json.dumps(d, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as e:
        raise ScenarioError("", f"the scenario cannot be encoded as JSON: {e}") from None


def validate(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Checks a scenario without running it; returns the dict that would run, or raises
    :class:`ScenarioError` naming the offending path."""
    d = prepare(scenario, seed=seed, overrides=overrides)
    _native.validate_json(to_json(d))
    return d


class _Progress:
    """One line on a terminal, rewritten in place: simulated time, percent, wall time."""

    def __init__(self, stream: IO[str] | None, duration: float, t0: float):
        self.stream, self.duration, self.t0, self.shown = stream, duration, t0, False

    def update(self, now: float) -> None:
        if self.stream is None:
            return
        pct = 100.0 * now / self.duration if self.duration > 0 else 100.0
        wall = time.perf_counter() - self.t0
        self.stream.write(
            f"\r  {now:.2f}/{self.duration:.2f} s simulated  {pct:5.1f}%  wall {wall:.1f} s"
        )
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.stream is not None and self.shown:
            self.stream.write("\r\033[K")  # clear the line so later output starts clean
            self.stream.flush()


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
) -> Result:
    """Runs one scenario to the end and returns its :class:`Result`.

    ``scenario``: a :class:`ccsim.Scenario` builder, a dict (not modified) or a path to a TOML
    file. ``seed`` replaces the scenario's seed; ``overrides`` maps paths
    (``"flows.tcp1.tcp.cc"``) to values, applied in order. ``progress=True`` shows a progress
    line on stderr when it is a terminal. ``result.meta["wall_s"]`` is the wall time of
    building and running. Raises :class:`ScenarioError` for an invalid scenario.
    """
    d = prepare(scenario, seed=seed, overrides=overrides)
    text = to_json(d)
    t0 = time.perf_counter()
    sim = _native.simulation(text)
    duration = float(sim.duration)
    stream = sys.stderr if progress and sys.stderr.isatty() else None
    bar = _Progress(stream, duration, t0)
    try:
        step = duration / 1000.0  # first chunk: small, to measure the speed
        while sim.now < duration:
            target = min(duration, sim.now + step)
            c0 = time.perf_counter()
            sim.run_until(target)
            spent = time.perf_counter() - c0
            bar.update(sim.now)
            # Aim the next chunk at CHUNK_WALL_S of wall time; at most quadruple per step so a
            # slow phase ahead (many flows starting) cannot make one chunk run for minutes.
            scale = CHUNK_WALL_S / spent if spent > 0 else 4.0
            step = max(duration / 1000.0, step * min(4.0, scale))
            if sim.now < target:  # the core stopped short of the target: nothing left to do
                break
        raw = sim.finish()
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    result = Result.from_core(raw, d)
    result.meta["wall_s"] = wall
    return result
