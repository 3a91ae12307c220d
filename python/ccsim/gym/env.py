"""A Gym-style environment (the ``gymnasium`` API) in which an agent sets one flow's
congestion window or pacing rate, one monitor interval at a time.

``reset()`` builds a scenario (a one-flow dumbbell by default, any scenario by argument) whose
flow ``flow`` runs :class:`~ccsim.gym.monitor.AgentCC` (or, for the pacing actions,
:class:`~ccsim.gym.monitor.PacedAgentCC`), and runs it until that flow's first RTT sample.
``step(action)`` sets the window or rate and advances the simulation one monitor interval
(``Simulation.run_until``), then observes the interval. The design follows Aurora (Jay et al.,
ICML 2019: monitor intervals, latency ratio, the reward, the multiplicative rate action) with
Orca's multiplicative window action (Abbasloo et al., SIGCOMM 2020).
"""

from __future__ import annotations

import copy
import math
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import _native, cc
from ..result import Result
from ..runner import _raise_failure, prepare, to_json
from .monitor import MIN_CWND, AgentCC, IntervalStats, PacedAgentCC
from .reward import aurora_reward

# The observation of one interval, in this order (`history` intervals are concatenated,
# oldest first). Rates in Mbit/s and times in ms keep the numbers near 1..1000.
OBSERVATIONS = (
    "send_mbps",  # new payload sent per second
    "delivery_mbps",  # payload newly acknowledged per second
    "rtt_mean_ms",  # the interval's RTT samples (the smoothed RTT without one)
    "rtt_min_ms",
    "rtt_max_ms",
    "latency_ratio",  # mean RTT over the flow's smallest RTT so far (Aurora)
    "loss_events",  # entries into fast recovery or the loss state (RTO)
    "ecn_fraction",  # share of the interval's ACKs carrying ECN-Echo
    "cwnd",  # the window at the interval's end, segments
)
ACTIONS = {
    "cwnd": "the window itself, segments, in [2, max_cwnd]",
    "multiplicative": "cwnd × 2**a for a in [-1, 1] (halve to double per interval)",
    "pacing": "the pacing rate itself, Mbit/s, in [min_rate, max_rate]",
    "pacing_multiplicative": (
        "Aurora's rate change: rate × (1 + 0.025·a) for a ≥ 0, rate / (1 − 0.025·a) for a < 0, "
        "a in [-40, 40] (halve to double per interval)"
    ),
}
# The actions that set the pacing rate (PacedAgentCC) rather than the window.
PACING_ACTIONS = ("pacing", "pacing_multiplicative")
# Aurora's scale of its rate action (PCC-RL's DELTA_SCALE, its sender's apply_rate_delta).
AURORA_DELTA = 0.025
# The bound of the Aurora action: 1 + 0.025 · 40 = 2, so the rate halves to doubles per
# interval at most, as the window's multiplicative action.
AURORA_BOUND = 40.0
INTERVALS = {
    "min_rtt": "the flow's smallest RTT sample so far (its base RTT)",
    "srtt": "the flow's smoothed RTT",
}
# The monitor interval before the flow has any RTT sample (its start is later than the
# episode's), seconds.
NO_RTT_INTERVAL_S = 0.1
# The series the environment adds to what the scenario traces (_keep_senders_in_step).
ADDED_SERIES = ("cwnd", "delivery_rate")
# How far reset() advances at a time while it waits for the flow's first RTT sample, seconds:
# the first observation ends at most this long after it.
PROBE_S = 0.001

ScenarioArg = Union[None, dict, str, "os.PathLike[str]", Any, Callable[[np.random.Generator], Any]]
Reward = Callable[[IntervalStats], float]


def dumbbell(
    rate: str = "10Mbps",
    delay: str = "20ms",
    limit: int = 50,
    duration: str | float = "10s",
    competing: int = 0,
    competing_cc: Any = "cubic",
) -> dict[str, Any]:
    """The default scenario: a dumbbell whose bottleneck has ``rate``, one-way ``delay`` and a
    DropTail queue of ``limit`` packets, the flow ``agent`` from s0 to d0 for ``duration``,
    and ``competing`` flows (``other0``, ...; ``competing_cc`` each) on the other pairs. With the
    defaults the base RTT is 44.1 ms (the access links add 2 ms each way)."""
    pairs = 1 + competing
    flows: list[dict[str, Any]] = [{"kind": "tcp", "name": "agent", "src": "s0", "dst": "d0"}]
    flows += [
        {"kind": "tcp", "name": f"other{i}", "src": f"s{i + 1}", "dst": f"d{i + 1}",
         "tcp": {"cc": competing_cc}}
        for i in range(competing)
    ]  # fmt: skip
    return {
        "name": "gym-dumbbell",
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": {"kind": "droptail", "limit": limit},
            },
        },
        "flows": flows,
    }


