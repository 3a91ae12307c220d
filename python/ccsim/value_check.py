"""Checks of a scenario's values that JSON encoding and the core cannot make with a path.

JSON has no NaN or infinity (``json.dumps`` refused them with no path), Python recurses into
nested containers (a scenario nested thousands deep raised ``RecursionError``), and integers
beyond 64 bits reach the core as floats ("number out of range"). The walk here is iterative,
so its cost is the size of the value and not its depth, and it names the path of what it
refuses, as the core does (issue 33, defect 7).
"""

from __future__ import annotations

import math
from typing import Any

from .errors import ScenarioError

# The deepest scenario value is far shallower (an explicit topology's link's queue's field is 5
# tables and lists deep); this bounds how deep a value may be before it is refused.
MAX_DEPTH = 32
# Integers in a scenario: a seed is a 64-bit unsigned integer, and every other integer field
# is narrower; the core names each field's range.
INT_MIN, INT_MAX = -(2**63), 2**64 - 1


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def check_values(value: Any, path: str = "", depth: int = 0) -> None:
    """Raises :class:`ScenarioError` at the path of the first value nested more than
    :data:`MAX_DEPTH` deep, of a NaN or infinite number, or of an integer outside
    [-2^63, 2^64 - 1]. ``value`` lies at ``path``, ``depth`` steps into the scenario. Other
    values (builders, text, ...) pass: the core judges them."""
    stack = [(value, path, depth)]
    while stack:
        v, where, depth = stack.pop()
        if isinstance(v, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                raise ScenarioError(
                    where,
                    f"nested more than {MAX_DEPTH} tables or lists deep; no scenario value is",
                )
            items = v.items() if isinstance(v, dict) else enumerate(v)
            stack.extend((x, _join(where, k), depth + 1) for k, x in items)
        elif isinstance(v, bool):
            continue
        elif isinstance(v, float) and not math.isfinite(v):
            raise ScenarioError(
                where, f"{v} is not a number a scenario can hold: numbers must be finite"
            )
        elif isinstance(v, int) and not INT_MIN <= v <= INT_MAX:
            raise ScenarioError(
                where,
                f"an integer of {v.bit_length()} bits is out of range: integers in a scenario "
                "lie from -2^63 to 2^64 - 1 (each field's own range is narrower)",
            )
