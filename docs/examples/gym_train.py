"""Learning a congestion controller in ccsim.gym: a linear policy trained by the cross-entropy
method, against CUBIC on the same links under the same reward.

    python docs/examples/gym_train.py            # a few minutes on 2 cores: figure and report
    python docs/examples/gym_train.py --quick    # seconds: a smoke run (tests/test_example_gym.py)

The agent sets its flow's window each monitor interval (the flow's base RTT) multiplicatively,
cwnd × 2**a, with a = tanh(θ · f) from five scale-free features of the last two intervals (the
queueing delay as the latency ratio less one, its change, the delivered-to-sent ratio, loss
events, a constant). Training links: one flow on a dumbbell of 5, 10 or 20 Mbit/s with 10, 20 or
40 ms one-way delay and a buffer of one bandwidth-delay product. The reward is Aurora's
(ccsim.gym.aurora_reward), scored per link relative to CUBIC's: 1.0 is CUBIC's reward.

The cross-entropy method (Rubinstein 1999; as a policy search, Szita & Lőrincz 2006): draw a
population of θ from a Gaussian, keep the best fifth, refit the Gaussian to them, repeat; no
gradient, no neural network, numpy only. CUBIC's reward comes from the Python CUBIC of
python_cc.py, watched by the same environment; it reproduces the built-in cc = "cubic" to the
bit, which the script checks on each link. BBR (built in, Rust) cannot be watched by the
environment, so it runs with ccsim.run on the very scenario the environment builds for the
episode (its seed and trace included; the script checks that scenario against the
environment's own run of CUBIC) and is scored by an episode-level Aurora reward, the same
coefficients applied to the run's totals; CUBIC is scored the same way too, to show how far
that approximation is from the per-interval reward. Writes docs/examples/figures/gym-train.png
and regenerates docs/examples/gym-train.md; every number in the report comes from the run.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import ccsim
import matplotlib
import numpy as np
from ccsim.gym import OBSERVATIONS, CongestionEnv, IntervalStats, aurora_reward, dumbbell
from ccsim.gym.env import ADDED_SERIES
from gymnasium.utils import seeding

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from python_cc import PyCubic  # noqa: E402

FIGURE = HERE / "figures" / "gym-train.png"
REPORT = HERE / "gym-train.md"
LINKS = [(5, 10), (10, 20), (20, 40)]  # Mbit/s, one-way ms
FEATURES = ("queueing", "queueing change", "delivered/sent", "loss events", "constant")
_I = {name: i for i, name in enumerate(OBSERVATIONS)}
_N = len(OBSERVATIONS)


def link(rate_mbps: float, delay_ms: float, duration: float) -> dict:
    """One flow on a dumbbell with a buffer of one bandwidth-delay product (at least 10)."""
    rtt_s = 2 * (delay_ms + 2) / 1e3  # the access links add 2 ms each way
    bdp = rate_mbps * 1e6 * rtt_s / (8 * 1500)
    return dumbbell(f"{rate_mbps}Mbps", f"{delay_ms}ms", max(10, round(bdp)), duration)


def features(obs: np.ndarray) -> np.ndarray:
    """Five numbers that mean the same on every link, from two intervals' observations."""
    before, now = obs[:_N], obs[_N:]
    ratio = now[_I["latency_ratio"]] or 1.0
    ratio_before = before[_I["latency_ratio"]] or ratio
    sent = now[_I["send_mbps"]]
    delivered = now[_I["delivery_mbps"]] / sent if sent > 0 else 1.0
    return np.array(
        [
            min(ratio - 1.0, 3.0),
            np.clip(ratio - ratio_before, -1.0, 1.0),
            min(delivered, 2.0) - 1.0,
            min(now[_I["loss_events"]], 3.0),
            1.0,
        ]
    )


