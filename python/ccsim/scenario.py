"""Typed builders for scenarios, TOML loading, and the built-in default scenario.

The builders produce exactly the dict the Rust schema (``crates/ccsim/src/scenario/schema.rs``)
reads; they do not validate, because the schema is the single source of truth and its errors
name the exact path. Quantities are passed through untouched: a number in base units (seconds,
bit/s, bytes) or a string with a unit such as ``"20ms"``, ``"10Mbps"``, ``"64KiB"``.
Fields left as ``None`` are omitted, so the scenario's defaults profile fills them in.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from .errors import ScenarioError
from .overrides import parse_value, set_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = [
    "Acns",
    "Bernoulli",
    "CbrFlow",
    "Chain",
    "Cobalt",
    "Codel",
    "DropTail",
    "DualPi2",
    "Dumbbell",
    "Explicit",
    "FqCodel",
    "FqPie",
    "GilbertElliott",
    "Link",
    "LinkOverride",
    "LossList",
    "OnOffFlow",
    "Outage",
    "Pie",
    "Red",
    "Scenario",
    "Step",
    "TcpArrivals",
    "TcpFlow",
    "Trace",
    "default_scenario",
    "load",
    "parse_value",
    "set_path",
    "Xcp",
    "to_plain",
]

Quantity = Union[int, float, str]


def to_plain(value: Any) -> Any:
    """Turns builders (anything with ``to_dict``), tuples, numpy values and nested containers
    into plain dicts, lists and numbers, dropping ``None`` values from dicts."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        # numpy arrays and scalars (np.arange for a loss list, np.float64 from a sweep)
        return value.tolist()
    return value


