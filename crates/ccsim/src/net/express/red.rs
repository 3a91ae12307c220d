//! RED on the express path: the general path's decisions (`queue/red/`, `RedGate`) taken
//! from the express line's timetable (`net/express/mod.rs`).
//!
//! RED serves packets in arrival order at the link rate, like DropTail; only the decision on
//! arrival differs, and it depends on nothing the timetable does not know: the packets (or
//! bytes) still waiting at that moment, whether the transmitter had gone idle and since when,
//! the time, RED's own random stream and, to mark instead of drop, whether the packet is
//! ECN-capable. So a RED direction needs no dequeue either, and it can feed and be fed
//! (cut-through, `link.rs`) like a DropTail one, with the same results to the last draw
//! (`tests/express_path.rs`).

use super::ExpressLine;
use crate::net::general_path::{count_drop, count_mark};
use crate::net::link::{LinkStats, Transit};
use crate::packet::{Ecn, PacketArena};
use crate::queue::red::RedGate;
use crate::queue::Verdict;
use crate::rng::Rng;
use crate::time::SimTime;

pub struct ExpressRed {
    pub gate: RedGate,
    /// The queue's random stream (the one the general path's discipline draws from).
    pub rng: Rng,
    /// RED's drops and marks by reason, and in `arrivals` the packets it dropped, which the
    /// line never saw (the other counters are the line's).
    pub verdicts: LinkStats,
}

impl ExpressRed {
    /// The gate of an empty line: idle since time 0, as RED starts.
    pub fn new(gate: RedGate, rng: Rng) -> ExpressRed {
        ExpressRed {
            gate,
            rng,
            verdicts: LinkStats::default(),
        }
    }

    /// Decides on packet `t` offered to `line` at `now` (the line brought up to `now`): false
    /// to drop it; a mark sets CE on the packet in `arena`.
    pub fn admit(
        &mut self,
        line: &ExpressLine,
        t: Transit,
        now: SimTime,
        arena: &mut PacketArena,
    ) -> bool {
        // ns-2's `deque()` found the queue empty when the last accepted packet left the
        // transmitter (a completion at `now` comes before an arrival at `now`, as on the
        // general path). Noted once per idle period: the arrival that ends it finds nothing
        // waiting, so RED never drops it, and the gate is no longer idle.
        let busy = line.busy_until();
        if busy <= now && !self.gate.is_idle() {
            self.gate.went_idle(busy);
        }
        let q = if self.gate.in_bytes() {
            line.len_bytes() as f64
        } else {
            line.len_packets() as f64
        };
        let capable = || arena.get(t.pkt).ecn.capable();
        match self.gate.admit(q, t.size, now, &mut self.rng, capable) {
            Verdict::Dropped(r) => {
                self.verdicts.arrivals += 1;
                count_drop(&mut self.verdicts, r);
                false
            }
            Verdict::Marked(r) => {
                count_mark(&mut self.verdicts, r);
                arena.get_mut(t.pkt).ecn = Ecn::Ce;
                true
            }
            Verdict::Enqueued => true,
        }
    }

    /// Adds RED's drops, marks and refused arrivals to the line's counters.
    pub fn add_to(&self, s: &mut LinkStats) {
        let v = &self.verdicts;
        s.arrivals += v.arrivals;
        s.drops_overflow += v.drops_overflow;
        s.drops_early += v.drops_early;
        s.drops_forced += v.drops_forced;
        s.drops_aqm += v.drops_aqm;
        s.marks += v.marks;
        s.marks_early += v.marks_early;
        s.marks_forced += v.marks_forced;
    }
}

#[cfg(test)]
mod tests {
    use crate::net::link::{LinkDir, Transit};
    use crate::net::loss::LossModel;
    use crate::packet::{Ecn, Kind, Packet, PacketArena, PktId};
    use crate::queue::red::{tests::config, RedConfig};
    use crate::queue::{Queue, Red};
    use crate::time::{Rate, SimTime};

