"""``ccsim sweep FILE.toml``: run a sweep file, write its tables, report failures."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

EXIT_FAILED_POINTS = 1  # the sweep ran, but some points failed or did not run
EXIT_INTERRUPTED = 130  # as a shell reports a process stopped by SIGINT


def sweep_dir(name: str) -> Path:
    """``results/<name>``: fixed, not timestamped, so running the file again resumes it."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "sweep"
    return Path("results") / safe


def cmd_sweep(args: argparse.Namespace) -> int:
    from .cli import parse_sets
    from .sweep_exec import DaskCluster
    from .sweep_run import execute
    from .sweep_spec import load_sweep

    overrides = parse_sets(args.set)
    spec = load_sweep(args.file)
    if args.dask and args.workers is not None:
        print(
            "error: --workers sets the local pool; with --dask the cluster decides", file=sys.stderr
        )
        return 2
    try:
        cluster = DaskCluster.connect(args.dask) if args.dask else None
    except (OSError, TimeoutError) as e:
        print(f"error: cannot reach the Dask scheduler at {args.dask}: {e}", file=sys.stderr)
        return EXIT_FAILED_POINTS
    out = Path(args.output) if args.output else sweep_dir(spec.name or Path(args.file).stem)
    try:
        outcome = execute(
            spec,
            overrides=overrides,
            output=out,
            workers=args.workers,
            client=cluster.client if cluster else None,
            force=args.force,
            progress=not args.quiet,
            dry_run=args.dry_run,
        )
    except KeyboardInterrupt:
        print(
            f"interrupted: the finished points are kept in {out}; run the same command to "
            "compute the rest",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        if cluster is not None:
            cluster.client.close()
    if args.dry_run:
        n, d = len(outcome.points), outcome.distinct
        print(
            f"ok: {n} valid points ({d} distinct scenarios): {outcome.cached} already in {out}, "
            f"{outcome.missing} to run"
        )
        return 0
    saved = outcome.save_tables(out)
    report = outcome.report()
    if args.quiet:
        print(out)
    else:
        print(report.splitlines()[0])
        print(f"results: {out} ({', '.join(p.name for p in saved)})")
    if outcome.failed or outcome.missing:
        for line in report.splitlines()[1:]:
            print(line, file=sys.stderr)
        return EXIT_FAILED_POINTS
    return 0


def add_sweep_parser(sub: argparse._SubParsersAction) -> None:
    sp = sub.add_parser(
        "sweep",
        help="run a parameter sweep file (resumable)",
        description="Runs every point of a sweep file. Finished points are kept in the output "
        "directory, so running the same command again computes only the missing ones.",
    )
    sp.add_argument("file", metavar="FILE.toml", help="sweep file (a [sweep] table)")
    sp.add_argument("-o", "--output", metavar="DIR", help="output directory (results/<name>)")
    sp.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="local worker processes (default: one per core; 0 runs in this process)",
    )
    sp.add_argument(
        "--dask", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS (tcp://host:8786)"
    )
    sp.add_argument("--force", action="store_true", help="rerun points already in the output")
    sp.add_argument(
        "--dry-run",
        action="store_true",
        help="validate every point and count those already done; run nothing",
    )
    sp.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar; print only the directory"
    )
    sp.add_argument(
        "--set",
        action="append",
        metavar="PATH=VALUE",
        help="override one value of the base scenario (repeatable), as for `ccsim run`",
    )
    sp.set_defaults(func=cmd_sweep)