class _Builder:
    """Dataclass fields → dict; ``kind`` (the schema's enum tag) first when the class has one."""

    kind: ClassVar[str | None] = None
    # Sequence fields left empty are omitted too: the schema's default for them is empty.
    _omit_empty: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind} if self.kind else {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if v is None or (f.name in self._omit_empty and len(v) == 0):
                continue
            out[f.name] = to_plain(v)
        return out


# --- queues and loss models ------------------------------------------------------------------


@dataclass
class DropTail(_Builder):
    """FIFO queue; give a capacity in packets (``limit``) or bytes (``limit_bytes``)."""

    kind: ClassVar[str] = "droptail"
    limit: int | None = None
    limit_bytes: Quantity | None = None


@dataclass
class Red(_Builder):
    """RED as ns-2.35 implements it; thresholds in packets. Unset fields take the profile's
    defaults (see the scenario reference); ``auto`` derives min_th/max_th/q_weight from the
    link as ns-2 does. ``adaptive=True`` is Adaptive RED (Floyd, Gummadi & Shenker 2001):
    max_p moves every ``interval`` (0.5 s) by +min(``alpha``, max_p/4) or ×``beta`` to keep
    the average in the middle fifth of [min_th, max_th], between ``bottom`` and ``top``."""

    kind: ClassVar[str] = "red"
    limit: int | None = None
    min_th: float | None = None
    max_th: float | None = None
    q_weight: float | None = None
    max_p: float | None = None
    gentle: bool | None = None
    wait: bool | None = None
    mode: str | None = None
    mean_pktsize: Quantity | None = None
    ecn: bool | None = None
    mark_p: float | None = None
    use_mark_p: bool | None = None
    harddrop: bool | None = None
    auto: bool | None = None
    adaptive: bool | None = None
    interval: Quantity | None = None
    alpha: float | None = None
    beta: float | None = None
    top: float | None = None
    bottom: float | None = None


@dataclass
class Step(_Builder):
    """Step marking, DCTCP's AQM (RFC 8257 §3.1; Linux ``sch_red`` with min = max = K): an
    ECN-capable arrival finding ``threshold`` packets (or ``threshold_bytes``) or more waiting
    is marked CE, a Not-ECT one dropped, or queued with ``nodrop``. Give exactly one threshold;
    the capacity is ``limit`` packets or ``limit_bytes`` (default: the profile's)."""

    kind: ClassVar[str] = "step"
    threshold: int | None = None
    threshold_bytes: Quantity | None = None
    limit: int | None = None
    limit_bytes: Quantity | None = None
    nodrop: bool | None = None


@dataclass
class DualPi2(_Builder):
    """DualPI2 (RFC 9332, Linux ``sch_dualpi2``), the L4S coupled dual queue: ECT(1) and CE
    packets wait in a low-latency queue marked above ``step_thresh`` (1 ms) and with the
    coupled probability ``coupling_factor``·p'; the others in a classic queue that a PI
    controller (``target`` 15 ms, ``tupdate`` 16 ms, ``alpha`` 0.16, ``beta`` 3.2) holds with
    p'²; ``c_protection`` per cent of the scheduler for the classic queue when both are busy."""

    kind: ClassVar[str] = "dualpi2"
    target: Quantity | None = None
    tupdate: Quantity | None = None
    alpha: float | None = None
    beta: float | None = None
    coupling_factor: float | None = None
    step_thresh: Quantity | None = None
    c_protection: int | None = None
    limit: int | None = None
    drop_overload: bool | None = None
    mtu: Quantity | None = None


@dataclass
class Codel(_Builder):
    """CoDel (RFC 8289): ``target`` 5 ms, ``interval`` 100 ms, ``limit`` 1000 packets."""

    kind: ClassVar[str] = "codel"
    target: Quantity | None = None
    interval: Quantity | None = None
    limit: int | None = None
    mtu: Quantity | None = None
    ecn: bool | None = None
    ce_threshold: Quantity | None = None


@dataclass
class Pie(_Builder):
    """PIE (RFC 8033): ``target`` 15 ms, ``tupdate`` 15 ms, ``alpha`` 0.125, ``beta`` 1.25."""

    kind: ClassVar[str] = "pie"
    target: Quantity | None = None
    tupdate: Quantity | None = None
    alpha: float | None = None
    beta: float | None = None
    max_burst: Quantity | None = None
    limit: int | None = None
    ecn: bool | None = None
    mark_ecnth: float | None = None
    bytemode: bool | None = None
    derandomize: bool | None = None
    dq_rate_estimator: bool | None = None
    mtu: Quantity | None = None


@dataclass
class FqCodel(_Builder):
    """FQ-CoDel (RFC 8290): 1024 ``flows``, ``quantum`` 1514 B, CoDel per flow, ECN on; Linux's
    ``ce_threshold`` (with ``ce_threshold_selector``/``ce_threshold_mask`` 1/1: ECT(1) only)."""

    kind: ClassVar[str] = "fq_codel"
    flows: int | None = None
    quantum: Quantity | None = None
    target: Quantity | None = None
    interval: Quantity | None = None
    limit: int | None = None
    memory_limit: Quantity | None = None
    drop_batch: int | None = None
    mtu: Quantity | None = None
    ecn: bool | None = None
    ce_threshold: Quantity | None = None
    ce_threshold_selector: int | None = None
    ce_threshold_mask: int | None = None


@dataclass
class FqPie(_Builder):
    """FQ-PIE (Linux ``sch_fq_pie``): 1024 ``flows`` served by deficit round robin
    (``quantum`` 1514 B), PIE (RFC 8033) in each: ``target`` 15 ms, ``tupdate`` 15 ms,
    ``alpha`` 0.125, ``beta`` 1.25 (Hz); with ``ecn``, marks while a queue's probability is at
    most ``ecn_prob`` percent (10)."""

    kind: ClassVar[str] = "fq_pie"
    flows: int | None = None
    quantum: Quantity | None = None
    target: Quantity | None = None
    tupdate: Quantity | None = None
    alpha: float | None = None
    beta: float | None = None
    limit: int | None = None
    memory_limit: Quantity | None = None
    ecn: bool | None = None
    ecn_prob: int | None = None
    bytemode: bool | None = None
    dq_rate_estimator: bool | None = None


@dataclass
class Cobalt(_Builder):
    """COBALT, CAKE's AQM as one queue (Linux ``sch_cake``): CoDel's control law (``target``
    5 ms, ``interval`` 100 ms, ECN marks on by default) beside BLUE, whose drop probability
    rises by ``p_inc`` (1/256) at each overflow of ``limit`` packets or ``memory_limit`` bytes
    and falls by ``p_dec`` (1/4096) when the queue is found empty."""

    kind: ClassVar[str] = "cobalt"
    target: Quantity | None = None
    interval: Quantity | None = None
    limit: int | None = None
    memory_limit: Quantity | None = None
    mtu: Quantity | None = None
    ecn: bool | None = None
    p_inc: float | None = None
    p_dec: float | None = None


@dataclass
class Xcp(_Builder):
    """The XCP router (Katabi et al. 2002): a FIFO of ``limit`` packets whose departing XCP
    packets get the controllers' feedback (``alpha`` 0.4, ``beta`` 0.226, ``gamma`` 0.1). Flows
    take part with ``cc="xcp"``. ``congestion_threshold`` (packets) turns on Sheela & Raja's
    congestion bit for senders with ``cc={"kind": "xcp", "window_adjustment": True}``.
    ``virtual_queues=True`` is ns-2.35's ``Queue/XCP`` (XCP, TCP and other traffic in queues
    served in turn) and ``xcp_share`` the share of the capacity the controllers allocate (0.5
    is ns-2's ``tcp_xcp_on_``)."""

    kind: ClassVar[str] = "xcp"
    limit: int | None = None
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    initial_interval: Quantity | None = None
    min_interval: Quantity | None = None
    queue_window: float | None = None
    congestion_threshold: int | None = None
    virtual_queues: bool | None = None
    xcp_share: float | None = None
    random_timers: bool | None = None


@dataclass
class Acns(_Builder):
    """The ACNS router (Olšovský 2014): a FIFO of ``limit`` packets that writes per-flow
    commands (normal, freeze, fallback) into packets that ask for one, from the flow's age, its
    DSCP and the queue's occupancy. ``weight`` is ``"intended"`` (default: old, low-priority
    flows weigh most) or ``"printed"`` (the paper's Eqs. 3-4 as printed). Flows take part with
    ``acns=True`` (or a dict of sender settings: ``request``, ``omega_count``, ``sigma``,
    ``th_l1``, ``th_l2``, ``history``)."""

    kind: ClassVar[str] = "acns"
    limit: int | None = None
    weight: str | None = None
    th_a1: float | None = None
    th_a2: float | None = None
    v_p: float | None = None
    v_a: float | None = None
    p_max: int | None = None
    idle_timeout: Quantity | None = None


@dataclass
class Bernoulli(_Builder):
    """Each packet is lost independently with probability ``p``."""

    kind: ClassVar[str] = "bernoulli"
    p: float


@dataclass
class GilbertElliott(_Builder):
    """Two-state Markov loss, one step per packet (starts in Good)."""

    kind: ClassVar[str] = "gilbert_elliott"
    p_gb: float
    p_bg: float
    loss_good: float = 0.0
    loss_bad: float = 1.0


@dataclass
class Outage(_Builder):
    """Every packet is lost during each ``(start, stop)`` interval."""

    kind: ClassVar[str] = "outage"
    intervals: Sequence[tuple[Quantity, Quantity]]


@dataclass
class LossList(_Builder):
    """The packets with these 0-based indices (per link direction) are lost."""

    kind: ClassVar[str] = "list"
    packets: Sequence[int]


# --- links and topologies --------------------------------------------------------------------

QueueLike = Union[DropTail, Red, Codel, Pie, FqCodel, FqPie, Cobalt, Step, DualPi2, Xcp, Acns, dict]
LossLike = Union[Bernoulli, GilbertElliott, Outage, LossList, dict]


@dataclass
class Link(_Builder):
    """A full-duplex link; ``a``/``b`` (and ``name``) are for explicit topologies."""

    rate: Quantity
    delay: Quantity
    queue: QueueLike | None = None
    loss: LossLike | None = None
    loss_reverse: LossLike | None = None
    name: str | None = None
    a: str | None = None
    b: str | None = None


@dataclass
class LinkOverride(_Builder):
    """Overrides the fields it names on a dumbbell access link."""

    rate: Quantity | None = None
    delay: Quantity | None = None
    queue: QueueLike | None = None
    loss: LossLike | None = None
    loss_reverse: LossLike | None = None


@dataclass
class Dumbbell(_Builder):
    """``pairs`` senders ``s{i}`` and receivers ``d{i}`` through routers ``left`` and ``right``."""

    kind: ClassVar[str] = "dumbbell"
    _omit_empty: ClassVar[tuple[str, ...]] = ("left", "right")
    pairs: int
    bottleneck: Link | dict
    access: Link | dict | None = None
    left: Sequence[LinkOverride | dict] = ()
    right: Sequence[LinkOverride | dict] = ()


@dataclass
class Chain(_Builder):
    """Nodes ``n0..n{hops}`` in a line, one link spec per hop."""

    kind: ClassVar[str] = "chain"
    links: Sequence[Link | dict]


@dataclass
class Explicit(_Builder):
    """Named nodes and links (each with ``name``, ``a`` and ``b``)."""

    kind: ClassVar[str] = "explicit"
    nodes: Sequence[str]
    links: Sequence[Link | dict]


# --- flows -----------------------------------------------------------------------------------


class _WithTcp(_Builder):
    """A flow builder whose keyword TCP settings go to a ``tcp`` table, left out when empty."""

    tcp: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if not self.tcp:
            del out["tcp"]
        return out


@dataclass(init=False)
class TcpFlow(_WithTcp):
    """A TCP connection; keyword TCP settings (``cc``, ``recovery``, ``mss``, ...) go to the
    ``tcp`` table, and only those given (not ``None``) are emitted."""

    kind: ClassVar[str] = "tcp"
    name: str
    src: str
    dst: str
    start: Quantity | None
    stop: Quantity | None
    size: Quantity | None
    tcp: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        name: str,
        src: str,
        dst: str,
        start: Quantity | None = None,
        stop: Quantity | None = None,
        size: Quantity | None = None,
        **tcp_settings: Any,
    ):
        self.name, self.src, self.dst = name, src, dst
        self.start, self.stop, self.size = start, stop, size
        self.tcp = {k: v for k, v in tcp_settings.items() if v is not None}


