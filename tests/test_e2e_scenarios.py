"""Every scenario shipped in scenarios/ validates and runs with packets conserved."""

from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

# Sweep files (a [sweep] table) are checked by test_e2e_sweep_cli.py instead.
SCENARIOS = sorted(
    p
    for p in (Path(__file__).parent.parent / "scenarios").glob("*.toml")
    if not ccsim.sweep_spec.is_sweep_file(p)
)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_shipped_scenario_runs(path):
    r = ccsim.run(path)
    m = r.meta
    assert m["packets_injected"] == (
        m["packets_consumed"] + m["packets_dropped"] + m["packets_in_network"]
    )
    assert (r.flows.bytes_delivered > 0).all()
