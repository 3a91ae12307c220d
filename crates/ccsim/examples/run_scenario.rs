//! Runs one scenario (a JSON file of the schema) and prints how fast: the profiling target for
//! `perf record` and `valgrind --tool=callgrind` (docs/performance.md), free of Python.
//!
//! `cargo run --release -p ccsim --example run_scenario -- SCENARIO.json`
//! (`python bench/run.py --dump DIR` writes the benchmark scenarios as JSON files.)
//!
//! The second line it prints is a digest of every number in the flow and queue tables (and
//! the event count): two builds that give the same digest gave the same results, which is
//! how an optimisation is checked to change nothing.

use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_scenario SCENARIO.json");
        std::process::exit(2);
    };
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
    println!(
        "{}: {:.1} s simulated, {} data packets delivered, {:.3} s wall, {:.0} packets/s, \
         {:.2} events/packet, peak {} packets in the network",
        m.name,
        m.duration_s,
        delivered,
        wall,
        delivered as f64 / wall,
        m.events as f64 / delivered.max(1) as f64,
        m.packets_peak
    );
    let mut digest = Fnv::default();
    digest.add(m.events);
    for table in [&results.flows, &results.queues] {
        for (_, column) in &table.columns {
            match column {
                ccsim::results::Column::U64(v) => v.iter().for_each(|&x| digest.add(x)),
                ccsim::results::Column::F64(v) => v.iter().for_each(|x| digest.add(x.to_bits())),
                ccsim::results::Column::Str(_) => {}
            }
        }
    }
    println!("results digest {:016x}", digest.0);
}

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
