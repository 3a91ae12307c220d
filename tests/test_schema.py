"""The JSON Schemas (``ccsim schema``, ``ccsim schema --sweep``) checked with the jsonschema
package: every shipped scenario and sweep file validates, invalid ones do not, and what the
schema refuses the core refuses too (issue 33, defect 3)."""

import copy
import json
from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")
jsonschema = pytest.importorskip("jsonschema")
if not hasattr(jsonschema, "Draft202012Validator"):  # before 4.0
    pytest.skip("jsonschema 4.18 or later is needed", allow_module_level=True)

from ccsim.cli import main  # noqa: E402
from ccsim.scenario import load  # noqa: E402

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*.toml")) + sorted(SCENARIOS.glob("sweeps/*.toml"))
SWEEP_FILES = [f for f in FILES if "sweep" in load(f)]
SCENARIO_FILES = [f for f in FILES if f not in SWEEP_FILES]


def _printed(capsys, *args):
    assert main(["schema", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def scenario_validator():
    schema = ccsim.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def sweep_validator():
    from ccsim.sweep_schema import sweep_schema

    schema = sweep_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_cli_prints_both_schemas_with_ids_and_titles(capsys):
    s = _printed(capsys)
    assert s["$id"] == f"urn:ccsim:scenario:{ccsim.__version__}"
    assert s["title"] == "ccsim scenario"
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    sw = _printed(capsys, "--sweep")
    assert sw["$id"] == f"urn:ccsim:sweep:{ccsim.__version__}" and sw["title"] == "ccsim sweep"


def test_there_are_shipped_files_of_both_kinds():
    assert len(SCENARIO_FILES) >= 12 and len(SWEEP_FILES) >= 9


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_every_shipped_scenario_validates(scenario_validator, path):
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in scenario_validator.iter_errors(load(path))
    ]
    assert errors == []


@pytest.mark.parametrize("path", SWEEP_FILES, ids=lambda p: p.name)
def test_every_shipped_sweep_validates(sweep_validator, path):
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in sweep_validator.iter_errors(load(path))
    ]
    assert errors == []


BASE = load(SCENARIOS / "dumbbell-reno.toml")

INVALID = [
    ("rate in parsecs", "topology.bottleneck.rate", "10 parsecs"),
    ("negative rate", "topology.bottleneck.rate", -5),
    ("negative rate string", "topology.bottleneck.rate", "-5Mbps"),
    ("rate of guessed case", "topology.bottleneck.rate", "10mbps"),
    ("zero rate", "topology.bottleneck.rate", 0),
    ("Bernoulli p above 1", "topology.bottleneck.loss", {"kind": "bernoulli", "p": 2}),
    ("negative delay", "topology.bottleneck.delay", -1),
    ("delay unit", "topology.bottleneck.delay", "5 fortnights"),
    ("fractional size", "flows[2].packet_size", 1.5),
    ("size unit", "flows[2].packet_size", "12 bits"),
    ("dscp 64", "flows[2].dscp", 64),
    ("no pairs", "topology.pairs", 0),
    ("too many pairs", "topology.pairs", 100_001),
    ("empty queue", "topology.bottleneck.queue.limit", 0),
    ("unknown algorithm", "flows[0].tcp.cc", "fastest"),
    ("unknown slow start", "flows[0].tcp.slow_start", "slowest"),
    ("five SACK blocks", "flows[0].tcp.sack_blocks", 5),
    ("unknown key", "flows[0].colour", "red"),
    ("seed too large", "seed", 2**64),
]


@pytest.mark.parametrize("what,path,value", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_scenarios_are_refused_by_the_schema_and_the_core(
    scenario_validator, what, path, value
):
    d = copy.deepcopy(BASE)
    if "." in path:
        ccsim.set_path(d, path, value)
    else:  # set_path itself refuses a seed beyond 64 bits
        d[path] = value
    assert not scenario_validator.is_valid(d), what
    with pytest.raises(ccsim.ScenarioError):
        ccsim.validate(d)


def test_missing_duration_is_refused(scenario_validator):
    d = copy.deepcopy(BASE)
    del d["duration"]
    assert not scenario_validator.is_valid(d)


def test_shorthands_and_tables_are_both_valid(scenario_validator):
    d = copy.deepcopy(BASE)
    for cc in ["cubic", {"kind": "cubic", "beta": 0.7}]:
        for ss in ["limited", {"kind": "ass2", "max_ssthresh": 50}]:
            ccsim.set_path(d, "flows[0].tcp.cc", cc)
            ccsim.set_path(d, "flows[0].tcp.slow_start", ss)
            assert scenario_validator.is_valid(d), (cc, ss)
            ccsim.validate(d)
    for rate in ["10MB/s", "2.5Gb/s", "300 kbit/s", 1e6, "1e7bps"]:
        ccsim.set_path(d, "topology.bottleneck.rate", rate)
        assert scenario_validator.is_valid(d), rate
        ccsim.validate(d)


SWEEP = load(SCENARIOS / "sweeps" / "dumbbell-queue.toml")
INVALID_SWEEPS = [
    ("no replications", {"replications": 0}),
    ("2^64 replications", {"replications": 2**64}),
    ("replications and seeds", {"seeds": [1, 2]}),
    ("repeated seeds", {"replications": None, "seeds": [1, 1]}),
    ("unknown key", {"colour": "red"}),
    ("an axis of one value", {"axes": {"topology.bottleneck.queue.limit": 5}}),
    ("an empty axis", {"axes": {"topology.bottleneck.queue.limit": []}}),
    ("seed as an axis", {"axes": {"seed": [1, 2]}}),
    ("no base", {"base": None}),
]


@pytest.mark.parametrize("what,change", INVALID_SWEEPS, ids=[c[0] for c in INVALID_SWEEPS])
def test_invalid_sweeps_are_refused(sweep_validator, what, change):
    d = copy.deepcopy(SWEEP)
    for k, v in change.items():
        if v is None:
            d["sweep"].pop(k, None)
        else:
            d["sweep"][k] = v
    assert not sweep_validator.is_valid(d), what


def test_an_inline_base_is_checked_as_a_scenario(sweep_validator):
    d = copy.deepcopy(SWEEP)
    del d["sweep"]["base"]
    d["base"] = copy.deepcopy(BASE)
    assert sweep_validator.is_valid(d)
    d["base"]["topology"]["bottleneck"]["rate"] = "10 parsecs"
    assert not sweep_validator.is_valid(d)
    d["sweep"]["base"] = "dumbbell-reno.toml"  # the base twice
    d["base"] = copy.deepcopy(BASE)
    assert not sweep_validator.is_valid(d)