def episode(theta: np.ndarray, rate: float, delay: float, duration: float) -> dict:
    """The policy θ on one link: its mean reward per interval, goodput, RTT and losses."""
    env = CongestionEnv(link(rate, delay, duration), action="multiplicative", history=2)
    ep = env.rollout(lambda obs: [np.tanh(theta @ features(obs))], seed=1)
    return summary(ep)


def cubic(rate: float, delay: float, duration: float, check: bool = False) -> dict:
    """CUBIC on the same link, scored by the same environment. ``check``: also score it
    episode-level (:func:`episode_level`) and check that :func:`episode_scenario` is the
    scenario the environment ran."""
    env = CongestionEnv(link(rate, delay, duration), history=2)
    ep = env.rollout(PyCubic(), seed=1)
    out = summary(ep)
    if check:
        flows = ccsim.run(episode_scenario(rate, delay, duration, "cubic")).flows
        assert env.result().flows.drop(columns="cc").equals(flows.drop(columns="cc")), (
            f"episode_scenario is not the environment's scenario at {rate} Mbit/s"
        )
        out["episode_level"] = episode_level(flows.iloc[0], ep.stats[0].mss)
    return out


def episode_scenario(rate: float, delay: float, duration: float, cc) -> dict:
    """The scenario CongestionEnv runs for an episode of rollout(seed=1) on this link, with the
    agent's flow under ``cc``: the seed it draws from its generator (gymnasium's, seeded 1)
    and the series it adds to the trace (ccsim/gym/env.py, ``_start``)."""
    d = link(rate, delay, duration)
    rng, _ = seeding.np_random(1)
    d["seed"] = int(rng.integers(0, 2**63))
    d["trace"] = {"series": list(ADDED_SERIES), "interval": d["duration"]}
    d["flows"][0]["tcp"] = {"cc": cc}
    return d


def episode_level(flow, mss: int) -> dict:
    """Aurora's reward (aurora_reward, its coefficients and units) applied to one flow's run
    totals as if the episode were one interval: its goodput, its mean RTT over all samples,
    and as the loss fraction the segments retransmitted per segment of new data sent (the
    flows table counts retransmissions, not segments marked lost; the SYN is in
    packets_sent too)."""
    new = int(flow["packets_sent"] - flow["retransmits"])
    seconds = float(flow["end_s"] - flow["start_s"])
    whole = IntervalStats(
        start_s=float(flow["start_s"]), end_s=float(flow["end_s"]), mss=mss, sent=new,
        delivered=round(flow["goodput_bps"] * seconds / (8 * mss)), acks=0, rtt_samples=0,
        rtt_mean_s=float(flow["rtt_mean_s"]), rtt_min_s=float(flow["rtt_min_s"]),
        rtt_max_s=float(flow["rtt_max_s"]), min_rtt_s=float(flow["rtt_min_s"]), srtt_s=0.0,
        loss_events=0, lost=int(flow["retransmits"]), ecn_acks=0, cwnd=0.0,
        pacing_rate_bps=math.inf,
    )  # fmt: skip
    return {
        "reward": aurora_reward(whole),
        "goodput_mbps": float(flow["goodput_bps"]) / 1e6,
        "rtt_ms": 1e3 * float(flow["rtt_mean_s"]),
        "retransmit_fraction": whole.loss_fraction,
    }


def bbr(rate: float, delay: float, duration: float, mss: int) -> dict:
    """Built-in BBR on the environment's scenario for this link, scored episode-level."""
    flows = ccsim.run(episode_scenario(rate, delay, duration, "bbr")).flows
    assert flows["cc"].iloc[0] == "bbr"
    return episode_level(flows.iloc[0], mss)


