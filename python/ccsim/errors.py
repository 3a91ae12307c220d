"""The exceptions users see: a bad scenario, a bad sweep, a sweep whose points failed, a
congestion control written in Python that failed."""

from __future__ import annotations

from collections.abc import Sequence


class ScenarioError(ValueError):
    """A scenario that cannot run.

    ``path`` names the offending value the way the Rust schema does (``flows[2].tcp.recovery``;
    empty when the problem is the scenario as a whole) and ``message`` says what is wrong and
    what is accepted. ``str(e)`` is ``"path: message"``, or just the message when there is no path.
    """

    def __init__(self, path: str, message: str):
        # args mirror the compiled core's exception, and make the error picklable, so it
        # crosses process-pool boundaries in sweeps unchanged.
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    @classmethod
    def from_core(cls, exc: BaseException) -> ScenarioError:
        """Converts ``ccsim._core.ScenarioError`` (args ``(path, message)``)."""
        args = exc.args
        if len(args) == 2 and all(isinstance(a, str) for a in args):
            return cls(args[0], args[1])
        # Defensive: a core built against an older contract may carry a single message.
        return cls("", " ".join(str(a) for a in args) or type(exc).__name__)


class SweepError(ScenarioError):
    """A sweep that cannot start: a bad sweep file or argument, or invalid points.

    ``invalid`` lists the points whose scenarios failed validation (each an
    ``InvalidPoint`` with the point's axis values, the error path and message); it is empty
    when the sweep description itself is wrong.
    """

    def __init__(self, path: str, message: str, invalid: Sequence = ()):
        super().__init__(path, message)
        self.invalid = list(invalid)

    def __reduce__(self):
        return (type(self), (self.path, self.message, tuple(self.invalid)))


class SweepFailed(RuntimeError):
    """Some points of a sweep failed while running, or did not run (a worker died).

    The points that finished are kept (on disk when the sweep has an output directory, so a
    rerun computes only the rest). ``frame``: the requested table for the finished points;
    ``failures``: one row per failed point (axis values, seed, error); ``missing``: how many
    points did not run.
    """

    def __init__(self, message: str, frame=None, failures=None, missing: int = 0):
        super().__init__(message)
        self.frame = frame
        self.failures = failures
        self.missing = missing


class CongestionControlError(RuntimeError):
    """A congestion control written in Python (:class:`ccsim.CongestionControl`) failed: one
    of its hooks raised, or left the window not a positive finite number of segments.

    ``hook``, ``flow`` and ``time_s`` (simulated seconds) say where; the hook's own exception,
    with its traceback, is the ``__cause__``.
    """

    def __init__(self, hook: str, flow: str, time_s: float, reason: str):
        super().__init__(hook, flow, time_s, reason)
        self.hook = hook
        self.flow = flow
        self.time_s = time_s
        self.reason = reason

    def __str__(self) -> str:
        return (
            f"congestion control of flow {self.flow!r}: {self.hook}() at "
            f"{self.time_s:.9f} s simulated: {self.reason}"
        )
