"""Type stub of the compiled core, ``ccsim._core`` (``crates/ccsim-py/src/lib.rs`` and
``python_cc.rs``). The bindings only convert types; ``ccsim._native`` is the one module that
calls them. ``tests/test_core_stub.py`` checks this stub against the built module with mypy's
stubtest, so a function or class added to the bindings must be added here too."""

from collections.abc import Callable
from typing import Any, final

__all__ = [
    "ScenarioError",
    "version",
    "build",
    "source",
    "schema",
    "validate",
    "heap_bytes",
    "Simulation",
    "Connection",
    "Ack",
    "RateSample",
]

class ScenarioError(ValueError):
    """A scenario failed to parse or validate: args are (path, message)."""

def heap_bytes(reset: bool = False) -> tuple[int, int]:
    """Bytes the Rust core has allocated now, and at most since the last call with
    ``reset=True`` (which then starts a new peak from the current level)."""

def version() -> str:
    """The ccsim version."""

def build() -> str:
    """How the core was compiled: "release" or "debug", with ", PGO" for a profile-guided
    build."""

def source() -> str:
    """A fingerprint of the core's source (16 hex digits): sweeps key cached points by it."""

def schema() -> str:
    """The scenario JSON Schema, as a JSON string."""

def validate(scenario_json: str) -> None:
    """Parses, validates and builds a scenario without running it."""

@final
class Simulation:
    """A built simulation, advanced in steps of simulated time."""

    def __new__(
        cls, scenario_json: str, external: list[Callable[[str], Any]] | None = None
    ) -> Simulation: ...
    def failure(self) -> tuple[str, str, float, BaseException] | None:
        """The first failure of a congestion control written in Python, as
        ``(hook, flow, time_s, exception)``, or None."""

    @property
    def duration(self) -> float:
        """Simulated seconds the run lasts."""

    @property
    def now(self) -> float:
        """Simulated seconds reached so far."""

    def run_until(self, t: float) -> None:
        """Advances to simulated time ``t`` seconds (capped at the end), without holding the
        GIL."""

    def finish(self) -> dict[str, Any]:
        """Runs to the end if needed and returns the results as a dict of columns: ``meta``
        (a dict), ``flows``, ``queues`` and ``packets`` (column name → ``(numpy dtype string,
        bytes)`` or a list of str), and ``series`` (name → ``time_s``, ``id``, ``value``
        columns)."""

