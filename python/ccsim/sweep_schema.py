"""The JSON Schema of sweep files (``ccsim schema --sweep``), from the scenario schema.

A sweep file (README "Sweeps", :func:`ccsim.sweep_spec.from_dict`) is a ``[sweep]`` table and
either ``sweep.base``, a scenario file's name, or an inline ``[base]`` scenario, which this
schema checks with the scenario schema (``ccsim schema``). Axis and ``set`` paths are
:func:`ccsim.set_path` paths, which a schema cannot check against the base scenario: a path
that names nothing is refused when the sweep is loaded.
"""

from __future__ import annotations

from typing import Any

from . import _native
from .sweep_spec import MAX_RUNS, RESERVED, SWEEP_KEYS


def sweep_schema() -> dict[str, Any]:
    """The sweep file JSON Schema (draft 2020-12), as a dict."""
    scenario = _native.schema()
    defs = dict(scenario.pop("$defs", {}))
    version = str(scenario.pop("$id", "")).rsplit(":", 1)[-1]
    draft = scenario.pop("$schema", "https://json-schema.org/draft/2020-12/schema")
    defs["Scenario"] = scenario
    # Nested tables are path steps; a list is an axis's values (`_flatten`, leaf_lists).
    defs["Axes"] = {
        "title": "Axes",
        "description": "Path = [values], one run per value; a nested table is a path step.",
        "type": "object",
        "propertyNames": {"not": {"enum": list(RESERVED)}},
        "additionalProperties": {
            "anyOf": [{"type": "array", "minItems": 1}, {"$ref": "#/$defs/Axes"}]
        },
    }
    sweep: dict[str, Any] = {
        "title": "sweep",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"title": "name", "type": "string", "minLength": 1},
            "base": {"title": "base", "type": "string", "minLength": 1},
            "replications": {
                "title": "replications",
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RUNS,
            },
            "seeds": {
                "title": "seeds",
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 1,
                "maxItems": MAX_RUNS,
                "uniqueItems": True,
            },
            "set": {"title": "set", "type": "object"},
            "axes": {"title": "axes", "$ref": "#/$defs/Axes"},
            "zip": {"title": "zip", "type": "array", "items": {"$ref": "#/$defs/Axes"}},
        },
        # `replications` or `seeds`, not both.
        "not": {"required": ["replications", "seeds"]},
        "description": f"The axes crossed, times the seeds, are at most {MAX_RUNS} runs.",
    }
    for key, what in SWEEP_KEYS.items():
        sweep["properties"][key]["description"] = what
    return {
        "$schema": draft,
        "$id": f"urn:ccsim:sweep:{version}",
        "title": "ccsim sweep",
        "description": "A sweep file: a [sweep] table and its base scenario.",
        "type": "object",
        "additionalProperties": False,
        "required": ["sweep"],
        "properties": {
            "sweep": sweep,
            "base": {"title": "base", "$ref": "#/$defs/Scenario"},
        },
        # The base scenario once: `sweep.base` (a file) or a [base] table.
        "oneOf": [
            {"required": ["base"], "properties": {"sweep": {"not": {"required": ["base"]}}}},
            {"not": {"required": ["base"]}, "properties": {"sweep": {"required": ["base"]}}},
        ],
        "$defs": defs,
    }
