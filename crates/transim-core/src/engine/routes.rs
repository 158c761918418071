//! Static shortest-hop routing in memory and time linear in the network, not quadratic.
//!
//! A *leaf* is a node with one outgoing link direction (a host on an access link): it sends
//! everything up that link, and packets for it are routed to its *attach* node and then down.
//! The other nodes are *cores* (routers, switches, multi-homed hosts). Routes are computed by
//! one breadth-first search per destination core *in use* (the attach points of the flows'
//! endpoints), over the cores only, and kept as a cores × destinations table of candidate
//! next hops. A dumbbell of 10,000 flows thus has a 2 × 2 table instead of 20,002².
//!
//! Where several shortest paths exist, the first link in the node's link order is taken (the
//! same choice as an all-pairs table), or with ECMP one of them per flow by a hash of the flow
//! and the node, so a flow keeps one path and flows spread over all of them. Sprayed per
//! packet ([`Routes::spray_packets`]), the hash is of the packet's unique id and the node
//! instead, so each packet, a retransmission too, picks its own path.

use super::flow_paths::FlowPaths;
use std::collections::{HashMap, VecDeque};

/// No route.
pub const NO_ROUTE: u32 = u32::MAX;
const NO_COL: u32 = u32::MAX;

/// Where a node sits in the routing structure.
#[derive(Clone, Copy, Debug)]
struct NodeInfo {
    /// A leaf's only outgoing link direction ([`NO_ROUTE`] for a core, or for a leaf whose
    /// neighbour is a leaf too).
    uplink: u32,
    /// The node packets for this node are routed to: itself for a core, its neighbour for a
    /// leaf.
    attach: u32,
    /// The link direction from `attach` down to this leaf ([`NO_ROUTE`] for a core).
    downlink: u32,
    /// Row of this core in the table ([`NO_COL`] for a leaf).
    row: u32,
    /// Column of `attach` in the table ([`NO_COL`] when no flow goes there).
    col: u32,
}

/// Follow flow `flow`'s route from node `from` to node `to`: `next` is the routing function
/// (node, destination, flow → link direction) and `far` each link direction's far node.
/// `hops` is filled with the (node, link direction) pairs taken, in order, as far as the
/// route goes. Returns whether it reaches `to` within `max_hops` hops (false: there is no
/// route from some node on the way, or the route is longer, which only a loop makes it).
pub fn follow(
    next: impl Fn(u32, u32, u32) -> u32,
    far: impl Fn(u32) -> u32,
    flow: u32,
    from: u32,
    to: u32,
    max_hops: usize,
    hops: &mut Vec<(u32, u32)>,
) -> bool {
    hops.clear();
    let mut at = from;
    while at != to {
        if hops.len() >= max_hops {
            return false;
        }
        let l = next(at, to, flow);
        if l == NO_ROUTE {
            return false;
        }
        hops.push((at, l));
        at = far(l);
    }
    true
}

/// Next hops toward every destination in use.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    nodes: Vec<NodeInfo>,
    /// Columns (destination cores) in the table.
    cols: usize,
    /// Per (core row, column): (offset into `hops`, number of candidates).
    table: Vec<(u32, u32)>,
    hops: Vec<u32>,
    ecmp: bool,
    /// Equal-cost paths are chosen per packet rather than per flow.
    per_packet: bool,
    /// Routes written in the scenario: ((node, destination), link direction), sorted.
    fixed: Vec<((u32, u32), u32)>,
    /// The flows' own paths, when they are smaller than the table (see [`Routes::pin_flows`]).
    paths: FlowPaths,
}

impl Routes {
    /// No network (unit tests of endpoints).
    pub const EMPTY: Routes = Routes {
        nodes: Vec::new(),
        cols: 0,
        table: Vec::new(),
        hops: Vec::new(),
        ecmp: false,
        per_packet: false,
        fixed: Vec::new(),
        paths: FlowPaths::EMPTY,
    };

