"""Quantities with units, read as the core reads them in scenarios (crates/ccsim/src/config/
units.rs), for the Python code that needs their values before a run: a sweep's cost estimate
(sweep_cost.py) and topologies built from graphs (topology_graph.py).

A bare number is in the base unit (seconds, bit/s, bytes); a string has a unit suffix:
``"20ms"``, ``"10Mbps"``, ``"64KiB"``. A value none of these reads raises ``ValueError``
saying which forms are accepted.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")
_SECONDS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0}
_BITS = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}
_BYTES = {"": 1, "B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9}
_BYTES.update({"KiB": 2**10, "MiB": 2**20, "GiB": 2**30})

DURATION_FORMS = 'a number of seconds or a string with a unit: ns, us, ms, s, min (e.g. "20ms")'
RATE_FORMS = (
    'a number of bit/s or a string with a unit: bps, kbps, Mbps, Gbps, Tbps (e.g. "10Mbps")'
)
SIZE_FORMS = "a number of bytes or a string with a unit: B, KB, MB, GB, KiB, MiB, GiB"


def _split(value: Any, forms: str) -> tuple[float, str]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), ""
    m = _NUMBER.match(value) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"{value!r} is not {forms}")
    return float(m.group(1)), m.group(2)


def seconds(value: Any) -> float:
    """A duration in seconds."""
    v, unit = _split(value, DURATION_FORMS)
    if unit not in _SECONDS:
        raise ValueError(f"{value!r}: unknown unit {unit!r}; expected {DURATION_FORMS}")
    return v * _SECONDS[unit]


def bits_per_second(value: Any) -> float:
    """A rate in bit/s. As the core reads it, the unit's case is ignored and ``b/s`` and
    ``bit/s`` mean ``bps``; a unit of bytes per second (``MBps``, ``MB/s``: a capital B
    before ``ps`` or ``/s``) is taken as bytes, eight bits each."""
    v, unit = _split(value, RATE_FORMS)
    scale = 1.0
    if re.fullmatch(r"[kKmMgGtT]?B(?:ps|/s)", unit):
        unit, scale = unit[:-3] + "bps", 8.0
    key = unit.lower().replace("bit/s", "bps").replace("b/s", "bps") or "bps"
    if key not in _BITS:
        raise ValueError(f"{value!r}: unknown unit {unit!r}; expected {RATE_FORMS}")
    return v * _BITS[key] * scale


def size_bytes(value: Any) -> float:
    """A size in bytes."""
    v, unit = _split(value, SIZE_FORMS)
    if unit not in _BYTES:
        raise ValueError(f"{value!r}: unknown unit {unit!r}; expected {SIZE_FORMS}")
    return v * _BYTES[unit]
