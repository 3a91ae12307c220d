"""ccsim.gym: the environment passes gymnasium's checker, is deterministic, holds the agent's
window or pacing rate, measures what the flow did, and refuses bad arguments by name."""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import ccsim
import numpy as np
import pytest

pytest.importorskip("ccsim._core")
gymnasium = pytest.importorskip("gymnasium")

from ccsim import gym as cgym  # noqa: E402
from ccsim.gym import env as gym_env  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "examples"))
from python_cc import PyCubic, PyReno  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOSSY = cgym.dumbbell(duration="3s", competing=1)
LOSSY["topology"]["bottleneck"]["loss"] = {"kind": "bernoulli", "p": 0.01}


def actions(n=40):
    return [np.array([w], dtype=np.float32) for w in np.linspace(5, 120, n)]


def episode(env, seed, acts):
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for a in acts:
        obs, reward, terminated, truncated, info = env.step(a)
        out.append(obs)
        assert not terminated
        if truncated:
            break
    return np.array(out)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"action": "multiplicative", "history": 3, "interval": "srtt"},
        {"interval": 0.02},
        {"action": "pacing", "max_rate": 30.0},
        {"action": "pacing_multiplicative", "history": 2},
    ],
)
def test_gymnasiums_checker_passes(kwargs):
    with warnings.catch_warnings():
        # Its advice (a normalised action space, bounded observations) is advice, not error.
        warnings.simplefilter("ignore")
        check_env(cgym.CongestionEnv(LOSSY, **kwargs))
        check_env(gymnasium.make("ccsim/Congestion-v0", **kwargs).unwrapped)


def test_a_fixed_action_sequence_gives_the_same_observations_twice():
    env = cgym.CongestionEnv(LOSSY, history=2)
    first, second = episode(env, 5, actions()), episode(env, 5, actions())
    np.testing.assert_array_equal(first, second)
    # Another seed draws other random losses: the seed is not ignored.
    assert not np.array_equal(first, episode(env, 6, actions()))
    # A fresh environment with the same seed: the same again.
    np.testing.assert_array_equal(
        first, episode(cgym.CongestionEnv(LOSSY, history=2), 5, actions())
    )


def test_the_agent_holds_the_window_and_the_interval_is_the_base_rtt():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="4s"))
    obs, info = env.reset(seed=1)
    names = list(cgym.OBSERVATIONS)
    assert info["stats"].rtt_samples >= 1  # reset ran to the first RTT sample
    held = []
    for _ in range(30):
        obs, reward, _, _, info = env.step([20])
        held.append(info["stats"])
    stats = info["stats"]
    assert obs[names.index("cwnd")] == 20 and stats.cwnd == 20
    # 10 Mbit/s, 20 ms: 44.1 ms base RTT; 20 segments per RTT is below capacity: no queue,
    # and 20 segments delivered per RTT.
    assert info["interval_s"] == pytest.approx(0.0441, abs=1e-4) == stats.min_rtt_s
    last = held[-10:]
    rate = sum(s.delivered for s in last) / (last[-1].end_s - last[0].start_s)
    assert rate == pytest.approx(20 / stats.rtt_mean_s, rel=0.05)
    assert sum(s.sent for s in last) == pytest.approx(sum(s.delivered for s in last), abs=2)
    assert obs[names.index("latency_ratio")] == pytest.approx(1.0, abs=0.1)
    for _ in range(40):
        obs, reward, _, _, info = env.step([80])  # beyond the BDP (37 segments): a queue
    assert obs[names.index("latency_ratio")] > 1.8
    assert obs[names.index("delivery_mbps")] == pytest.approx(9.65, rel=0.05)  # the link's payload
    assert reward < 1e-3 * (10 * 80 / 0.0441)  # the delay is paid for


