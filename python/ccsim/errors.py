"""The one exception users see for a bad scenario."""

from __future__ import annotations


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
