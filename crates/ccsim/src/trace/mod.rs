//! Time series, recorded as columns (time, id, value) per series.
//!
//! Nothing is recorded unless the scenario asks for it: `wants()` is a single array load, and
//! components check it before computing anything. Series sampled "on change" record a point
//! only when the value differs from the last one recorded for that id.

use crate::config::{SeriesName, SeriesSource};
use crate::time::SimTime;

/// One series in long format.
#[derive(Default, Clone, Debug)]
pub struct Series {
    pub time: Vec<u64>,
    pub id: Vec<u32>,
    pub value: Vec<f64>,
    last: Vec<f64>,
}

impl Series {
    fn push(&mut self, id: u32, now: SimTime, v: f64) {
        self.time.push(now.as_nanos());
        self.id.push(id);
        self.value.push(v);
    }
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

const N: usize = SeriesName::ALL.len();

/// A series' slot: its discriminant, which is its place in `SeriesName::ALL` (tested below).
#[inline]
fn index(s: SeriesName) -> usize {
    s as usize
}

#[derive(Default)]
pub struct Recorder {
    on: [bool; N],
    /// Some series is on and the interval is `None`.
    on_change: bool,
    /// Sampling interval; `None` records on change.
    pub interval: Option<SimTime>,
    /// Throughput bin width.
    pub bin: SimTime,
    series: [Series; N],
}

impl Recorder {
    pub fn new(names: &[SeriesName], interval: Option<SimTime>, bin: SimTime) -> Recorder {
        let mut r = Recorder {
            interval,
            bin,
            ..Default::default()
        };
        for s in names {
            r.on[index(*s)] = true;
        }
        r.on_change = interval.is_none() && r.any();
        r
    }

    #[inline]
    pub fn wants(&self, s: SeriesName) -> bool {
        self.on[index(s)]
    }

    /// Whether any series that reads `source`'s state is recorded.
    pub fn wants_any(&self, source: SeriesSource) -> bool {
        SeriesName::ALL
            .iter()
            .any(|&s| s.source() == source && self.wants(s))
    }

    pub fn any(&self) -> bool {
        self.on.iter().any(|x| *x)
    }

    /// Whether any series is recorded on change (components skip their `changed` calls when
    /// not: the per-ACK cost of tracing off is this one load).
    #[inline]
    pub fn on_change(&self) -> bool {
        self.on_change
    }

    /// Records unconditionally (sampled series, RTT samples, throughput bins).
    pub fn record(&mut self, s: SeriesName, id: u32, now: SimTime, v: f64) {
        let i = index(s);
        if self.on[i] {
            self.series[i].push(id, now, v);
        }
    }

    /// Records only in on-change mode, and only if the value changed for this id.
    pub fn changed(&mut self, s: SeriesName, id: u32, now: SimTime, v: f64) {
        let i = index(s);
        if !self.on[i] || self.interval.is_some() {
            return;
        }
        let ser = &mut self.series[i];
        let k = id as usize;
        if ser.last.len() <= k {
            ser.last.resize(k + 1, f64::NAN);
        }
        // NaN never equals itself, so the first value is always recorded.
        if ser.last[k] != v {
            ser.last[k] = v;
            ser.push(id, now, v);
        }
    }

    /// The recorded series, by name.
    pub fn into_series(self) -> Vec<(SeriesName, Series)> {
        let on = self.on;
        SeriesName::ALL
            .iter()
            .zip(self.series)
            .enumerate()
            .filter(|(i, _)| on[*i])
            .map(|(_, (n, s))| (*n, s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_slots_follow_the_order_of_all() {
        for (i, s) in SeriesName::ALL.iter().enumerate() {
            assert_eq!(index(*s), i, "{s:?}");
        }
    }

    #[test]
    fn on_change_dedupes_and_off_records_nothing() {
        let mut r = Recorder::new(&[SeriesName::Cwnd], None, SimTime::from_millis(100));
        r.changed(SeriesName::Cwnd, 0, SimTime(1), 2.0);
        r.changed(SeriesName::Cwnd, 0, SimTime(2), 2.0);
        r.changed(SeriesName::Cwnd, 0, SimTime(3), 3.0);
        r.changed(SeriesName::Ssthresh, 0, SimTime(3), 3.0);
        let s = r.into_series();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].1.time, vec![1, 3]);
    }
}
