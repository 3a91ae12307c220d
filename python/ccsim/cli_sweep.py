"""``ccsim sweep FILE.toml``: run a sweep file, write its tables, report failures."""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

EXIT_FAILED_POINTS = 1  # the sweep ran, but some points failed or did not run
EXIT_INTERRUPTED = 130  # as a shell reports a process stopped by SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM  # as a shell reports a process stopped by SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (``kill``, a batch scheduler's time limit): handled as Ctrl-C is, so the
    pool's workers are stopped and the finished points kept, instead of dying at once and
    leaving the workers running."""


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While the sweep runs, SIGTERM raises :class:`Terminated` in the main thread. A second
    SIGTERM during the clean-up kills at once (the default action); the workers then exit by
    themselves when they see their parent gone (``sweep_exec._exit_with_parent``)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def handler(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
    except ValueError as e:  # a malformed address; see sweep_exec.check_address
        print(f"error: --dask: {e}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as e:
        print(f"error: cannot reach the Dask scheduler at {args.dask}: {e}", file=sys.stderr)
        return EXIT_FAILED_POINTS
    out = Path(args.output) if args.output else sweep_dir(spec.name or Path(args.file).stem)
    try:
        with _sigterm_as_interrupt():
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
    except KeyboardInterrupt as e:
        how = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        print(
            f"{how}: the finished points are kept in {out}; run the same command to "
            "compute the rest",
            file=sys.stderr,
        )
        return EXIT_TERMINATED if isinstance(e, Terminated) else EXIT_INTERRUPTED
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