@dataclass(init=False)
class TcpArrivals(_WithTcp):
    """Finite TCP transfers arriving as a Poisson process of ``arrival_rate`` per second from
    ``start`` until ``stop``, becoming flows ``name.0``, ``name.1``, ... in arrival order.
    ``size`` is a size (``"100kB"``) or a table such as ``{"distribution": "pareto", "mean":
    "100kB", "shape": 1.2, "max": "10MB"}``; keyword TCP settings go to the ``tcp`` table as
    for :class:`TcpFlow`."""

    kind: ClassVar[str] = "tcp_arrivals"
    name: str
    src: str
    dst: str
    arrival_rate: float
    size: Quantity | dict[str, Any]
    start: Quantity | None
    stop: Quantity | None
    tcp: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        name: str,
        src: str,
        dst: str,
        arrival_rate: float,
        size: Quantity | dict[str, Any],
        start: Quantity | None = None,
        stop: Quantity | None = None,
        **tcp_settings: Any,
    ):
        self.name, self.src, self.dst = name, src, dst
        self.arrival_rate, self.size = arrival_rate, size
        self.start, self.stop = start, stop
        self.tcp = {k: v for k, v in tcp_settings.items() if v is not None}


@dataclass
class CbrFlow(_Builder):
    """Constant-bit-rate UDP; ``packet_size`` counts headers (default 1000 bytes); ``random``
    and ``max_packets`` are ns-2's ``random_`` (gaps jittered by ±half the interval) and
    ``maxpkts_``."""

    kind: ClassVar[str] = "cbr"
    name: str
    src: str
    dst: str
    rate: Quantity
    packet_size: Quantity | None = None
    start: Quantity | None = None
    stop: Quantity | None = None
    dscp: int = 0
    random: bool | None = None
    max_packets: int | None = None


