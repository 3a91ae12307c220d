"""ACNS from Python: the ``Acns`` queue builder, ACNS flows through it, and the errors."""

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")


def acns_dumbbell(queue, acns=True):
    # The paper's Table 4 priorities: the oldest flow is best effort.
    return ccsim.Scenario(
        name="acns",
        duration=20,
        topology=ccsim.Dumbbell(pairs=2, bottleneck=ccsim.Link("10Mbps", "20ms", queue=queue)),
        flows=[
            ccsim.TcpFlow("old", "s0", "d0", cc="cubic", dscp=0, acns=acns),
            ccsim.TcpFlow("young", "s1", "d1", start=5, cc="cubic", dscp=46, acns=acns),
        ],
    )


def test_acns_builder_writes_the_schema_fields():
    q = ccsim.Acns(limit=50, weight="printed", idle_timeout="1s")
    assert q.to_dict() == {"kind": "acns", "limit": 50, "weight": "printed", "idle_timeout": "1s"}


def test_acns_steers_bandwidth_to_the_young_high_priority_flow():
    s = acns_dumbbell(ccsim.Acns(limit=100))
    s.trace = ccsim.Trace(series=["acns_command"], interval="100ms")
    r = ccsim.run(s)
    f = r.flows.set_index("flow")
    assert (f["acns"] == 1).all()
    assert f.loc["young", "goodput_bps"] > f.loc["old", "goodput_bps"]
    assert f.loc["old", "acns_fallbacks"] > 0
    cmd = r.trace("acns_command")
    assert set(cmd["value"].unique()) <= {1.0, 2.0, 3.0}
    late = cmd[cmd["time_s"] > 10].groupby("flow", observed=True)["value"].mean()
    assert late["old"] > late["young"]


def test_acns_errors_name_the_field():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(acns_dumbbell(ccsim.Acns(th_a1=2)))
    assert e.value.path == "topology.bottleneck.queue.th_a2"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(acns_dumbbell(ccsim.Acns(), acns={"request": "sometimes"}))
    assert "acns" in e.value.path or "sometimes" in e.value.message