@final
class Connection:
    """The sender's state as a Python congestion control sees it: ``cwnd``, ``ssthresh``
    (segments), ``pacing_rate`` (bytes per second) and ``app_limited`` may be set, the rest is
    read-only."""

    @property
    def cwnd(self) -> float:
        """Congestion window, segments."""

    @cwnd.setter
    def cwnd(self, v: float) -> None: ...
    @property
    def ssthresh(self) -> float:
        """Slow-start threshold, segments."""

    @ssthresh.setter
    def ssthresh(self, v: float) -> None: ...
    @property
    def mss(self) -> int:
        """Segment size, bytes."""

    @property
    def srtt(self) -> float:
        """Smoothed RTT, seconds (0 before the first sample)."""

    @property
    def min_rtt(self) -> float:
        """Smallest RTT sample so far, seconds (infinite before the first)."""

    @property
    def in_flight(self) -> int:
        """Segments sent and not cumulatively acknowledged."""

    @property
    def snd_una(self) -> int:
        """Oldest unacknowledged segment."""

    @property
    def snd_nxt(self) -> int:
        """One past the highest segment sent."""

    @property
    def rwnd(self) -> float:
        """Receiver window, segments (infinite when unlimited)."""

    @property
    def ca_state(self) -> str:
        """Loss-recovery state: "open", "cwr", "recovery" or "loss"."""

    @property
    def now(self) -> float:
        """Simulated time, seconds."""

    @property
    def now_ns(self) -> int:
        """Simulated time in the core's whole nanoseconds."""

    @property
    def pacing_rate(self) -> float:
        """Pacing rate, bytes per second (infinite: unpaced); it paces the flow when the class
        sets ``needs_pacing = True``. Setting a non-positive or NaN value raises ValueError."""

    @pacing_rate.setter
    def pacing_rate(self, v: float) -> None: ...
    @property
    def delivered(self) -> int:
        """Segments delivered so far (Linux ``tp->delivered``; 0 unless the algorithm defines
        ``cong_control`` or the flow's ``delivery_rate`` is traced)."""

    @property
    def lost(self) -> int:
        """Segments marked lost so far (Linux ``tp->lost``), counted as ``delivered`` is."""

    @property
    def ecn_echoes(self) -> int:
        """ACKs that carried ECN-Echo before the one being handled (RFC 3168; ``ack.ece``
        says whether this one does)."""

    @property
    def app_limited(self) -> int:
        """The delivered count at which the application-limited period ends, 0 when not
        application-limited (Linux ``tp->app_limited``)."""

    @app_limited.setter
    def app_limited(self, v: int) -> None: ...
    @property
    def flow(self) -> str:
        """The flow's name."""

    @property
    def in_slow_start(self) -> bool:
        """Whether cwnd is below ssthresh."""

    def slow_start(self, acked: float) -> float:
        """Linux's ``tcp_slow_start``: grows cwnd by the connection's slow-start rule for
        ``acked`` segments, not past ssthresh; returns what is left for congestion avoidance."""

    def cong_avoid_ai(self, w: float, acked: float) -> None:
        """Linux's ``tcp_cong_avoid_ai``: one segment per ``w`` segments acknowledged."""

@final
class Ack:
    """What one ACK that acknowledged new data tells the algorithm."""

    @property
    def segments(self) -> int:
        """Segments newly acknowledged by the cumulative ACK."""

    @property
    def acked(self) -> float:
        """Segments to count for window growth (at most 1 under ns-2's per-ACK counting)."""

    @property
    def rtt(self) -> float | None:
        """The RTT this ACK measured, seconds, if it gave a valid sample (Karn's rule)."""

    @property
    def rtt_ns(self) -> int | None:
        """The same RTT in the core's whole nanoseconds."""

    @property
    def ece(self) -> bool:
        """The ACK carried ECN-Echo."""

    @property
    def ce(self) -> int:
        """Segments reported CE-marked since the previous ACK of new data (0 without ECN)."""

@final
class RateSample:
    """One ACK's delivery-rate sample (Linux ``struct rate_sample``), in seconds and
    segments."""

    @property
    def delivered(self) -> int:
        """Segments delivered over the sampling interval (0 for an invalid sample)."""

    @property
    def interval(self) -> float | None:
        """The sampling interval, seconds; None for an invalid sample."""

    @property
    def rate(self) -> float | None:
        """The delivery rate, segments per second; None for an invalid sample."""

    @property
    def acked_sacked(self) -> int:
        """Segments this ACK newly SACKed or acknowledged."""

    @property
    def losses(self) -> int:
        """Segments newly marked lost while handling this ACK."""

    @property
    def prior_in_flight(self) -> int:
        """Segments in flight before this ACK."""

    @property
    def in_flight(self) -> int:
        """Segments in flight after this ACK."""

    @property
    def rtt(self) -> float | None:
        """The RTT of the newest segment this ACK delivered, seconds, if never retransmitted."""

    @property
    def is_app_limited(self) -> bool:
        """Some moment of the sampled window left the connection without data to send."""

    @property
    def is_retrans(self) -> bool:
        """The sampled segment was a retransmission."""

    @property
    def prior_delivered(self) -> int:
        """The connection's delivered count when the sampled segment was sent."""

    @property
    def delivered_time(self) -> float:
        """When the connection's delivered count last grew, seconds."""
