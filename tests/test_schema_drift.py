"""The Python builders and series names follow the core's schema (`ccsim schema`), so they
cannot drift from it: every tagged kind (queue disciplines, loss models, flows, topologies)
has a builder with exactly its fields, exported from the package, and the series the results
know are the series the schema lists."""

from __future__ import annotations

import dataclasses
import inspect

import ccsim
import pytest
from ccsim import scenario as sc
from ccsim.result import FLOW_SERIES, QUEUE_SERIES

pytest.importorskip("ccsim._core")

SCHEMA = ccsim.schema()
DEFS = SCHEMA["$defs"]


def _resolve(node: dict) -> dict:
    """A schema node with `$ref` and `allOf` folded into one set of properties."""
    out: dict = {"properties": {}}
    for part in [node, *node.get("allOf", [])]:
        if "$ref" in part:
            part = _resolve(DEFS[part["$ref"].split("/")[-1]])
        out["properties"].update(part.get("properties", {}))
    return out


def tagged(family: str) -> dict[str, set[str]]:
    """Each kind of a tagged family and the fields its table takes (besides `kind`)."""
    kinds = {}
    for variant in DEFS[family]["oneOf"]:
        props = _resolve(variant)["properties"]
        kind = props.pop("kind")["const"]
        kinds[kind] = set(props)
    return kinds


def builders() -> dict[str, type]:
    """Every builder class with a `kind`, by kind."""
    out = {}
    for _, cls in inspect.getmembers(sc, inspect.isclass):
        if issubclass(cls, sc._Builder) and getattr(cls, "kind", None):
            out[cls.kind] = cls
    return out


def fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("family", ["QueueSpec", "LossSpec", "Flow", "Topology"])
def test_every_kind_has_a_builder_with_the_schemas_fields(family):
    known = builders()
    for kind, props in tagged(family).items():
        assert kind in known, f"{family}: no builder for kind {kind!r}"
        assert fields(known[kind]) == props, f"{family} {kind!r}: builder fields differ"


def test_every_builder_is_exported():
    for cls in builders().values():
        name = cls.__name__
        assert name in sc.__all__, f"{name} missing from ccsim.scenario.__all__"
        assert name in ccsim.__all__, f"{name} missing from ccsim.__all__"
        assert getattr(ccsim, name) is cls


def test_untagged_builders_take_the_schemas_fields():
    root = dict(SCHEMA["properties"])
    assert fields(sc.Scenario) == set(root)
    assert fields(sc.Link) == set(_resolve(DEFS["LinkSpec"])["properties"])
    assert fields(sc.LinkOverride) == set(_resolve(DEFS["LinkOverride"])["properties"])
    assert fields(sc.Trace) == set(_resolve(DEFS["TraceSpec"])["properties"])


def test_series_names_are_the_schemas():
    named = {v["const"]: v.get("description", "") for v in DEFS["SeriesName"]["oneOf"]}
    assert set(FLOW_SERIES) | set(QUEUE_SERIES) == set(named)
    for name in QUEUE_SERIES:
        assert "per link direction" in named[name], name
    for name in FLOW_SERIES:
        assert "per link direction" not in named[name], name