    /// Routes over the graph `out` (per node, its outgoing (link direction, neighbour)
    /// pairs) toward the nodes in `dests` (every node a packet may be addressed to).
    pub fn build(out: &[Vec<(u32, u32)>], dests: &[u32], ecmp: bool) -> Routes {
        let n = out.len();
        let mut nodes = vec![
            NodeInfo {
                uplink: NO_ROUTE,
                attach: 0,
                downlink: NO_ROUTE,
                row: NO_COL,
                col: NO_COL,
            };
            n
        ];
        let mut cores = Vec::new();
        for (u, o) in out.iter().enumerate() {
            let info = &mut nodes[u];
            info.attach = u as u32;
            if o.len() == 1 {
                let (l, v) = o[0];
                info.uplink = l;
                info.attach = v;
            } else {
                info.row = cores.len() as u32;
                cores.push(u as u32);
            }
        }
        // Each leaf's downlink, from one pass over its attach node's links (the first link
        // to it, as a search would find).
        for (v, o) in out.iter().enumerate() {
            for &(l, w) in o {
                let leaf = &mut nodes[w as usize];
                if leaf.row == NO_COL && leaf.attach == v as u32 && leaf.downlink == NO_ROUTE {
                    leaf.downlink = l;
                }
            }
        }
        // A leaf joined to another leaf (two hosts alone) reaches only that one, through its
        // downlink: it has no way up.
        for u in 0..n {
            let a = nodes[u].attach as usize;
            if nodes[u].row == NO_COL && nodes[a].row == NO_COL {
                nodes[u].uplink = NO_ROUTE;
            }
        }
        // Destination columns: the attach points of the destinations, once each.
        let mut col_of: HashMap<u32, u32> = HashMap::new();
        let mut col_nodes = Vec::new();
        for &d in dests {
            let a = nodes[d as usize].attach;
            if nodes[a as usize].row == NO_COL {
                continue; // two leaves joined to each other: no core on the way
            }
            col_of.entry(a).or_insert_with(|| {
                col_nodes.push(a);
                (col_nodes.len() - 1) as u32
            });
        }
        for info in nodes.iter_mut() {
            info.col = col_of.get(&info.attach).copied().unwrap_or(NO_COL);
        }
        let (rows, cols) = (cores.len(), col_nodes.len());
        let mut table = vec![(0u32, 0u32); rows * cols];
        let mut hops = Vec::new();
        // Reverse adjacency among cores, for the searches from each destination.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &u in &cores {
            for &(_, v) in &out[u as usize] {
                if nodes[v as usize].row != NO_COL {
                    incoming[v as usize].push(u);
                }
            }
        }
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        let mut seen = Vec::new();
        for (c, &dst) in col_nodes.iter().enumerate() {
            for &v in &seen {
                dist[v as usize] = u32::MAX;
            }
            seen.clear();
            dist[dst as usize] = 0;
            seen.push(dst);
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &u in &incoming[v as usize] {
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = dist[v as usize] + 1;
                        seen.push(u);
                        queue.push_back(u);
                    }
                }
            }
            for &u in &seen {
                if u == dst {
                    continue;
                }
                let d = dist[u as usize];
                let start = hops.len() as u32;
                for &(l, v) in &out[u as usize] {
                    if nodes[v as usize].row != NO_COL && dist[v as usize] == d - 1 {
                        hops.push(l);
                        if !ecmp {
                            break;
                        }
                    }
                }
                let row = nodes[u as usize].row as usize;
                table[row * cols + c] = (start, hops.len() as u32 - start);
            }
        }
        Routes {
            nodes,
            cols,
            table,
            hops,
            ecmp,
            per_packet: false,
            fixed: Vec::new(),
            paths: FlowPaths::EMPTY,
        }
    }

    /// Use link direction `link` at `node` for packets to `dst`, whatever the search found.
    /// (Call before [`Routes::pin_flows`]: pinned paths keep the routes they were built from.)
    pub fn fix(&mut self, node: u32, dst: u32, link: u32) {
        debug_assert!(
            self.paths.is_empty(),
            "routes fixed after the flows were pinned"
        );
        match self.fixed.binary_search_by_key(&(node, dst), |e| e.0) {
            Ok(i) => self.fixed[i].1 = link,
            Err(i) => self.fixed.insert(i, ((node, dst), link)),
        }
    }

    /// Resolve each flow's route both ways (`endpoints`: per flow, its two nodes; `to`: each
    /// link direction's far node) and forward the flows' packets by these paths from now on,
    /// if the table holds more than `table_above` bytes and the paths take less: per hop the
    /// lookup then reads the flow's record instead of the node records, the table and the
    /// candidates, which on a large network are cache misses (a small table stays in cache
    /// and its lookup is a few instructions shorter). The links chosen are the same (the
    /// paths are walked through [`Routes::next`]). Returns whether the paths are used.
    pub fn pin_flows(
        &mut self,
        endpoints: &[(u32, u32)],
        to: impl Fn(u32) -> u32,
        table_above: usize,
    ) -> bool {
        self.paths = FlowPaths::EMPTY;
        if self.per_packet || self.table_bytes() <= table_above {
            return false;
        }
        let max_hops = self.nodes.len();
        let paths = FlowPaths::build(endpoints, max_hops, |a, d, f| self.next(a, d, f), to);
        match paths {
            Some(p) if p.bytes() < self.table_bytes() => {
                self.paths = p;
                true
            }
            _ => false,
        }
    }

    /// [`follow`] flow `flow`'s route from node `from` to node `to` through this table, with
    /// `far` each link direction's far node: `hops` gets the (node, link direction) pairs
    /// taken, as far as the route goes; returns whether it reaches `to`. A route visits each
    /// node at most once, so it is given up after as many hops as there are nodes.
    pub fn follow(
        &self,
        far: impl Fn(u32) -> u32,
        flow: u32,
        from: u32,
        to: u32,
        hops: &mut Vec<(u32, u32)>,
    ) -> bool {
        let next = |a, d, f| self.next(a, d, f);
        follow(next, far, flow, from, to, self.nodes.len(), hops)
    }

    /// Whether the flows' packets go by their pinned paths.
    pub fn pinned(&self) -> bool {
        !self.paths.is_empty()
    }

    /// Bytes the table, the candidates and the node records hold (what a lookup reads from).
    pub fn table_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<NodeInfo>()
            + self.table.len() * std::mem::size_of::<(u32, u32)>()
            + self.hops.len() * std::mem::size_of::<u32>()
    }

    /// Choose among equal-cost paths per packet (by a hash of its unique id and the node)
    /// instead of per flow: packet spraying. Call before [`Routes::pin_flows`], which then
    /// pins nothing, since a flow no longer has one path. Without ECMP there is one path
    /// and nothing changes.
    pub fn spray_packets(&mut self) {
        debug_assert!(self.paths.is_empty(), "sprayed after the flows were pinned");
        self.per_packet = self.ecmp;
    }

    /// Whether equal-cost paths are chosen per packet ([`Routes::spray_packets`]).
    pub fn per_packet(&self) -> bool {
        self.per_packet
    }

    /// Whether a sprayed packet at `node` for `dst` has several next hops to choose from
    /// (false unless packets are sprayed).
    pub fn sprays_at(&self, node: u32, dst: u32) -> bool {
        if !self.per_packet || node == dst || self.fixed_at(node, dst).is_some() {
            return false;
        }
        let (d, here) = (self.nodes[dst as usize], self.nodes[node as usize]);
        if d.attach == node || here.row == NO_COL || d.col == NO_COL {
            return false;
        }
        self.table[here.row as usize * self.cols + d.col as usize].1 > 1
    }

    /// The first node where a packet from `from` to `to` along `route` (its link
    /// directions, `far` each one's far node) is sprayed over several next hops, if any.
    pub fn first_spray(
        &self,
        from: u32,
        to: u32,
        route: &[usize],
        far: impl Fn(usize) -> u32,
    ) -> Option<u32> {
        if !self.per_packet {
            return None;
        }
        std::iter::once(from)
            .chain(route.iter().map(|&l| far(l)))
            .find(|&node| self.sprays_at(node, to))
    }

    /// A route written in the scenario for (`node`, `dst`), if any.
    fn fixed_at(&self, node: u32, dst: u32) -> Option<u32> {
        let i = self
            .fixed
            .binary_search_by_key(&(node, dst), |e| e.0)
            .ok()?;
        Some(self.fixed[i].1)
    }

    /// The link direction packet `uid` of `flow`, which links have taken `hops` times, takes
    /// at `node` toward `dst`. Where `hops` is its place on its flow's pinned path (as for
    /// every packet that has kept to it), the link is read off the path without a search.
    /// Sprayed, equal-cost paths are chosen by `uid` (by reference: it is read only where
    /// there is a choice); otherwise this is [`Routes::next`].
    #[inline(always)]
    pub fn next_at(&self, node: u32, dst: u32, flow: u32, hops: u32, uid: &u64) -> u32 {
        match self.paths.at(flow, node, dst, hops) {
            Some(l) => l,
            None => self.lookup(node, dst, flow, Some(uid)),
        }
    }

    /// The link direction packet `uid` of `flow` takes at `node` toward `dst` (without the
    /// pinned path's shortcut: for checks).
    pub fn next_packet(&self, node: u32, dst: u32, flow: u32, uid: u64) -> u32 {
        self.lookup(node, dst, flow, Some(&uid))
    }

    /// The link direction `flow`'s packet for `dst` takes at `node`, or [`NO_ROUTE`]. With
    /// packets sprayed, this is the path the flow would keep without spraying: one of its
    /// equal-cost paths, which is what the build's and results' walks along a flow's route
    /// read (its rates and delays; in the generated fabrics all of them are alike).
    #[inline(always)]
    pub fn next(&self, node: u32, dst: u32, flow: u32) -> u32 {
        self.lookup(node, dst, flow, None)
    }

    /// [`Routes::next`], or for packet `uid` ([`Routes::next_packet`]). Among equal-cost
    /// next hops the flow chooses, or the packet when sprayed.
    #[inline(always)]
    fn lookup(&self, node: u32, dst: u32, flow: u32, uid: Option<&u64>) -> u32 {
        if let Some(l) = self.paths.find(flow, node, dst) {
            return l;
        }
        if !self.fixed.is_empty() {
            if let Some(l) = self.fixed_at(node, dst) {
                return l;
            }
        }
        if node == dst {
            return NO_ROUTE;
        }
        let d = self.nodes[dst as usize];
        if d.attach == node {
            return d.downlink;
        }
        let here = self.nodes[node as usize];
        if here.row == NO_COL {
            return here.uplink; // a leaf sends everything up (none for two hosts alone)
        }
        if d.col == NO_COL {
            return NO_ROUTE;
        }
        let (start, count) = self.table[here.row as usize * self.cols + d.col as usize];
        match count {
            0 => NO_ROUTE,
            1 => self.hops[start as usize],
            _ => {
                let key = match uid {
                    // Mixed apart from every flow index, so no packet's choice is a flow's.
                    Some(uid) if self.per_packet => *uid ^ SPRAY_SALT,
                    _ => flow as u64,
                };
                self.hops[(start + ecmp_pick(key, node, count)) as usize]
            }
        }
    }

    /// Whether equal-cost paths are spread over flows.
    pub fn ecmp(&self) -> bool {
        self.ecmp
    }

    /// Entries held (for memory accounting in tests).
    pub fn size(&self) -> usize {
        self.table.len() + self.hops.len() + self.nodes.len()
    }
}

