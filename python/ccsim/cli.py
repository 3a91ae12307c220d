"""The ``ccsim`` command: run, validate, sweep, schema."""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import _native
from .cli_reproduce import add_reproduce_parser
from .cli_sweep import add_sweep_parser
from .clip import clip_flows, clip_hint
from .errors import ScenarioError
from .overrides import parse_value, split_assignment
from .plot import FIGURE_FORMATS
from .result import check_save_target
from .runner import prepare, run, validate
from .scenario import default_scenario, load

EXIT_USAGE = 2  # a bad scenario, file or option: the user's input, as argparse uses 2


def _version() -> str:
    from . import __version__

    return f"ccsim {__version__}"


def parse_sets(items: Sequence[str] | None) -> dict[str, Any]:
    """``["flows.tcp1.tcp.cc=cubic", ...]`` → ``{path: value}``, values via :func:`parse_value`."""
    out: dict[str, Any] = {}
    for item in items or ():
        # At the first `=` outside brackets: a filter's `=` (flows[kind=tcp]) is the path's.
        split = split_assignment(item)
        if split is None or not split[0].strip():
            raise ScenarioError(
                "--set",
                "expected PATH=VALUE (e.g. flows.tcp1.tcp.cc=reno or "
                f"flows[kind=tcp].tcp.cc=reno), got {item!r}",
            )
        path, text = split
        out[path.strip()] = parse_value(text.strip())
    return out


def _scenario_from(file: str | None) -> dict[str, Any]:
    return load(file) if file else default_scenario()


def _results_dir(name: str) -> Path:
    """``results/<name>-<YYYYmmdd-HHMMSS>``, with a suffix if that exists already."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "scenario"
    base = Path("results") / f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def _scenario(args: argparse.Namespace) -> dict[str, Any]:
    """The scenario to run or check: FILE (the built-in default without one) with --seed,
    --set, --engine and --clip applied."""
    overrides = parse_sets(args.set)  # option syntax first: cheaper than a bad run
    if args.engine:
        overrides["engine"] = args.engine
    base = _scenario_from(args.file)
    if isinstance(base.get("sweep"), dict):
        # Else the core says "unknown field `sweep`", which does not tell what to do.
        raise ScenarioError(
            "sweep",
            f"{args.file} is a sweep file (it has a [sweep] table), not a scenario: "
            f"run it with `ccsim sweep {args.file}`",
        )
    d = prepare(base, seed=args.seed, overrides=overrides)
    if args.clip:
        for line in clip_flows(d):
            print(f"clipped: {line}", file=sys.stderr)
    return d


# A flow's start or stop: the paths the core names when one lies past the end of the run.
_FLOW_TIME = re.compile(r"flows\[\d+\]\.(start|stop)")


@contextlib.contextmanager
def _clip_hint(d: dict[str, Any], clip: bool) -> Iterator[None]:
    """Adds to the core's error about one flow past the end of the run every such flow and
    the option that fits them (``--set duration=10s`` on a scenario with later flows)."""
    try:
        yield
    except ScenarioError as e:
        hint = None if clip or not _FLOW_TIME.fullmatch(e.path) else clip_hint(d)
        if hint is None:
            raise
        raise ScenarioError(e.path, f"{e.message}\n  {hint}") from None


def cmd_run(args: argparse.Namespace) -> int:
    d = _scenario(args)
    if args.output:  # before running: a long run should not end in a refusal
        check_save_target(Path(args.output), args.overwrite, how="pass --overwrite")
    with _clip_hint(d, args.clip):
        result = run(d, progress=not args.quiet)
    out = Path(args.output) if args.output else _results_dir(result.name)
    result.save(out, figures=not args.no_figures, fmt=args.figure_format, overwrite=args.overwrite)
    if args.quiet:
        print(out)
        return 0
    m = result.meta
    print(result.summary_table())
    print()
    print(f"results: {out}")
    print(
        f"wall time: {m['wall_s']:.2f} s for {m.get('duration_s', float('nan')):g} s simulated"
        f" ({m.get('events', 0):,} events)"
    )
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    d = _scenario(args)
    with _clip_hint(d, args.clip):
        validate(d)
    # The schema's default name, for a file that gives none.
    print(f"ok: {d.get('name', 'scenario')}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    if args.sweep:
        from .sweep_schema import sweep_schema

        schema = sweep_schema()
    else:
        schema = _native.schema()
    text = json.dumps(schema, indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ccsim",
        description="Packet-level simulator for TCP congestion-control research.",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def scenario_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--seed", type=int, help="replace the scenario's seed")
        sp.add_argument(
            "--engine",
            choices=["fast", "reference"],
            help="forwarding route: fast (default) or reference, where every packet moves "
            "by its own events (same results, slower)",
        )
        sp.add_argument(
            "--set",
            action="append",
            metavar="PATH=VALUE",
            help="override one value, e.g. --set flows.tcp1.tcp.cc=reno, "
            "--set 'flows[kind=tcp].tcp.cc=reno' (every TCP flow) or "
            "--set topology.bottleneck.rate=20Mbps (repeatable; split at the first = outside "
            "brackets; VALUE is TOML, else text)",
        )
        sp.add_argument(
            "--clip",
            action="store_true",
            help="fit the flows into the run's duration (after --set duration=...): leave out "
            "those that start at or after the end, end the others' stop there",
        )

    r = sub.add_parser(
        "run",
        help="run a scenario (the built-in default without FILE)",
        description="Runs a scenario and writes its results to a new directory, "
        "results/NAME-YYYYmmdd-HHMMSS (NAME the scenario's name, under the current directory), "
        "or to -o DIR: flows.parquet and queues.parquet (one row per flow / link direction), "
        "trace_SERIES.parquet per recorded series, packets.parquet when packets are traced, "
        "meta.json (run facts, ccsim version, core build, time), scenario.json (the scenario "
        "that ran) and figures. ccsim.Result.load(DIR) reads it back.",
    )
    r.add_argument("file", nargs="?", metavar="FILE.toml", help="scenario file")
    r.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="results directory (default results/NAME-YYYYmmdd-HHMMSS, NAME the scenario's); "
        "it must be new or empty",
    )
    r.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the saved result in -o DIR as a whole (written beside it, then renamed "
        "into its place; a directory holding other files is still refused)",
    )
    scenario_options(r)
    r.add_argument(
        "-q", "--quiet", action="store_true", help="no progress; print only the results directory"
    )
    r.add_argument("--no-figures", action="store_true", help="do not draw figures")
    r.add_argument(
        "--figure-format",
        choices=FIGURE_FORMATS,
        default="png",
        help="file format of the figures (default png)",
    )
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario without running it")
    v.add_argument("file", metavar="FILE.toml", help="scenario file")
    scenario_options(v)
    v.set_defaults(func=cmd_validate)

    add_sweep_parser(sub)
    add_reproduce_parser(sub)

    s = sub.add_parser(
        "schema",
        help="print the JSON Schema of scenario files",
        description="Prints the JSON Schema (draft 2020-12) that scenario files follow, from "
        "the compiled core: every field and what it accepts. Editors and validators "
        "(e.g. the jsonschema package, taplo for TOML) can check scenario files with it.",
    )
    s.add_argument("-o", "--output", metavar="FILE", help="write it to FILE instead of stdout")
    s.add_argument("--sweep", action="store_true", help="the schema of sweep files instead")
    s.set_defaults(func=cmd_schema)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ccsim`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (
        FileNotFoundError,
        FileExistsError,
        IsADirectoryError,
        NotADirectoryError,
        PermissionError,
    ) as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
