"""The ACNS paper's model verification (§3.4, Figs. 4-6), as a simulation: TCP flows with
random lifetimes, about 30 active at a time, on one bottleneck; at 50 evenly spaced sample
times, how many active flows are in each command, without ACNS, with normally distributed
priorities, and with every priority 0. Used by ``acns.py``, which puts its table and figure in
the report.

The paper ran this on its own model of the commands (not ns-2) and gives no parameters beyond
the flow count, the sample count and Table 1; the figures themselves are not in its text. Here:
a 10 Mb/s, 20 ms dumbbell with an ACNS queue of 100 packets, 150 CUBIC flows starting uniformly
over 100 s with exponential lifetimes of mean 20 s (30 active in the long run),
DSCPs from N(32, 12) rounded and clipped to 0..63. (Active flows average 24 over the samples,
fewer early on, up to 44 late.)
"""

from __future__ import annotations

from pathlib import Path

import ccsim
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOWS = 150
DURATION_S = 100.0
MEAN_LIFE_S = 20.0
PAIRS = 10
SAMPLES = 50
SEED = 2014
CASES = ("no ACNS", "normal priorities", "priority 0")


def flows(case: str) -> tuple[list[dict], np.ndarray]:
    """The flows of ``case`` and their DSCPs (the same lifetimes in every case)."""
    rng = np.random.default_rng(SEED)
    start = np.sort(rng.uniform(0.0, DURATION_S, FLOWS))
    stop = np.minimum(start + rng.exponential(MEAN_LIFE_S, FLOWS), DURATION_S)
    dscp = np.clip(np.rint(rng.normal(32.0, 12.0, FLOWS)), 0, 63).astype(int)
    if case == "priority 0":
        dscp[:] = 0
    out = []
    for i in range(FLOWS):
        tcp: dict = {"cc": "cubic", "dscp": int(dscp[i])}
        if case != "no ACNS":
            tcp["acns"] = True
        out.append(
            {
                "kind": "tcp",
                "name": f"f{i}",
                "src": f"s{i % PAIRS}",
                "dst": f"d{i % PAIRS}",
                "start": f"{start[i]:.3f}s",
                "stop": f"{max(stop[i], start[i] + 0.001):.3f}s",
                "tcp": tcp,
            }
        )
    return out, dscp


def scenario(case: str) -> dict:
    queue = {"kind": "droptail" if case == "no ACNS" else "acns", "limit": 100}
    return {
        "name": f"acns-model-{case.replace(' ', '-')}",
        "duration": f"{DURATION_S}s",
        "seed": SEED,
        "topology": {
            "kind": "dumbbell",
            "pairs": PAIRS,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": queue},
        },
        "flows": flows(case)[0],
        "trace": {"series": ["queue", "acns_command"], "interval": "100ms"},
    }


def counts(r: ccsim.Result, case: str) -> dict:
    """Per sample time: active flows in each command (all "normal" without ACNS), and the
    bottleneck queue."""
    info = r.flows.set_index("flow")
    times = np.linspace(DURATION_S / SAMPLES, DURATION_S, SAMPLES) - 0.05
    q = r.trace("queue")
    q = q[q["queue"] == "bottleneck:left->right"].set_index("time_s")["value"]
    cmd = r.trace("acns_command") if case != "no ACNS" else None
    out = {"t": times, "c1": [], "c2": [], "c3": [], "queue": []}
    for t in times:
        active = info[(info["start_s"] <= t) & (info["end_s"] > t)].index
        if cmd is None:
            held = np.ones(len(active))
        else:
            upto = cmd[(cmd["time_s"] <= t) & cmd["flow"].isin(active)]
            held = upto.groupby("flow", observed=True)["value"].last().reindex(active).fillna(1)
            held = held.to_numpy()
        for c in (1, 2, 3):
            out[f"c{c}"].append(int((held == c).sum()))
        out["queue"].append(float(q[q.index <= t].iloc[-1]))
    return out


def run_all() -> dict:
    results = {case: ccsim.run(scenario(case)) for case in CASES}
    return {case: (results[case], counts(results[case], case)) for case in CASES}


def summary(runs: dict) -> str:
    head = (
        "| case | active flows (mean) | in freeze / fallback (mean per sample) | mean queue "
        "(packets) | utilisation | drops | goodput by DSCP tercile, low / mid / high (Mb/s) |\n"
        "| --- | ---: | --- | ---: | ---: | ---: | --- |\n"
    )
    lines = []
    for case, (r, c) in runs.items():
        active = np.add(np.add(c["c1"], c["c2"]), c["c3"])
        q = r.queues
        b = q[(q["link"] == "bottleneck") & (q["from"] == "left")].iloc[0]
        _, dscp = flows("normal priorities")
        thirds = np.quantile(dscp, [1 / 3, 2 / 3])
        tercile = np.digitize(dscp, thirds)
        bytes_ = r.flows["bytes_delivered"].to_numpy()
        by = [bytes_[tercile == k].sum() * 8 / DURATION_S / 1e6 for k in range(3)]
        lines.append(
            f"| {case} | {active.mean():.1f} | {np.mean(c['c2']):.1f} / {np.mean(c['c3']):.1f} "
            f"| {float(b['avg_len_pkts']):.1f} | {float(b['utilisation']):.1%} "
            f"| {int(b['drops_overflow'])} | {by[0]:.2f} / {by[1]:.2f} / {by[2]:.2f} |\n"
        )
    return head + "".join(lines)


def figure(runs: dict, figures: Path) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8), sharey=True)
    for ax, (case, (_, c)) in zip(axes, runs.items()):
        k = np.arange(1, SAMPLES + 1)
        labels = ("C = 1 (normal)", "C = 2 (freeze)", "C = 3 (fallback)")
        bottom = np.zeros(SAMPLES)
        for key, label in zip(("c1", "c2", "c3"), labels):
            ax.bar(k, c[key], bottom=bottom, width=0.8, label=label)
            bottom += np.asarray(c[key])
        ax.set_title(
            case + (" (no commands: counted as C = 1)" if case == CASES[0] else ""), fontsize=10
        )
        ax.set_xlabel("sample")
        twin = ax.twinx()
        twin.plot(k, c["queue"], color="black", lw=0.9)
        twin.set_ylim(0, 105)
        if case == CASES[-1]:
            twin.set_ylabel("bottleneck queue (packets, line)")
    axes[0].set_ylabel("active flows")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    path = figures / "acns-model.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
