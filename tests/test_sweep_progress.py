"""The sweep progress bar: done/total, elapsed, estimated time left; silent off a terminal."""

import io

from ccsim import progress
from ccsim.progress import ProgressBar


def test_line_counts_and_estimates_from_computed_points_only(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    bar = ProgressBar(10, out, cached=4)
    assert bar.line().startswith("[##########..............] 4/10 points  0:00 elapsed  ? left")
    now[0] = 130.0
    bar.advance()
    bar.advance(failed=True)
    # 2 computed in 30 s, 4 to go: 60 s left (the 4 cached points took no time).
    assert bar.line() == (
        "[##############..........] 6/10 points  0:30 elapsed  1:00 left  (1 failed)"
    )
    assert out.getvalue().count("\r") == 2
    for _ in range(4):
        bar.advance()
    assert " 10/10 points  0:30 elapsed  0:00 left" in bar.line()
    bar.close()
    assert out.getvalue().endswith("\n")


def test_hours():
    assert progress._clock(3725) == "1:02:05" and progress._clock(59.6) == "1:00"


def test_silent_without_a_terminal(monkeypatch, capsys):
    bar = ProgressBar.for_terminal(3, enabled=True)  # pytest's stderr is not a terminal
    bar.advance()
    bar.close()
    assert capsys.readouterr().err == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    monkeypatch.setattr(progress.sys, "stderr", tty)
    ProgressBar.for_terminal(3, enabled=False).advance()
    assert tty.getvalue() == ""
    ProgressBar.for_terminal(3, enabled=True).advance()
    assert "1/3 points" in tty.getvalue()
