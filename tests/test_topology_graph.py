"""Explicit topologies from GraphML (the Internet Topology Zoo's form) and NetworkX graphs:
rates and coordinate-derived delays, node and link names, errors that name what is missing,
and a scenario on such a topology running on the real core."""

import importlib.util
import math
import sys

import ccsim
import pytest
from ccsim.topology_graph import EARTH_RADIUS, great_circle

nx = pytest.importorskip("networkx")
needs_core = pytest.mark.skipif(
    importlib.util.find_spec("ccsim._core") is None, reason="needs the compiled core"
)

# As the Topology Zoo writes its files (keys declared first, data by key id); two Kansas City
# nodes, a pair of parallel links, and an edge with no speed.
ZOO = """<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <key attr.name="Network" attr.type="string" for="graph" id="d0" />
  <key attr.name="Latitude" attr.type="double" for="node" id="d29" />
  <key attr.name="Longitude" attr.type="double" for="node" id="d32" />
  <key attr.name="label" attr.type="string" for="node" id="d33" />
  <key attr.name="LinkSpeed" attr.type="string" for="edge" id="d36" />
  <key attr.name="LinkLabel" attr.type="string" for="edge" id="d37" />
  <key attr.name="LinkSpeedUnits" attr.type="string" for="edge" id="d39" />
  <key attr.name="LinkSpeedRaw" attr.type="double" for="edge" id="d40" />
  <graph edgedefault="undirected">
    <data key="d0">Tiny</data>
    <node id="0"><data key="d29">40.71427</data><data key="d32">-74.00597</data>
      <data key="d33">New York</data></node>
    <node id="1"><data key="d29">41.85003</data><data key="d32">-87.65005</data>
      <data key="d33">Chicago</data></node>
    <node id="2"><data key="d29">38.89511</data><data key="d32">-77.03637</data>
      <data key="d33">Washington DC</data></node>
    <node id="3"><data key="d29">39.09973</data><data key="d32">-94.57857</data>
      <data key="d33">Kansas City</data></node>
    <node id="4"><data key="d29">39.11417</data><data key="d32">-94.62746</data>
      <data key="d33">Kansas City</data></node>
    <edge source="0" target="1"><data key="d36">10</data><data key="d37">OC-192</data>
      <data key="d39">G</data><data key="d40">10000000000.0</data></edge>
    <edge source="0" target="1"><data key="d40">1000000000.0</data></edge>
    <edge source="1" target="2"><data key="d36">2.5</data><data key="d39">G</data></edge>
    <edge source="0" target="2" />
    <edge source="1" target="3"><data key="d40">622000000.0</data></edge>
    <edge source="3" target="4"><data key="d36">100</data><data key="d39">M</data></edge>
  </graph>
</graphml>
"""


@pytest.fixture
def zoo(tmp_path):
    path = tmp_path / "Tiny.graphml"
    path.write_text(ZOO)
    return path


def test_great_circle_distances():
    quarter = math.pi / 2 * EARTH_RADIUS  # equator to pole along a meridian
    assert great_circle(0, 0, 90, 0) == pytest.approx(quarter)
    assert great_circle(0, 0, 0, 180) == pytest.approx(2 * quarter)  # antipodes
    assert great_circle(0, 10, 0, 10) == 0
    # New York to Chicago: 1,145 km as atlases give it (to a kilometre or two).
    assert great_circle(40.71427, -74.00597, 41.85003, -87.65005) == pytest.approx(1.145e6, 0.003)


def test_zoo_file_rates_delays_and_names(zoo):
    topo = ccsim.topology_from_graphml(zoo, default_rate="1Gbps")
    assert topo["kind"] == "explicit"
    assert topo["nodes"] == [
        "New York", "Chicago", "Washington DC", "Kansas City (3)", "Kansas City (4)",
    ]  # fmt: skip
    links = {link["name"]: link for link in topo["links"]}
    assert list(links) == [
        "New York-Chicago", "New York-Chicago#2", "New York-Washington DC",
        "Chicago-Washington DC", "Chicago-Kansas City (3)", "Kansas City (3)-Kansas City (4)",
    ]  # fmt: skip
    assert links["New York-Chicago"]["rate"] == 10_000_000_000  # LinkSpeedRaw
    assert links["New York-Chicago#2"]["rate"] == 1_000_000_000
    assert links["Chicago-Washington DC"]["rate"] == 2_500_000_000  # LinkSpeed x LinkSpeedUnits
    assert links["Kansas City (3)-Kansas City (4)"]["rate"] == 100_000_000
    assert links["New York-Washington DC"]["rate"] == "1Gbps"  # no speed: the default
    ny_chicago = links["New York-Chicago"]["delay"]
    assert ny_chicago == pytest.approx(1.145e6 / 2e8, 0.003)  # 5.7 ms of fibre
    assert links["New York-Chicago#2"]["delay"] == ny_chicago
    # A slower medium, a longer delay.
    slow = ccsim.topology_from_graphml(zoo, default_rate="1Gbps", propagation_speed=1e8)
    assert slow["links"][0]["delay"] == pytest.approx(2 * ny_chicago)
    assert ccsim.topology_from_graphml(zoo, default_rate=1e9, names="id")["nodes"] == list("01234")