/// Mixed into a sprayed packet's id (see [`Routes::next_at`]).
const SPRAY_SALT: u64 = 0xA076_1D64_78BD_642F;

/// One of `count` equal-cost next hops for `key` (a flow, or a sprayed packet) at `node`: a
/// fixed mix of both, so a flow keeps its path and successive switches choose independently.
#[inline]
fn ecmp_pick(key: u64, node: u32, count: u32) -> u32 {
    let mut h =
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (node as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 31;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 29;
    (((h >> 32) * count as u64) >> 32) as u32 // the top bits scaled: no division
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links as (from, to) pairs, both directions, numbered in order.
    fn graph(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
        let mut out = vec![Vec::new(); n];
        let mut l = 0;
        for &(a, b) in edges {
            out[a as usize].push((l, b));
            out[b as usize].push((l + 1, a));
            l += 2;
        }
        out
    }

    /// The nodes flow `flow`'s route visits from `a` to `b`, both included.
    fn walk(r: &Routes, out: &[Vec<(u32, u32)>], a: u32, b: u32, flow: u32) -> Vec<u32> {
        // Link directions are numbered in pairs along `edges`; `out` names each one's far node.
        let far = |l: u32| {
            out.iter()
                .flatten()
                .find(|&&(x, _)| x == l)
                .expect("a link direction of the network")
                .1
        };
        let mut hops = Vec::new();
        assert!(
            r.follow(far, flow, a, b, &mut hops),
            "no route from {a} to {b}"
        );
        hops.iter().map(|&(n, _)| n).chain([b]).collect()
    }

    #[test]
    fn dumbbell_table_is_two_by_two() {
        // Routers 0 and 1; hosts 2..12 on router 0, 12..22 on router 1.
        let mut edges = vec![(0, 1)];
        edges.extend((2..12).map(|h| (0, h)));
        edges.extend((12..22).map(|h| (1, h)));
        let out = graph(22, &edges);
        let dests: Vec<u32> = (2..22).collect();
        let r = Routes::build(&out, &dests, false);
        assert_eq!(r.table.len(), 4);
        assert_eq!(walk(&r, &out, 3, 15, 0), vec![3, 0, 1, 15]);
        assert_eq!(walk(&r, &out, 15, 3, 0), vec![15, 1, 0, 3]);
        assert_eq!(walk(&r, &out, 3, 4, 0), vec![3, 0, 4]);
    }

    #[test]
    fn two_hosts_joined_directly() {
        let out = graph(2, &[(0, 1)]);
        let r = Routes::build(&out, &[0, 1], false);
        assert_eq!(walk(&r, &out, 0, 1, 0), vec![0, 1]);
        assert_eq!(walk(&r, &out, 1, 0, 0), vec![1, 0]);
    }

    #[test]
    fn first_shortest_link_without_ecmp_and_spread_with_it() {
        // A diamond: 0 -> {1, 2} -> 3, hosts 4 on 0 and 5 on 3.
        let out = graph(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (0, 4), (3, 5)]);
        let r = Routes::build(&out, &[4, 5], false);
        for f in 0..50 {
            assert_eq!(walk(&r, &out, 4, 5, f), vec![4, 0, 1, 3, 5]);
        }
        let e = Routes::build(&out, &[4, 5], true);
        let via2 = (0..200)
            .filter(|&f| walk(&e, &out, 4, 5, f)[2] == 2)
            .count();
        assert!((60..140).contains(&via2), "{via2} of 200 flows via node 2");
        // A flow keeps its path.
        assert_eq!(walk(&e, &out, 4, 5, 7), walk(&e, &out, 4, 5, 7));
    }

    #[test]
    fn sprayed_packets_of_one_flow_take_both_paths_and_the_flows_own_stays() {
        let out = graph(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (0, 4), (3, 5)]);
        let per_flow = Routes::build(&out, &[4, 5], true);
        let mut sprayed = per_flow.clone();
        sprayed.spray_packets();
        assert!(sprayed.per_packet());
        let to_node1 = 0; // link direction 0 -> 1 (the graph's first edge)
        let via1 = (0..400u64)
            .filter(|&uid| sprayed.next_packet(0, 5, 7, uid) == to_node1)
            .count();
        assert!(
            (140..260).contains(&via1),
            "{via1} of 400 packets via node 1"
        );
        for uid in 0..50 {
            // Per flow, every packet of flow 7 goes its flow's way, whatever its id.
            assert_eq!(per_flow.next_packet(0, 5, 7, uid), per_flow.next(0, 5, 7));
        }
        // The flow's own path (what walks along its route read) is the per-flow one.
        for f in 0..50 {
            assert_eq!(
                walk(&sprayed, &out, 4, 5, f),
                walk(&per_flow, &out, 4, 5, f)
            );
        }
        assert!(sprayed.sprays_at(0, 5), "node 0 chooses between 1 and 2");
        assert!(!sprayed.sprays_at(1, 5) && !sprayed.sprays_at(4, 5));
        assert!(!per_flow.sprays_at(0, 5), "per flow nothing is sprayed");
        // Without ECMP there is one path, and spraying changes nothing.
        let mut single = Routes::build(&out, &[4, 5], false);
        single.spray_packets();
        assert!(!single.per_packet());
        assert!((0..50).all(|uid| single.next_packet(0, 5, 7, uid) == to_node1));
    }

    #[test]
    fn unreachable_and_fixed_routes() {
        let out = graph(5, &[(0, 1), (2, 3), (2, 4)]);
        let mut r = Routes::build(&out, &[0, 1, 3, 4], false);
        assert_eq!(
            r.next(3, 0, 0),
            3,
            "a leaf sends up whatever the destination"
        );
        assert_eq!(
            r.next(2, 0, 0),
            NO_ROUTE,
            "0 is not reachable from the star"
        );
        assert_eq!(r.next(0, 3, 0), NO_ROUTE, "nor the star from the pair 0-1");
        assert_eq!(r.next(0, 1, 0), 0);
        r.fix(2, 3, 99);
        assert_eq!(r.next(2, 3, 0), 99);
    }
}