@dataclass
class Episode:
    """One episode of :meth:`CongestionEnv.rollout`: ``observations`` (one row per interval,
    the first from ``reset``), ``actions`` (one per step; empty rows for an algorithm),
    ``rewards`` and the intervals' ``stats``."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    stats: list[IntervalStats]

    @property
    def total_reward(self) -> float:
        return float(self.rewards.sum())


class CongestionEnv(gymnasium.Env):
    """One flow's congestion window as the agent's action, one monitor interval per step.

    ``scenario``: ``None`` (:func:`dumbbell`'s defaults), a scenario (a ``ccsim.Scenario``,
    dict or TOML path), or a callable that gets the episode's random generator
    (``self.np_random``) and returns one, for a new network each episode. ``flow``: the name of
    the TCP flow the agent drives (its ``cc`` is replaced). ``action``: ``"cwnd"`` (the window,
    segments, in [2, ``max_cwnd``]), ``"multiplicative"`` (``a`` in [-1, 1]: the window
    times 2**a), ``"pacing"`` (the pacing rate, Mbit/s of TCP segments, in [``min_rate``,
    ``max_rate``]) or ``"pacing_multiplicative"`` (Aurora's: ``a`` in [-40, 40], the rate
    times 1 + 0.025·a, or divided by 1 − 0.025·a for a < 0); under the pacing actions the
    window is held at ``pacing_cwnd_gain`` bandwidth-delay products at ``max_rate``
    (:class:`~ccsim.gym.monitor.PacedAgentCC`), so that it does not limit the flow.
    ``interval``: the monitor interval, ``"min_rtt"`` (default: the flow's
    smallest RTT sample so far, its base RTT), ``"srtt"`` (its smoothed RTT) or seconds.
    ``reward``: ``"aurora"`` (:func:`~ccsim.gym.aurora_reward`) or a callable of the interval's
    :class:`~ccsim.gym.IntervalStats` returning a number. ``history``: how many intervals each
    observation holds (Aurora uses 10).

    Observations are ``float32`` vectors of :data:`OBSERVATIONS` per interval. An action
    outside the space is clipped to it. The episode ends, truncated, at the scenario's end;
    ``terminated`` is always False; :meth:`result` then gives the run's
    :class:`ccsim.Result`. ``info`` holds ``time_s``, ``interval_s``, ``cwnd``,
    ``pacing_rate_bps`` and the interval's ``stats``.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        scenario: ScenarioArg = None,
        *,
        flow: str = "agent",
        action: str = "cwnd",
        interval: str | float = "min_rtt",
        reward: str | Reward = "aurora",
        history: int = 1,
        max_cwnd: float = 1000.0,
        min_rate: float = 0.1,
        max_rate: float = 100.0,
        pacing_cwnd_gain: float = 4.0,
    ):
        super().__init__()
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {_choices(ACTIONS)}; got {action!r}")
        if isinstance(interval, str):
            if interval not in INTERVALS:
                raise ValueError(
                    f"interval must be one of {_choices(INTERVALS)}, or seconds; got {interval!r}"
                )
        elif (
            isinstance(interval, bool)
            or not isinstance(interval, (int, float))
            or not math.isfinite(interval)
            or interval <= 0
        ):
            raise ValueError(
                f"interval must be 'min_rtt', 'srtt' or a positive number of seconds; "
                f"got {interval!r}"
            )
        if reward == "aurora":
            reward = aurora_reward
        elif isinstance(reward, str) or not callable(reward):
            raise ValueError(
                "reward must be 'aurora' or a callable taking a ccsim.gym.IntervalStats and "
                f"returning a number; got {reward!r}"
            )
        if isinstance(history, bool) or not isinstance(history, int) or history < 1:
            raise ValueError(f"history must be a whole number of intervals ≥ 1; got {history!r}")
        if (
            isinstance(max_cwnd, bool)
            or not isinstance(max_cwnd, (int, float))
            or not math.isfinite(max_cwnd)
            or max_cwnd <= MIN_CWND
        ):
            raise ValueError(
                f"max_cwnd must be a number of segments > {MIN_CWND:g}; got {max_cwnd!r}"
            )
        if not _positive(min_rate):
            raise ValueError(f"min_rate must be a positive number of Mbit/s; got {min_rate!r}")
        if not _positive(max_rate) or max_rate <= min_rate:
            raise ValueError(
                f"max_rate must be a number of Mbit/s > min_rate ({min_rate:g}); got {max_rate!r}"
            )
        if not _positive(pacing_cwnd_gain):
            raise ValueError(
                "pacing_cwnd_gain must be a positive number (the window under the pacing "
                f"actions, in bandwidth-delay products at max_rate); got {pacing_cwnd_gain!r}"
            )
        if not isinstance(flow, str) or not flow:
            raise ValueError(f"flow must be the name of a TCP flow of the scenario; got {flow!r}")
        self.flow = flow
        self.action_mode = action
        self.interval = interval
        self.reward_fn: Reward = reward
        self.history = history
        self.max_cwnd = float(max_cwnd)
        self.min_rate = float(min_rate)
        self.max_rate = float(max_rate)
        self.pacing_cwnd_gain = float(pacing_cwnd_gain)
        self._scenario_fn: Callable[[np.random.Generator], Any] | None = None
        self._scenario: dict[str, Any] | None = None
        if scenario is None:
            self._scenario = dumbbell()
        elif callable(scenario) and not hasattr(scenario, "to_dict"):
            self._scenario_fn = scenario
        else:
            self._scenario = prepare(scenario)
        if self._scenario is not None:
            self._agent_index(self._scenario, "scenario")  # a bad flow name fails here

        n = len(OBSERVATIONS) * history
        self.observation_space = spaces.Box(0.0, np.inf, shape=(n,), dtype=np.float32)
        if action == "cwnd":
            self.action_space = spaces.Box(MIN_CWND, self.max_cwnd, shape=(1,), dtype=np.float32)
        elif action == "pacing":
            self.action_space = spaces.Box(
                self.min_rate, self.max_rate, shape=(1,), dtype=np.float32
            )
        elif action == "pacing_multiplicative":
            self.action_space = spaces.Box(
                -AURORA_BOUND, AURORA_BOUND, shape=(1,), dtype=np.float32
            )
        else:
            self.action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
        self._sim: Any = None
        self._extracted: Any = None
        self._result: Any = None
        self._agent: AgentCC | None = None
        self._obs: deque[np.ndarray] = deque(maxlen=history)
        self._ended = True

    # --- the episode --------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Builds the episode's scenario, with a seed drawn from ``np_random``, and runs it
        until the agent's flow has its first RTT sample; ``options`` is not used."""
        super().reset(seed=seed)
        return self._start(self._new_agent())

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._ended or self._agent is None:
            raise RuntimeError("the episode has ended (or not begun): call reset() first")
        if isinstance(self._agent, PacedAgentCC):
            self._agent.rate = self._rate(action)
        else:
            self._agent.target = self._target(action)
        return self._advance()

    def close(self) -> None:
        self._sim = None
        self._agent = None
        self._result = None
        self._ended = True

    def result(self) -> Result:
        """The :class:`ccsim.Result` of the episode just ended (the last ``step`` returned
        ``truncated``, or :meth:`rollout` returned): its flows table and the series its
        scenario traced, as :func:`ccsim.run` gives them. The environment adds the ``cwnd``
        and ``delivery_rate`` series to what the scenario traces (see the guide)."""
        if self._sim is None or not self._ended:
            raise RuntimeError(
                "result() needs an episode run to its end: call it after the step that "
                "returned truncated=True (or after rollout())"
            )
        if self._result is None:
            raw = self._sim.finish()
            _raise_failure(self._sim, self._external)
            x = self._extracted
            result = Result.from_core(raw, x.core)
            # As ccsim.run names them: each Python algorithm by its class, not "external".
            result.meta["external_cc"] = x.described
            flows = result.flows
            if "cc" in flows and "flow" in flows:
                named = [x.label(str(f)) for f in flows["flow"]]
                cc_names = zip(flows["cc"], named)
                flows["cc"] = [n if c == "external" and n else c for c, n in cc_names]
            self._result = result
        return self._result

    def rollout(self, policy: Any, *, seed: int | None = None) -> Episode:
        """Runs one episode and returns it. ``policy``: a callable from an observation to an
        action, or a :class:`ccsim.CongestionControl` (an instance, copied, or a class) that
        drives the flow instead of the agent (with all its hooks, ``cong_control`` and
        pacing included), watched through the same intervals and scored by the same reward:
        a baseline."""
        super().reset(seed=seed)
        if isinstance(policy, cc.CongestionControl):
            obs, _ = self._start(AgentCC(inner=copy.deepcopy(policy)))
            act: Callable[[np.ndarray], Any] | None = None
        elif isinstance(policy, type) and issubclass(policy, cc.CongestionControl):
            obs, _ = self._start(AgentCC(inner=policy()))
            act = None
        elif callable(policy):
            obs, _ = self._start(self._new_agent())
            act = policy
        else:
            raise TypeError(
                "policy must be a callable from an observation to an action, or a "
                f"ccsim.CongestionControl instance or class; got {type(policy).__name__}"
            )
        observations, actions, rewards, stats = [obs], [], [], []
        while True:
            if act is not None:
                action = np.asarray(act(obs), dtype=np.float32).reshape(self.action_space.shape)
                actions.append(action)
                obs, reward, _, truncated, info = self.step(action)
            else:
                obs, reward, _, truncated, info = self._advance()
            observations.append(obs)
            rewards.append(reward)
            stats.append(info["stats"])
            if truncated:
                break
        width = self.action_space.shape[0] if act is not None else 0  # type: ignore[index]
        return Episode(
            np.array(observations),
            np.array(actions, dtype=np.float32).reshape(len(actions), width),
            np.array(rewards),
            stats,
        )

    # --- inside --------------------------------------------------------------------------

    def _new_agent(self) -> AgentCC:
        if self.action_mode in PACING_ACTIONS:
            return PacedAgentCC(
                self.min_rate * 1e6 / 8, self.max_rate * 1e6 / 8, self.pacing_cwnd_gain
            )
        return AgentCC()

    def _agent_index(self, d: dict[str, Any], where: str) -> int:
        flows = d.get("flows")
        tcp = [
            (i, f.get("name"))
            for i, f in enumerate(flows if isinstance(flows, list) else [])
            if isinstance(f, dict) and f.get("kind") == "tcp"
        ]
        for i, name in tcp:
            if name == self.flow:
                return i
        names = ", ".join(repr(n) for _, n in tcp) or "none"
        raise ValueError(
            f"flow={self.flow!r}: the {where} has no TCP flow (kind 'tcp') of that name; "
            f"its TCP flows: {names}"
        )

    def _start(self, agent: AgentCC) -> tuple[np.ndarray, dict[str, Any]]:
        if self._scenario_fn is not None:
            d = prepare(self._scenario_fn(self.np_random))
            where = "scenario the scenario callable returned"
        else:
            assert self._scenario is not None
            d = copy.deepcopy(self._scenario)
            where = "scenario"
        i = self._agent_index(d, where)
        d["seed"] = int(self.np_random.integers(0, 2**63))
        flows = list(d["flows"])
        flows[i] = dict(flows[i], tcp=dict(flows[i].get("tcp") or {}, cc=agent))
        d["flows"] = flows
        _keep_senders_in_step(d)
        x = cc.extract(d)
        slot = x.core["flows"][i]["tcp"]["cc"]["slot"]
        # The agent's flow gets this very object (extract's factory would copy it).
        x.factories[slot] = lambda name: agent
        if agent.inner is not None:  # result() names a watched baseline by its own class
            x.labels[self.flow] = type(agent.inner).__name__
        self._sim = _native.simulation(to_json(x.core), x.factories)
        self._extracted = x
        self._result = None
        self._external = x.factories
        self._agent = agent
        self._end_ns = _ns(self._sim.duration)
        self._t_ns = 0
        self._obs.clear()
        for _ in range(self.history):
            self._obs.append(np.zeros(len(OBSERVATIONS), dtype=np.float32))
        # Until the flow's first RTT sample: the interval needs an RTT, and the first
        # observation then shows the flow under way.
        while agent.rtt_n == 0 and self._t_ns < self._end_ns:
            self._run_to(min(self._end_ns, self._t_ns + _ns(PROBE_S)))
        self._ended = False
        stats = agent.take(self._t_ns / 1e9)
        self._obs.append(self._observe(stats))
        return self._observation(), self._info(stats, stats.duration_s)

    def _run_to(self, t_ns: int) -> None:
        """Advances the simulation to ``t_ns``; every hook of the agent's flow must have run
        inside this step."""
        agent = self._agent
        assert agent is not None
        agent.step_ns = (self._t_ns, t_ns)
        self._sim.run_until(t_ns / 1e9)
        _raise_failure(self._sim, self._external)
        if agent.stray is not None:
            raise RuntimeError(
                f"the core ran a hook of flow {self.flow!r} at {agent.stray / 1e9:.9f} s, "
                f"outside the step from {self._t_ns / 1e9:.9f} to {t_ns / 1e9:.9f} s, so the "
                "agent's action would act at another time than it was set: the sender was "
                "handed packets ahead of the step (docs/architecture.md, 6.7), which recording "
                "a sender series ('cwnd', added by the environment) should prevent; please "
                "report this as a bug"
            )
        self._t_ns = t_ns

    def _target(self, action: Any) -> float:
        value = _one_number(action)
        if self.action_mode == "cwnd":
            return min(max(value, MIN_CWND), self.max_cwnd)
        assert self._agent is not None
        now = self._agent.target if self._agent.target is not None else self._agent.cwnd
        factor = 2.0 ** min(max(value, -1.0), 1.0)
        return min(max(max(now, MIN_CWND) * factor, MIN_CWND), self.max_cwnd)

    def _rate(self, action: Any) -> float:
        """The pacing rate an action asks for, bytes per second (``conn.pacing_rate``'s
        unit; the action's is Mbit/s)."""
        value = _one_number(action)
        lo, hi = self.min_rate * 1e6 / 8, self.max_rate * 1e6 / 8
        if self.action_mode == "pacing":
            return min(max(value * 1e6 / 8, lo), hi)
        agent = self._agent
        assert isinstance(agent, PacedAgentCC)
        now = agent.rate if agent.rate is not None else lo  # no ACK yet: the floor
        a = min(max(value, -AURORA_BOUND), AURORA_BOUND) * AURORA_DELTA
        new = now * (1.0 + a) if a >= 0 else now / (1.0 - a)
        return min(max(new, lo), hi)

    def _interval_s(self) -> float:
        agent = self._agent
        assert agent is not None
        if not isinstance(self.interval, str):
            return float(self.interval)
        rtt = agent.min_rtt if self.interval == "min_rtt" else agent.srtt
        return rtt if math.isfinite(rtt) and rtt > 0 else NO_RTT_INTERVAL_S

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        agent = self._agent
        assert agent is not None
        length = self._interval_s()
        self._run_to(min(self._end_ns, self._t_ns + max(1, _ns(length))))
        stats = agent.take(self._t_ns / 1e9)
        reward = self.reward_fn(stats)
        if isinstance(reward, bool) or not isinstance(reward, (int, float, np.number)):
            raise TypeError(f"reward returned {type(reward).__name__} {reward!r}, not a number")
        if not math.isfinite(float(reward)):
            raise ValueError(f"reward returned {reward!r} for {stats}; it must be finite")
        self._obs.append(self._observe(stats))
        truncated = self._t_ns >= self._end_ns
        self._ended = truncated
        return self._observation(), float(reward), False, truncated, self._info(stats, length)

    @staticmethod
    def _observe(s: IntervalStats) -> np.ndarray:
        values = (
            s.send_rate_bps / 1e6, s.delivery_rate_bps / 1e6,
            s.rtt_mean_s * 1e3, s.rtt_min_s * 1e3, s.rtt_max_s * 1e3,
            s.latency_ratio, s.loss_events, s.ecn_fraction, s.cwnd,
        )  # fmt: skip
        return np.array(values, dtype=np.float32)

    def _observation(self) -> np.ndarray:
        return np.concatenate(list(self._obs))

    def _info(self, stats: IntervalStats, length: float) -> dict[str, Any]:
        return {
            "time_s": stats.end_s,
            "interval_s": length,
            "cwnd": stats.cwnd,
            "pacing_rate_bps": stats.pacing_rate_bps,
            "stats": stats,
        }


