"""ccsim: a packet-level simulator for TCP congestion-control research.

>>> import ccsim
>>> result = ccsim.run("scenarios/example.toml", overrides={"flows.tcp1.tcp.cc": "reno"})
>>> result.flows[["flow", "goodput_bps"]]
>>> result.trace("cwnd")
>>> df = ccsim.sweep("scenarios/sweeps/dumbbell-queue.toml", output="results/q")
>>> ccsim.aggregate(df, metrics=["goodput_bps"])

Scenarios are TOML files, dicts, or the builders below; all produce the structure the Rust
schema reads (``ccsim schema`` prints it as JSON Schema).
"""

# No `from __future__ import annotations` and no bare `Any` here: either would become a
# public-looking attribute of the package (ccsim.annotations, ccsim.Any).
from typing import Any as _Any

from .cc import CongestionControl, register_cc
from .errors import CongestionControlError, ScenarioError, SweepError, SweepFailed
from .metrics import completion_times, jain_index, jain_over_time, utilisation
from .overrides import parse_value, set_path
from .provenance import build_info
from .result import Result, SeriesNotRecorded
from .runner import run, validate
from .scenario import (
    Acns,
    Bernoulli,
    CbrFlow,
    Chain,
    Cobalt,
    Codel,
    DropTail,
    DualPi2,
    Dumbbell,
    Explicit,
    FqCodel,
    FqPie,
    GilbertElliott,
    Link,
    LinkOverride,
    LossList,
    OnOffFlow,
    Outage,
    Pie,
    Red,
    Scenario,
    Step,
    TcpArrivals,
    TcpFlow,
    Trace,
    Xcp,
    default_scenario,
    load,
)
from .stats import aggregate
from .sweep_run import PointDone, sweep
from .sweep_spec import Sweep, load_sweep
from .topology_graph import topology_from_graphml, topology_from_networkx


def _find_version() -> str:
    # The compiled core carries the version; without a build (pure-Python tests) fall back to
    # the installed metadata, then to a marker, so that importing ccsim never fails on it.
    try:
        from . import _native

        return _native.version()
    except ImportError:
        pass
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("ccsim")
    except PackageNotFoundError:
        return "0+unknown"


def schema() -> dict[str, _Any]:
    """The scenario JSON Schema (from the compiled core), as a dict."""
    from . import _native

    return _native.schema()


__version__ = _find_version()

__all__ = [
    "Acns",
    "Bernoulli",
    "CbrFlow",
    "Chain",
    "Cobalt",
    "Codel",
    "CongestionControl",
    "CongestionControlError",
    "DropTail",
    "DualPi2",
    "Dumbbell",
    "Explicit",
    "FqCodel",
    "FqPie",
    "GilbertElliott",
    "Link",
    "LinkOverride",
    "LossList",
    "OnOffFlow",
    "Outage",
    "Pie",
    "PointDone",
    "Red",
    "Result",
    "Scenario",
    "ScenarioError",
    "SeriesNotRecorded",
    "Step",
    "Sweep",
    "SweepError",
    "SweepFailed",
    "TcpArrivals",
    "TcpFlow",
    "Trace",
    "__version__",
    "aggregate",
    "build_info",
    "default_scenario",
    "completion_times",
    "jain_index",
    "jain_over_time",
    "load",
    "load_sweep",
    "parse_value",
    "register_cc",
    "run",
    "schema",
    "set_path",
    "sweep",
    "topology_from_graphml",
    "topology_from_networkx",
    "utilisation",
    "validate",
    "Xcp",
]
