"""The ``ccsim`` command: run, validate, sweep, schema."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import _native
from .cli_sweep import add_sweep_parser
from .errors import ScenarioError
from .overrides import parse_value
from .plot import FIGURE_FORMATS
from .runner import run, validate
from .scenario import default_scenario, load

EXIT_USAGE = 2  # a bad scenario, file or option: the user's input, as argparse uses 2


def _version() -> str:
    from . import __version__

    return f"ccsim {__version__}"


def parse_sets(items: Sequence[str] | None) -> dict[str, Any]:
    """``["flows.tcp1.tcp.cc=cubic", ...]`` → ``{path: value}``, values via :func:`parse_value`."""
    out: dict[str, Any] = {}
    for item in items or ():
        path, sep, text = item.partition("=")
        if not sep or not path.strip():
            raise ScenarioError(
                "--set", f"expected PATH=VALUE (e.g. flows.tcp1.tcp.cc=reno), got {item!r}"
            )
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


def cmd_run(args: argparse.Namespace) -> int:
    overrides = parse_sets(args.set)  # option syntax first: cheaper than a bad run
    result = run(
        _scenario_from(args.file), seed=args.seed, overrides=overrides, progress=not args.quiet
    )
    out = Path(args.output) if args.output else _results_dir(result.name)
    result.save(out, figures=not args.no_figures, fmt=args.figure_format)
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
    overrides = parse_sets(args.set)
    d = validate(_scenario_from(args.file), seed=args.seed, overrides=overrides)
    # The schema's default name, for a file that gives none.
    print(f"ok: {d.get('name', 'scenario')}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    if args.sweep:
        from .sweep_schema import sweep_schema

        print(json.dumps(sweep_schema(), indent=2))
    else:
        print(json.dumps(_native.schema(), indent=2))
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
            "--set",
            action="append",
            metavar="PATH=VALUE",
            help="override one value, e.g. --set flows.tcp1.tcp.cc=reno or "
            "--set topology.bottleneck.rate=20Mbps (repeatable; VALUE is TOML, "
            "else text)",
        )

    r = sub.add_parser("run", help="run a scenario (the built-in default without FILE)")
    r.add_argument("file", nargs="?", metavar="FILE.toml", help="scenario file")
    r.add_argument("-o", "--output", metavar="DIR", help="results directory")
    scenario_options(r)
    r.add_argument("-q", "--quiet", action="store_true", help="print only the results directory")
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

    s = sub.add_parser("schema", help="print the scenario JSON Schema")
    s.add_argument("--sweep", action="store_true", help="the sweep file schema instead")
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
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as e:
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