@needs_core
def test_a_scenario_on_the_zoo_topology_runs_with_its_delays(zoo):
    topo = ccsim.topology_from_graphml(zoo, default_rate="1Gbps", queue=ccsim.DropTail(limit=200))
    assert all(link["queue"] == {"kind": "droptail", "limit": 200} for link in topo["links"])
    scenario = ccsim.Scenario(
        name="tiny", duration="2s", topology=topo,
        flows=[ccsim.TcpFlow("f", src="New York", dst="Washington DC")],
    )  # fmt: skip
    r = ccsim.run(scenario)
    one_way = {link["name"]: link["delay"] for link in topo["links"]}["New York-Washington DC"]
    # The route is the direct link (one hop); the shortest RTT is its propagation both ways
    # plus the transmission of a segment and an ACK at 1 Gb/s (about 12 us and 0.5 us).
    rtt = r.flows.set_index("flow").rtt_min_s["f"]
    assert 2 * one_way < rtt < 2 * one_way + 100e-6
    assert r.flows.set_index("flow").goodput_bps["f"] > 0


@needs_core
def test_networkx_graph_with_scenario_attributes():
    g = nx.Graph()
    g.add_edge("a", "b", rate="10Mbps", delay="5ms")
    g.add_edge("b", "c", rate=2e6, delay=0.001)
    topo = ccsim.topology_from_networkx(g)
    assert topo == {
        "kind": "explicit",
        "nodes": ["a", "b", "c"],
        "links": [
            {"name": "a-b", "a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms"},
            {"name": "b-c", "a": "b", "b": "c", "rate": 2e6, "delay": 0.001},
        ],
    }
    ccsim.validate({"name": "g", "duration": 1, "topology": topo, "flows": []})


def test_an_edge_without_speed_names_the_edge_and_the_ways_to_give_one(zoo):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.topology_from_graphml(zoo)
    assert str(e.value) == (
        f"{zoo}: edge 'New York' - 'Washington DC': no capacity: give the edge a `rate` "
        "(e.g. '10Gbps') or the Topology Zoo's LinkSpeedRaw, or LinkSpeed and LinkSpeedUnits; "
        "or pass default_rate= for the edges without one"
    )


def test_a_node_without_coordinates_is_named(tmp_path):
    path = tmp_path / "x.graphml"
    text = ZOO.replace('<data key="d29">38.89511</data><data key="d32">-77.03637</data>', "")
    path.write_text(text)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.topology_from_graphml(path, default_rate="1Gbps")
    assert str(e.value).startswith(
        f"{path}: edge 'New York' - 'Washington DC': no delay: node 'Washington DC' has no "
        "Latitude and Longitude; give the edge a `delay`"
    )
    # With a default delay for such edges, the others keep their coordinates' delays.
    topo = ccsim.topology_from_graphml(path, default_rate="1Gbps", default_delay="3ms")
    delays = {link["name"]: link["delay"] for link in topo["links"]}
    assert delays["Chicago-Washington DC"] == "3ms" and delays["New York-Chicago"] < 0.006


@pytest.mark.parametrize(
    "change, message",
    [
        ('<data key="d39">G</data><data key="d40">10000000000.0</data>',
         "edge 'New York' - 'Chicago' (OC-192): LinkSpeedUnits 'parsecs' is not a unit of bit/s"),
        ('<data key="d29">40.71427</data>',
         "node 'New York' has Latitude 400.0 and Longitude -74.00597: expected degrees"),
    ],
)  # fmt: skip
def test_unreadable_values_are_named(tmp_path, change, message):
    path = tmp_path / "bad.graphml"
    bad = change.replace(">G<", ">parsecs<").replace("10000000000.0", "")
    bad = bad.replace("40.71427", "400.0")
    path.write_text(ZOO.replace(change, bad))
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.topology_from_graphml(path, default_rate="1Gbps")
    assert message in str(e.value)


def test_bad_graphs_and_options_are_refused(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match="directed, but links are full-duplex"):
        ccsim.topology_from_networkx(nx.DiGraph([("a", "b")]), default_rate=1, default_delay=0)
    g = nx.Graph()
    g.add_edge("a", "a")
    with pytest.raises(ccsim.ScenarioError, match="edge 'a' - 'a': a link must join two"):
        ccsim.topology_from_networkx(g, default_rate=1, default_delay=0)
    with pytest.raises(ccsim.ScenarioError, match=r"default_rate: '5 parsecs': unknown unit"):
        ccsim.topology_from_networkx(nx.Graph([("a", "b")]), default_rate="5 parsecs")
    not_xml = tmp_path / "n.graphml"
    not_xml.write_text("<graphml><node")
    with pytest.raises(ccsim.ScenarioError, match="n.graphml is not a GraphML file"):
        ccsim.topology_from_graphml(not_xml)
    with pytest.raises(FileNotFoundError):
        ccsim.topology_from_graphml(tmp_path / "missing.graphml")


def test_without_networkx_says_what_to_install(zoo, monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(ImportError, match=r"pip install networkx .*pip install '\.\[networkx\]'"):
        ccsim.topology_from_graphml(zoo)
