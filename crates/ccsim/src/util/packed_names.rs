//! Names of nodes, links and flows, packed into one buffer.
//!
//! A `String` each costs 24 bytes and a heap block of at least 32; with 10,000 flows, each
//! with its two hosts, two access links and its own name, that was about 280 bytes per flow,
//! a tenth of all the state a scenario holds once built (docs/performance.md). Packed, a name
//! costs its bytes and a 4-byte end.

use std::ops::Index;

/// The names a scenario gives its nodes, links (one per pair of link directions) and flows,
/// and the labels of the kinds of flow it has.
#[derive(Clone, Debug, Default)]
pub struct Naming {
    pub nodes: Names,
    pub links: Names,
    pub flows: Names,
    /// Each distinct `FlowLabels` once (`FlowInfo::labels` indexes it).
    pub labels: Vec<FlowLabels>,
}

/// What results call a kind of flow: its kind ("tcp", "cbr", "onoff"), and for TCP its
/// congestion control and loss recovery ("" for other kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowLabels {
    pub kind: &'static str,
    pub cc: &'static str,
    pub recovery: &'static str,
}

impl FlowLabels {
    /// The index of these labels in `labels`, where they are added if new (a run has a
    /// handful of kinds of flow: a linear search is enough).
    pub fn index_in(self, labels: &mut Vec<FlowLabels>) -> u32 {
        let i = match labels.iter().position(|l| *l == self) {
            Some(i) => i,
            None => {
                labels.push(self);
                labels.len() - 1
            }
        };
        // Fewer kinds than flows, and flows are counted in 32 bits.
        u32::try_from(i).expect("kinds of flow under 2^32")
    }
}

/// Names in order, `i`-th at `text[ends[i - 1]..ends[i]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    text: String,
    ends: Vec<u32>,
}

impl Names {
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        // Names come from a scenario's text, which is far below 4 GiB.
        let end = u32::try_from(self.text.len()).expect("names total under 4 GiB");
        self.ends.push(end);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`-th name, if there is one.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.text[start..end])
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

impl Index<usize> for Names {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.get(i).expect("name index in range")
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Names {
        let mut names = Names::default();
        for s in iter {
            names.push(s.as_ref());
        }
        names.text.shrink_to_fit();
        names.ends.shrink_to_fit();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_as_pushed_empty_ones_included() {
        let given = ["s0", "", "bottleneck", "r1→d1"];
        let names: Names = given.iter().collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names.iter().collect::<Vec<_>>(), given);
        assert_eq!((&names[2], names.get(4)), ("bottleneck", None));
    }

    #[test]
    fn labels_are_kept_once_each_in_order_of_first_use() {
        let tcp = |cc| FlowLabels {
            kind: "tcp",
            cc,
            recovery: "sack",
        };
        let mut labels = Vec::new();
        let got: Vec<u32> = [tcp("cubic"), tcp("reno"), tcp("cubic"), tcp("reno")]
            .into_iter()
            .map(|l| l.index_in(&mut labels))
            .collect();
        assert_eq!(got, [0, 1, 0, 1]);
        assert_eq!(labels, [tcp("cubic"), tcp("reno")]);
    }
}
