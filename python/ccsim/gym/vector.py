"""Many :class:`~ccsim.gym.CongestionEnv` at once, as ``gymnasium.vector`` environments."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium

from ..sweep_exec import _main_not_rerun
from .env import CongestionEnv

VECTORIZATION = ("sync", "async")


def make_vec(
    n: int, *, vectorization: str = "sync", **env_kwargs: Any
) -> gymnasium.vector.VectorEnv:
    """``n`` copies of ``CongestionEnv(**env_kwargs)`` stepped together.

    ``vectorization``: ``"sync"`` (``SyncVectorEnv``: one after another in this process) or
    ``"async"`` (``AsyncVectorEnv``: one process each, started with ``spawn``, so that
    forking cannot deadlock on the simulator's or a notebook's threads; a custom ``scenario``
    or ``reward`` callable travels there by cloudpickle; the script itself is not run again
    in them, so it needs no ``if __name__ == "__main__":`` guard). ``reset(seed=s)`` seeds
    the i-th environment with ``s + i``, so each runs its own episodes; without a seed each
    draws its own from the operating system.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number of environments ≥ 1; got {n!r}")
    if vectorization not in VECTORIZATION:
        raise ValueError(f"vectorization must be 'sync' or 'async'; got {vectorization!r}")
    CongestionEnv(**env_kwargs).close()  # bad arguments fail here, not in n workers
    fns = [functools.partial(CongestionEnv, **env_kwargs) for _ in range(n)]
    if vectorization == "sync":
        return gymnasium.vector.SyncVectorEnv(fns)
    # The workers start here. Like a sweep's pool, they need nothing of the main script
    # (cloudpickle carries a callable defined there by value), so it is not run again in each.
    with _main_not_rerun():
        return gymnasium.vector.AsyncVectorEnv(fns, context="spawn")
