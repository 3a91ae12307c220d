"""Explicit topologies from real networks: a NetworkX graph, or a GraphML file such as those of
the Internet Topology Zoo (Knight et al., "The Internet Topology Zoo", IEEE JSAC 29(9), 2011;
https://topology-zoo.org). :func:`topology_from_networkx` says how links and names are made.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .errors import ScenarioError
from .units import RATE_FORMS, bits_per_second, seconds

PROPAGATION_SPEED = 2e8  # m/s: light in optical fibre (refractive index about 1.5)
EARTH_RADIUS = 6_371_008.8  # m: the IUGG mean radius (Moritz, "Geodetic Reference System 1980")
_SPEED_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
NETWORKX_MISSING = (
    "building a topology from a graph needs the networkx package: pip install networkx "
    "(or, from a ccsim clone, pip install '.[networkx]')"
)


def _networkx():
    try:
        import networkx  # type: ignore[import-untyped]  # no stubs in the networkx extra
    except ImportError as e:
        raise ImportError(NETWORKX_MISSING) from e
    return networkx


def great_circle(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Metres between two points given in degrees, on a sphere of the Earth's mean radius
    (the haversine formula: R. W. Sinnott, "Virtues of the Haversine", Sky and Telescope
    68(2), 1984)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(min(1.0, math.sqrt(h)))


def _node_names(graph: Any, names: str) -> dict[Any, str]:
    if names not in ("label", "id"):
        raise ScenarioError("names", f"expected 'label' or 'id', not {names!r}")
    ids = {node: str(node) for node in graph.nodes}
    if len(set(ids.values())) != len(ids):
        raise ScenarioError("names", "two graph nodes have the same id as text")
    if names == "id":
        return ids
    labels = {
        n: str(a["label"]) for n, a in graph.nodes(data=True) if a.get("label") not in (None, "")
    }
    count = Counter(labels.values())
    out = {n: labels[n] if count[labels[n]] == 1 else f"{labels[n]} ({ids[n]})" for n in labels}
    out.update({n: ids[n] for n in graph.nodes if n not in labels})
    clash = [text for text, k in Counter(out.values()).items() if k > 1]
    if clash:  # a label that reads like another node's "label (id)", or like an id
        raise ScenarioError("names", f"nodes would share the name {clash[0]!r}; pass names='id'")
    return out


class _Edge:
    """One graph edge, for its error messages."""

    def __init__(self, a: str, b: str, attrs: Mapping[str, Any], where: str):
        self.a, self.b, self.attrs, self.where = a, b, attrs, where
        label = attrs.get("LinkLabel")
        self.text = f"{where}edge {a!r} - {b!r}" + (f" ({label})" if label else "")

    def error(self, message: str) -> ScenarioError:
        return ScenarioError("", f"{self.text}: {message}")


def _zoo_speed(edge: _Edge) -> float | None:
    """The Zoo's LinkSpeedRaw, or LinkSpeed x LinkSpeedUnits; None where neither is given."""
    attrs = edge.attrs
    raw = attrs.get("LinkSpeedRaw")
    if raw not in (None, ""):
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise edge.error(f"LinkSpeedRaw {raw!r} is not a number of bit/s") from None
    speed = attrs.get("LinkSpeed")
    if speed in (None, ""):
        return None
    units = str(attrs.get("LinkSpeedUnits") or "").strip()
    scale = _SPEED_UNITS.get(units.lower().removesuffix("bps").removesuffix("b/s"))
    try:
        value = float(speed)
    except (TypeError, ValueError):
        raise edge.error(f"LinkSpeed {speed!r} is not a number") from None
    if scale is None:
        raise edge.error(
            f"LinkSpeedUnits {units!r} is not a unit of bit/s; expected k, M, G or T "
            "(as the Topology Zoo writes them), with or without bps"
        )
    return value * scale


def _rate(edge: _Edge, default: Any) -> float | str:
    given = edge.attrs.get("rate")
    if given not in (None, ""):
        try:
            bits_per_second(given)
        except ValueError as e:
            raise edge.error(f"rate {e}") from None
        return given
    zoo = _zoo_speed(edge)
    if zoo is None:
        if default is None:
            raise edge.error(
                "no capacity: give the edge a `rate` (e.g. '10Gbps') or the Topology Zoo's "
                "LinkSpeedRaw, or LinkSpeed and LinkSpeedUnits; or pass default_rate= for "
                "the edges without one"
            )
        return default
    if not math.isfinite(zoo) or zoo < 1:
        raise edge.error(f"capacity {zoo!r} bit/s: expected {RATE_FORMS}, at least 1 bit/s")
    return int(round(zoo)) if zoo == int(zoo) else zoo


def _coordinates(graph: Any, node: Any, name: str, edge: _Edge) -> tuple[float, float] | None:
    attrs = graph.nodes[node]
    lat, lon = attrs.get("Latitude"), attrs.get("Longitude")
    if lat in (None, "") and lon in (None, ""):
        return None
    try:
        lat, lon = float(lat), float(lon)
    except (TypeError, ValueError):
        raise edge.error(
            f"node {name!r} has Latitude {lat!r} and Longitude {lon!r}: expected both, in degrees"
        ) from None
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise edge.error(
            f"node {name!r} has Latitude {lat} and Longitude {lon}: expected degrees, "
            "-90 to 90 and -180 to 180"
        )
    return lat, lon


