"""``ccsim sweep`` stopped by a signal: no worker outlives it, the caller's pipes close, and
the next run resumes.

Each test runs a real ``ccsim sweep`` in a process group of its own, so that whatever happens
the clean-up can kill exactly the processes the test started. Every wait has a deadline.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("ccsim._core")
psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

ROOT = Path(__file__).resolve().parent.parent
POINTS = 8
WORKERS = 2
DEADLINE_S = 120  # for the sweep to get going; generous for a loaded 2-core CI machine
EXIT_S = 60  # for the signalled sweep to close its pipes
KEY = re.compile(r"^[0-9a-f]{64}\.parquet$")


def sweep_file(tmp_path):
    # Points of about a second each, so that the sweep is mid-way when the signal comes.
    limits = ", ".join(str(10 * (k + 1)) for k in range(POINTS))
    path = tmp_path / "long.toml"
    path.write_text(
        f'[sweep]\nbase = "{ROOT / "scenarios" / "dumbbell-reno.toml"}"\n'
        '[sweep.set]\nduration = "300s"\n"topology.bottleneck.rate" = "100Mbps"\n'
        '"trace.series" = []\n'
        f'[sweep.axes]\n"topology.bottleneck.queue.limit" = [{limits}]\n'
    )
    return path


def command(path, out):
    return [sys.executable, "-m", "ccsim", "sweep", str(path), "-o", str(out)] + [
        "--workers",
        str(WORKERS),
    ]


def done_points(out):
    folder = out / "points"
    return {p.name for p in folder.iterdir() if KEY.match(p.name)} if folder.is_dir() else set()


def gone(proc):
    try:
        return proc.status() == psutil.STATUS_ZOMBIE  # exited; its reaper has yet to see it
    except psutil.NoSuchProcess:
        return True


class Sweep:
    """A ``ccsim sweep`` subprocess with pipes, and every process it started."""

    def __init__(self, tmp_path):
        self.path, self.out = sweep_file(tmp_path), tmp_path / "out"
        self.proc = subprocess.Popen(
            command(self.path, self.out),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, for the clean-up
        )
        self.pgid = self.proc.pid
        self.children = []

    def wait_until_busy(self):
        """Until a point is done and the workers and the resource tracker are up."""
        me = psutil.Process(self.proc.pid)
        end = time.monotonic() + DEADLINE_S
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                pytest.fail(f"the sweep ended early: {self.proc.communicate()[1].decode()}")
            kids = me.children(recursive=True)
            if done_points(self.out) and len(kids) >= WORKERS + 1:
                self.children = kids
                assert len(done_points(self.out)) < POINTS, "the sweep finished before the signal"
                return
            time.sleep(0.05)
        pytest.fail(f"no point finished within {DEADLINE_S} s")

    def signal_and_drain(self, sig):
        """Sends ``sig`` to the main process only; its stdout and stderr must reach EOF."""
        os.kill(self.proc.pid, sig)
        try:
            out, err = self.proc.communicate(timeout=EXIT_S)
        except subprocess.TimeoutExpired:
            left = [c.pid for c in self.children if not gone(c)]
            pytest.fail(f"the caller's pipes stayed open {EXIT_S} s; still running: {left}")
        return out.decode(), err.decode()

    def assert_no_process_left(self):
        end = time.monotonic() + EXIT_S
        while time.monotonic() < end and not all(gone(c) for c in self.children):
            time.sleep(0.05)
        left = [(c.pid, c.cmdline()) for c in self.children if not gone(c)]
        assert left == [], f"processes outlived the sweep: {left}"

    def cleanup(self):
        try:
            os.killpg(self.pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for c in self.children:  # a worker that left the group would still be one of ours
            try:
                c.kill()
            except psutil.NoSuchProcess:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=EXIT_S)


@pytest.fixture
def sweep(tmp_path):
    s = Sweep(tmp_path)
    try:
        yield s
    finally:
        s.cleanup()


def test_sigterm_stops_workers_and_the_rerun_resumes(sweep):
    sweep.wait_until_busy()
    _, err = sweep.signal_and_drain(signal.SIGTERM)
    assert sweep.proc.returncode == 128 + signal.SIGTERM
    assert f"terminated (SIGTERM): the finished points are kept in {sweep.out}" in err
    sweep.assert_no_process_left()

    kept = done_points(sweep.out)
    assert 0 < len(kept) < POINTS
    again = subprocess.run(
        command(sweep.path, sweep.out), capture_output=True, text=True, timeout=600
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(
        f"{POINTS} points: {POINTS - len(kept)} run, {len(kept)} cached in "
    )
    points = pd.read_csv(sweep.out / "points.csv")
    assert len(points) == POINTS and (points.status == "ok").all()


def test_sigkill_of_the_main_process_ends_its_workers(sweep):
    sweep.wait_until_busy()
    sweep.signal_and_drain(signal.SIGKILL)
    assert sweep.proc.returncode == -signal.SIGKILL
    sweep.assert_no_process_left()