def _one_number(action: Any) -> float:
    a = np.asarray(action, dtype=np.float64).reshape(-1)
    if a.size != 1 or not math.isfinite(float(a[0])):
        raise ValueError(
            f"action must be one finite number (shape (1,)); got {np.asarray(action)!r}"
        )
    return float(a[0])


def _positive(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def _keep_senders_in_step(d: dict[str, Any]) -> None:
    """Has the scenario record sender series: ``cwnd``, so that the core hands no sender its
    packets ahead of time (docs/architecture.md, 6.7: early hand-over only to endpoints no
    series reads): the agent's hooks then run within each step, as its actions must act; and
    ``delivery_rate``, for which every sender keeps Linux's delivered and lost counts
    (``conn.lost``, the interval's ``lost``), which a window-based algorithm otherwise does
    not keep. Without a trace table, the window is sampled once per run (``interval`` = the
    duration); the delivery rate is recorded at every sample."""
    trace = d.get("trace")
    if not isinstance(trace, dict):
        d["trace"] = {"series": list(ADDED_SERIES), "interval": d.get("duration")}
        return
    series = list(trace.get("series") or [])
    missing = [s for s in ADDED_SERIES if s not in series]
    if missing:
        d["trace"] = dict(trace, series=[*series, *missing])


def _ns(seconds: float) -> int:
    return max(0, math.floor(seconds * 1e9 + 0.5))


def _choices(table: dict[str, str]) -> str:
    return "; ".join(f"{k!r} ({v})" for k, v in table.items())
