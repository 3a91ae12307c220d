"""Running scenarios: from a builder, a dict or a TOML file to a :class:`Result`."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping
from typing import Any, Union

from . import _native, cc
from .errors import CongestionControlError, ScenarioError
from .overrides import set_path
from .progress import simulated_time
from .provenance import stamp
from .result import Result
from .scenario import load, to_plain
from .value_check import check_values

ScenarioLike = Union[dict, str, os.PathLike, Any]  # Any: a builder with to_dict()

# Simulated time is advanced in chunks sized to take about this much wall time, so that a
# progress line updates and Ctrl-C is honoured (the core releases the GIL inside run_until,
# and Python handles signals only between calls) at negligible cost.
CHUNK_WALL_S = 0.25
# The smallest chunk of simulated time, so that a very short run still advances in few calls.
MIN_CHUNK_NS = 1_000


def _ns(seconds: float) -> int:
    """Seconds as the core's whole nanoseconds, rounded to the nearest as SimTime does."""
    return max(0, math.floor(seconds * 1e9 + 0.5))


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
        if isinstance(d.get("sweep"), dict):  # else the core says "unknown field `sweep`"
            where = os.fspath(scenario)
            raise ScenarioError(
                "sweep",
                f"{where} is a sweep file (it has a [sweep] table), not a scenario: "
                f"run it with ccsim.sweep({where!r})",
            )
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
    x = cc.extract(d)
    if x.factories:  # building makes the flows' Python algorithms, as a run would
        _native.simulation(to_json(x.core), x.factories)
    else:
        _native.validate_json(to_json(x.core))
    return d


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
    (``"flows.tcp1.tcp.cc"``) to values, applied in order. ``progress=True`` shows how far
    the run has come (see :mod:`ccsim.progress`): a bar on stderr in a terminal, a widget in
    Jupyter, a plain line every 30 s when stderr is a file or pipe (a batch job's log).
    Ctrl-C stops the run (``KeyboardInterrupt``) within about ``CHUNK_WALL_S`` seconds.
    ``result.meta["wall_s"]`` is the wall time of building and running; ``ccsim_version``,
    ``core_id``, ``core_build`` (:func:`ccsim.build_info`) and ``finished_at`` say what
    computed it and when. Raises
    :class:`ScenarioError` for an invalid scenario.
    """
    d = prepare(scenario, seed=seed, overrides=overrides)
    # Congestion controls written in Python stay here; the core gets their factories.
    x = cc.extract(d)
    external = x.factories
    text = to_json(x.core)
    t0 = time.perf_counter()
    sim = _native.simulation(text, external)
    duration = float(sim.duration)
    bar = simulated_time(duration, progress, str(d.get("name", "")))
    try:
        # The core keeps time in whole nanoseconds and rounds a float target to the nearest
        # one, so the chunks are planned in integer ns: comparing floats, a target rounded
        # down looked like the end, and finish() then ran the rest with no progress shown and
        # no Ctrl-C honoured (issue 33).
        end = _ns(duration)
        now = _ns(sim.now)
        least = max(MIN_CHUNK_NS, end // 1000)
        step = least  # first chunk: small, to measure the speed
        while now < end:
            target = min(end, now + step)
            c0 = time.perf_counter()
            # target / 1e9 rounds back to target ns (days of simulated time and more); were
            # it a ns off, the next chunk would simply start where the core stopped.
            sim.run_until(target / 1e9)
            spent = time.perf_counter() - c0
            _raise_failure(sim, external)
            reached = _ns(sim.now)
            bar.update(reached / 1e9 - bar.n)  # to the core's clock, without summing errors
            if reached <= now:  # no progress at all: leave whatever is left to finish()
                break
            now = reached
            # Aim the next chunk at CHUNK_WALL_S of wall time; at most quadruple per step so a
            # slow phase ahead (many flows starting) cannot make one chunk run for minutes.
            scale = CHUNK_WALL_S / spent if spent > 0 else 4.0
            step = max(least, int(step * min(4.0, scale)))
        bar.refresh()  # the end reached, while finish() collects the results
        raw = sim.finish()
        _raise_failure(sim, external)
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    result = Result.from_core(raw, x.core)
    result.meta["wall_s"] = wall
    stamp(result.meta)  # ccsim version, core build and time, as sweeps record them
    if external:
        result.meta["external_cc"] = x.described
        flows = result.flows
        if "cc" in flows and "flow" in flows:
            named = [x.label(str(f)) for f in flows["flow"]]
            flows["cc"] = [n if c == "external" and n else c for c, n in zip(flows["cc"], named)]
    return result


def _raise_failure(sim: Any, external: list) -> None:
    """Raises :class:`CongestionControlError` for the first failure of a congestion control
    written in Python, chained to the hook's own exception (and its traceback)."""
    if not external:
        return
    failure = sim.failure()
    if failure is not None:
        hook, flow, time_s, exc = failure
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise exc  # Ctrl-C while a hook ran: the user's, not the algorithm's
        reason = f"{type(exc).__name__}: {exc}"
        raise CongestionControlError(hook, flow, time_s, reason) from exc