def test_intervals_tile_the_run_and_count_what_the_flow_delivered():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="3s"), action="multiplicative")
    ep = env.rollout(lambda obs: [0.3 if obs[-1] < 60 else -0.2], seed=1)
    assert len(ep.actions) == len(ep.rewards) == len(ep.observations) - 1
    starts, ends = [s.start_s for s in ep.stats], [s.end_s for s in ep.stats]
    assert starts[1:] == ends[:-1] and ends[-1] == 3.0
    # A Python Reno watched by the environment, and run by ccsim.run: the segments its ACKs
    # acknowledged are the receiver's, less those still unacknowledged at the end.
    reno = env.rollout(PyReno(), seed=1)
    d = cgym.dumbbell(duration="3s")
    d["flows"][0]["tcp"] = {"cc": PyReno()}
    flow = ccsim.run(d).flows.iloc[0]
    acked = sum(s.delivered for s in reno.stats)
    assert 0 <= flow.packets_delivered - acked <= flow.cwnd_final + 1
    assert reno.stats[-1].cwnd == pytest.approx(flow.cwnd_final)  # the same run


def test_a_baseline_algorithm_is_watched_not_driven():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="5s"))
    cubic = env.rollout(PyCubic(), seed=1)
    assert cubic.actions.shape == (0, 0)
    assert max(s.cwnd for s in cubic.stats) > 40  # CUBIC grew its own window
    assert sum(s.loss_events for s in cubic.stats) >= 1  # and filled the 50-packet queue
    again = env.rollout(PyCubic, seed=1)
    np.testing.assert_array_equal(cubic.observations, again.observations)
    assert cubic.total_reward == pytest.approx(float(np.sum(cubic.rewards)))


def test_losses_and_ecn_echoes_are_observed():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="3s", limit=20))
    ep = env.rollout(lambda obs: [150.0], seed=1)
    assert sum(s.loss_events for s in ep.stats) >= 1
    assert any(s.loss_fraction > 0 for s in ep.stats)

    red = ccsim.load(ROOT / "scenarios" / "dumbbell-red-ecn.toml")
    red["duration"] = "5s"
    env = cgym.CongestionEnv(red, flow="sack")
    ep = env.rollout(lambda obs: [8.0], seed=1)
    names = list(cgym.OBSERVATIONS)
    assert sum(s.ecn_acks for s in ep.stats) > 0
    assert ep.observations[:, names.index("ecn_fraction")].max() > 0


def test_the_reward_is_aurora_by_default_or_the_callable_given():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="2s"))
    env.reset(seed=1)
    _, reward, _, _, info = env.step([10])
    s = info["stats"]
    expected = 1e-3 * (10 * s.delivered / s.duration_s - 1000 * s.rtt_mean_s - 2000 * 0.0)
    assert reward == pytest.approx(expected)
    env = cgym.CongestionEnv(cgym.dumbbell(duration="2s"), reward=lambda s: s.delivered)
    env.reset(seed=1)
    _, reward, _, _, info = env.step([10])
    assert reward == info["stats"].delivered > 0
    env = cgym.CongestionEnv(cgym.dumbbell(duration="2s"), reward=lambda s: math.nan)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="reward returned nan"):
        env.step([10])


def test_the_multiplicative_action_scales_the_window_and_the_episode_ends_truncated():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="1s"), action="multiplicative")
    env.reset(seed=1)
    _, _, _, _, info = env.step([1.0])
    assert env._agent.target == 20.0  # the initial window of 10, doubled
    env.step([-1.0])
    assert env._agent.target == 10.0
    env.step([5.0])  # outside the space: clipped to doubling
    assert env._agent.target == 20.0
    truncated = False
    while not truncated:
        _, _, terminated, truncated, info = env.step([0.0])
        assert not terminated
    assert info["time_s"] == 1.0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step([0.0])


def test_hooks_run_inside_each_step_only_with_a_sender_series_recorded(monkeypatch):
    """Early hand-over runs a sender's ACKs ahead of run_until's step; the environment records
    a sender series to keep them in step, and says so if they ever stray."""
    monkeypatch.setattr(gym_env, "_keep_senders_in_step", lambda d: None)
    env = cgym.CongestionEnv(cgym.dumbbell(duration="3s"))
    with pytest.raises(RuntimeError, match="outside the step"):
        env.rollout(lambda obs: [80.0], seed=1)


