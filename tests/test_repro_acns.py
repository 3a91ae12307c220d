"""The ACNS reproduction (seed paper 000, docs/reproductions/acns.py): its variants of the
paper's scenario and the model verification's flows are what the report says, and valid.
Fast: nothing is simulated."""

import importlib
from pathlib import Path

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")

from repro_support import load_script, validated_points  # noqa: E402

SWEEP = Path(__file__).resolve().parent.parent / "scenarios" / "acns-sweep.toml"


@pytest.fixture(scope="module")
def repro():
    return load_script("acns")


def test_variants_switch_every_router_and_flow(repro):
    plain = ccsim.validate(repro.scenario("3Mbps", acns=False))
    assert {link["queue"]["kind"] for link in plain["topology"]["links"]} == {"droptail"}
    assert all("acns" not in f.get("tcp", {}) for f in plain["flows"])
    printed = ccsim.validate(repro.scenario("3Mbps", weight="printed"))
    assert {link["queue"].get("weight") for link in printed["topology"]["links"]} == {"printed"}
    every = ccsim.validate(repro.scenario("3Mbps", request="every-packet"))
    tcp = [f["tcp"] for f in every["flows"] if f["kind"] == "tcp"]
    assert [t["acns"] for t in tcp] == [{"request": "every-packet"}] * 3
    rates = {link["name"]: link["rate"] for link in every["topology"]["links"]}
    assert rates["last-mile-a"] == rates["last-mile-b"] == "3Mbps"
    assert rates["core"] == "1Gbps"


def test_model_flows_share_lifetimes_across_cases(repro):
    model = importlib.import_module("acns_model")
    (normal, dscp), (zero, dscp0) = (model.flows(c) for c in ("normal priorities", "priority 0"))
    assert len(normal) == model.FLOWS
    times = [(f["start"], f["stop"]) for f in normal]
    assert times == [(f["start"], f["stop"]) for f in zero]
    assert (dscp0 == 0).all() and 0 <= dscp.min() and dscp.max() <= 63
    assert 20 < dscp.mean() < 44  # N(32, 12), clipped
    none = ccsim.validate(model.scenario("no ACNS"))
    assert none["topology"]["bottleneck"]["queue"]["kind"] == "droptail"
    assert all("acns" not in f["tcp"] for f in none["flows"])
    ccsim.validate(model.scenario("normal priorities"))


def test_the_sweep_file_crosses_weights_and_last_mile_rates():
    base, points = validated_points(SWEEP)
    assert len(points) == 8
    names = [link["name"] for link in base["topology"]["links"]]
    assert names[3] == "last-mile-a" and names[5] == "last-mile-b"
