"""What a sweep is: a base scenario, axes and seeds, and the points they expand to.

A sweep crosses *groups* of axes. A crossed axis is a group of one path; a zipped group is
several paths whose i-th values go together (rate and delay pairs, say). Every combination of
the groups' values is run once per seed. Axis paths are :func:`ccsim.set_path` paths, the same
as ``--set`` takes. The TOML form is described in the README ("Sweeps").
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _native, cc, cc_ref
from .errors import ScenarioError, SweepError
from .overrides import parse_path, set_path
from .runner import prepare, to_json
from .scenario import load, to_plain

# The most runs (points x seeds) a sweep expands to: a hundred times the largest shipped sweep
# (800 runs), more than a 16-core host runs in a day of one-second points. Each run is a Point
# in memory and a row in the store; `replications = 2**64` grew without bound (issue 33).
MAX_RUNS = 100_000
# Keys accepted in a sweep file, with what they hold, for error messages.
TOP_KEYS = {"sweep": "the [sweep] table", "base": "an inline base scenario"}
SWEEP_KEYS = {
    "name": "the sweep's name (text)",
    "base": "the base scenario file, relative to the sweep file",
    "replications": f"how many seeds per point (an integer from 1 to {MAX_RUNS})",
    "seeds": "explicit seeds (a list of integers)",
    "set": "fixed overrides of the base, path = value",
    "axes": "crossed axes, path = [values]",
    "zip": "zipped axis groups, [[sweep.zip]] tables of path = [values]",
}
# Bookkeeping columns of a sweep's tables; an axis may not take one of these names.
RESERVED = ("point", "key", "replication", "seed")


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep: axis values (path → value, in axis order) and a seed."""

    index: int
    axes: dict[str, Any]
    replication: int
    seed: int

    def label(self) -> str:
        """``"topology.bottleneck.queue.limit=5, seed=7"``: how reports name the point."""
        parts = [f"{p}={_short(v)}" for p, v in self.axes.items()]
        return ", ".join([*parts, f"seed={self.seed}"])


@dataclass(frozen=True)
class InvalidPoint:
    """A point whose scenario cannot run, and why (``path``: where, as the schema names it)."""

    point: Point
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _short(value: Any) -> str:
    if isinstance(value, (dict, list)):
        text = json.dumps(cc_ref.plain(value))  # Python algorithms inside shown by name
    else:
        text = cc_ref.label(value) or str(value)  # a Python algorithm as an axis value
    return text if len(text) <= 40 else text[:37] + "..."


def _where(table: str, path: str) -> str:
    # The TOML spelling of a path used as a key: quoted, since paths hold dots.
    return f'{table}."{path}"'