def test_vectorised_environments_get_distinct_seeds():
    def random_link(rng):
        return cgym.dumbbell(rate=f"{int(rng.integers(5, 30))}Mbps", duration="1s")

    vec = cgym.make_vec(3, action="multiplicative", scenario=random_link)
    obs, _ = vec.reset(seed=11)
    for _ in range(10):
        obs, rewards, terminated, truncated, _ = vec.step(np.zeros((3, 1), dtype=np.float32))
    assert obs.shape == (3, len(cgym.OBSERVATIONS))
    assert len({float(r) for r in rewards}) == 3
    vec.close()
    # The same in worker processes, and the same numbers.
    avec = cgym.make_vec(3, vectorization="async", action="multiplicative", scenario=random_link)
    aobs, _ = avec.reset(seed=11)
    for _ in range(10):
        aobs, arewards, *_ = avec.step(np.zeros((3, 1), dtype=np.float32))
    avec.close()
    np.testing.assert_array_equal(aobs, obs)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (
            {"action": "rate"},
            r"action must be one of 'cwnd' .*'multiplicative'.*'pacing' .*"
            r"'pacing_multiplicative' .*got 'rate'",
        ),
        ({"interval": "rtt"}, r"interval must be one of 'min_rtt'.*'srtt'.*or seconds; got 'rtt'"),
        ({"interval": -1}, r"interval must be .* a positive number of seconds; got -1"),
        ({"reward": "orca"}, r"reward must be 'aurora' or a callable .*got 'orca'"),
        ({"history": 0}, r"history must be a whole number of intervals ≥ 1; got 0"),
        ({"max_cwnd": 1}, r"max_cwnd must be a number of segments > 2; got 1"),
        ({"min_rate": 0}, r"min_rate must be a positive number of Mbit/s; got 0"),
        ({"max_rate": math.inf}, r"max_rate must be a number of Mbit/s > min_rate .*; got inf"),
        ({"min_rate": 5, "max_rate": 5}, r"max_rate must be .* > min_rate \(5\); got 5"),
        ({"pacing_cwnd_gain": -1}, r"pacing_cwnd_gain must be a positive number .*; got -1"),
        ({"flow": "nope"}, r"flow='nope': the scenario has no TCP flow .*its TCP flows: 'agent'"),
        ({"scenario": 42}, r"scenario must be a ccsim.Scenario, a dict or a path"),
    ],
)
def test_bad_arguments_are_named_with_what_is_accepted(kwargs, says):
    with pytest.raises((ValueError, TypeError), match=says):
        cgym.CongestionEnv(**kwargs)


def test_bad_actions_policies_and_vector_arguments():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="1s"))
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"action must be one finite number \(shape \(1,\)\)"):
        env.step([1.0, 2.0])
    with pytest.raises(ValueError, match="action must be one finite number"):
        env.step([math.nan])
    with pytest.raises(TypeError, match="policy must be a callable"):
        env.rollout(42)
    with pytest.raises(ValueError, match="n must be a whole number of environments ≥ 1; got 0"):
        cgym.make_vec(0)
    with pytest.raises(ValueError, match="vectorization must be 'sync' or 'async'; got 'gpu'"):
        cgym.make_vec(2, vectorization="gpu")
    with pytest.raises(ValueError, match="flow='x'"):
        cgym.make_vec(2, flow="x")
    bad = cgym.CongestionEnv(lambda rng: cgym.dumbbell() | {"flows": []})
    with pytest.raises(ValueError, match="the scenario the scenario callable returned has no"):
        bad.reset(seed=1)


# --- the pacing actions ------------------------------------------------------------------

# Bytes a full segment spaces by under pacing (Linux's skb->len: 1448 of payload and 32 of TCP
# header with timestamps), against its 1448 bytes of payload.
PAYLOAD_SHARE = 1448 / 1480


def paced_dumbbell(**kw):
    d = cgym.dumbbell(**kw)
    d["trace"] = {"series": ["pacing_rate"]}
    return d


def payload_mbps(stats):
    return sum(s.delivered * s.mss * 8 for s in stats) / (stats[-1].end_s - stats[0].start_s) / 1e6


