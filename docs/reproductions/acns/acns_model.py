"""The ACNS paper's model verification (§3.4, Figs. 4-6), as a simulation: TCP flows with
random lifetimes, about 30 active at a time, on one bottleneck; at 50 evenly spaced sample
times, how many active flows are in each command, without ACNS, with normally distributed
priorities, and with every priority 0. Used by ``run.py``, which puts its table and figure in
the report.

The paper ran this on its own model of the commands (not ns-2) and gives no parameters beyond
the flow count, the sample count and Table 1; the figures themselves are not in its text. Here:
a 10 Mb/s, 20 ms dumbbell with an ACNS queue of 100 packets, 150 CUBIC flows starting uniformly
over 100 s with exponential lifetimes of mean 20 s (30 active in the long run),
DSCPs from N(32, 12) rounded and clipped to 0..63, the linux profile's TCP (the paper's model
is not ns-2). ``DRAWS`` independent draws of the flows give the intervals; the figure shows the
first.
"""

from __future__ import annotations

from pathlib import Path

import ccsim
import matplotlib
import numpy as np
import pandas as pd
from acns_stats import est

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOWS = 150
DURATION_S = 100.0
MEAN_LIFE_S = 20.0
PAIRS = 10
SAMPLES = 50
SEED = 2014
DRAWS = 10  # independent draws of the flows (seeds SEED, SEED + 1, ...), for the intervals
CASES = ("no ACNS", "normal priorities", "priority 0")


def flows(case: str, seed: int = SEED) -> tuple[list[dict], np.ndarray]:
    """The flows of ``case`` and their DSCPs (the same lifetimes in every case of a draw)."""
    rng = np.random.default_rng(seed)
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


def scenario(case: str, seed: int = SEED) -> dict:
    queue = {"kind": "droptail" if case == "no ACNS" else "acns", "limit": 100}
    return {
        "name": f"acns-model-{case.replace(' ', '-')}",
        "duration": f"{DURATION_S}s",
        "seed": seed,
        "topology": {
            "kind": "dumbbell",
            "pairs": PAIRS,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": queue},
        },
        "flows": flows(case, seed)[0],
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


def stats(r: ccsim.Result, c: dict, seed: int) -> dict:
    """One case of one draw: active flows and flows in freeze and fallback (means over the
    samples), the bottleneck's mean queue, utilisation (%) and drops, and the goodput of each
    DSCP tercile (those of the draw's normal priorities, so that the cases compare)."""
    q = r.queues
    b = q[(q["link"] == "bottleneck") & (q["from"] == "left")].iloc[0]
    _, dscp = flows("normal priorities", seed)
    tercile = np.digitize(dscp, np.quantile(dscp, [1 / 3, 2 / 3]))
    bytes_ = r.flows.set_index("flow").loc[[f"f{i}" for i in range(FLOWS)], "bytes_delivered"]
    by = [float(bytes_.to_numpy()[tercile == k].sum()) * 8 / DURATION_S / 1e6 for k in range(3)]
    return {
        "active": float(np.mean(np.add(np.add(c["c1"], c["c2"]), c["c3"]))),
        "freeze": float(np.mean(c["c2"])),
        "fallback": float(np.mean(c["c3"])),
        "queue": float(b["avg_len_pkts"]),
        "util": 100 * float(b["utilisation"]),
        "drops": float(b["drops_overflow"]),
        "low": by[0],
        "mid": by[1],
        "high": by[2],
    }


def run_all(draws: int = DRAWS) -> tuple[dict, pd.DataFrame]:
    """The three cases for ``draws`` draws of the flows: the first draw's results and counts
    (for the figure), and one row of ``stats`` per draw and case."""
    first, rows = {}, []
    for k in range(draws):
        for case in CASES:
            r = ccsim.run(scenario(case, SEED + k))
            c = counts(r, case)
            if k == 0:
                first[case] = (r, c)
            rows.append({"draw": k, "case": case, **stats(r, c, SEED + k)})
    return first, pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> str:
    """Mean ± 95 % half-width over the draws of each case's ``stats``."""
    head = (
        "| case | active flows | in freeze / fallback (per sample) | mean queue (packets) "
        "| utilisation (%) | drops | goodput by DSCP tercile, low / mid / high (Mb/s) |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
    )
    lines = []
    for case in CASES:
        t = table[table["case"] == case]

        def m(col: str, spec: str = ".1f", t: pd.DataFrame = t) -> str:
            return est(t[col]).fmt(spec)

        lines.append(
            f"| {case} | {m('active')} | {m('freeze')} / {m('fallback')} | {m('queue')} "
            f"| {m('util')} | {m('drops', '.0f')} | {m('low', '.2f')} / {m('mid', '.2f')} / "
            f"{m('high', '.2f')} |\n"
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
