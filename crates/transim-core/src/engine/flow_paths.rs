//! Each flow's route, both ways, resolved once at build time into a short list of
//! (node, link direction) hops, so forwarding a flow's packet reads that flow's few hops
//! instead of the routing table. On a fat tree the table is cores × destination switches
//! (~1 MB at k = 16, one or two cache misses per hop); a flow's paths are ~100 bytes.
//!
//! A packet counts the links that have taken it ([`crate::net::Packet::hops`]); on its
//! flow's path that count is its place, so the engine reads the next hop off the path at
//! that place ([`FlowPaths::at`]: one check) rather than searching the path for the node
//! ([`FlowPaths::find`]). Measured on benchmark B5: 3.6 % fewer instructions, 0.97× run time.
//!
//! The paths are *derived* from [`super::Routes::next`], so they give the same link wherever
//! they apply; a packet they do not cover (another destination, as an SCTP association's
//! alternate address, or a node off the path) falls back to the table.

use super::routes::follow;
use std::hint::select_unpredictable;

/// The hops of every flow's two paths.
#[derive(Clone, Debug, Default)]
pub struct FlowPaths {
    /// Per flow: where its record starts in `data`.
    start: Vec<u32>,
    /// Per flow, one record: `[dst_fwd, n_fwd, dst_rev, n_rev]`, then `n_fwd` (node, link)
    /// pairs from the initiating end, then `n_rev` pairs from the responding end.
    data: Vec<u32>,
}

impl FlowPaths {
    /// No paths: every lookup falls back to the table.
    pub const EMPTY: FlowPaths = FlowPaths {
        start: Vec::new(),
        data: Vec::new(),
    };

    /// The paths of `endpoints` (per flow, its (initiating, responding) nodes), with `next`
    /// the routing function and `to` each link direction's far node. `None` where a path
    /// would not end within `max_hops` (the build has checked there is none).
    pub fn build(
        endpoints: &[(u32, u32)],
        max_hops: usize,
        next: impl Fn(u32, u32, u32) -> u32,
        to: impl Fn(u32) -> u32,
    ) -> Option<FlowPaths> {
        let mut paths = FlowPaths {
            start: Vec::with_capacity(endpoints.len()),
            data: Vec::new(),
        };
        let mut hops = Vec::new();
        for (flow, &(s, d)) in endpoints.iter().enumerate() {
            let head = paths.data.len();
            paths.start.push(head as u32);
            paths.data.extend_from_slice(&[d, 0, s, 0]);
            for (k, (from, dst)) in [(s, d), (d, s)].into_iter().enumerate() {
                if !follow(&next, &to, flow as u32, from, dst, max_hops, &mut hops) {
                    return None;
                }
                paths.data[head + 2 * k + 1] = hops.len() as u32;
                for &(n, l) in &hops {
                    paths.data.extend_from_slice(&[n, l]);
                }
            }
        }
        Some(paths)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        (self.start.len() + self.data.len()) * std::mem::size_of::<u32>()
    }

    /// Whether no flow has a path here.
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// `flow`'s (node, link) pairs toward `dst`, as the range of `data` they fill, if
    /// `dst` ends one of its paths.
    ///
    /// Which of the two paths is chosen by selects rather than a branch: a packet's
    /// direction (data or acknowledgements) looks random from one lookup to the next. (The
    /// check that `dst` ends one of the paths stays a branch: as a select too it saved
    /// mispredictions but no time.)
    #[inline(always)]
    fn path(&self, flow: u32, dst: u32) -> Option<std::ops::Range<usize>> {
        let s = *self.start.get(flow as usize)? as usize;
        let &[dst_fwd, n_fwd, dst_rev, n_rev] = self.data.get(s..s + 4)? else {
            return None;
        };
        let fwd = dst_fwd == dst;
        if !fwd && dst_rev != dst {
            return None;
        }
        let at = s + 4 + select_unpredictable(fwd, 0, 2 * n_fwd as usize);
        let n = select_unpredictable(fwd, n_fwd, n_rev) as usize;
        Some(at..at + 2 * n)
    }