def _values(table: str, path: str, values: Any) -> list[Any]:
    """An axis's values as a plain, non-empty list; raises naming the axis otherwise."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise SweepError(
            _where(table, path),
            f"expected a list of values (e.g. [5, 15, 25]), got {type(values).__name__} "
            f"{_short(values)}",
        )
    out = to_plain(list(values))
    if not out:
        raise SweepError(_where(table, path), "an axis needs at least one value")
    return out


def _check_path(table: str, path: Any) -> str:
    if not isinstance(path, str):
        raise SweepError(table, f"axis paths are text, got {type(path).__name__} {path!r}")
    if path in RESERVED:
        hint = (
            "sweep seeds with `replications` or `seeds`, not an axis"
            if path == "seed"
            else f"{', '.join(RESERVED)} are the sweep's own columns"
        )
        raise SweepError(_where(table, path), f"{path!r} cannot be an axis: {hint}")
    try:
        parse_path(path)
    except ScenarioError as e:
        raise SweepError(_where(table, path), e.message) from None
    return path


class Sweep:
    """A parameter grid over a base scenario.

    ``base``: a scenario (builder, dict or TOML path). ``axes``: crossed axes, path → values.
    ``zipped``: groups of paths whose values advance together, each a mapping path → values of
    one length. ``replications``: seeds per point, ``base_seed + k`` for k = 0..N-1 (the base's
    ``seed``, default 1); or ``seeds``: explicit seeds. ``overrides``: fixed path → value
    changes to the base before the axes apply. ``name``: names the output directory.
    """

    def __init__(
        self,
        base: Any,
        axes: Mapping[str, Sequence[Any]] | None = None,
        *,
        zipped: Sequence[Mapping[str, Sequence[Any]]] = (),
        replications: int | None = None,
        seeds: Sequence[int] | None = None,
        overrides: Mapping[str, Any] | None = None,
        name: str | None = None,
    ):
        self.base = base
        self.groups: list[list[tuple[str, list[Any]]]] = []
        seen: set[str] = set()

        def add(table: str, items: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
            group = []
            for path, values in items.items():
                path = _check_path(table, path)
                if path in seen:
                    raise SweepError(_where(table, path), "this path is already an axis")
                seen.add(path)
                group.append((path, _values(table, path, values)))
            return group

        if axes is not None and not isinstance(axes, Mapping):
            raise SweepError("sweep.axes", "expected a table of path = [values]")
        for path, values in (axes or {}).items():
            self.groups.append(add("sweep.axes", {path: values}))
        if isinstance(zipped, Mapping):
            raise SweepError("sweep.zip", "expected a list of tables of path = [values]")
        for i, group in enumerate(zipped):
            table = f"sweep.zip[{i}]"
            if not isinstance(group, Mapping) or not group:
                raise SweepError(table, "expected a non-empty table of path = [values]")
            g = add(table, group)
            lengths = {p: len(v) for p, v in g}
            if len(set(lengths.values())) > 1:
                shown = ", ".join(f"{p} has {n}" for p, n in lengths.items())
                raise SweepError(table, f"zipped axes need equally many values: {shown}")
            self.groups.append(g)
        self.seeds = self._seeds(replications, seeds)
        self.replications = len(self.seeds) if self.seeds else (replications or 1)
        runs = math.prod(len(g[0][1]) for g in self.groups) * self.replications
        if runs > MAX_RUNS:
            shape = " x ".join(str(len(g[0][1])) for g in self.groups) or "1"
            raise SweepError(
                "sweep",
                f"{shape} points x {self.replications} seeds = {runs} runs; a sweep runs at "
                f"most {MAX_RUNS}: split it, or sweep fewer values",
            )
        self.overrides = dict(overrides or {})
        for path in self.overrides:
            try:
                parse_path(path)
            except ScenarioError as e:
                raise SweepError(_where("sweep.set", path), e.message) from None
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise SweepError("sweep.name", f"expected non-empty text, got {name!r}")
        self.name = name

    @staticmethod
    def _seeds(replications: Any, seeds: Any) -> list[int] | None:
        if replications is not None and seeds is not None:
            raise SweepError("sweep.seeds", "give `replications` or `seeds`, not both")
        if replications is not None:
            if isinstance(replications, bool) or not isinstance(replications, int):
                raise SweepError("sweep.replications", f"expected an integer, got {replications!r}")
            if not 1 <= replications <= MAX_RUNS:
                raise SweepError(
                    "sweep.replications", f"expected 1 to {MAX_RUNS}, got {replications}"
                )
            return None
        if seeds is None:
            return None
        if isinstance(seeds, (str, Mapping)) or not hasattr(seeds, "__iter__"):
            raise SweepError("sweep.seeds", f"expected a list of integers, got {seeds!r}")
        out = to_plain(list(seeds))
        bad = [s for s in out if isinstance(s, bool) or not isinstance(s, int) or s < 0]
        if not out or bad:
            raise SweepError(
                "sweep.seeds", f"expected a non-empty list of integers ≥ 0, got {seeds!r}"
            )
        if len(set(out)) != len(out):
            raise SweepError("sweep.seeds", f"seeds repeat: {out} (each would run twice)")
        return out

    @property
    def axis_paths(self) -> list[str]:
        """Every axis path, in the order the columns appear."""
        return [p for g in self.groups for p, _ in g]

    def base_scenario(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The base with the sweep's fixed overrides, then ``overrides``, applied."""
        try:
            d = prepare(self.base, overrides=self.overrides)
        except ScenarioError as e:
            raise SweepError(e.path, f"in the sweep's base scenario: {e.message}") from None
        for path, value in (overrides or {}).items():
            set_path(d, path, value)
        return d

    def points(self, base: Mapping[str, Any]) -> list[Point]:
        """Every point: the groups crossed (first group outermost), each run once per seed."""
        if self.seeds is not None:
            seeds = self.seeds
        else:
            first = base.get("seed", _default_seed())
            if isinstance(first, bool) or not isinstance(first, int):
                raise SweepError("seed", f"the base seed must be an integer, got {first!r}")
            seeds = [first + k for k in range(self.replications)]
        out: list[Point] = []
        for combo in itertools.product(*(range(len(g[0][1])) for g in self.groups)):
            axes = {p: vals[i] for g, i in zip(self.groups, combo) for p, vals in g}
            for k, seed in enumerate(seeds):
                out.append(Point(len(out), axes, k, seed))
        return out

    def __repr__(self) -> str:
        shape = " x ".join(str(len(g[0][1])) for g in self.groups) or "1"
        return f"<ccsim.Sweep {self.name!r}: {shape} points x {self.replications} seeds>"


