"""What the reproduction scripts share: their command line's common options, and running (or
resuming) one sweep with the timing of its last full computation kept beside its points."""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ccsim

ROOT = Path(__file__).resolve().parent.parent.parent


def parser(doc: str, quick: str, dask: bool = False, force: bool = True) -> argparse.ArgumentParser:
    """A script's argument parser, described by its docstring's first paragraph, with the
    options every reproduction takes: ``--workers``, ``--quick`` (``quick`` says what its
    reduced run is) with ``--headline PATH``, and with ``force`` (a script that keeps its
    runs on disk) ``--force``; with ``dask``, also ``--dask ADDRESS`` (only for a script
    whose grids all go through :func:`run_grid` with the client of :func:`dask_client`:
    elsewhere the option would be ignored). Parse with :func:`parse`."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    pool = ap.add_mutually_exclusive_group() if dask else ap
    pool.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    if dask:
        pool.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="run the grids on the Dask scheduler at ADDRESS (tcp://host:8786); the "
            "single runs (figures, checks) stay in this process",
        )
    if force:
        ap.add_argument("--force", action="store_true", help="rerun points already on disk")
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"{quick}: print the headline numbers as JSON (with --headline PATH: write them "
        "there); no figures, no report",
    )
    ap.add_argument("--headline", type=Path, metavar="PATH", help="with --quick: write them here")
    return ap


def parse(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``ap``'s arguments, with the checks every reproduction makes."""
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error(f"--workers: must be at least 1, got {args.workers}")
    if args.headline and not args.quick:
        ap.error("--headline: only with --quick")
    return args


@contextlib.contextmanager
def dask_client(ap: argparse.ArgumentParser, address: str | None) -> Iterator[Any]:
    """The ``distributed.Client`` of the scheduler at ``address`` while the block runs (None
    without an address); a malformed or unreachable address ends the script with a one-line
    error, as ``ccsim sweep --dask`` does."""
    if not address:
        yield None
        return
    from ccsim.sweep_exec import DaskCluster

    try:
        cluster = DaskCluster.connect(address)
    except ValueError as e:  # a malformed address (sweep_exec.check_address)
        ap.error(f"--dask: {e}")
    except (OSError, TimeoutError) as e:
        ap.exit(1, f"error: cannot reach the Dask scheduler at {address}: {e}\n")
    try:
        yield cluster.client
    finally:
        cluster.client.close()


def headline(numbers: dict, path: Path | None) -> None:
    """Quick mode's headline numbers as JSON: written to ``path`` (``--headline``, the file the
    tests compare with), else printed."""
    text = json.dumps(numbers, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if path:
        path.write_text(text)
    else:
        print(text)


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
    client: Any = None,
) -> dict:
    """Runs (or resumes) one sweep into ``output``; returns its flows, queues and points
    tables and its timing. The timing of the last invocation that computed all of the grid's
    own points is kept in ``output / "<sweep name>_timing.json"``;
    ``shared``: the keys of points that belong to another grid run before this one in the same
    directory (they are that grid's cost, not this one's). ``client``: a
    ``distributed.Client`` to run the points on instead of ``workers`` local processes
    (``workers`` is then only recorded in the timing)."""
    sw = spec if isinstance(spec, ccsim.Sweep) else ccsim.load_sweep(spec)
    done: list[ccsim.PointDone] = []
    t0 = time.perf_counter()
    pool: dict[str, Any] = {"client": client} if client is not None else {"workers": workers}
    flows = ccsim.sweep(sw, output=output, force=force, on_point=done.append, **pool)
    elapsed = time.perf_counter() - t0
    queues = ccsim.sweep(sw, output=output, table="queues", progress=False, **pool)
    points = ccsim.sweep(sw, output=output, table="points", progress=False, **pool)
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
