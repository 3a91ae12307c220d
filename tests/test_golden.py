"""Every shipped and benchmark scenario reproduces its golden tables (``tests/golden.py``) on
the fast route, on the reference route, and with every trace on."""

from __future__ import annotations

import json

import pytest
from golden import GOLDEN, digests, run, scenarios, traced

SCENARIOS = scenarios()
EXPECTED = json.loads(GOLDEN.read_text())


def test_every_scenario_has_golden_digests():
    assert sorted(EXPECTED) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_both_routes_reproduce_the_golden_tables(name, engine):
    assert digests(run(SCENARIOS[name], engine)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_traces_change_no_result(name):
    got = digests(run(traced(name, SCENARIOS[name])), series=False)
    want = {k: EXPECTED[name][k] for k in ("flows", "queues")}
    assert got == want