def _default_seed() -> int:
    # The schema is the source of truth for defaults; 1 if the core cannot say.
    try:
        return int(_native.schema()["properties"]["seed"]["default"])
    except (ImportError, KeyError, TypeError, ValueError):
        return 1


def resolve(base: Mapping[str, Any], point: Point) -> dict[str, Any]:
    """The scenario of one point: a copy of ``base`` with its axis values and seed set."""
    d = copy.deepcopy(dict(base))
    for path, value in point.axes.items():
        set_path(d, path, value)
    d["seed"] = point.seed
    return d


def _validate(d: dict[str, Any]) -> None:
    """Validates a point's scenario with the core; one with Python algorithms is built as a
    worker would build it (the references imported back, the algorithms made), so that a bad
    parameter of a registered algorithm is found before anything runs."""
    tcps = [f.get("tcp") for f in _flows(d)]
    if not any(isinstance(t, dict) and cc_ref.is_reference(t.get("cc")) for t in tcps):
        _native.validate_json(to_json(d))
        return
    x = cc.extract(cc_ref.materialize(d))
    _native.simulation(to_json(x.core), x.factories)


def _flows(d: dict[str, Any]) -> list[dict[str, Any]]:
    flows = d.get("flows")
    return [f for f in flows if isinstance(f, dict)] if isinstance(flows, list) else []


def check(base: Mapping[str, Any], points: Sequence[Point]) -> tuple[dict, list[InvalidPoint]]:
    """Resolves and validates every point with the core; returns ``{index: scenario}`` for the
    valid ones and the invalid ones, each with its error."""
    scenarios: dict[int, dict[str, Any]] = {}
    invalid: list[InvalidPoint] = []
    for pt in points:
        try:
            # Python algorithms become references the workers import (ccsim.cc_ref); the
            # point's key then covers them.
            d = cc_ref.references(resolve(base, pt))
            _validate(d)
        except ScenarioError as e:
            invalid.append(InvalidPoint(pt, e.path, e.message))
            continue
        scenarios[pt.index] = d
    return scenarios, invalid


def invalid_report(invalid: Sequence[InvalidPoint], total: int, shown: int = 5) -> str:
    """Invalid points grouped by error, each error with up to ``shown`` of its points."""
    by_error: dict[str, list[Point]] = {}
    for bad in invalid:
        by_error.setdefault(str(bad), []).append(bad.point)
    lines = [f"{len(invalid)} of {total} sweep points are invalid:"]
    for error, pts in by_error.items():
        lines.append(f"  {error}")
        for pt in pts[:shown]:
            lines.append(f"    point {pt.index}: {pt.label()}")
        if len(pts) > shown:
            lines.append(f"    ... and {len(pts) - shown} more points with this error")
    return "\n".join(lines)