def summary(ep) -> dict:
    seconds = sum(s.duration_s for s in ep.stats)
    return {
        "reward": float(np.mean(ep.rewards)),
        # Aurora's two main terms, as aurora_reward weighs them (per interval, mean).
        "throughput_term": float(np.mean([1e-3 * 10 * s.delivered_pps for s in ep.stats])),
        "delay_term": float(np.mean([1e-3 * 1000 * s.rtt_mean_s for s in ep.stats])),
        "goodput_mbps": sum(s.delivered * s.mss * 8 for s in ep.stats) / seconds / 1e6,
        "rtt_ms": 1e3 * float(np.mean([s.rtt_mean_s for s in ep.stats])),
        "loss_events": sum(s.loss_events for s in ep.stats),
        # The environment's loss measure over the episode: segments marked lost per new one.
        "lost_fraction": sum(s.lost for s in ep.stats) / max(1, sum(s.sent for s in ep.stats)),
        "mss": ep.stats[0].mss,
    }


def check_cubic_is_cubic(rate: float, delay: float, duration: float) -> None:
    """The Python CUBIC gives the built-in cc = "cubic"'s flow on this link, to the bit."""
    runs = []
    for cc in ("cubic", PyCubic()):
        d = link(rate, delay, duration)
        d["flows"][0]["tcp"] = {"cc": cc}
        runs.append(ccsim.run(d).flows.drop(columns="cc"))
    assert runs[0].equals(runs[1]), f"PyCubic differs from cc='cubic' at {rate} Mbit/s"


def score(theta: np.ndarray, links, duration: float, baseline: dict) -> float:
    """Mean over the links of the policy's reward relative to CUBIC's (1.0: as CUBIC)."""
    return float(
        np.mean([episode(theta, r, d, duration)["reward"] / baseline[r, d] for r, d in links])
    )


def train(
    iterations: int, population: int, links, duration: float, workers: int, seed: int = 1
) -> dict:
    """The cross-entropy method over θ; returns the learning curve and the final policy."""
    rng = np.random.default_rng(seed)
    baseline = {(r, d): cubic(r, d, duration)["reward"] for r, d in links}
    mean, std = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
    elite = max(2, population // 5)
    curve = []
    # spawn, as ccsim's sweeps: forking a process that holds threads can deadlock the child.
    spawn = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=spawn) if workers > 1 else None
    try:
        for it in range(iterations):
            thetas = mean + std * rng.standard_normal((population, len(FEATURES)))
            args = [(t, links, duration, baseline) for t in [*thetas, mean]]
            scores = list(pool.map(score, *zip(*args)) if pool else (score(*a) for a in args))
            best = np.argsort(scores[:-1])[::-1][:elite]
            curve.append(
                {
                    "iteration": it,
                    "mean_policy": scores[-1],
                    "population_mean": float(np.mean(scores[:-1])),
                    "best": float(scores[best[0]]),
                }
            )
            print(
                f"iteration {it}: policy {scores[-1]:.3f}, best {curve[-1]['best']:.3f}", flush=True
            )
            mean = thetas[best].mean(axis=0)
            std = thetas[best].std(axis=0) + 0.05  # a floor, so the search does not collapse
    finally:
        if pool is not None:
            pool.shutdown()
    return {"curve": curve, "theta": mean.tolist(), "baseline": baseline}


def evaluate(theta, links, duration: float) -> list[dict]:
    rows = []
    for r, d in links:
        check_cubic_is_cubic(r, d, duration)
        learned = episode(np.asarray(theta), r, d, duration)
        base = cubic(r, d, duration, check=True)
        rows.append(
            {
                "rate_mbps": r, "delay_ms": d, "policy": learned, "cubic": base,
                "bbr": bbr(r, d, duration, base["mss"]),
            }
        )  # fmt: skip
    return rows


