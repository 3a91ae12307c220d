"""The only place that touches the compiled module ``ccsim._core``.

It is imported lazily so that the pure-Python parts (builders, results, plots, metrics) work
without a build, and every core call translates the core's exception into
:class:`ccsim.ScenarioError`, so users never see two exception classes for the same problem.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from .errors import ScenarioError


def core() -> ModuleType:
    """Returns ``ccsim._core``, with a clear message when it has not been built."""
    try:
        # importlib (not a static import) so tests can substitute a module in sys.modules.
        return importlib.import_module("ccsim._core")
    except ImportError as e:
        raise ImportError(
            "ccsim's compiled core (ccsim._core) is not available; build it with "
            "`maturin develop --release` or install the package with pip"
        ) from e


def version() -> str:
    """Version of the compiled core."""
    return core().version()


def source() -> str:
    """A fingerprint of the source the compiled core was built from (16 hex digits)."""
    return core().source()


def core_id() -> str:
    """The core's version and source fingerprint, ``"<version>+<source>"``: what a result
    computed by this core depends on besides its scenario (sweeps key cached points by it)."""
    return f"{version()}+{source()}"


def build() -> str:
    """How the compiled core was built: "release" or "debug", with ", PGO" for a
    profile-guided build (bench/pgo.py) and ", native" for one compiled for the building
    machine's processor."""
    return core().build()


def schema() -> dict[str, Any]:
    """The scenario JSON Schema, as a dict."""
    return json.loads(core().schema())


def validate_json(text: str) -> None:
    """Validates a JSON-encoded scenario; raises :class:`ScenarioError`."""
    mod = core()
    try:
        mod.validate(text)
    except mod.ScenarioError as e:
        raise ScenarioError.from_core(e) from None


def simulation(text: str, external: list | None = None) -> Any:
    """Builds a ``_core.Simulation`` from a JSON-encoded scenario, with the factories of the
    congestion controls written in Python that its ``{"kind": "external", "slot": k}`` name
    (:mod:`ccsim.cc`); raises :class:`ScenarioError`."""
    mod = core()
    try:
        return mod.Simulation(text, external) if external else mod.Simulation(text)
    except mod.ScenarioError as e:
        raise ScenarioError.from_core(e) from None