# --- the TOML form ---------------------------------------------------------------------------


def _flatten(table: Mapping[str, Any], where: str, *, leaf_lists: bool) -> dict[str, Any]:
    """Nested TOML tables → dotted paths, so ``a.b = [1]`` and ``"a.b" = [1]`` mean the same.

    With ``leaf_lists`` (axes) every table is a path step and a non-list leaf is an error;
    without it (``set``) any non-table value is a leaf.
    """
    out: dict[str, Any] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict) and value:
                walk(value, path)
            elif leaf_lists and not isinstance(value, list):
                raise SweepError(
                    _where(where, path),
                    f"expected a list of values (e.g. [5, 15, 25]), got {_short(value)}",
                )
            else:
                out[path] = value

    walk(table, "")
    return out


def _unknown(table: Mapping[str, Any], accepted: Mapping[str, str], where: str) -> None:
    for key in table:
        if key not in accepted:
            expected = "; ".join(f"`{k}` ({what})" for k, what in accepted.items())
            raise SweepError(
                f"{where}.{key}" if where else key, f"unknown key; expected one of {expected}"
            )


def from_dict(
    doc: Mapping[str, Any], *, root: str | os.PathLike = ".", default_name: str | None = None
) -> Sweep:
    """A :class:`Sweep` from a parsed sweep file; ``root`` is where ``sweep.base`` is relative
    to."""
    sw = doc.get("sweep")
    if not isinstance(sw, dict):
        looks = " (this looks like a scenario: name it as `base`)" if "flows" in doc else ""
        raise SweepError(
            "sweep", f"a sweep file needs a [sweep] table (base, axes, seeds, ...){looks}"
        )
    _unknown(doc, TOP_KEYS, "")
    _unknown(sw, SWEEP_KEYS, "sweep")
    if ("base" in sw) == ("base" in doc):
        raise SweepError(
            "sweep.base",
            'give the base scenario once: `base = "file.toml"` in [sweep], or a [base] table',
        )
    if "base" in sw:
        if not isinstance(sw["base"], str):
            raise SweepError("sweep.base", f"expected a file name, got {sw['base']!r}")
        base: Any = Path(root) / sw["base"]
        if not base.is_file():
            raise SweepError("sweep.base", f"no scenario file at {base}")
        base = load(base)
    else:
        if not isinstance(doc["base"], dict):
            raise SweepError("base", "expected a table holding a scenario")
        base = doc["base"]
    for key in ("axes", "set"):
        if key in sw and not isinstance(sw[key], dict):
            raise SweepError(f"sweep.{key}", "expected a table of path = value")
    zipped = sw.get("zip", [])
    if not isinstance(zipped, list) or not all(isinstance(z, dict) for z in zipped):
        raise SweepError("sweep.zip", "expected [[sweep.zip]] tables of path = [values]")
    return Sweep(
        base,
        _flatten(sw.get("axes", {}), "sweep.axes", leaf_lists=True),
        zipped=[_flatten(z, f"sweep.zip[{i}]", leaf_lists=True) for i, z in enumerate(zipped)],
        replications=sw.get("replications"),
        seeds=sw.get("seeds"),
        overrides=_flatten(sw.get("set", {}), "sweep.set", leaf_lists=False),
        name=sw.get("name", default_name),
    )


def load_sweep(path: str | os.PathLike) -> Sweep:
    """Reads a sweep TOML file (see the README's "Sweeps")."""
    p = Path(path)
    return from_dict(load(p), root=p.parent, default_name=p.stem)


def is_sweep_file(path: str | os.PathLike) -> bool:
    """Whether a TOML file is a sweep (has a top-level ``[sweep]`` table)."""
    return isinstance(load(path).get("sweep"), dict)
