"""A Gym-style environment on the ``gymnasium`` API, in which an agent sets one flow's
congestion window or pacing rate each monitor interval (``pip install '.[gym]'``)::

    from ccsim.gym import CongestionEnv

    env = CongestionEnv(action="multiplicative")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step([0.5])

Also registered with gymnasium as ``"ccsim/Congestion-v0"`` (``gymnasium.make``,
``gymnasium.make_vec``); :func:`make_vec` builds vectorised environments. The guide:
docs/guide/gym.md.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as e:  # pragma: no cover - the extra not installed
    raise ImportError(
        "ccsim.gym needs the gymnasium package: pip install 'gymnasium>=1.0' (or, in a ccsim "
        "clone, pip install '.[gym]')"
    ) from e

from .env import ACTIONS, INTERVALS, OBSERVATIONS, CongestionEnv, Episode, dumbbell
from .monitor import AgentCC, IntervalStats, PacedAgentCC
from .reward import aurora_reward
from .vector import make_vec

__all__ = [
    "ACTIONS",
    "INTERVALS",
    "OBSERVATIONS",
    "AgentCC",
    "CongestionEnv",
    "Episode",
    "IntervalStats",
    "PacedAgentCC",
    "aurora_reward",
    "dumbbell",
    "make_vec",
]

ENV_ID = "ccsim/Congestion-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="ccsim.gym.env:CongestionEnv")