def test_a_fixed_pacing_rate_below_the_bottleneck_is_the_flows_throughput():
    env = cgym.CongestionEnv(paced_dumbbell(duration="4s"), action="pacing")
    obs, info = env.reset(seed=1)
    # Before the first action: Linux's first rate for a slow-starting flow, 2 · IW · mss / srtt.
    first = info["pacing_rate_bps"]
    assert first == pytest.approx(2 * 10 * 1448 * 8 / info["stats"].srtt_s)
    stats, truncated = [], False
    while not truncated:
        obs, _, _, truncated, info = env.step([5.0])  # Mbit/s
        stats.append(info["stats"])
    assert info["pacing_rate_bps"] == 5e6
    # 5 Mbit/s of segments is 4.89 of payload, every interval after the first few.
    assert payload_mbps(stats[10:]) == pytest.approx(5 * PAYLOAD_SHARE, rel=0.01)
    names = list(cgym.OBSERVATIONS)
    assert obs[names.index("send_mbps")] == pytest.approx(5 * PAYLOAD_SHARE, rel=0.15)
    # No queue and no loss: the window, held far above what is in flight, does not limit.
    assert obs[names.index("latency_ratio")] == pytest.approx(1.0, abs=0.1)
    assert sum(s.lost + s.loss_events for s in stats) == 0
    assert min(s.cwnd for s in stats) > 1000  # 4 BDPs at 100 Mbit/s: 4 · 100e6/8 · 44 ms / mss
    result = env.result()
    assert result.flows["goodput_bps"][0] == pytest.approx(5e6 * PAYLOAD_SHARE, rel=0.03)
    # The core's pacing_rate series: the first rate, then the agent's (each change recorded).
    rates = result.trace("pacing_rate")
    assert list(rates["value"]) == [pytest.approx(first), 5e6]
    assert rates["time_s"].iloc[1] < stats[0].end_s  # set at the first ACK of the first step
    assert env.result() is result
    assert result.flows["cc"][0] == "PacedAgentCC"


def test_the_pacing_rate_follows_each_action_and_other_modes_stay_unpaced():
    env = cgym.CongestionEnv(paced_dumbbell(duration="3s"), action="pacing")
    plan = [2.0] * 20 + [8.0] * 20 + [0.01] + [1000.0]  # the last two clipped to [0.1, 100]
    rates = iter(plan + [3.0] * 200)
    ep = env.rollout(lambda obs: [next(rates)], seed=1)
    seen = [s.pacing_rate_bps / 1e6 for s in ep.stats]
    assert seen[:40] == [2.0] * 20 + [8.0] * 20 and seen[40:42] == [0.1, 100.0]
    assert payload_mbps(ep.stats[5:20]) == pytest.approx(2 * PAYLOAD_SHARE, rel=0.05)
    assert payload_mbps(ep.stats[25:40]) == pytest.approx(8 * PAYLOAD_SHARE, rel=0.05)
    series = env.result().trace("pacing_rate")["value"]
    assert list(series)[1:5] == [2e6, 8e6, 0.1e6, 100e6]

    window = cgym.CongestionEnv(paced_dumbbell(duration="2s"))
    ep = window.rollout(lambda obs: [20.0], seed=1)
    assert all(s.pacing_rate_bps == math.inf for s in ep.stats)
    assert window.result().trace("pacing_rate").empty


def test_the_aurora_action_changes_the_rate_multiplicatively():
    env = cgym.CongestionEnv(
        cgym.dumbbell(duration="2s"), action="pacing_multiplicative", interval=0.01
    )
    _, info = env.reset(seed=1)
    rate = info["pacing_rate_bps"]
    for a, factor in [(40.0, 2.0), (-40.0, 0.5), (1.0, 1.025), (-1.0, 1 / 1.025), (0.0, 1.0)]:
        env.step([a])
        rate *= factor
        assert env._agent.rate * 8 == pytest.approx(rate)
    env.step([400.0])  # outside the space: clipped to doubling
    assert env._agent.rate * 8 == pytest.approx(2 * rate)
    for _ in range(20):
        env.step([40.0])
    assert env._agent.rate * 8 == 100e6  # max_rate
    for _ in range(20):
        env.step([-40.0])
    assert env._agent.rate * 8 == pytest.approx(0.1e6)  # min_rate


def test_a_fixed_pacing_sequence_gives_the_same_observations_twice():
    rates = [np.array([r], dtype=np.float32) for r in np.linspace(1, 30, 40)]
    env = cgym.CongestionEnv(LOSSY, action="pacing", history=2)
    first = episode(env, 5, rates)
    np.testing.assert_array_equal(first, episode(env, 5, rates))
    assert not np.array_equal(first, episode(env, 6, rates))
    again = cgym.CongestionEnv(LOSSY, action="pacing", history=2)
    np.testing.assert_array_equal(first, episode(again, 5, rates))