    /// The link direction `flow`'s packet for `dst` takes at `node` when `node` is hop
    /// `hop` of the flow's path toward `dst` (0 at the sending end): one check where
    /// [`FlowPaths::find`] searches the path. `None` when it is not (the packet left its
    /// path, or `hop` does not count its place on it).
    #[inline(always)]
    pub fn at(&self, flow: u32, node: u32, dst: u32, hop: u32) -> Option<u32> {
        let path = self.path(flow, dst)?;
        let at = path.start + 2 * hop as usize;
        if at >= path.end {
            return None;
        }
        let &[on_path, link] = self.data.get(at..at + 2)? else {
            return None;
        };
        (on_path == node).then_some(link)
    }

    /// The link direction `flow`'s packet for `dst` takes at `node`, if the flow's path
    /// toward `dst` passes `node`.
    ///
    /// Where on the path `node` is, is chosen by selects over every hop rather than by
    /// branches: a packet's position looks random from one lookup to the next (a busy fat
    /// tree forwards thousands of flows' packets at every hop count), and an early exit at
    /// the match mispredicted about once per hop. Every node appears at most once on a
    /// path, so the last match is the only one.
    #[inline(always)]
    pub fn find(&self, flow: u32, node: u32, dst: u32) -> Option<u32> {
        let path = self.path(flow, dst)?;
        // (A path holds no `NO_ROUTE`: `build` gives up on one.)
        let mut found = super::NO_ROUTE;
        for &[on_path, link] in self.data[path].as_chunks::<2>().0 {
            found = select_unpredictable(on_path == node, link, found);
        }
        (found != super::NO_ROUTE).then_some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line a - b - c with links 0: a->b, 1: b->c, 2: c->b, 3: b->a.
    fn line() -> (impl Fn(u32, u32, u32) -> u32, impl Fn(u32) -> u32) {
        let next = |at: u32, dst: u32, _flow: u32| match (at, dst > at) {
            (0, true) => 0,
            (1, true) => 1,
            (2, false) => 2,
            (1, false) => 3,
            _ => super::super::NO_ROUTE,
        };
        let to = |l: u32| [1, 2, 1, 0][l as usize];
        (next, to)
    }

    #[test]
    fn both_directions_hop_by_hop() {
        let (next, to) = line();
        let p = FlowPaths::build(&[(0, 2)], 8, next, to).unwrap();
        assert_eq!(p.find(0, 0, 2), Some(0));
        assert_eq!(p.find(0, 1, 2), Some(1));
        assert_eq!(p.find(0, 2, 0), Some(2));
        assert_eq!(p.find(0, 1, 0), Some(3));
        // Off the path, another destination or an unknown flow: not covered.
        assert_eq!(p.find(0, 2, 2), None);
        assert_eq!(p.find(0, 0, 1), None);
        assert_eq!(p.find(1, 0, 2), None);
        assert_eq!(p.bytes(), (1 + 4 + 2 * 2 * 2) * 4);
    }

    /// At its place on the path a packet's next link is read off; anywhere else (another
    /// node, a count past the end, another destination or flow) there is none.
    #[test]
    fn a_place_on_the_path_names_the_same_link_as_the_search() {
        let (next, to) = line();
        let p = FlowPaths::build(&[(0, 2)], 8, next, to).unwrap();
        assert_eq!(p.at(0, 0, 2, 0), Some(0));
        assert_eq!(p.at(0, 1, 2, 1), Some(1));
        assert_eq!(p.at(0, 2, 0, 0), Some(2));
        assert_eq!(p.at(0, 1, 0, 1), Some(3));
        for (node, dst) in [(0, 2), (1, 2), (2, 0), (1, 0)] {
            for hop in 0..4 {
                if let Some(l) = p.at(0, node, dst, hop) {
                    assert_eq!(Some(l), p.find(0, node, dst));
                }
            }
        }
        assert_eq!(p.at(0, 1, 2, 0), None);
        assert_eq!(p.at(0, 0, 2, 1), None);
        assert_eq!(p.at(0, 1, 2, 2), None);
        assert_eq!(p.at(0, 0, 1, 0), None);
        assert_eq!(p.at(1, 0, 2, 0), None);
    }

    #[test]
    fn a_path_longer_than_allowed_is_refused() {
        let (next, to) = line();
        assert!(FlowPaths::build(&[(0, 2)], 1, next, to).is_none());
    }
}