def plot(result: dict, rows: list[dict], path: Path) -> None:
    curve = result["curve"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    its = [c["iteration"] for c in curve]
    ax1.plot(its, [c["mean_policy"] for c in curve], marker="o", label="policy (search mean)")
    ax1.plot(its, [c["population_mean"] for c in curve], alpha=0.6, label="population mean")
    ax1.axhline(1.0, color="k", linestyle="--", label="CUBIC")
    # BBR is not watched by the environment: its episode-level reward over CUBIC's, per link.
    ax1.axhline(
        bbr_relative(rows), color="tab:red", linestyle=":", label="BBR (episode-level, ÷ CUBIC's)"
    )
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("reward relative to CUBIC's")
    ax1.set_title("Learning curve")
    ax1.legend()
    x = np.arange(len(rows))
    ax2.bar(x - 0.2, [r["policy"]["reward"] for r in rows], 0.4, label="policy")
    ax2.bar(x + 0.2, [r["cubic"]["reward"] for r in rows], 0.4, label="CUBIC")
    ax2.scatter(
        x + 0.2, [r["cubic"]["episode_level"]["reward"] for r in rows], marker="_", s=400,
        color="k", zorder=3, label="CUBIC, episode-level",
    )  # fmt: skip
    ax2.scatter(
        x, [r["bbr"]["reward"] for r in rows], marker="D", color="tab:red", zorder=3,
        label="BBR, episode-level",
    )  # fmt: skip
    ax2.set_xticks(x, [f"{r['rate_mbps']} Mb/s\n{r['delay_ms']} ms" for r in rows])
    ax2.set_ylabel("reward (bars: mean per interval)")
    ax2.set_title("Same links, same reward")
    ax2.legend(fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def bbr_relative(rows: list[dict]) -> float:
    """BBR's episode-level reward over CUBIC's episode-level reward, mean over the links."""
    return float(
        np.mean([r["bbr"]["reward"] / r["cubic"]["episode_level"]["reward"] for r in rows])
    )


def report(result: dict, rows: list[dict], settings: dict, wall_s: float) -> str:
    curve = result["curve"]
    lines = [
        "# Learning a congestion controller",
        "",
        "*Generated by `python docs/examples/gym_train.py`; every number below comes from its",
        "run.*",
        "",
        "A linear policy trained in [`ccsim.gym`](../guide/gym.md) by the cross-entropy method",
        "(numpy only), against CUBIC on the same links under the same reward (Aurora's, per",
        "monitor interval). How it is trained is the script's docstring;",
        f"this run: {settings['iterations']} iterations of {settings['population']} policies, "
        f"{settings['duration']} s episodes, {settings['workers']} worker process(es),",
        f"{wall_s:.0f} s of wall time.",
        "",
        "![learning curve](figures/gym-train.png)",
        "",
        "| link | policy reward | CUBIC reward | policy goodput | CUBIC goodput | policy RTT |"
        " CUBIC RTT | policy loss events | CUBIC loss events |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        p, c = r["policy"], r["cubic"]
        lines.append(
            f"| {r['rate_mbps']} Mb/s, {r['delay_ms']} ms | {p['reward']:.2f} | {c['reward']:.2f} "
            f"| {p['goodput_mbps']:.2f} Mb/s | {c['goodput_mbps']:.2f} Mb/s "
            f"| {p['rtt_ms']:.1f} ms | {c['rtt_ms']:.1f} ms | {p['loss_events']} "
            f"| {c['loss_events']} |"
        )
    theta = ", ".join(f"{name} {v:+.2f}" for name, v in zip(FEATURES, result["theta"]))
    first, last = curve[0]["mean_policy"], curve[-1]["mean_policy"]
    better = [r for r in rows if r["policy"]["reward"] > r["cubic"]["reward"]]
    quicker = [r for r in rows if r["policy"]["rtt_ms"] < r["cubic"]["rtt_ms"]]
    ratio = min(r["cubic"]["throughput_term"] / r["cubic"]["delay_term"] for r in rows)
    losses = sum(r["policy"]["loss_events"] for r in rows)
    cubic_losses = sum(r["cubic"]["loss_events"] for r in rows)
    lines += [
        "",
        f"The search mean went from {first:.2f} to {last:.2f} of CUBIC's reward (the",
        f"learning curve's last point; weights: {theta}). The policy's reward is above",
        f"CUBIC's on {len(better)} of {len(rows)} links and its RTT lower on {len(quicker)};",
        f"it had {losses} loss event(s) in all, CUBIC {cubic_losses}.",
        "",
        "Under Aurora's coefficients the throughput term outweighs the delay term at least",
        f"{ratio:.0f}-fold on these links (CUBIC's episodes), so the reward asks above all for",
        "a busy link: a policy gains little by keeping the queue short. Raise `latency` in",
        "`aurora_reward` (with `functools.partial`) to trade throughput for delay. The Python",
        "CUBIC stands in for the built-in one here, which it reproduces exactly on each of",
        "these links (checked by the script).",
        "",
        "## BBR, scored episode-level",
        "",
        "BBR is built in (Rust) and the environment watches only Python algorithms, so its",
        "numbers are not measured per interval by the environment. The script runs it with",
        "`ccsim.run` on the scenario the environment builds for these episodes (the same",
        'link, duration, seed and trace; that scenario under `cc = "cubic"` gives the',
        "environment's CUBIC episode exactly, checked on each link) and applies",
        "`aurora_reward` to the run's totals as if the episode were one interval: goodput,",
        "mean RTT over all samples, and as the loss fraction the segments retransmitted per",
        "segment of new data sent (the flows table's `retransmits` over `packets_sent` less",
        "`retransmits`). CUBIC is scored the same way, so the two episode-level rewards",
        "compare with each other; CUBIC's column beside its per-interval reward shows how far",
        "the approximation is.",
        "",
        "| link | BBR reward (episode) | CUBIC reward (episode) | CUBIC reward (per interval)"
        " | BBR goodput | BBR RTT | BBR retransmitted / new sent | CUBIC retransmitted / new"
        " sent | CUBIC lost / new sent (env) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        b, c, ce = r["bbr"], r["cubic"], r["cubic"]["episode_level"]
        lines.append(
            f"| {r['rate_mbps']} Mb/s, {r['delay_ms']} ms | {b['reward']:.2f} "
            f"| {ce['reward']:.2f} | {c['reward']:.2f} | {b['goodput_mbps']:.2f} Mb/s "
            f"| {b['rtt_ms']:.1f} ms | {100 * b['retransmit_fraction']:.2f} % "
            f"| {100 * ce['retransmit_fraction']:.2f} % | {100 * c['lost_fraction']:.2f} % |"
        )
    gaps = [abs(r["cubic"]["episode_level"]["reward"] / r["cubic"]["reward"] - 1) for r in rows]
    lines += [
        "",
        f"CUBIC's episode-level reward is within {100 * max(gaps):.1f} % of its per-interval",
        "reward on these links (the per-interval mean weighs each interval alike and leaves",
        "out the episode's first round trip). BBR's episode-level reward is",
        f"{bbr_relative(rows):.2f} of CUBIC's episode-level reward (mean over the links; the",
        "dotted line in the learning curve's panel, beside the curve's per-interval ratios).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    ap.add_argument("--workers", type=int, default=2, help="processes evaluating policies")
    ap.add_argument("--out", type=Path, help="write the figure and report here instead")
    args = ap.parse_args(argv)
    if args.quick:
        settings = {"iterations": 2, "population": 4, "duration": 1.0, "workers": 1}
        links = LINKS[1:2]
    else:
        settings = {"iterations": 15, "population": 20, "duration": 8.0, "workers": args.workers}
        links = LINKS
    t0 = time.perf_counter()
    result = train(
        settings["iterations"], settings["population"], links, settings["duration"],
        settings["workers"],
    )  # fmt: skip
    rows = evaluate(result["theta"], links, settings["duration"])
    wall = time.perf_counter() - t0
    figure, page = FIGURE, REPORT
    if args.out is not None:
        figure, page = args.out / "figures" / "gym-train.png", args.out / "gym-train.md"
        args.out.mkdir(parents=True, exist_ok=True)
    plot(result, rows, figure)
    page.write_text(report(result, rows, settings, wall), encoding="utf-8")
    out = {"settings": settings, **result, "evaluation": rows}
    print(json.dumps(rows, indent=1))
    return out


if __name__ == "__main__":
    main()