    /// 8 Mb/s and 1000-byte packets: 1 ms on the wire; 10 ms of propagation.
    fn red_link(c: RedConfig) -> LinkDir {
        let q = Queue::Red(Box::new(Red::new(c)));
        let (rate, delay) = (Rate(8_000_000), SimTime::from_millis(10));
        let mut l = LinkDir::new(0, 1, rate, delay, q, LossModel::None, 1, "l");
        l.use_express();
        assert!(l.is_express());
        l
    }

    fn offer(l: &mut LinkDir, arena: &mut PacketArena, ecn: Ecn, at_us: u64) -> PktId {
        let now = SimTime::from_micros(at_us);
        let mut p = Packet::new(0, Kind::Udp, 0, 1, 1000, now);
        p.ecn = ecn;
        let pkt = arena.alloc(p);
        let mut drops = vec![];
        l.offer(Transit::of(pkt, arena), arena, now, &mut drops, None);
        pkt
    }

    #[test]
    fn the_average_sees_the_waiting_packets_and_decays_over_idle_time() {
        // w_q = 0.5 keeps every value an exact binary fraction; thresholds far above the
        // queue; ptc = 1000 packets/s.
        let c = RedConfig {
            q_weight: 0.5,
            min_th: 50.0,
            max_th: 60.0,
            ..config()
        };
        let mut l = red_link(c);
        let mut arena = PacketArena::default();
        // Three arrivals at 0: the first starts at once (queue 0), the second finds the first
        // on the transmitter (still 0 waiting), the third one waiting:
        //   0.5·0 + 0.5·0 = 0, then 0, then 0.5·0 + 0.5·1 = 0.5.
        for expect in [0.0, 0.0, 0.5] {
            offer(&mut l, &mut arena, Ecn::NotEct, 0);
            assert_eq!(l.avg_queue(), Some(expect));
        }
        // The transmitter finishes the third at 3 ms and goes idle. An arrival at 6.5 ms
        // counts m = int(1000·0.0035) = 3 virtual arrivals: 0.5·0.5³·0.5 + 0.5·0 = 0.03125.
        offer(&mut l, &mut arena, Ecn::NotEct, 6_500);
        assert_eq!(l.avg_queue(), Some(0.03125));
        // Busy again until 7.5 ms: no decay. At 7 ms nothing waits, then one packet does:
        // 0.015625, then 0.0078125 + 0.5.
        offer(&mut l, &mut arena, Ecn::NotEct, 7_000);
        assert_eq!(l.avg_queue(), Some(0.015625));
        offer(&mut l, &mut arena, Ecn::NotEct, 7_000);
        assert_eq!(l.avg_queue(), Some(0.5078125));
    }

    #[test]
    fn forced_decisions_mark_capable_packets_and_drop_the_others() {
        // w_q = 1: the average is the queue. min_th 1, max_th 3, ECN without harddrop.
        let mut c = config();
        c.min_th = 1.0;
        c.max_th = 3.0;
        c.use_mark_p = false;
        c.ecn = true;
        c.harddrop = false;
        let mut l = red_link(c);
        let mut arena = PacketArena::default();
        // All at 0: the first starts at once, then the queue holds 0, 1, 2 (the average
        // crosses min_th with two waiting: the count restarts, no decision), 3: at max_th, a
        // forced decision — the ECN-capable packet is marked and joins the queue; the next
        // finds 4 and, not ECN-capable, is dropped.
        let p: Vec<PktId> = (0..4)
            .map(|_| offer(&mut l, &mut arena, Ecn::Ect0, 0))
            .collect();
        let marked = offer(&mut l, &mut arena, Ecn::Ect0, 0);
        offer(&mut l, &mut arena, Ecn::NotEct, 0);
        assert!(p.iter().all(|&q| arena.get(q).ecn == Ecn::Ect0));
        assert_eq!(arena.get(marked).ecn, Ecn::Ce);
        let s = l.stats(SimTime::ZERO);
        assert_eq!((s.arrivals, s.marks_forced, s.marks), (6, 1, 1));
        assert_eq!((s.drops_forced, s.drops_aqm, s.drops_overflow), (1, 1, 0));
        assert_eq!(l.len_packets(), 4);
    }
}