def _delay(graph: Any, u: Any, v: Any, edge: _Edge, default: Any, speed: float) -> Any:
    given = edge.attrs.get("delay")
    if given not in (None, ""):
        try:
            if seconds(given) < 0:
                raise ValueError(f"{given!r} is negative")
        except ValueError as e:
            raise edge.error(f"delay {e}") from None
        return given
    ends = [_coordinates(graph, n, name, edge) for n, name in ((u, edge.a), (v, edge.b))]
    if None not in ends:
        (lat1, lon1), (lat2, lon2) = ends  # type: ignore[misc]
        return round(great_circle(lat1, lon1, lat2, lon2) / speed, 9)  # whole ns, as the core
    if default is None:
        lacking = " and ".join(repr(n) for n, e in zip((edge.a, edge.b), ends) if e is None)
        raise edge.error(
            f"no delay: node {lacking} has no Latitude and Longitude; give the edge a "
            "`delay` (e.g. '5ms'), or the nodes their coordinates, or pass default_delay= "
            "for the edges without either"
        )
    return default


def topology_from_networkx(
    graph: Any,
    *,
    default_rate: Any = None,
    default_delay: Any = None,
    queue: Any = None,
    names: str = "label",
    propagation_speed: float = PROPAGATION_SPEED,
    source: str = "",
) -> dict[str, Any]:
    """The ``explicit`` topology table of an undirected NetworkX graph (``Graph`` or
    ``MultiGraph``), for a scenario's ``topology``.

    >>> topo = ccsim.topology_from_graphml("Abilene.graphml", default_rate="10Gbps")
    >>> scenario = ccsim.Scenario(name="abilene", duration="30s", topology=topo,
    ...     flows=[ccsim.TcpFlow("f", src="New York", dst="Los Angeles")])

    Each graph node becomes a node and each edge a full-duplex link, routed as every explicit
    topology is (shortest paths in hops). A link's rate, in order of preference:

    1. the edge's ``rate`` attribute, as a scenario writes it (``"10Gbps"``, or bit/s);
    2. the Topology Zoo's ``LinkSpeedRaw`` (bit/s), else ``LinkSpeed`` times
       ``LinkSpeedUnits`` (``"10"`` and ``"G"``; units k, M, G, T, with or without ``bps``);
    3. ``default_rate``.

    Its one-way delay:

    1. the edge's ``delay`` attribute (``"5ms"``, or seconds);
    2. the great-circle distance between its nodes' ``Latitude`` and ``Longitude`` (degrees,
       as the Zoo gives them; the haversine formula on a sphere of the Earth's mean radius,
       6,371,008.8 m) over ``propagation_speed``: 2e8 m/s by default, light in optical fibre
       (refractive index about 1.5), rounded to whole nanoseconds;
    3. ``default_delay``.

    An edge none of these covers is an error naming the edge and what is missing, as is a
    value that cannot be read, a directed graph (links are full-duplex: pass
    ``graph.to_undirected()``) or an edge from a node to itself. ``queue`` (a queue table or
    builder) is given to every link; left out, links take the profile's.

    Node names: a node's ``label`` (the Zoo names its nodes by city) where no other node has
    the same one, otherwise ``"label (id)"`` with the graph's node id; the id where it has no
    label. ``names="id"`` uses the ids throughout. Links are named ``"a-b"`` after their
    nodes, with ``#2``, ``#3``, ... for further links between the same two nodes. ``source``
    prefixes error messages (the file the graph came from).
    """
    where = f"{source}: " if source else ""
    if graph.is_directed():
        raise ScenarioError(
            "",
            f"{where}the graph is directed, but links are full-duplex: give an undirected graph "
            "(graph.to_undirected(), once each pair's attributes agree)",
        )
    if not (isinstance(propagation_speed, (int, float)) and propagation_speed > 0):
        raise ScenarioError("propagation_speed", f"expected m/s above 0, not {propagation_speed!r}")
    for value, check, what in ((default_rate, bits_per_second, "default_rate"),
                               (default_delay, seconds, "default_delay")):  # fmt: skip
        if value is not None:
            try:
                check(value)
            except ValueError as e:
                raise ScenarioError(what, str(e)) from None
    if queue is not None and hasattr(queue, "to_dict"):
        queue = queue.to_dict()
    name = _node_names(graph, names)
    links: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    edges = graph.edges(data=True, keys=True) if graph.is_multigraph() else graph.edges(data=True)
    for u, v, *rest in edges:
        attrs = rest[-1]
        edge = _Edge(name[u], name[v], attrs, where)
        if u == v:
            raise edge.error("a link must join two different nodes (remove the self-loop)")
        pair = f"{name[u]}-{name[v]}"
        seen[pair] += 1
        link = {
            "name": pair if seen[pair] == 1 else f"{pair}#{seen[pair]}",
            "a": name[u],
            "b": name[v],
            "rate": _rate(edge, default_rate),
            "delay": _delay(graph, u, v, edge, default_delay, propagation_speed),
        }
        if queue is not None:
            link["queue"] = dict(queue)
        links.append(link)
    return {"kind": "explicit", "nodes": [name[n] for n in graph.nodes], "links": links}


def topology_from_graphml(path: str | os.PathLike, **options: Any) -> dict[str, Any]:
    """The ``explicit`` topology table of a GraphML file: an Internet Topology Zoo file
    (https://topology-zoo.org), or any GraphML that NetworkX reads. Options, and how rates,
    delays and names are found, as for :func:`topology_from_networkx`. A file that is not
    GraphML raises :class:`ScenarioError` naming it; needs the ``networkx`` package."""
    nx = _networkx()
    text = os.fspath(path)
    try:
        graph = nx.read_graphml(text)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as e:  # noqa: BLE001 - ElementTree's ParseError, NetworkXError, ...
        raise ScenarioError("", f"{text} is not a GraphML file networkx can read: {e}") from None
    return topology_from_networkx(graph, **{"source": text, **options})
