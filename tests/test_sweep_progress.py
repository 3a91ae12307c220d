"""Progress of sweeps and runs, drawn by tqdm: done/total, elapsed, estimated time left; a bar
on a terminal, a plain line every LOG_EVERY_S seconds in a log, nothing for short work there."""

import io

import pytest
from ccsim import progress
from ccsim.progress import ProgressBar


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def clock(monkeypatch):
    """tqdm's clock, set by the test (tqdm reads tqdm.std.time when a bar is made)."""
    now = [100.0]
    monkeypatch.setattr(progress.std, "time", lambda: now[0])
    return now


def test_bar_counts_and_estimates_from_computed_points_only(monkeypatch, clock):
    tty = Tty()
    monkeypatch.setattr(progress.sys, "stderr", tty)
    bar = ProgressBar(10, enabled=True, cached=4)
    assert tty.getvalue().endswith("4/10 points  00:00 elapsed  ? left")
    clock[0] = 130.0
    bar.advance()
    bar.advance(failed=True)
    # 2 computed in 30 s, 4 to go: 60 s left (the 4 cached points took no time).
    assert tty.getvalue().endswith("6/10 points  00:30 elapsed  01:00 left, 1 failed")
    assert tty.getvalue().count("\r") == 3  # drawn in place: at the start and per point
    for _ in range(4):
        bar.advance()
    assert tty.getvalue().endswith(" 10/10 points  00:30 elapsed  00:00 left, 1 failed")
    bar.close()
    assert tty.getvalue().endswith("\n")


def test_hours_in_the_estimate(monkeypatch, clock):
    tty = Tty()
    monkeypatch.setattr(progress.sys, "stderr", tty)
    bar = ProgressBar(3, enabled=True)
    clock[0] += 3725
    bar.advance()
    assert "1/3 points  1:02:05 elapsed  2:04:10 left" in tty.getvalue()


def test_silent_without_a_terminal(monkeypatch, capsys):
    bar = ProgressBar.for_terminal(3, enabled=True)  # pytest's stderr is not a terminal
    bar.advance()
    bar.close()
    assert capsys.readouterr().err == ""  # work shorter than LOG_EVERY_S writes nothing

    tty = Tty()
    monkeypatch.setattr(progress.sys, "stderr", tty)
    ProgressBar.for_terminal(3, enabled=False).advance()
    assert tty.getvalue() == ""
    ProgressBar.for_terminal(3, enabled=True).advance()
    assert "1/3 points" in tty.getvalue()


def test_log_lines_every_interval_when_stderr_is_a_file(monkeypatch, clock):
    log = io.StringIO()  # a batch job's log: not a terminal
    monkeypatch.setattr(progress.sys, "stderr", log)
    bar = ProgressBar(5, enabled=True)
    clock[0] += 10
    bar.advance()
    assert log.getvalue() == ""  # nothing before the first LOG_EVERY_S
    clock[0] += progress.LOG_EVERY_S
    bar.advance(failed=True)
    assert log.getvalue() == (
        "ccsim sweep: 2/5 points, 00:40 elapsed, about 01:00 left, 1 failed\n"
    )
    clock[0] += 1
    bar.advance()  # within the interval of the last line: no line
    assert log.getvalue().count("\n") == 1
    clock[0] += 1
    bar.advance()
    bar.advance()
    bar.close()  # a last line with the final count, as a line was written
    lines = log.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in log.getvalue()
    assert lines[1] == "ccsim sweep: 5/5 points, 00:42 elapsed, about 00:00 left, 1 failed"


def test_forms(monkeypatch):
    tty = Tty()
    monkeypatch.setattr(progress.sys, "stderr", tty)
    assert progress.where(True) == "terminal" and progress.where(False) is None
    monkeypatch.setattr(progress.sys, "stderr", io.StringIO())
    assert progress.where(True) == "log"
    monkeypatch.setattr(progress.sys, "stderr", None)  # pythonw: no stderr at all
    assert progress.where(True) is None
    assert ProgressBar(2, enabled=True).bar.disable


def test_notebook_uses_tqdm_auto(monkeypatch):
    # In a Jupyter kernel tqdm.auto draws its widget (a text bar without ipywidgets).
    from tqdm.auto import tqdm as auto

    monkeypatch.setattr(progress, "_in_notebook", lambda: True)
    monkeypatch.setattr(progress.sys, "stderr", io.StringIO())  # a kernel's stderr: no tty
    assert progress.where(True) == "notebook"
    bar = progress.simulated_time(10.0, enabled=True, name="x")
    assert isinstance(bar, auto)
    bar.close()
