//! Static shortest-path routing (fewest hops; ties go to the lower-numbered link, so routes
//! are deterministic). The table holds, for every (node, destination), the outgoing link
//! direction: forwarding is one array lookup.

use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

impl Routes {
    /// `dirs[i] = (from, to)` of link direction `i`.
    pub fn shortest_paths(n_nodes: usize, dirs: &[(u32, u32)]) -> Routes {
        let mut into: Vec<Vec<u32>> = vec![vec![]; n_nodes];
        for (i, &(_, to)) in dirs.iter().enumerate() {
            into[to as usize].push(i as u32);
        }
        let mut next = vec![NO_ROUTE; n_nodes * n_nodes];
        // A BFS backwards from each destination gives every node its first hop towards it.
        for dst in 0..n_nodes {
            let mut dist = vec![u32::MAX; n_nodes];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst as u32]);
            while let Some(v) = q.pop_front() {
                for &d in &into[v as usize] {
                    let u = dirs[d as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        next[u * n_nodes + dst] = d;
                        q.push_back(u as u32);
                    }
                }
            }
        }
        Routes { n: n_nodes, next }
    }

    /// Outgoing link direction at `node` towards `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> u32 {
        self.next[node as usize * self.n + dst as usize]
    }

    /// Link directions from `src` to `dst`, or None if unreachable.
    pub fn path(&self, src: u32, dst: u32, dirs: &[(u32, u32)]) -> Option<Vec<u32>> {
        let mut v = src;
        let mut out = vec![];
        while v != dst {
            let d = self.next_hop(v, dst);
            if d == NO_ROUTE || out.len() > self.n {
                return None;
            }
            out.push(d);
            v = dirs[d as usize].1;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_and_shortcut() {
        // 0-1-2-3 plus a direct 0-3 link: 0→3 takes the shortcut, 0→2 goes through 1.
        let links = [(0, 1), (1, 2), (2, 3), (0, 3)];
        let dirs: Vec<(u32, u32)> = links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let r = Routes::shortest_paths(4, &dirs);
        assert_eq!(r.path(0, 3, &dirs).unwrap().len(), 1);
        assert_eq!(r.path(0, 2, &dirs).unwrap().len(), 2);
        assert_eq!(r.path(2, 0, &dirs).unwrap().len(), 2);
    }

    #[test]
    fn unreachable() {
        let dirs = [(0, 1), (1, 0)];
        let r = Routes::shortest_paths(3, &dirs);
        assert!(r.path(0, 2, &dirs).is_none());
        assert_eq!(r.next_hop(2, 0), NO_ROUTE);
    }
}
