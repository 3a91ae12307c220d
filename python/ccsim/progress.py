"""A one-line progress bar for sweeps: points done / total, elapsed, estimated remaining."""

from __future__ import annotations

import sys
import time
from typing import IO


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressBar:
    """Rewrites one line of ``stream`` in place; silent when ``stream`` is None.

    The estimate counts only points computed in this run: cached ones take no time, and
    counting them would make the first minutes of a resumed sweep look far too fast.
    """

    WIDTH = 24

    def __init__(self, total: int, stream: IO[str] | None, cached: int = 0):
        self.total, self.stream, self.cached = total, stream, cached
        self.done, self.failed = cached, 0
        self.t0 = time.perf_counter()
        self.shown = False

    @classmethod
    def for_terminal(cls, total: int, enabled: bool, cached: int = 0) -> ProgressBar:
        """A bar on stderr if ``enabled`` and stderr is a terminal, else a silent one."""
        tty = enabled and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
        return cls(total, sys.stderr if tty else None, cached)

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        self.draw()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.t0
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.WIDTH))
        bar = "#" * filled + "." * (self.WIDTH - filled)
        computed = self.done - self.cached
        if self.done >= self.total:
            eta = "0:00"
        elif computed > 0:
            eta = _clock(elapsed / computed * (self.total - self.done))
        else:
            eta = "?"
        text = f"[{bar}] {self.done}/{self.total} points  {_clock(elapsed)} elapsed  {eta} left"
        if self.failed:
            text += f"  ({self.failed} failed)"
        return text

    def draw(self) -> None:
        if self.stream is None:
            return
        self.stream.write("\r" + self.line() + "\033[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.stream is not None and self.shown:
            self.stream.write("\n")
            self.stream.flush()
