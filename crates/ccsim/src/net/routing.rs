//! Static shortest-path routing (fewest hops; ties go to the lower-numbered link, so routes
//! are deterministic): for every (node, destination), the outgoing link direction, so that
//! forwarding is one array lookup.
//!
//! A full table is n² entries, which a dumbbell of 10,000 pairs (20,004 nodes) turns into
//! 1.6 GB and 20,000 breadth-first searches. Most nodes of such topologies are leaves — hosts
//! with a single link to one router — and every path to a leaf is the path to its router plus
//! that link. So the table keeps columns only for the other destinations ("core" nodes), and a
//! leaf destination is looked up through its router: memory is n × core and building costs one
//! search per core node. (The first hop towards a leaf is the first hop towards its router
//! even under the tie rule: a search from the leaf reaches only the router first, then proceeds
//! exactly as a search from the router.)

use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

/// How a destination is reached.
#[derive(Clone, Copy)]
enum Dest {
    /// A core node: its column in the table.
    Core(u32),
    /// A leaf hanging off core node `router` (whose column is `col`) by link direction `last`
    /// (router → leaf).
    Leaf { router: u32, col: u32, last: u32 },
}

pub struct Routes {
    n: usize,
    dest: Vec<Dest>,
    /// `next[column * n + node]`: the first hop from `node` towards the column's core node.
    next: Vec<u32>,
}

impl Routes {
    /// `dirs[i] = (from, to)` of link direction `i`.
    pub fn shortest_paths(n_nodes: usize, dirs: &[(u32, u32)]) -> Routes {
        let mut into: Vec<Vec<u32>> = vec![vec![]; n_nodes];
        let mut out: Vec<Vec<u32>> = vec![vec![]; n_nodes];
        for (i, &(from, to)) in dirs.iter().enumerate() {
            into[to as usize].push(i as u32);
            out[from as usize].push(i as u32);
        }
        // A leaf: one link direction in and one out, to and from the same neighbour.
        let neighbour = |v: usize| match (&into[v][..], &out[v][..]) {
            ([i], [o]) if dirs[*i as usize].0 == dirs[*o as usize].1 => {
                Some((dirs[*i as usize].0, *i))
            }
            _ => None,
        };
        let mut dest = Vec::with_capacity(n_nodes);
        let mut cores = vec![];
        for v in 0..n_nodes {
            // A leaf whose neighbour is itself a leaf (two nodes joined by one link) stays core.
            match neighbour(v) {
                Some((router, last)) if neighbour(router as usize).is_none() => {
                    // The column is filled in below, once every core node has one.
                    dest.push(Dest::Leaf {
                        router,
                        col: NO_ROUTE,
                        last,
                    })
                }
                _ => {
                    dest.push(Dest::Core(cores.len() as u32));
                    cores.push(v);
                }
            }
        }
        for v in 0..n_nodes {
            if let Dest::Leaf { router, .. } = dest[v] {
                let Dest::Core(c) = dest[router as usize] else {
                    unreachable!("a leaf's router is a core node")
                };
                if let Dest::Leaf { col, .. } = &mut dest[v] {
                    *col = c;
                }
            }
        }
        let mut next = vec![NO_ROUTE; n_nodes * cores.len()];
        // A breadth-first search backwards from each core destination gives every node its
        // first hop towards it.
        let mut dist = vec![u32::MAX; n_nodes];
        let mut q = VecDeque::new();
        for (c, &dst) in cores.iter().enumerate() {
            let col = &mut next[c * n_nodes..(c + 1) * n_nodes];
            dist.fill(u32::MAX);
            dist[dst] = 0;
            q.push_back(dst as u32);
            while let Some(v) = q.pop_front() {
                for &d in &into[v as usize] {
                    let u = dirs[d as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v as usize] + 1;
                        col[u] = d;
                        q.push_back(u as u32);
                    }
                }
            }
        }
        Routes {
            n: n_nodes,
            dest,
            next,
        }
    }

    /// How many nodes the table covers.
    pub fn nodes(&self) -> usize {
        self.n
    }

    /// Outgoing link direction at `node` towards `dst`, or `NO_ROUTE`.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> u32 {
        match self.dest[dst as usize] {
            Dest::Core(c) => self.next[c as usize * self.n + node as usize],
            Dest::Leaf { router, col, last } => {
                if node == router {
                    last
                } else if node == dst {
                    NO_ROUTE
                } else {
                    self.next[col as usize * self.n + node as usize]
                }
            }
        }
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

    /// Every node's first hop towards every destination, by a search from each destination.
    fn full_table(n: usize, dirs: &[(u32, u32)]) -> Vec<u32> {
        let mut next = vec![NO_ROUTE; n * n];
        for dst in 0..n {
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut q = std::collections::VecDeque::from([dst as u32]);
            while let Some(v) = q.pop_front() {
                for (d, &(u, to)) in dirs.iter().enumerate() {
                    if to == v && dist[u as usize] == u32::MAX {
                        dist[u as usize] = dist[v as usize] + 1;
                        next[u as usize * n + dst] = d as u32;
                        q.push_back(u);
                    }
                }
            }
        }
        next
    }

    #[test]
    fn leaves_are_routed_through_their_router_as_a_full_table_would() {
        // A dumbbell (hosts 0-2 on router 3, 4-6 on router 5, joined by two parallel links),
        // a two-node island (7-8) and a host with two links to its router (9).
        let mut links = vec![
            (0, 3),
            (1, 3),
            (2, 3),
            (3, 5),
            (3, 5),
            (4, 5),
            (6, 5),
            (7, 8),
        ];
        links.extend([(9, 3), (9, 3)]);
        let dirs: Vec<(u32, u32)> = links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let n = 10;
        let r = Routes::shortest_paths(n, &dirs);
        let full = full_table(n, &dirs);
        for node in 0..n {
            for dst in 0..n {
                if node != dst {
                    let want = full[node * n + dst];
                    assert_eq!(r.next_hop(node as u32, dst as u32), want, "{node} → {dst}");
                }
            }
        }
        // Only the two routers, host 9 and the island are searched from.
        assert_eq!(r.next.len(), n * 5);
    }
}
