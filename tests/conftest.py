"""Makes ``import ccsim`` work from a source checkout without installing it."""

import importlib.util
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("ccsim") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))


@pytest.fixture
def fake_core(monkeypatch):
    """Stands in for the compiled ``ccsim._core`` (see fake_core.py), so that the runner and
    the CLI can be tested without a build."""
    import fake_core as fc

    module = fc.make_module()
    monkeypatch.setitem(sys.modules, "ccsim._core", module)
    return module


@pytest.fixture
def synthetic_raw():
    """A results dict shaped as ``_core.Simulation.finish()`` returns it."""
    import fake_core as fc

    return fc.synthetic_results()
