"""Fitting flows into a shorter run: ``ccsim run --clip`` after ``--set duration=10s``.

The core refuses a flow that starts at or after the end of the run, or stops after it
(``flows[i].start: 10s is at or after the end of the run (10s)``), so shortening a scenario
with ``--set duration=...`` fails on every flow that lies later. :func:`clip_flows` leaves out
the flows that would start at or after the end and ends the others' ``stop`` there, as a
shorter run of the same scenario would see them.

Times are read as the core reads them (``crates/ccsim/src/config/units.rs``, ``Duration``):
seconds as a number, or a string with a unit ``ns``, ``us``/``µs``, ``ms``, ``s``, ``min``,
in whole nanoseconds rounded to the nearest. A value this cannot read is left for the core to
report with its path.
"""

from __future__ import annotations

import math
import re
from typing import Any

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "": 1.0, "min": 60.0}
# The core's split: the longest prefix of digits, '.', 'e', 'E', '-', '+' is the number.
_NUMBER = re.compile(r"[0-9.eE+\-]*")


def duration_ns(value: Any) -> int | None:
    """A scenario duration in whole nanoseconds, or None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip()
        number = _NUMBER.match(text).group(0)  # type: ignore[union-attr]
        scale = _UNITS.get(text[len(number) :].strip())
        try:
            seconds = float(number) * scale if scale is not None else math.nan
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return math.floor(seconds * 1e9 + 0.5)  # SimTime::from_secs_f64 rounds to the nearest


def _label(i: int, flow: dict) -> str:
    name = flow.get("name")
    return f"flows[{i}] ({name!r})" if name is not None else f"flows[{i}]"


def _late(d: dict[str, Any]) -> dict[int, str]:
    """Index → ``"start"`` (starts at or after the end) or ``"stop"`` (stops after it) for
    each flow that does not fit the run; empty if the duration is unreadable."""
    end = duration_ns(d.get("duration"))
    flows = d.get("flows")
    if end is None or not isinstance(flows, list):
        return {}
    late = {}
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            continue
        start = duration_ns(flow.get("start", 0))
        stop = duration_ns(flow["stop"]) if "stop" in flow else None
        if start is not None and start >= end:
            late[i] = "start"
        elif stop is not None and stop > end:
            late[i] = "stop"
    return late


def clip_flows(d: dict[str, Any]) -> list[str]:
    """Fits the flows of scenario dict ``d`` into its duration, in place: a flow that starts
    at or after the end is left out, a ``stop`` after the end becomes the end. Returns one
    line per change, for the user to see what was clipped."""
    late = _late(d)
    if not late:
        return []
    end = d["duration"]
    changes, kept = [], []
    for i, flow in enumerate(d["flows"]):
        what = late.get(i)
        if what == "start":
            changes.append(f"{_label(i, flow)} left out: it starts at or after the end ({end})")
            continue
        if what == "stop":
            changes.append(f"{_label(i, flow)}.stop: {flow['stop']} clipped to the end ({end})")
            flow["stop"] = end
        kept.append(flow)
    d["flows"] = kept
    return changes


def clip_hint(d: dict[str, Any]) -> str | None:
    """For an error about a flow's start or stop past the end: every such flow, and the
    option that fits them; None if none lies past the end."""
    late = _late(d)
    if not late:
        return None
    flows = d["flows"]
    parts = []
    for what, says in (("start", "starting at or after the end"), ("stop", "stopping after it")):
        names = [_label(i, flows[i]) for i, w in late.items() if w == what]
        if names:
            parts.append(f"{says}: {', '.join(names)}")
    return (
        f"flows past the end of the run ({d.get('duration')}), {'; '.join(parts)}: pass --clip "
        "to leave out the flows that start at or after the end and cut later stops to the end"
    )
