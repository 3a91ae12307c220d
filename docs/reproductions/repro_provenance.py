"""Where a reproduction report came from: the ccsim that computed it (``ccsim.build_info``),
the git commit of the repository, the date (``ccsim.provenance.timestamp``) and the command
that wrote it, as one Markdown paragraph for the top of the report (issue 34)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ccsim
from ccsim.provenance import timestamp

ROOT = Path(__file__).resolve().parents[2]


def git_commit() -> str:
    """The short hash of HEAD, with ``+ uncommitted changes`` when the work tree differs from
    it (the report then describes code no commit holds); ``unknown`` outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def command_line(argv: list[str] | None = None) -> str:
    """The command as it was typed, from the repository root: ``python <script> <args>``."""
    args = sys.argv if argv is None else argv
    script = Path(args[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return " ".join(["python", shown.as_posix(), *args[1:]])


def provenance(argv: list[str] | None = None) -> str:
    """One paragraph: ccsim version and core build, commit, date, command."""
    info = ccsim.build_info()
    return (
        f"*Provenance:* ccsim {info['ccsim_version']} (core `{info['core_id']}`, "
        f"{info['core_build']} build), repository commit `{git_commit()}`, written "
        f"{timestamp()} by `{command_line(argv)}`."
    )
