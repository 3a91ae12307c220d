"""Progress of long work where it runs, drawn by tqdm (https://tqdm.github.io):

- in a terminal, a bar redrawn in place on stderr;
- in Jupyter, tqdm's notebook widget (``tqdm.auto``; a text bar if ipywidgets is missing);
- when stderr is a file or a pipe (a batch job's log), a plain line every ``LOG_EVERY_S``
  seconds of wall time, since a bar redrawn with carriage returns piles up into one
  unreadable line there. Work shorter than that prints nothing.

``ccsim.run`` counts simulated seconds (:func:`simulated_time`), sweeps count points
(:class:`ProgressBar`).
"""

from __future__ import annotations

import functools
import sys
from typing import IO, Any

from tqdm import std

# How often a log line is written when stderr is not a terminal: often enough to see that a
# batch job is alive and how far it has come, rarely enough to keep its log short.
LOG_EVERY_S = 30.0


class _Bar(std.tqdm):
    # Updates are few (a chunk of simulated time, a finished point) and refreshed by wall time
    # (``mininterval``) alone, so tqdm's monitor thread, which lowers a large ``miniters``,
    # has nothing to do.
    monitor_interval = 0


class _LogLines(_Bar):
    """tqdm's meter as a plain line every ``mininterval`` seconds, for a log file.

    ``delay`` holds back the first line as long: short work writes nothing. Once a line was
    written, closing writes one more with the final count (unless the last line showed it),
    so the log shows the work ended.
    """

    def __init__(self, *args: Any, every: float, **kwargs: Any):
        self.lines, self.shown_n = 0, None
        super().__init__(*args, mininterval=every, delay=every, leave=False, **kwargs)

    def refresh(self, nolock: bool = False, lock_args: Any = None) -> bool:
        # A refresh asked for by the caller (the final state of a run) waits its turn too, and
        # repeats no line; tqdm's own first one, from __init__ when there is no delay, comes
        # before start_t.
        now, start = self._time(), getattr(self, "start_t", None)
        if start is not None and (
            now < start + self.delay
            or now - self.last_print_t < self.mininterval
            or self.n == self.shown_n
        ):
            return False
        return bool(super().refresh(nolock=nolock, lock_args=lock_args))

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if msg is not None:  # tqdm clearing its line: nothing to clear in a log
            return False
        self.fp.write(self.__str__() + "\n")
        self.fp.flush()
        self.lines += 1
        self.shown_n = self.n
        return True

    def close(self) -> None:
        if not self.disable and self.lines and self.shown_n != self.n:
            self.display()
        super().close()


@functools.cache
def _widget() -> type:
    """tqdm.auto's bar (the notebook widget, or a text bar without ipywidgets), imported only
    in a notebook: tqdm.auto chooses, and warns, when first imported."""
    from tqdm.auto import tqdm as auto

    class _Widget(auto):  # type: ignore[misc, valid-type]
        monitor_interval = 0

    return _Widget


def _in_notebook() -> bool:
    """True inside a Jupyter kernel, whose stderr is no terminal but can show a widget (the
    test tqdm.autonotebook makes)."""
    return "ipykernel.zmqshell" in sys.modules


def where(enabled: bool, stream: IO[str] | None = None) -> str | None:
    """Which form progress takes: ``"notebook"``, ``"terminal"``, ``"log"`` or None (off)."""
    if not enabled:
        return None
    stream = sys.stderr if stream is None else stream
    if stream is None:  # pythonw and some services run without a stderr
        return None
    if _in_notebook() and stream is sys.stderr:
        return "notebook"
    return "terminal" if hasattr(stream, "isatty") and stream.isatty() else "log"


def open_bar(
    total: float,
    *,
    enabled: bool,
    bar_format: str,
    log_format: str,
    initial: float = 0,
    leave: bool = True,
    smoothing: float = 0.3,
    desc: str = "",
) -> std.tqdm:
    """A tqdm bar on stderr in the form :func:`where` chooses; a silent one when off.

    ``bar_format`` draws the terminal bar and the widget (``{bar}`` is the bar),
    ``log_format`` the log lines; both are tqdm formats (``{n}``, ``{total}``,
    ``{percentage}``, ``{elapsed}``, ``{remaining}``, ``{postfix}``, ``{desc}``).
    ``initial`` is work done before (not counted in the rate, so not in the time left).
    """
    stream = sys.stderr
    form = where(enabled, stream)
    common: dict[str, Any] = {
        "total": total,
        "initial": initial,
        "smoothing": smoothing,
        "desc": desc,
        # Every update is worth showing (at most one per mininterval): no skipping by count.
        "miniters": 0,
    }
    if form is None:
        return _Bar(disable=True, **common)
    if form == "log":
        return _LogLines(file=stream, bar_format=log_format, every=LOG_EVERY_S, **common)
    if form == "notebook":
        return _widget()(file=stream, bar_format=bar_format, leave=leave, **common)
    return _Bar(file=stream, bar_format=bar_format, leave=leave, dynamic_ncols=True, **common)


def simulated_time(duration: float, enabled: bool, name: str = "") -> std.tqdm:
    """Progress of one run, in simulated seconds; ``update`` it by the seconds advanced.

    The terminal's line is cleared at the end (the summary follows it)."""
    return open_bar(
        duration,
        enabled=enabled,
        desc=f"{name}: " if name else "",
        bar_format="  {n:.2f}/{total:.2f} s simulated {percentage:5.1f}% |{bar}| "
        "wall {elapsed}, {remaining} left",
        log_format="ccsim run {desc}{n:.2f}/{total:.2f} s simulated ({percentage:.1f}%), "
        "wall {elapsed}, about {remaining} left",
        leave=False,
    )


class ProgressBar:
    """Points of a sweep done / total, time elapsed and estimated left, failures.

    The estimate counts only points computed in this run (tqdm's ``initial``): cached ones
    take no time, and counting them would make the first minutes of a resumed sweep look far
    too fast. It is the average over the run (``smoothing=0``): points finish in bursts when
    workers run in parallel.
    """

    def __init__(self, total: int, enabled: bool = True, cached: int = 0):
        self.total, self.cached = total, cached
        self.done, self.failed = cached, 0
        self.bar = open_bar(
            total,
            enabled=enabled,
            initial=cached,
            smoothing=0.0,
            bar_format="|{bar}| {n}/{total} points  {elapsed} elapsed  {remaining} left{postfix}",
            log_format="ccsim sweep: {n}/{total} points, {elapsed} elapsed, "
            "about {remaining} left{postfix}",
        )
        self.interactive = not self.bar.disable and not isinstance(self.bar, _LogLines)
        if self.interactive:
            self.bar.mininterval = 0  # a finished point is rare enough to show each

    @classmethod
    def for_terminal(cls, total: int, enabled: bool, cached: int = 0) -> ProgressBar:
        """The bar of a sweep on stderr, in the form :func:`where` chooses (the name is
        older than the notebook and log forms)."""
        return cls(total, enabled, cached)

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        if failed:
            self.bar.set_postfix_str(f"{self.failed} failed", refresh=False)
        self.bar.update(1)

    def draw(self) -> None:
        """Shows the bar now (tqdm draws it when created; a log line waits its interval)."""
        if self.interactive:
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
