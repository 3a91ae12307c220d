"""Where a sweep's points run: this process, a local process pool, or a Dask cluster.

Each executor takes ``(key, scenario_json)`` jobs and yields ``(key, payload)`` as points
finish, in any order; the caller writes each result as it arrives. A payload is what
:func:`run_point` returns. Workers never touch the output directory: on a cluster it may not
be shared, and one writer means no two processes race on a file.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

Job = tuple[str, str]  # (key, scenario JSON)

# ccsim is installed from a clone (it is on no package index), so 'ccsim[dask]' would fail.
DASK_MISSING = (
    "running a sweep on Dask needs the dask.distributed package: pip install "
    "'dask[distributed]' (or, in a ccsim clone, pip install '.[dask]')"
)


# How often a pool worker checks that the process that started it is still there. A worker
# whose parent was killed (SIGKILL, an out-of-memory kill, a batch job's end) exits within
# about this long instead of running on, holding the caller's pipes open.
PARENT_POLL_S = 0.5

# `ccsim sweep --dask ADDRESS`: what distributed.Client accepts for a running scheduler, as
# dask-jobqueue's `cluster.scheduler_address` prints it (tcp://10.1.2.3:8786), or without the
# protocol (tcp is then assumed). IPv6 hosts go in brackets.
_ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$")


class WorkerDied(RuntimeError):
    """A pool worker process died (killed, or crashed); its point and the pool are lost."""


def check_address(address: str) -> str:
    """``address`` if it names a Dask scheduler as ``tcp://host:port`` or ``host:port``;
    otherwise ``ValueError`` saying what is accepted (distributed raises a bare error from deep
    inside its address parsing)."""
    m = _ADDRESS.match(address.strip())
    if m is not None and 1 <= int(m.group(2)) <= 65535:
        return address.strip()
    if m is not None:
        why = "the port must be 1 to 65535"
    elif _ADDRESS.match(address.strip() + ":1"):
        why = "the port is missing"
    else:
        why = "it is not a scheduler address"
    raise ValueError(
        f"{address!r}: {why}; expected tcp://host:port or host:port "
        "(a running scheduler's address, e.g. tcp://10.0.0.5:8786)"
    )


def _exit_with_parent(parent: int) -> None:
    """A pool worker's initializer: exit as soon as the parent process is gone.

    A worker blocks on its task queue, or computes a point for minutes, and never learns that
    the parent died: the queue's pipe stays open (every worker holds both ends), so it would
    run on, an orphan holding the caller's stdout and stderr open. On Linux the kernel kills it
    when the parent dies (``PR_SET_PDEATHSIG``, prctl(2)); on every POSIX system a daemon
    thread polls ``os.getppid()``, which changes when an orphan is adopted by init or a
    subreaper (the core releases the GIL while it simulates, so the thread runs during a
    point). The resource tracker then sees its pipe close and exits too. (Windows keeps an
    orphan's parent id: there neither applies.)
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            pr_set_pdeathsig = 1  # <linux/prctl.h>
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl here: the thread below suffices

    if os.name != "posix":
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    # Checked once here too: the parent may have died before prctl took effect.
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, name="ccsim-parent-watch", daemon=True).start()


def run_point(text: str) -> dict[str, Any]:
    """Runs one point's scenario (JSON text) in a worker; returns its tables or its error.

    Errors come back as text, not as exceptions: a Rust panic is a ``BaseException`` whose
    class lives in a module the parent may be unable to import to unpickle it, and a failed
    point must not look like a failed worker.
    """
    from .cc_ref import materialize  # imported here: a spawned worker imports only what it runs
    from .runner import run

    t0 = time.perf_counter()
    where = {"pid": os.getpid(), "host": socket.gethostname()}
    try:
        # Congestion controls written in Python arrive as references to import (ccsim.cc_ref).
        result = run(materialize(json.loads(text)))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - every failure of the point is recorded
        return {
            "ok": False,
            "error": f"{type(e).__name__}: {e}",
            "traceback": traceback.format_exc(),
            "wall_s": time.perf_counter() - t0,
            "worker": where,
        }
    return {
        "ok": True,
        "flows": result.flows,
        "queues": result.queues,
        "series": result.all_series(),
        "packets": result.packets,
        "meta": result.meta,
        "wall_s": result.meta.get("wall_s", time.perf_counter() - t0),
        "worker": where,
    }


def _failed(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error, "traceback": "", "wall_s": float("nan"), "worker": {}}


