//! Runs one scenario (a JSON file of the schema) and prints how fast: the profiling target for
//! `perf record` and `valgrind --tool=callgrind` (docs/performance.md), free of Python.
//!
//! `cargo run --release -p ccsim --example run_scenario -- SCENARIO.json`
//! (`python bench/run.py --dump DIR` writes the benchmark scenarios as JSON files.)
//!
//! The second line it prints is a digest of every number in the flow and queue tables, the
//! third the same with the event count: two builds that give the same tables digest gave the
//! same results, which is how an optimisation is checked to change nothing (the results
//! digest also tells whether it took as many events). The fourth says how the core was
//! compiled (`ccsim::BUILD`: release or debug, and whether profile-guided).
//!
//! `--skip COLUMN` (repeatable) leaves a column of the tables out of both digests: a change
//! meant to alter one column (a sum taken more exactly, say) is checked to leave the rest as
//! they were.

use std::io::Write;
use std::time::Instant;

fn main() {
    let usage = || -> ! {
        eprintln!("usage: run_scenario SCENARIO.json [--skip COLUMN]...");
        std::process::exit(2);
    };
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else { usage() };
    let mut skip = vec![];
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--skip", Some(column)) => skip.push(column),
            _ => usage(),
        }
    }
    let json = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut sim = match ccsim::scenario::load(&json) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let results = ccsim::results::collect(&mut sim);
    let delivered: u64 = results.flows.u64s("packets_delivered").iter().sum();
    let m = &results.meta;
    for column in &skip {
        let known = [&results.flows, &results.queues]
            .iter()
            .any(|t| t.columns.iter().any(|(name, _)| name == column));
        if !known {
            eprintln!("--skip: no column named {column:?} in the flow or queue table");
            std::process::exit(2);
        }
    }
    let mut out = format!(
        "{}: {:.1} s simulated, {} data packets delivered, {:.3} s wall, {:.0} packets/s, \
         {:.2} events/packet, peak {} packets in the network\n",
        m.name,
        m.duration_s,
        delivered,
        wall,
        delivered as f64 / wall,
        m.events as f64 / delivered.max(1) as f64,
        m.packets_peak
    );
    // Every number as little-endian bytes, hashed once at the end.
    let mut words = vec![];
    for table in [&results.flows, &results.queues] {
        for (name, column) in &table.columns {
            if skip.iter().any(|s| s == name) {
                continue;
            }
            match column {
                ccsim::results::Column::U64(v) => words.extend(v),
                ccsim::results::Column::F64(v) => words.extend(v.iter().map(|x| x.to_bits())),
                ccsim::results::Column::Str(_) => {}
            }
        }
    }
    let digest = |words: &[u64]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        ccsim::rng::fnv1a(&bytes)
    };
    out += &format!("tables digest {:016x}\n", digest(&words));
    words.insert(0, m.events);
    out += &format!("results digest {:016x}\n", digest(&words));
    out += &format!("build: {}\n", ccsim::BUILD);
    // A reader that stops early (`| head -1`) wanted no more: no panic on the closed pipe.
    match std::io::stdout().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("cannot write the figures: {e}");
            std::process::exit(1);
        }
        _ => {}
    }
}
