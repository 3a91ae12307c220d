"""The benchmark scenarios (bench/) match the performance issue's table, build in ccsim, and the
harness reports what it measured."""

from __future__ import annotations

import sys
from pathlib import Path

import ccsim
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from report import row_line  # noqa: E402

from scenarios import AQM_SCENARIOS, SCENARIOS, ccsim_scenario  # noqa: E402

# id: (flows, algorithm, bottleneck b/s, RTT s, DropTail packets, duration s), from the issue.
TABLE = {
    "a": (1, "newreno", 10e6, 40e-3, 100, 60.0),
    "b": (10, "cubic", 100e6, 40e-3, 250, 60.0),
    "c": (100, "cubic", 1e9, 40e-3, 1000, 20.0),
    "H": (10, "newreno", 10e9, 100e-6, 100, 5.0),
    "S": (10_000, "cubic", 10e9, 40e-3, 10_000, 5.0),
}


@pytest.mark.parametrize("bench_id", sorted(TABLE))
def test_scenarios_match_the_table_and_validate(bench_id):
    b = SCENARIOS[bench_id]
    flows, cc, rate, rtt, queue, duration = TABLE[bench_id]
    assert (b.flows, b.cc, b.rate_bps, b.queue, b.duration_s) == (flows, cc, rate, queue, duration)
    assert b.rtt_s == pytest.approx(rtt, rel=1e-12)
    d = ccsim_scenario(b)
    # Access links at 10x the bottleneck; every flow starts within the first second.
    assert d["topology"]["access"]["rate"] == f"{rate * 10:.0f}bps"
    starts = [float(f["start"].rstrip("s")) for f in d["flows"]]
    assert len(starts) == flows and max(starts) < 1.0
    assert d["topology"]["bottleneck"]["queue"] == {"kind": "droptail", "limit": queue}
    if flows <= 100:  # validating 10,000 flows takes a few seconds; the shape is the same
        ccsim.validate(d)


@pytest.mark.parametrize("bench_id", sorted(AQM_SCENARIOS))
def test_aqm_scenarios_are_their_base_with_the_aqm_at_the_bottleneck(bench_id):
    b = AQM_SCENARIOS[bench_id]
    base = SCENARIOS[bench_id[0]]
    assert (b.flows, b.cc, b.rate_bps, b.rtt_s, b.queue) == (
        base.flows,
        base.cc,
        base.rate_bps,
        base.rtt_s,
        base.queue,
    )
    d = ccsim_scenario(b)
    kind = {"R": "red", "C": "codel"}[bench_id[1]]
    assert d["topology"]["bottleneck"]["queue"] == {"kind": kind, "limit": base.queue}
    ccsim.validate(d)


def test_row_reports_rate_memory_and_ratio_to_the_last_saved_run():
    row = {
        "sim_s": 5.0,
        "delivered": 4_000_000,
        "events": 18_000_000,
        "wall_s": 2.0,
        "wall_min_s": 1.9,
        "wall_max_s": 2.1,
        "heap_built_bytes": 20_000,
        "heap_peak_bytes": 60_000,
        "rss_peak_kib": 1024,
        "packets_peak": 200,
        "flows": 10,
    }
    ref = {"rows": {"H": {"ccsim": dict(row, wall_s=4.0)}}, "file": "x.json"}
    line = row_line("H", row, ref)
    # 2,000,000 packets/s, 4.5 events/packet, 2,000 B/flow, 200 B/packet, 2x the last run.
    for part in ("2,000,000", "4.50", "2,000", "200", "2.00×"):
        assert part in line, (part, line)


def test_the_last_saved_run_is_the_newest_not_the_last_name(tmp_path):
    # Two runs saved the same day: the names sort by commit ("f..." after "a..."), the times
    # the other way; a file from before times were recorded counts as the start of its day.
    import json

    from report import history_ref

    def save(name, saved=None):
        run = {"mode": "full", "commit": name.split("-")[3], "machine": "m", "rows": {}}
        if saved:
            run["saved"] = saved
        (tmp_path / name).write_text(json.dumps(run))

    save("2026-11-21-0000000-full.json", "2026-11-21T23:00:00")
    save("2026-11-22-fffffff-full.json")
    save("2026-11-22-aaaaaaa-full.json", "2026-11-22T09:30:00")
    save("2026-11-22-bbbbbbb-quick.json", "2026-11-22T23:59:59")
    assert history_ref(tmp_path, "full", "release", "m")["commit"] == "aaaaaaa"
    assert history_ref(tmp_path, "quick", "release", "m")["commit"] == "bbbbbbb"
    assert history_ref(tmp_path / "none", "full", "release", "m") is None


def test_a_profile_guided_run_is_compared_only_with_another(tmp_path):
    # A PGO build is about 1.2x faster: "vs last" across builds would report that as a change.
    import json

    from report import history_ref

    def save(name, saved, build=None):
        run = {"mode": "full", "commit": name.split("-")[3], "saved": saved, "rows": {}}
        run["machine"] = "m"
        if build:
            run["build"] = build
        (tmp_path / name).write_text(json.dumps(run))

    save("2026-11-20-1111111-full.json", "2026-11-20T10:00:00")  # before builds were saved
    save("2026-11-21-2222222-full.json", "2026-11-21T10:00:00", "release, PGO")
    save("2026-11-22-3333333-full.json", "2026-11-22T10:00:00", "debug")
    assert history_ref(tmp_path, "full", "release", "m")["commit"] == "1111111"
    assert history_ref(tmp_path, "full", "release, PGO", "m")["commit"] == "2222222"
    assert history_ref(tmp_path, "full", "debug", "m")["commit"] == "3333333"
    assert history_ref(tmp_path, "full", "debug, PGO", "m") is None


