"""What the reproduction scripts share: their command line's common options, and running (or
resuming) one sweep with the timing of its last full computation kept beside its points."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import ccsim

ROOT = Path(__file__).resolve().parent.parent.parent


def parser(doc: str) -> argparse.ArgumentParser:
    """A script's argument parser, described by its docstring's first paragraph, with the
    options every reproduction takes: ``--workers`` and ``--force``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    ap.add_argument("--force", action="store_true", help="rerun points already on disk")
    return ap


def shown(path: Path) -> str:
    """``path`` relative to the repository, where it lies inside it."""
    path = path.resolve()
    return (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix()


def keep_timing(timing: dict, record: Path, complete: bool) -> dict:
    """Writes ``timing`` to ``record`` if this invocation computed everything (a cached rerun
    takes seconds and says nothing about the cost of the work), and returns it with ``full``:
    the last such record, or None if there never was one."""
    if complete:
        record.write_text(json.dumps(timing))
    return {**timing, "full": json.loads(record.read_text()) if record.exists() else None}


def run_grid(
    spec: ccsim.Sweep | str | Path,
    output: Path,
    workers: int,
    force: bool,
    shared: frozenset = frozenset(),
) -> dict:
    """Runs (or resumes) one sweep into ``output``; returns its flows, queues and points
    tables and its timing. The timing of the last invocation that computed all of the grid's
    own points is kept in ``output / "<sweep name>_timing.json"``;
    ``shared``: the keys of points that belong to another grid run before this one in the same
    directory (they are that grid's cost, not this one's)."""
    sw = spec if isinstance(spec, ccsim.Sweep) else ccsim.load_sweep(spec)
    done: list[ccsim.PointDone] = []
    t0 = time.perf_counter()
    flows = ccsim.sweep(sw, output=output, workers=workers, force=force, on_point=done.append)
    elapsed = time.perf_counter() - t0
    queues = ccsim.sweep(sw, output=output, workers=workers, table="queues", progress=False)
    points = ccsim.sweep(sw, output=output, workers=workers, table="points", progress=False)
    own = len(set(points["key"]) - shared)
    timing = {
        "name": sw.name,
        "output": shown(output),
        "points": len(points),
        "own": own,
        "computed": len(done),
        "elapsed_s": elapsed,
        "workers": workers,
        "sim_wall_s": float(points["wall_s"].sum()),
        "sim_s": float(flows.groupby("point")["end_s"].max().sum()),
    }
    timing = keep_timing(timing, output / f"{sw.name}_timing.json", len(done) == own)
    print(f"{sw.name}: {len(points)} points, {len(done)} computed, {elapsed:.1f} s")
    return {"flows": flows, "queues": queues, "points": points, "timing": timing}
