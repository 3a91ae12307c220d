"""XCP from Python: the ``Xcp`` queue builder, an XCP flow through it, and its errors."""

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")


def xcp_dumbbell(queue, cc="xcp"):
    return ccsim.Scenario(
        name="xcp",
        duration=10,
        topology=ccsim.Dumbbell(pairs=2, bottleneck=ccsim.Link("10Mbps", "20ms", queue=queue)),
        flows=[
            ccsim.TcpFlow("a", "s0", "d0", cc=cc),
            ccsim.TcpFlow("b", "s1", "d1", start=1, cc=cc),
        ],
    )


def test_xcp_builder_writes_the_schema_fields():
    q = ccsim.Xcp(limit=200, congestion_threshold=50, queue_window=0.5)
    assert q.to_dict() == {
        "kind": "xcp",
        "limit": 200,
        "queue_window": 0.5,
        "congestion_threshold": 50,
    }


def test_xcp_flows_share_the_link_without_drops():
    r = ccsim.run(xcp_dumbbell(ccsim.Xcp(limit=200)))
    b = r.queues[(r.queues["link"] == "bottleneck") & (r.queues["from"] == "left")].iloc[0]
    assert b["drops_overflow"] == 0 and b["utilisation"] > 0.9
    assert b["avg_len_pkts"] < 5
    assert (r.flows["cc"] == "xcp").all() and (r.flows["retransmits"] == 0).all()


def test_xcp_errors_name_the_field():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(xcp_dumbbell(ccsim.Xcp(gamma=2)))
    assert e.value.path == "topology.bottleneck.queue.gamma" and "[0, 1]" in e.value.message
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(xcp_dumbbell(ccsim.Xcp(), cc={"kind": "xcp", "high_factor": 0}))
    assert e.value.path.endswith("cc.high_factor")