@dataclass
class OnOffFlow(_Builder):
    """On-off UDP as ns-2's ``Exponential`` and ``Pareto`` traffic: bursts at ``rate`` of mean
    duration ``on``, idle periods of mean ``off``; ``distribution`` is ``"exponential"`` (the
    default) or ``"pareto"`` with ``shape`` (> 1, default 1.5); ``packet_size`` counts headers
    (default 1000 bytes)."""

    kind: ClassVar[str] = "onoff"
    name: str
    src: str
    dst: str
    rate: Quantity
    on: Quantity
    off: Quantity
    distribution: str | None = None
    shape: float | None = None
    packet_size: Quantity | None = None
    start: Quantity | None = None
    stop: Quantity | None = None
    dscp: int = 0


# --- the scenario ----------------------------------------------------------------------------


@dataclass
class Trace(_Builder):
    """Which time series to record (``cwnd``, ``ssthresh``, ``srtt``, ``rto``, ``rtt``,
    ``throughput``, ``recovery``, ``bw_estimate``, ``acns_command``, ``cwnd_hold``,
    ``delivery_rate``, ``pacing_rate``, ``cc_mode``, ``min_rtt``, ``ecn_alpha``,
    ``inflight_lo``, ``inflight_hi``, ``queue``, ``queue_bytes``, ``avg_queue``,
    ``sojourn``) and how often; ``packets``: links whose every packet event is traced
    (``Result.packets``), ``["*"]`` for all; ``pcap``: links written as pcap files, one per
    direction (:func:`ccsim.pcap.write_pcaps`)."""

    series: Sequence[str] = ()
    interval: Quantity | None = None
    throughput_bin: Quantity | None = None
    packets: Sequence[str] = ()
    pcap: Sequence[str] = ()
    _omit_empty: ClassVar[tuple[str, ...]] = ("packets", "pcap")


