"""How long a sweep point is expected to take, so that the longest are dispatched first.

A pool that takes points in file order can be left waiting, at the end, on the few long
points it drew last, while its other workers sit idle. Taking the longest first
(longest-processing-time-first, Graham, "Bounds on multiprocessing timing anomalies", SIAM J.
Appl. Math. 17(2), 1969) finishes within 4/3 - 1/(3m) of the best possible time on ``m``
workers, and in practice close to it: the short points fill the gaps at the end.

The estimate needs only an order, not seconds. A packet-level simulation's work is its events,
a few per packet and hop (queued, sent, arrived), so a point's cost is the packet-hops its
flows are expected to make in the simulated time:

    cost = sum over flows of  bits_f / packet_bits_f * hops_f * (1.5 for TCP: its ACKs)

``bits_f`` is what flow ``f`` can send while it is active (``start`` to ``stop`` or the end):

- ``cbr``: its rate (``max_packets`` caps the total); ``onoff``: its rate times the fraction
  of time on, ``on / (on + off)``; ``tcp_arrivals``: arrivals per second times the mean size;
- ``tcp``: the rate of the narrowest link on its path, or lower where the path loses packets
  at random: the steady-state rate of Mathis, Semke, Mahdavi and Ott ("The macroscopic
  behavior of the TCP congestion avoidance algorithm", CCR 27(3), 1997),
  ``MSS / RTT * sqrt(3 / (2 p))`` with ``p`` the path's Bernoulli loss and ``RTT`` twice its
  propagation delay; at most ``rwnd / RTT``; a ``size`` caps the total.

Flows whose narrowest link is the same share it: together they are scaled down to that link's
rate times the run's duration. Paths are shortest in hops, as the core routes an explicit
topology. Left out, as they change a point's cost little or the same for all points of a
sweep: queue disciplines, loss models other than Bernoulli, recorded series, the core's
own per-event differences between algorithms.

The estimate orders the points only; each point's result does not depend on when it runs.
A scenario it cannot read (a field spelled in a way this module does not know) gets an infinite
cost: dispatched first, which never makes it the tail.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Mapping
from typing import Any

from .units import bits_per_second, seconds, size_bytes

MSS = 1460  # bytes, where a flow gives none (the profiles' defaults are near it)
HEADERS = 40  # IPv4 and TCP headers, bytes
UDP_PACKET = 1000  # bytes on the wire: the default packet_size of cbr and onoff flows
ACK_SHARE = 0.5  # ACK packets per data packet under delayed ACKs (RFC 1122 4.2.3.2)
MATHIS_C = math.sqrt(1.5)  # sqrt(3/2): Mathis et al.'s constant with an ACK per segment


class _Unknown(ValueError):
    """A value this estimate cannot read: the point is given an infinite cost."""


def _bernoulli(loss: Any) -> float:
    if isinstance(loss, Mapping) and loss.get("kind") == "bernoulli":
        return float(loss.get("p", 0.0))
    return 0.0


Hop = tuple[float, float, float, int]  # a link direction: rate (bit/s), delay (s), loss, id


def _hops(index: int, spec: Mapping[str, Any]) -> tuple[Hop, Hop]:
    """The forward (a → b) and reverse directions of link number ``index``."""
    rate, delay = bits_per_second(spec["rate"]), seconds(spec["delay"])
    fwd, rev = _bernoulli(spec.get("loss")), _bernoulli(spec.get("loss_reverse"))
    return (rate, delay, fwd, 2 * index), (rate, delay, rev, 2 * index + 1)


class _Paths:
    """The flows' paths through one topology, as link directions.

    Dumbbells and chains have one path between two nodes, worked out directly (a dumbbell of
    many pairs is never enumerated); an explicit topology is searched breadth first from each
    source, once, as the core routes it (shortest in hops).
    """

    def __init__(self, topology: Mapping[str, Any]):
        self.kind = topology.get("kind")
        self.topology = topology
        if self.kind == "chain":
            self.chain = [_hops(i, s) for i, s in enumerate(topology["links"])]
        elif self.kind == "dumbbell":
            self.bottleneck = _hops(0, topology["bottleneck"])
            rate = bits_per_second(topology["bottleneck"]["rate"])
            # The schema's default access link: ten times the bottleneck's rate, 1 ms.
            self.access = topology.get("access") or {"rate": rate * 10, "delay": 0.001}
            self.pairs = int(topology["pairs"])
        elif self.kind == "explicit":
            self.out: dict[str, list[tuple[str, Hop]]] = {}
            for i, spec in enumerate(topology["links"]):
                fwd, rev = _hops(i, spec)
                self.out.setdefault(spec["a"], []).append((spec["b"], fwd))
                self.out.setdefault(spec["b"], []).append((spec["a"], rev))
            self.trees: dict[str, dict[str, tuple[str, Hop] | None]] = {}
        else:
            raise _Unknown(self.kind)

    def path(self, src: str, dst: str) -> list[Hop]:
        if src == dst:
            raise _Unknown(f"{src} -> {dst}")
        if self.kind == "chain":
            i, j = (int(n[1:]) if re.fullmatch(r"n\d+", n) else -1 for n in (src, dst))
            if not (0 <= i <= len(self.chain) and 0 <= j <= len(self.chain)):
                raise _Unknown(f"{src} -> {dst}")
            if i < j:
                return [self.chain[k][0] for k in range(i, j)]
            return [self.chain[k][1] for k in range(i - 1, j - 1, -1)]
        if self.kind == "dumbbell":
            return self._dumbbell(src, dst)
        return self._explicit(src, dst)

    def _access(self, node: str) -> tuple[str, Hop, Hop]:
        """A dumbbell host's router, and its access link's directions: host → router and
        router → host."""
        m = re.fullmatch(r"([sd])(\d+)", node)
        if m is None or int(m.group(2)) >= self.pairs:
            raise _Unknown(node)
        i, side = int(m.group(2)), m.group(1)
        overrides = self.topology.get("left" if side == "s" else "right") or []
        over = overrides[i] if i < len(overrides) else {}
        spec = {**self.access, **{k: v for k, v in over.items() if v is not None}}
        # Link ids after the bottleneck's (0): access_s{i} 1 + 2i, access_d{i} 2 + 2i.
        fwd, rev = _hops(1 + 2 * i + (side == "d"), spec)
        if side == "s":  # access_s{i} runs s{i} → left
            return "left", fwd, rev
        return "right", rev, fwd  # access_d{i} runs right → d{i}

    def _dumbbell(self, src: str, dst: str) -> list[Hop]:
        hops: list[Hop] = []
        at = src
        if src not in ("left", "right"):
            at, up, _ = self._access(src)
            hops.append(up)
        end, down = dst, None
        if dst not in ("left", "right"):
            end, _, down = self._access(dst)
        if at != end:
            hops.append(self.bottleneck[0] if at == "left" else self.bottleneck[1])
        if down is not None:
            hops.append(down)
        return hops

    def _explicit(self, src: str, dst: str) -> list[Hop]:
        back = self.trees.get(src)
        if back is None:
            back = self.trees[src] = {src: None}
            todo = deque([src])
            while todo:
                node = todo.popleft()
                for nxt, hop in self.out.get(node, ()):
                    if nxt not in back:
                        back[nxt] = (node, hop)
                        todo.append(nxt)
        if dst not in back:
            raise _Unknown(f"{src} -> {dst}")
        hops: list[Hop] = []
        node = dst
        while True:
            step = back[node]
            if step is None:
                return hops[::-1]
            node, hop = step
            hops.append(hop)


def _active(flow: Mapping[str, Any], duration: float) -> float:
    start = seconds(flow["start"]) if flow.get("start") is not None else 0.0
    stop = seconds(flow["stop"]) if flow.get("stop") is not None else duration
    return max(0.0, min(stop, duration) - start)


def _mean_size(size: Any) -> float:
    if isinstance(size, Mapping):
        mean = size_bytes(size["mean"])
        return min(mean, size_bytes(size["max"])) if size.get("max") is not None else mean
    return size_bytes(size)


def _flow_bits(flow: Mapping[str, Any], path: list, duration: float) -> tuple[float, float]:
    """``(bits the flow is expected to send, bits per packet)``."""
    narrowest = min(rate for rate, _, _, _ in path)
    active = _active(flow, duration)
    kind = flow["kind"]
    if kind in ("cbr", "onoff"):
        packet = size_bytes(flow.get("packet_size") or UDP_PACKET) * 8
        rate = bits_per_second(flow["rate"])
        if kind == "onoff":
            on, off = seconds(flow["on"]), seconds(flow["off"])
            rate *= on / (on + off) if on + off > 0 else 1.0
        bits = min(rate, narrowest) * active
        if flow.get("max_packets") is not None:
            bits = min(bits, float(flow["max_packets"]) * packet)
        return bits, packet
    tcp = flow.get("tcp") or {}
    mss = size_bytes(tcp["mss"]) if tcp.get("mss") is not None else MSS
    packet = (mss + HEADERS) * 8
    if kind == "tcp_arrivals":
        offered = float(flow["arrival_rate"]) * _mean_size(flow["size"]) * 8
        return min(offered, narrowest) * active, packet
    if kind != "tcp":
        raise _Unknown(kind)
    rate = narrowest
    rtt = 2 * sum(delay for _, delay, _, _ in path)
    survive = math.prod(1.0 - p for _, _, p, _ in path)
    if rtt > 0 and survive < 1.0:
        rate = min(rate, mss * 8 / rtt * MATHIS_C / math.sqrt(1.0 - survive))
    if rtt > 0 and tcp.get("rwnd") is not None:
        rate = min(rate, size_bytes(tcp["rwnd"]) * 8 / rtt)
    bits = rate * active
    if flow.get("size") is not None:
        bits = min(bits, size_bytes(flow["size"]) * 8)
    return bits, packet


def _cost(scenario: Mapping[str, Any], paths: _Paths) -> float:
    duration = seconds(scenario["duration"])
    shares: dict[int, list[tuple[float, float]]] = {}  # narrowest link → (bits, weight)
    capacity: dict[int, float] = {}
    for flow in scenario.get("flows") or []:
        path = paths.path(flow["src"], flow["dst"])
        bits, packet = _flow_bits(flow, path, duration)
        rate, _, _, link = min(path, key=lambda hop: hop[0])
        capacity[link] = rate * duration
        ack = ACK_SHARE if flow["kind"] in ("tcp", "tcp_arrivals") else 0.0
        shares.setdefault(link, []).append((bits, len(path) * (1.0 + ack) / packet))
    cost = 0.0
    for link, flows in shares.items():
        offered = sum(bits for bits, _ in flows)
        scale = min(1.0, capacity[link] / offered) if offered > 0 else 0.0
        cost += sum(bits * scale * weight for bits, weight in flows)
    return cost


def estimates(scenarios: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """The packet-hops each scenario is expected to simulate (see the module's text), by key;
    ``inf`` for one this estimate cannot read. Points of one sweep mostly share a topology:
    its paths are worked out once."""
    topologies: dict[str, _Paths] = {}
    out = {}
    for key, scenario in scenarios.items():
        try:
            topology = scenario["topology"]
            text = json.dumps(topology, sort_keys=True, default=str)
            paths = topologies.get(text)
            if paths is None:
                paths = topologies[text] = _Paths(topology)
            out[key] = _cost(scenario, paths)
        except (_Unknown, KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            out[key] = math.inf
    return out


def estimate(scenario: Mapping[str, Any]) -> float:
    """One scenario's estimate; see :func:`estimates`."""
    return estimates({"": scenario})[""]


def longest_first(costs: Mapping[str, float], keys: list[str]) -> list[str]:
    """``keys`` by decreasing cost; equal costs keep their order (the sweep's point order)."""
    return sorted(keys, key=lambda k: -costs[k])
