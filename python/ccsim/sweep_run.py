"""Running a sweep: validate every point, skip the finished ones, run the rest, collect tables.

``ccsim.sweep`` (one DataFrame) and ``ccsim sweep`` (files and a report) both go through
:func:`execute`.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _native, cc_ref
from .errors import SweepError, SweepFailed
from .progress import ProgressBar
from .sweep_cost import estimates, longest_first
from .sweep_exec import DaskCluster, InProcess, LocalPool, WorkerDied
from .sweep_spec import Point, Sweep, check, invalid_report, is_sweep_file, load_sweep
from .sweep_store import FORMAT, Store, canonical_json, point_key

TABLES = ("flows", "queues", "points", "series", "packets")
# What a finished point holds: its record, and its flows, queues, series and packet tables.
Tables = tuple[dict, pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]


@dataclass
class PointDone:
    """Passed to ``on_point`` as each point finishes: its status, error text and wall time."""

    point: Point
    key: str
    status: str  # "ok" or "failed"
    error: str
    wall_s: float
    worker: dict[str, Any]


@dataclass
class SweepOutcome:
    """What :func:`execute` did, and the three tables over the sweep's points."""

    name: str
    points: list[Point]
    axes: list[str]
    keys: dict[int, str]  # point index → key
    output: Path | None
    computed: int = 0  # distinct scenarios run now
    cached: int = 0  # distinct scenarios found done in the output directory
    failed: dict[str, str] = field(default_factory=dict)  # key → error
    missing: int = 0  # distinct scenarios that did not run (a worker died)
    stopped: str = ""  # why they did not run
    wall_s: float = 0.0
    results: dict[str, Tables] = field(default_factory=dict)
    cached_keys: set[str] = field(default_factory=set)

    @property
    def distinct(self) -> int:
        return len(set(self.keys.values()))

    def _prefix(self, pt: Point) -> dict[str, Any]:
        return {
            "point": pt.index,
            "key": self.keys[pt.index],
            **{p: _cell(v) for p, v in pt.axes.items()},
            "replication": pt.replication,
            "seed": pt.seed,
        }

    def table(self, which: str = "flows") -> pd.DataFrame:
        """``flows``, ``queues``, ``series`` or ``packets``: that table of every finished point
        (one row per flow, link direction, recorded time-series point — ``Result.all_series`` —
        or traced packet event — ``Result.packets``), led by the point's columns (``point``,
        ``key``, the axis paths, ``replication``, ``seed``); ``points``: one row per point with
        its status."""
        if which not in TABLES:
            raise ValueError(f"table must be one of {', '.join(TABLES)}, not {which!r}")
        if which == "points":
            df = pd.DataFrame([self._point_row(pt) for pt in self.points])
        else:
            df = self._rows({"flows": 1, "queues": 2, "series": 3, "packets": 4}[which])
        df.attrs["axes"] = list(self.axes)
        return df

    def _point_row(self, pt: Point) -> dict[str, Any]:
        key = self.keys[pt.index]
        record = self.results[key][0] if key in self.results else {}
        status = "ok" if key in self.results else "failed" if key in self.failed else "missing"
        return {
            **self._prefix(pt),
            "status": status,
            "error": self.failed.get(key, ""),
            "cached": key in self.cached_keys,
            "wall_s": float(record.get("wall_s", np.nan)),
            "events": record.get("meta", {}).get("events", np.nan),
        }

    def _rows(self, which: int) -> pd.DataFrame:
        frames: list[pd.DataFrame] = []
        columns: list[str] = []
        for pt in self.points:
            key = self.keys[pt.index]
            if key not in self.results:
                continue
            body: pd.DataFrame = self.results[key][which]
            columns = columns or list(body.columns)
            if body.empty:
                continue  # joining an empty head would turn the point's integer columns to float
            head = pd.DataFrame({c: [v] * len(body) for c, v in self._prefix(pt).items()})
            frames.append(pd.concat([head, body.reset_index(drop=True)], axis=1))
        if not frames:
            prefix = list(self._prefix(self.points[0])) if self.points else []
            return pd.DataFrame(columns=prefix + columns)
        return pd.concat(frames, ignore_index=True)

    def failures(self) -> pd.DataFrame:
        """One row per point that failed: its columns and the error."""
        rows = [
            {**self._prefix(pt), "error": self.failed[self.keys[pt.index]]}
            for pt in self.points
            if self.keys[pt.index] in self.failed
        ]
        return pd.DataFrame(rows)

    def save_tables(self, directory: str | os.PathLike) -> list[Path]:
        """``summary.parquet`` and ``summary.csv`` (flows), ``queues.parquet``, ``points.csv``,
        ``series.parquet`` where the points recorded time series, and ``packets.parquet``
        where they traced packets and the outcome kept them (``keep_packets``)."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        flows, queues, points, series, packets = (self.table(t) for t in TABLES)
        written = [out / "summary.parquet", out / "summary.csv", out / "queues.parquet"]
        _parquet_safe(flows).to_parquet(written[0], index=False)
        flows.to_csv(written[1], index=False)
        _parquet_safe(queues).to_parquet(written[2], index=False)
        points.to_csv(out / "points.csv", index=False)
        written.append(out / "points.csv")
        if len(series):
            written.append(out / "series.parquet")
            _parquet_safe(series).to_parquet(written[-1], index=False)
        if len(packets):
            written.append(out / "packets.parquet")
            _parquet_safe(packets).to_parquet(written[-1], index=False)
        return written

    def report(self) -> str:
        """``40 points: 30 run, 8 cached, 2 failed in 12.3 s`` and one line per failure."""
        n = len(self.points)
        dup = f" ({self.distinct} distinct scenarios)" if self.distinct != n else ""
        parts = [f"{self.computed} run", f"{self.cached} cached"]
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.missing:
            parts.append(f"{self.missing} not run")
        lines = [f"{n} points{dup}: {', '.join(parts)} in {self.wall_s:.1f} s"]
        for _, row in self.failures().iterrows():
            pt = self.points[int(row["point"])]
            lines.append(f"  failed: point {pt.index} ({pt.label()}): {row['error']}")
        if self.missing:
            kept = (
                f"the finished points are kept in {self.output}; run the sweep again to "
                "compute the rest"
                if self.output is not None
                else "give the sweep an output directory to keep finished points across runs"
            )
            lines.append(f"  not run: {self.missing} point(s): {self.stopped}; {kept}")
        return "\n".join(lines)


def _cell(value: Any) -> Any:
    # Tables and lists as axis values (a whole loss model) become JSON text, so the column
    # can be grouped on and written to Parquet; a Python algorithm, its name and attributes.
    value = cc_ref.plain(value)
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _parquet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns holding mixed types (an axis [2, "rfc3390"]) as text, which Parquet
    can store; other columns unchanged."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object and len({type(v) for v in out[col]}) > 1:
            out[col] = out[col].map(str)
    return out


def _executor(workers: int | None, client: Any):
    if client is not None:
        if workers is not None:
            raise SweepError("workers", "give `workers` (local pool) or a Dask client, not both")
        return DaskCluster(client)
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 0
    ):
        raise SweepError(
            "workers",
            f"expected a number of processes ≥ 1, or 0 to run in this process; got {workers!r}",
        )
    return InProcess() if workers == 0 else LocalPool(workers)


def _same_core(payload: dict, version: str) -> dict:
    """The payload, or a failure if a worker computed it with another core than this process's:
    its result would be kept under this core's key. On a cluster every worker must run the
    same build (docs/guide/clusters.md)."""
    other = payload.get("meta", {}).get("core_id") if payload["ok"] else None
    if other is None or other == version:
        return payload
    where = payload.get("worker", {})
    return {
        "ok": False,
        "error": (
            f"the worker ({where.get('host', '?')}, pid {where.get('pid', '?')}) runs ccsim "
            f"core {other}, not this sweep's {version}: install the same ccsim build on every "
            "worker (see the cluster guide); the point is not kept"
        ),
        "traceback": "",
        "wall_s": payload.get("wall_s"),
        "worker": where,
    }


def _record(pt: Point, key: str, version: str, scenario: dict, payload: dict) -> dict:
    record = {
        "format": FORMAT,
        "key": key,
        "version": version,
        "status": "ok" if payload["ok"] else "failed",
        "axes": cc_ref.plain(pt.axes),
        "replication": pt.replication,
        "seed": pt.seed,
        "wall_s": payload.get("wall_s"),
        "worker": payload.get("worker", {}),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "scenario": scenario,
    }
    if payload["ok"]:
        record["meta"] = payload["meta"]
    else:
        record["error"] = payload["error"]
        record["traceback"] = payload.get("traceback", "")
    return record


def execute(
    spec: Sweep,
    *,
    overrides: Mapping[str, Any] | None = None,
    output: str | os.PathLike | None = None,
    workers: int | None = None,
    client: Any = None,
    force: bool = False,
    progress: bool = True,
    on_point: Callable[[PointDone], None] | None = None,
    dry_run: bool = False,
    keep_packets: bool = True,
    order: str = "longest-first",
) -> SweepOutcome:
    """Runs a sweep; returns what happened (it raises only for bad input or an interrupt).

    Every point is validated first; any invalid point raises :class:`SweepError` listing
    all of them. With ``output``, points already there are not run again (unless ``force``)
    and each finished point is written as it arrives. ``dry_run``: stop after validating
    and counting what is cached; nothing is written. ``keep_packets=False``: points' packet
    traces are written to ``output`` but not kept in memory (they can be large), so the
    outcome's packets table is empty. ``order``: ``"longest-first"`` hands the points to the
    workers by decreasing expected cost (:mod:`ccsim.sweep_cost`), so that no long point is
    left for the end while the other workers idle; ``"points"`` in the sweep's point order
    (for comparison, as ``bench/sweep_scaling.py`` does). The order changes no result.
    """
    if order not in ("longest-first", "points"):
        raise ValueError(f"order must be 'longest-first' or 'points', not {order!r}")
    t0 = time.perf_counter()
    base = spec.base_scenario(overrides)
    points = spec.points(base)
    scenarios, invalid = check(base, points)
    if invalid:
        raise SweepError("", invalid_report(invalid, len(points)), invalid)
    executor = _executor(workers, client)  # bad options fail before anything is written

    # The version and the source fingerprint: a core rebuilt from changed source computes its
    # points afresh instead of taking the old core's from the output directory.
    version = _native.core_id()
    texts: dict[str, str] = {}
    keys: dict[int, str] = {}
    first: dict[str, Point] = {}  # the first point of each distinct scenario
    for pt in points:
        text = canonical_json(scenarios[pt.index])
        key = point_key(text, version)
        keys[pt.index] = key
        texts.setdefault(key, text)
        first.setdefault(key, pt)

    name = spec.name or f"{base.get('name', 'scenario')}-sweep"
    store = Store(output) if output is not None else None
    out = SweepOutcome(name, points, spec.axis_paths, keys, store.root if store else None)
    if store is not None:
        if not dry_run:
            store.create()
            store.write_manifest(_manifest(spec, name, version, points, keys))
        if not force:
            for key in texts:
                cached = _cached(store, key)
                if cached is not None:
                    if not keep_packets:
                        cached = (*cached[:4], cached[4].iloc[:0])
                    out.results[key] = cached
                    out.cached_keys.add(key)
    out.cached = len(out.cached_keys)
    todo = [(key, text) for key, text in texts.items() if key not in out.cached_keys]
    if dry_run:
        out.missing = len(todo)
        out.stopped = "dry run"
        return out
    if order == "longest-first":
        costs = estimates({key: scenarios[first[key].index] for key, _ in todo})
        todo = [(key, texts[key]) for key in longest_first(costs, [key for key, _ in todo])]

    bar = ProgressBar.for_terminal(len(texts), progress, cached=out.cached)
    bar.draw()
    try:
        if todo:
            with executor as ex:
                for key, payload in ex.results(todo):
                    pt = first[key]
                    payload = _same_core(payload, version)
                    record = _record(pt, key, version, scenarios[pt.index], payload)
                    if payload["ok"]:
                        packets = payload["packets"]
                        tables = (payload["flows"], payload["queues"], payload["series"], packets)
                        if store is not None:
                            store.save_ok(key, record, *tables)
                        if not keep_packets:
                            tables = (*tables[:3], packets.iloc[:0])
                        out.results[key] = (record, *tables)
                    else:
                        if store is not None:
                            store.save_failed(key, record)
                        out.failed[key] = payload["error"]
                    out.computed += 1
                    bar.advance(failed=not payload["ok"])
                    if on_point is not None:
                        on_point(
                            PointDone(
                                pt, key, record["status"], payload.get("error", ""),
                                float(payload.get("wall_s", np.nan)), record["worker"],
                            )
                        )  # fmt: skip
    except WorkerDied as e:
        out.missing = len(texts) - out.cached - out.computed
        out.stopped = str(e)
    finally:
        bar.close()
    out.wall_s = time.perf_counter() - t0
    return out


def _cached(store: Store, key: str) -> Tables | None:
    """A done point's files, or None to run it again: a file damaged outside ccsim, or one
    written by a ccsim whose record format differs, is recomputed rather than trusted."""
    if not store.done(key):
        return None
    try:
        record, flows, queues, series, packets = store.load(key)
    except (OSError, ValueError) as e:  # names the file it could not read
        warnings.warn(f"{e}; running it again", stacklevel=3)
        return None
    if record.get("format") != FORMAT:
        return None
    for table, path in ((series, store.series_path(key)), (packets, store.packets_path(key))):
        if table is None:
            warnings.warn(f"{path} is missing; running it again", stacklevel=3)
            return None
    return record, flows, queues, series, packets


def _manifest(spec: Sweep, name: str, version: str, points: Sequence[Point], keys: dict) -> dict:
    return {
        "name": name,
        "ccsim_version": version,
        "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "groups": [{p: cc_ref.plain(v) for p, v in g} for g in spec.groups],
        "seeds": sorted({pt.seed for pt in points}),
        "points": [
            {
                "point": pt.index,
                "key": keys[pt.index],
                "axes": cc_ref.plain(pt.axes),
                "replication": pt.replication,
                "seed": pt.seed,
            }
            for pt in points
        ],
    }


def _as_sweep(spec: Any, axes: Any, options: dict[str, Any]) -> Sweep:
    given = [k for k, v in options.items() if v is not None]
    if isinstance(spec, (str, os.PathLike)) and is_sweep_file(spec):
        spec = load_sweep(spec)
    if isinstance(spec, Sweep):
        if axes is not None or given:
            what = ", ".join(["axes"] * (axes is not None) + given)
            raise TypeError(f"{what} cannot be given with a complete sweep ({spec!r})")
        return spec
    return Sweep(spec, axes, **{**options, "zipped": options["zipped"] or ()})


def sweep(
    spec: Any,
    axes: Mapping[str, Sequence[Any]] | None = None,
    *,
    zipped: Sequence[Mapping[str, Sequence[Any]]] | None = None,
    replications: int | None = None,
    seeds: Sequence[int] | None = None,
    overrides: Mapping[str, Any] | None = None,
    name: str | None = None,
    output: str | os.PathLike | None = None,
    workers: int | None = None,
    client: Any = None,
    force: bool = False,
    progress: bool = True,
    table: str = "flows",
    on_point: Callable[[PointDone], None] | None = None,
) -> pd.DataFrame:
    """Runs every point of a parameter sweep and returns one tidy DataFrame.

    ``spec``: a :class:`ccsim.Sweep`, a sweep TOML file, or a base scenario (builder, dict or
    scenario file) swept over ``axes`` (path → values, crossed) and ``zipped`` (groups of
    path → values advancing together), ``replications`` times (seeds ``base_seed + k``) or
    once per seed in ``seeds``. ``overrides``: fixed changes to the base.

    ``output``: a directory to keep each finished point in; a rerun with the same directory
    runs only the points not there yet (``force=True`` reruns all). ``workers``: local
    processes (default one per core; 0 runs in this process). ``client``: a
    ``distributed.Client`` to run on Dask instead. ``table``: ``"flows"`` (one row per point
    and flow), ``"queues"`` (per point and link direction), ``"points"`` (per point, with
    status and wall time), ``"series"`` (per point and time-series sample, for the series the
    scenario's ``trace`` records: ``Result.all_series``) or ``"packets"`` (per point and
    traced packet event: ``Result.packets``). ``on_point``: called with a
    :class:`PointDone` as each finishes.

    Raises :class:`SweepError` (a :class:`ScenarioError`) before running anything if any
    point is invalid, naming each with its axis values; :class:`SweepFailed` after running
    if points failed or a worker died (its ``frame`` holds the finished points).
    """
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
    options = {"zipped": zipped, "replications": replications, "seeds": seeds, "name": name}
    sw = _as_sweep(spec, axes, options)
    # Packet traces can be large: kept in memory only when they are the table asked for (the
    # points' files keep them in any case).
    out = execute(
        sw, overrides=overrides, output=output, workers=workers, client=client, force=force,
        progress=progress, on_point=on_point, keep_packets=table == "packets",
    )  # fmt: skip
    if output is not None:
        out.save_tables(output)
    frame = out.table(table)
    if out.failed or out.missing:
        raise SweepFailed(out.report(), frame=frame, failures=out.failures(), missing=out.missing)
    return frame