@dataclass
class Scenario(_Builder):
    """A complete simulation; ``to_dict()`` gives what :func:`ccsim.run` accepts."""

    name: str
    duration: Quantity
    topology: Dumbbell | Chain | Explicit | dict
    flows: Sequence[TcpFlow | TcpArrivals | CbrFlow | OnOffFlow | dict]
    seed: int = 1
    defaults: str = "linux"
    trace: Trace | dict | None = None
    # "fast" (the default when left out) or "reference": every packet by its own events
    engine: str | None = None


def load(path: str | os.PathLike) -> dict[str, Any]:
    """Reads a scenario TOML file into a dict.

    A syntax error raises :class:`ScenarioError` with an empty path and the parser's message
    (which gives the line and column); a missing file raises ``FileNotFoundError``.
    """
    with open(path, "rb") as f:
        data = f.read()
    name = os.fspath(path)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"invalid TOML in {name}: {e}") from None
    except UnicodeDecodeError as e:
        raise ScenarioError("", f"{name} is not UTF-8 text: {e}") from None
    except RecursionError:
        # The reader recurses into nested arrays and inline tables.
        raise ScenarioError(
            "", f"invalid TOML in {name}: arrays or tables nested too deeply to read"
        ) from None
    except ValueError as e:
        # Python refuses to read an integer of more than sys.get_int_max_str_digits() digits.
        where = _long_number_line(data)
        raise ScenarioError("", f"invalid TOML in {name}{where}: a number too long ({e})") from None


def _long_number_line(data: bytes) -> str:
    """`` (line N)`` of the first run of more than 4,300 digits in ``data``, or ``""``."""
    m = re.search(rb"[0-9_]{4301,}", data)
    if m is None:
        return ""
    line = data.count(b"\n", 0, m.start()) + 1
    return f" (line {line})"


def default_scenario() -> dict[str, Any]:
    """The scenario ``ccsim run`` uses without a file: two Reno flows (the second starting at
    0.5 s) and 2 Mb/s of CBR sharing a 10 Mb/s, 20 ms dumbbell bottleneck for 30 s."""
    return Scenario(
        name="default",
        duration=30,
        defaults="linux",
        topology=Dumbbell(
            pairs=3,
            bottleneck=Link(rate="10Mbps", delay="20ms", queue=DropTail(limit=100)),
            access=Link(rate="100Mbps", delay="1ms"),
        ),
        flows=[
            TcpFlow("tcp1", "s0", "d0", start=0, cc="reno"),
            TcpFlow("tcp2", "s1", "d1", start=0.5, cc="reno"),
            CbrFlow("cbr", "s2", "d2", rate="2Mbps", packet_size=1000),
        ],
        trace=Trace(series=["cwnd", "ssthresh", "srtt", "throughput", "queue"], interval="10ms"),
    ).to_dict()
