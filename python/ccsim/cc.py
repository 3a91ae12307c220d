"""Congestion control written in Python.

Subclass :class:`CongestionControl`, define its hooks (Linux's ``tcp_congestion_ops`` names,
as the Rust algorithms have), and give it to a flow from code::

    class Aimd(ccsim.CongestionControl):
        def __init__(self, beta=0.5):
            self.beta = beta

        def ssthresh(self, conn):
            return max(conn.cwnd * self.beta, 2.0)

        def cong_avoid(self, conn, ack):
            acked = conn.slow_start(ack.acked) if conn.in_slow_start else ack.acked
            conn.cong_avoid_ai(conn.cwnd, acked)

    ccsim.TcpFlow("f", "s0", "d0", tcp={"cc": Aimd(beta=0.7)})

or register it by name, which scenario files and dicts may then use (``cc = "aimd"`` or
``cc = { kind = "aimd", beta = 0.7 }``, the table's other keys passed to the class)::

    ccsim.register_cc("aimd", Aimd)

Scenario files stay data: a name they use must have been registered by the program that runs
them. The algorithm plugs in where a Rust one does (`crates/ccsim/src/tcp/cc/external.rs`), so
slow-start rules, ECN, ACNS and loss recovery work around it unchanged. Each flow gets its own
instance: an instance given is copied (``copy.deepcopy``) for each flow, a class is called with
no arguments.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any

from .errors import ScenarioError

HOOKS = (
    "ssthresh",
    "cong_avoid",
    "pkts_acked",
    "set_state",
    "cwnd_event",
    "init",
    "cong_control",
    "on_feedback",
)


class CongestionControl:
    """Base class of a congestion control written in Python.

    Each hook gets ``conn``, a view of the sender's state: ``cwnd`` and ``ssthresh``
    (segments), ``pacing_rate`` (bytes per second, ``math.inf`` for unpaced) and
    ``app_limited`` may be set; ``mss``, ``srtt``, ``min_rtt`` (seconds), ``in_flight``,
    ``snd_una``, ``snd_nxt``, ``delivered``, ``lost`` (segments), ``ecn_echoes`` (ACKs that
    carried ECN-Echo before this one), ``rwnd``, ``ca_state``
    (``"open"``, ``"cwr"``, ``"recovery"``, ``"loss"``), ``now`` (seconds), ``flow`` and
    ``in_slow_start`` are read only; ``conn.slow_start(acked)`` and
    ``conn.cong_avoid_ai(w, acked)`` are Linux's ``tcp_slow_start`` (with the connection's
    slow-start rule) and ``tcp_cong_avoid_ai``. ACK hooks also get ``ack``: ``segments`` and
    ``acked`` (newly acknowledged; ``acked`` counts per the connection's ``ack_counting``),
    ``rtt`` (seconds, or None) and ``ece``.

    Two ways to set the window, as in Linux:

    - ``ssthresh`` and ``cong_avoid`` (both required): the sender's slow-start rules, ECN and
      loss recovery set the window around them;
    - ``cong_control`` (Linux's, as BBR uses it): called on every ACK, in every state, with
      the ACK's delivery-rate sample; the algorithm sets the window itself and the sender
      applies neither ``cong_avoid`` nor its recovery and ECN window rules (after a timeout it
      still sets the loss window, one segment, as Linux does). ``cong_avoid`` must then be
      left out, and ``ssthresh`` may be (the threshold then stays as it is).

    A class that sets ``needs_pacing = True`` is paced at the ``conn.pacing_rate`` it sets
    (under the flow's default ``pacing = "auto"``; Linux's ``SK_PACING_NEEDED``).
    ``conn.delivered``, ``conn.lost`` and ``conn.app_limited`` are kept for an algorithm that
    defines ``cong_control`` (or a flow whose ``delivery_rate`` is traced); 0 otherwise.
    Hooks a class does not define cost nothing.

    An exception in a hook, a window left non-positive, NaN or infinite, or a pacing rate set
    non-positive or NaN, stops the run with :class:`ccsim.CongestionControlError` naming the
    hook, the flow and the simulated time.
    """

    #: Whether the flow is paced at the ``conn.pacing_rate`` this algorithm sets (Linux's
    #: ``SK_PACING_NEEDED``): under the flow's default ``pacing = "auto"`` it is, and the
    #: sender leaves the rate to the algorithm. ``pacing = "off"`` still turns pacing off.
    needs_pacing: bool = False

    def ssthresh(self, conn: Any) -> float:
        """Required (unless ``cong_control`` is defined): the slow-start threshold after a loss
        or an ECN echo (segments). Return it; the sender assigns it (the window itself is set by
        loss recovery)."""
        raise NotImplementedError

    def cong_avoid(self, conn: Any, ack: Any) -> None:
        """Required (unless ``cong_control`` is defined, which excludes it): window growth on
        an ACK of new data outside loss recovery."""
        raise NotImplementedError

    def pkts_acked(self, conn: Any, ack: Any) -> None:
        """Every ACK of new data, in any state, before ``cong_avoid``: for RTT samples. It
        observes; changing the window here is an error (window changes go in ``cong_avoid``)."""

    def set_state(self, conn: Any, state: str) -> None:
        """The loss-recovery state is about to become ``state``."""

    def cwnd_event(self, conn: Any, event: str) -> None:
        """``"tx_start"``, ``"timeout"``, ``"ecn_echo"`` or ``"recovery_exit"``."""

    def init(self, conn: Any) -> None:
        """The connection is established and about to send (Linux ``init``): set the initial
        pacing rate or state here."""

    def on_feedback(self, conn: Any, fb: dict[str, Any]) -> bool:
        """Router feedback the ACK carried back (XCP's congestion header, with ``kind = "xcp"``
        queues on the path): ``fb`` holds ``kind`` (``"xcp"``), ``feedback`` (the window
        change the routers allow, segments; infinite where none lowered it), ``admitted``
        (the rate they admitted, segments per second), ``congested`` and ``queue_high``
        (Sheela & Raja's bits). Return True if the hook set the window itself: ``cong_avoid``
        is then skipped for this ACK."""
        return False

    def cong_control(self, conn: Any, rs: Any) -> None:
        """Linux's ``cong_control``: every ACK, in every state, with ``rs``, the ACK's
        delivery-rate sample (read only): ``delivered`` (segments over the ``interval``,
        seconds, None for an invalid sample), ``rate`` (segments per second, or None),
        ``acked_sacked``, ``losses``, ``prior_in_flight``, ``in_flight``, ``prior_delivered``
        (segments), ``rtt`` (seconds, or None), ``is_app_limited``, ``is_retrans`` and
        ``delivered_time`` (seconds). Defining it makes the algorithm set its own window (and
        pacing rate) here; see the class's documentation."""

    def _defined_hooks(self) -> list[str]:
        """The hooks this class defines (the core calls only those)."""
        cls = type(self)
        return [h for h in HOOKS if getattr(cls, h) is not getattr(CongestionControl, h)]


Factory = Callable[[str], CongestionControl]
_REGISTRY: dict[str, type[CongestionControl] | Callable[..., CongestionControl]] = {}
# The module that registered each name: a sweep's worker imports it to register the name there
# too when the factory itself cannot be imported by name (a lambda; ccsim.cc_ref).
_REGISTERED_BY: dict[str, str | None] = {}


def register_cc(name: str, factory: type[CongestionControl] | Callable[..., Any]) -> None:
    """Makes ``name`` a congestion control that scenarios may use (``cc = "name"`` or
    ``cc = { kind = "name", <keyword arguments> }``): ``factory(**kwargs)`` (a
    :class:`CongestionControl` subclass, or a callable returning an instance) makes each
    flow's instance. Registering a name again replaces it; a built-in name is refused."""
    if not isinstance(name, str) or not name:
        raise ValueError("register_cc: name must be a non-empty string")
    from . import _native

    builtin = _builtin_names(_native.schema())
    if name in builtin:
        raise ValueError(
            f"register_cc: {name!r} is a built-in congestion control; built-in names: "
            f"{', '.join(sorted(builtin))}"
        )
    if not callable(factory):
        raise TypeError("register_cc: factory must be a CongestionControl subclass or callable")
    _REGISTRY[name] = factory
    caller = sys._getframe(1).f_globals.get("__name__")
    _REGISTERED_BY[name] = caller if isinstance(caller, str) else None


def registered_by(name: str) -> str | None:
    """The module that registered ``name`` with :func:`register_cc`, if known."""
    return _REGISTERED_BY.get(name)


def adopt(name: str, factory: Callable[..., Any]) -> None:
    """Registers ``name`` as a sweep's worker finds it (the factory imported by name), without
    :func:`register_cc`'s checks, which the sweep's own process made."""
    if _REGISTRY.get(name) is not factory:
        _REGISTRY[name] = factory
        _REGISTERED_BY[name] = getattr(factory, "__module__", None)


def registered() -> dict[str, Any]:
    """The names registered with :func:`register_cc`, and their factories."""
    return dict(_REGISTRY)


def _builtin_names(schema: dict[str, Any]) -> set[str]:
    names = set()
    for v in schema["$defs"]["CcSpec"]["oneOf"]:
        # a table with `kind`, or (the shorthand) a bare name
        kind = v.get("properties", {}).get("kind", {}).get("const", v.get("const"))
        if isinstance(kind, str):
            names.add(kind)
    return names - {"external"}


def _checked(obj: Any, what: str) -> CongestionControl:
    if not isinstance(obj, CongestionControl):
        raise TypeError(f"{what} made a {type(obj).__name__}, not a ccsim.CongestionControl")
    return obj


def _factory(value: Any, path: str) -> tuple[Factory, str] | None:
    """The per-flow factory and a description of a ``cc`` value that is a Python algorithm
    (an instance, a class, a registered name or table), or None for a built-in one."""
    if isinstance(value, CongestionControl):
        return (lambda flow: copy.deepcopy(value)), _describe(type(value))
    if isinstance(value, type) and issubclass(value, CongestionControl):
        return (lambda flow: _checked(value(), value.__name__)), _describe(value)
    name, kwargs = None, {}
    if isinstance(value, str):
        name = value
    elif isinstance(value, dict) and isinstance(value.get("kind"), str):
        name = value["kind"]
        kwargs = {k: v for k, v in value.items() if k != "kind"}
    if name is None or name not in _REGISTRY:
        return None
    make = _REGISTRY[name]

    def build(flow: str) -> CongestionControl:
        try:
            return _checked(make(**kwargs), name)
        except TypeError as e:
            raise ScenarioError(path, f"{name}: {e}") from None

    return build, f"{name} ({_describe(make)})"


def _describe(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


class Extracted:
    """A scenario dict ready for the core (``core``), the factories of its Python algorithms
    by slot (``factories``), and how results name them: ``described`` (slot → module.Class)
    and ``labels`` (flow name, or ``"name."`` for the transfers of an arrivals entry → class
    name)."""

    def __init__(self, core: dict[str, Any]):
        self.core = core
        self.factories: list[Factory] = []
        self.described: dict[str, str] = {}
        self.labels: dict[str, str] = {}

    def label(self, flow: str) -> str | None:
        """The class name of flow ``flow``'s Python algorithm, if it has one."""
        if flow in self.labels:
            return self.labels[flow]
        prefix = flow.rsplit(".", 1)[0] + "."
        return self.labels.get(prefix)


def extract(d: dict[str, Any]) -> Extracted:
    """``d`` with each Python algorithm (in ``flows[i].tcp.cc``) replaced by the core's
    ``{"kind": "external", "slot": k}``, with the factories by slot."""
    out = Extracted(d)
    flows = d.get("flows")
    if not isinstance(flows, list):
        return out
    for i, flow in enumerate(flows):
        tcp = flow.get("tcp") if isinstance(flow, dict) else None
        if not isinstance(tcp, dict) or "cc" not in tcp:
            continue
        found = _factory(tcp["cc"], f"flows[{i}].tcp.cc")
        if found is None:
            continue
        if out.core is d:
            out.core = dict(d, flows=list(flows))
        make, what = found
        slot = len(out.factories)
        out.factories.append(make)
        out.described[str(slot)] = what
        name = str(flow.get("name", ""))
        key = name + "." if flow.get("kind") == "tcp_arrivals" else name
        out.labels[key] = what.split(" ")[0].rsplit(".", 1)[-1]
        out.core["flows"][i] = dict(flow, tcp=dict(tcp, cc={"kind": "external", "slot": slot}))
    return out