def test_a_run_is_compared_only_with_one_on_the_same_machine(tmp_path):
    # Two machines of one class differed by 1.2x on every scenario (docs/performance.md).
    import json

    from report import history_ref, machine

    def save(name, saved, on=None):
        run = {"mode": "full", "commit": name.split("-")[3], "saved": saved, "rows": {}}
        if on:
            run["machine"] = on
        (tmp_path / name).write_text(json.dumps(run))

    here = machine()
    assert here and "cores" in here
    save("2026-11-20-1111111-full.json", "2026-11-20T10:00:00")  # before machines were saved
    save("2026-11-21-2222222-full.json", "2026-11-21T10:00:00", here)
    save("2026-11-22-3333333-full.json", "2026-11-22T10:00:00", "another, 2 cores")
    assert history_ref(tmp_path, "full", "release", here)["commit"] == "2222222"
    assert history_ref(tmp_path, "full", "release", "another, 2 cores")["commit"] == "3333333"
    assert history_ref(tmp_path, "full", "release", "a third, 2 cores") is None


def test_ab_takes_builds_in_turn_and_flags_different_results():
    import ab

    calls = []
    rates = {"A": 100.0, "B": 110.0}

    def run(build, scenario):
        calls.append((build, scenario))
        digest = "d" if (scenario, build) != ("x", "B") else "other"
        return rates[build] * (1 + len(calls) % 3 / 100), digest

    results = ab.alternate(["H", "x"], ["A", "B"], 3, run)
    # One run of each build in turn, round after round, scenario after scenario.
    assert calls == [(b, i) for i in ("H", "x") for _ in range(3) for b in ("A", "B")]
    rows, differ = ab.summarise(results)
    assert differ == ["x"]
    # H: A ran at 100 × (1.01, 1.00, 1.02), B at 110 × (1.02, 1.01, 1.00): medians 101 and
    # 111.1, a ratio of 1.100.
    assert "**1.100×**" in rows[0] and rows[0].endswith("| same |")
    assert rows[1].endswith("| DIFFERENT |")


def test_ab_knows_the_benchmark_set_and_the_sweeps_points():
    import ab

    ids = ab.benches()
    for i in ("a", "H", "S", "bR", "f1000", "n100", "s10000", "u1000", "r10Gbps"):
        assert i in ids
    assert ids["H"] is SCENARIOS["H"], "the packets sweep does not replace H"


def test_scaling_shortens_points_for_ns3_to_a_second_of_starts_and_the_packets_after():
    import scaling

    points = {b.id: b for _, _, b in scaling.sweeps()}
    # 10 Mb/s: 150,000 packets of 12,000 bits take 180 s, after the second of starts.
    assert scaling.shortened(points["s1"]).duration_s == 181.0
    # 1 Gb/s: 1.8 s after it.
    assert scaling.shortened(points["s100"]).duration_s == 2.8
    # 10 Gb/s: at least a second after it (0.18 s of packets would leave the last flows
    # barely started).
    assert scaling.shortened(points["s1000"]).duration_s == 2.0
    # Never longer than the point itself (the packets sweep's first: H over 1.5 s).
    h = next(b for sweep, _, b in scaling.sweeps() if sweep == "packets")
    assert scaling.shortened(h).duration_s == 1.5
    assert scaling.shortened(points["s1"]).flows == 1


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["nope"], "unknown sweep ['nope']; the sweeps are packets, flows, network, share, cbr"),
        (["cbr", "--vs-ns3"], "--vs-ns3 has no ns-3 peer for cbr"),
        (["--repeat", "0"], "--repeat must be at least 1"),
        (["--vs-ns3", "--ns3-max-flows", "0"], "--ns3-max-flows must be at least 1"),
    ],
)
def test_scaling_names_what_it_cannot_run(argv, says, capsys):
    import scaling

    with pytest.raises(SystemExit) as e:
        scaling.main(argv)
    assert e.value.code == 2
    assert says in capsys.readouterr().err


def test_scaling_vs_ns3_prints_each_simulators_growth_and_the_ratio(monkeypatch, capsys):
    import scaling

    # ccsim: 100, 120 and 150 ns a packet at 1, 10 and 100 flows; ns-3: 20, 40 and 600 µs.
    ccsim_wall = {1: 1.0e-4, 10: 1.2e-4, 100: 1.5e-4}
    ns3_wall = {1: 0.01, 10: 0.02, 100: 0.30}
    monkeypatch.setattr(scaling, "measure", lambda b, r: (1000, ccsim_wall[b.flows], 0.0, 0))
    ran = []

    def ns3(b):
        ran.append(b.flows)
        return {"delivered": 500, "wall_s": ns3_wall[b.flows]}

    monkeypatch.setattr(scaling, "ns3_point", ns3)
    points = [p for p in scaling.sweeps() if p[0] == "share"][:3]
    scaling.vs_ns3(points, 3, 10)
    rows = capsys.readouterr().out.splitlines()[2:]
    assert ran == [1, 1, 1, 10, 10, 10], "three runs of each point up to 10 flows"
    assert rows[0] == "| share | 1 | 181 | 1,000 | 100 | 1.00× | 500 | 20,000 | 1.00× | **200×** |"
    assert rows[1] == "| share | 10 | 19 | 1,000 | 120 | 1.20× | 500 | 40,000 | 2.00× | **333×** |"
    # Over --ns3-max-flows: ccsim alone.
    assert rows[2] == "| share | 100 | 2.8 | 1,000 | 150 | 1.50× | — | — | — | — |"
