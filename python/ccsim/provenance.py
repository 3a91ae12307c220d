"""What computed a result and when: written into every run's ``meta.json``, as sweeps write it
into their points and manifest (``sweep_run``), so a result found on disk months later says
which ccsim made it."""

from __future__ import annotations

import time
from typing import Any

from . import _native


def build_info() -> dict[str, str]:
    """The ccsim that computes results here.

    ``ccsim_version``: the version (``ccsim.__version__``); ``core_id``: the compiled core's
    version and a fingerprint of the source it was built from, ``"<version>+<16 hex digits>"``
    (sweeps key cached points by it, so a core rebuilt from changed source recomputes them);
    ``core_build``: how the core was compiled (``"release"`` or ``"debug"``, with ``", PGO"``
    for a profile-guided build and ``", native"`` for one compiled for the building machine's
    processor). Raises ``ImportError`` when the core has not been built.
    """
    return {
        "ccsim_version": _native.version(),
        "core_id": _native.core_id(),
        "core_build": _native.build(),
    }


def timestamp() -> str:
    """The local time with its UTC offset, ISO 8601 (``2025-03-01T14:05:09+0100``), as sweeps
    write ``finished_at``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def stamp(meta: dict[str, Any]) -> None:
    """Adds :func:`build_info` and ``finished_at`` (:func:`timestamp`) to a result's meta."""
    meta.update(build_info())
    meta["finished_at"] = timestamp()