def test_lost_segments_are_counted_and_priced_by_the_reward():
    """Three listed packets dropped: three segments lost, in two recovery episodes (the first
    two drops are three packets apart); the reward's loss fraction is lost per sent."""
    d = cgym.dumbbell(duration="3s")
    d["topology"]["bottleneck"]["loss"] = {"kind": "list", "packets": [200, 203, 400]}
    for action, a in [("cwnd", 30.0), ("pacing", 6.0)]:
        env = cgym.CongestionEnv(d, action=action)
        ep = env.rollout(lambda obs, a=a: [a], seed=1)
        assert sum(s.lost for s in ep.stats) == 3
        assert sum(s.loss_events for s in ep.stats) == 2
        assert env.result().flows["retransmits"][0] == 3
        for s, reward in zip(ep.stats, ep.rewards):
            assert s.loss_fraction == pytest.approx(min(1.0, s.lost / max(s.sent, 1)))
            assert reward == pytest.approx(cgym.aurora_reward(s))
        hit = [s for s in ep.stats if s.lost]
        assert all(0 < s.loss_fraction < 1 for s in hit)
    # Overdriving the link loses segments: what the window modes' ACK clock would have held
    # back is dropped at the bottleneck, and the reward pays for it.
    over = cgym.CongestionEnv(cgym.dumbbell(duration="3s"), action="pacing")
    ep = over.rollout(lambda obs: [20.0], seed=1)
    assert sum(s.lost for s in ep.stats) > 100
    fair = cgym.CongestionEnv(cgym.dumbbell(duration="3s"), action="pacing")
    assert fair.rollout(lambda obs: [9.0], seed=1).total_reward > ep.total_reward


class RateFollower(ccsim.CongestionControl):
    """guide/python-cc.md's toy in BBR's manner: paced at 1.25 times its recent peak delivery
    rate, two of its BDPs in flight, all in cong_control."""

    needs_pacing = True

    def init(self, conn):
        self.rates = []
        conn.pacing_rate = 1e6

    def cong_control(self, conn, rs):
        if rs.rate is not None and not rs.is_app_limited:
            self.rates = [*self.rates[-9:], rs.rate]
        if self.rates:
            bw = max(self.rates)
            conn.pacing_rate = 1.25 * bw * conn.mss
            conn.cwnd = max(2 * bw * conn.min_rtt, 4.0)


def test_a_paced_baseline_with_cong_control_is_watched_as_it_runs_alone():
    env = cgym.CongestionEnv(paced_dumbbell(duration="3s"))
    ep = env.rollout(RateFollower, seed=1)
    # Paced (needs_pacing reaches the core through the watcher), at rates of its own.
    assert all(math.isfinite(s.pacing_rate_bps) for s in ep.stats)
    assert len({s.pacing_rate_bps for s in ep.stats}) > 10
    watched = env.result().flows.drop(columns="cc")
    # Alone, without the series the environment adds (cwnd, delivery_rate): the same run.
    d = paced_dumbbell(duration="3s")
    d["flows"][0]["tcp"] = {"cc": RateFollower}
    alone = ccsim.run(d)
    assert watched.equals(alone.flows.drop(columns="cc"))
    assert env.result().flows["cc"][0] == "RateFollower" == alone.flows["cc"][0]
    assert sum(s.delivered for s in ep.stats) <= alone.flows["packets_delivered"][0]
    # A window-based algorithm keeps delivered and lost counts only because the environment
    # traces delivery_rate; its flow is the same as without.
    d = cgym.dumbbell(duration="3s", limit=20)
    d["flows"][0]["tcp"] = {"cc": PyReno}
    env = cgym.CongestionEnv(d)
    env.rollout(PyReno, seed=1)
    watched = env.result().flows.drop(columns="cc")
    assert watched.equals(ccsim.run(d).flows.drop(columns="cc"))
    assert watched["retransmits"][0] > 0


def test_result_needs_an_ended_episode():
    env = cgym.CongestionEnv(cgym.dumbbell(duration="1s"), action="pacing")
    with pytest.raises(RuntimeError, match=r"result\(\) needs an episode run to its end"):
        env.result()
    env.reset(seed=1)
    env.step([1.0])
    with pytest.raises(RuntimeError, match="truncated=True"):
        env.result()