class InProcess:
    """Runs the points one after another in this process: for debugging and profiling."""

    workers = 1
    description = "in this process"

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def results(self, jobs: Iterable[Job]) -> Iterator[tuple[str, dict[str, Any]]]:
        for key, text in jobs:
            yield key, run_point(text)


@contextlib.contextmanager
def _main_not_rerun() -> Iterator[None]:
    """Hides the ``__main__`` module's origin while pool workers are spawned.

    A spawned worker normally re-imports the parent's main script (as ``__mp_main__``) so that
    functions defined there can be unpickled; a script without an ``if __name__ ==
    "__main__":`` guard would then run its whole body (and this sweep) again in every worker.
    Our workers run only :func:`run_point`, from ccsim itself, so they never need the script.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {
        a: main.__dict__[a] for a in ("__file__", "__spec__") if a in main.__dict__
    }
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


class LocalPool:
    """A ``ProcessPoolExecutor`` of ``workers`` processes, started with ``spawn``.

    Every job is submitted at once; each worker takes the next from one shared queue as it
    finishes a point, in the order given (the caller puts the longest expected first), so
    no worker idles while a point waits.

    ``spawn`` rather than ``fork``: forking a process that holds threads (the core's, or a
    notebook's) can deadlock the child, and spawn behaves the same on every platform.
    """

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        self.description = f"{self.workers} local worker process(es)"
        self._ex: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalPool:
        ctx = multiprocessing.get_context("spawn")
        self._ex = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=ctx,
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        ex, self._ex = self._ex, None
        if ex is None:
            return
        if exc_type is not None:
            # Interrupted or failed: the in-flight points are given up, so stop the workers
            # now instead of waiting for their points (which may take minutes) to finish.
            # Take the workers before shutdown(): CPython 3.11 clears `_processes` there.
            procs = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                if proc.is_alive():
                    proc.terminate()
        ex.shutdown(wait=True, cancel_futures=True)

    def results(self, jobs: Iterable[Job]) -> Iterator[tuple[str, dict[str, Any]]]:
        assert self._ex is not None, "use LocalPool as a context manager"
        # Workers start (spawn) inside submit; see _main_not_rerun for why main is hidden then.
        with _main_not_rerun():
            pending = {self._ex.submit(run_point, text): key for key, text in jobs}
        broken = False
        while pending and not broken:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                key = pending.pop(fut)
                try:
                    payload = fut.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                yield key, payload
        if broken:
            # Results that arrived before the pool broke are still good; keep them.
            for fut, key in list(pending.items()):
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    pending.pop(fut)
                    yield key, fut.result()
            raise WorkerDied(
                f"a worker process died (killed, or out of memory) with {len(pending)} "
                "point(s) unfinished"
            )


class DaskCluster:
    """Runs the points as tasks on a ``distributed.Client``.

    Dask reruns the task of a worker that dies on another worker; a point whose task killed
    several workers (``KilledWorker``) is recorded as failed.
    """

    def __init__(self, client: Any):
        try:
            import distributed
        except ImportError as e:
            raise ImportError(DASK_MISSING) from e
        self._distributed = distributed
        self.client = client
        self.workers = max(1, sum(client.nthreads().values()))
        self.description = f"Dask at {client.scheduler.address} ({self.workers} threads)"

    @classmethod
    def connect(cls, address: str) -> DaskCluster:
        """A client of the scheduler at ``address`` (``tcp://host:8786``); ``ValueError`` for
        an address that is not of that form."""
        address = check_address(address)
        try:
            import distributed
        except ImportError as e:
            raise ImportError(DASK_MISSING) from e
        return cls(distributed.Client(address))

    def __enter__(self) -> DaskCluster:
        self._futures: list[Any] = []
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is not None and self._futures:
            self.client.cancel(self._futures)
        self._futures = []

    def results(self, jobs: Iterable[Job]) -> Iterator[tuple[str, dict[str, Any]]]:
        keys = {}
        jobs = list(jobs)
        for rank, (key, text) in enumerate(jobs):
            # The scenario hash as the task key: the same point submitted twice (two sweeps
            # sharing a cluster) is computed once. pure=False: never served from a result
            # the scheduler still holds under another key. The scheduler runs higher
            # priorities first: the jobs' order (the longest expected first) is kept.
            fut = self.client.submit(
                run_point, text, key=f"ccsim-point-{key}", pure=False, priority=len(jobs) - rank
            )
            keys[fut.key] = key
            self._futures.append(fut)
        for fut in self._distributed.as_completed(self._futures):
            key = keys[fut.key]
            try:
                payload = fut.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker, a lost scheduler, ...
                payload = _failed(f"{type(e).__name__}: {e}")
            fut.release()
            yield key, payload
