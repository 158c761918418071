//! How an idle path serves a train of packets: the time the last one arrives at the far end
//! when all of them are handed to the first link at once and nothing else is on the links.
//! That is the shortest a transfer can take, the yardstick of flow-completion-time
//! "slowdown" in datacenter transport studies (completion time over the ideal one).
//!
//! The links serve as the engine's do: a packet starts on a link when it arrives there or
//! when the packet before it has left, whichever is later, takes its serialisation time
//! ([`tx_time`] of its size and the link's framing, in whole nanoseconds) and arrives at
//! the next node a propagation delay later. So the departure of packet `i` from hop `h` is
//! `D(i, h) = max(D(i−1, h), D(i, h−1) + delay(h−1)) + tx(i, h)`. Unrolled, the last
//! departure is the heaviest monotone path through the grid of packets × hops, and for a
//! block of `m` equal packets that path crosses hops `i..=j` once each and spends its other
//! `m − 1` packets at the slowest of them: so a train of a few blocks (a handshake ACK,
//! `n` full segments, a short last one) costs a few hops squared, whatever its length.

use super::Link;
use crate::sim::{tx_time, Time};

/// One link direction as an idle path serves it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    /// Rate (bit/s).
    pub rate_bps: f64,
    /// Propagation delay.
    pub delay: Time,
    /// Framing bytes the link adds to every packet.
    pub overhead: u32,
}

impl Hop {
    /// The hop a link direction is.
    pub fn of(link: &Link) -> Hop {
        Hop {
            rate_bps: link.rate_bps,
            delay: link.delay,
            overhead: link.overhead,
        }
    }

    /// Serialisation time of a packet of `wire` bytes.
    fn tx(&self, wire: u32) -> Time {
        tx_time(wire + self.overhead, self.rate_bps)
    }
}

/// A flow's path both ways, as idle links serve it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdlePath {
    /// From the initiating end to the other.
    pub there: Vec<Hop>,
    /// Back.
    pub back: Vec<Hop>,
}

/// A run of `count` packets of `wire` bytes each, in a train.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Bytes of each packet on the wire.
    pub wire: u32,
    /// How many.
    pub count: u64,
}

/// When the last packet of `train` (blocks in order; empty blocks are skipped) arrives at
/// the far end of `hops`, counted from the instant all of them are handed to the first hop,
/// on links that carry nothing else. Zero for an empty train or path.
pub fn train_arrival(hops: &[Hop], train: &[Block]) -> Time {
    if hops.is_empty() {
        return 0;
    }
    // best[j]: the heaviest path so far that ends at hop j on the last packet of the
    // blocks taken (None: no path reaches it yet).
    let mut best: Vec<Option<Time>> = vec![None; hops.len()];
    let mut first = true;
    for b in train.iter().filter(|b| b.count > 0) {
        let tx: Vec<Time> = hops.iter().map(|h| h.tx(b.wire)).collect();
        let mut next = vec![None; hops.len()];
        for (i, entry) in best.iter().enumerate() {
            // The path enters this block at hop i: from the train's start only at the
            // first hop, else from the last packet of the block before at hop i.
            let from = if first { (i == 0).then_some(0) } else { *entry };
            let Some(from) = from else { continue };
            let (mut sum, mut slowest) = (0, 0);
            for j in i..hops.len() {
                sum += tx[j];
                slowest = slowest.max(tx[j]);
                let cost = from + sum + (b.count - 1) * slowest;
                next[j] = Some(next[j].map_or(cost, |c: Time| c.max(cost)));
            }
        }
        best = next;
        first = false;
    }
    if first {
        return 0;
    }
    let delays: Time = hops.iter().map(|h| h.delay).sum();
    best[hops.len() - 1].expect("a path reaches the last hop") + delays
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's recurrence, packet by packet.
    fn by_recurrence(hops: &[Hop], sizes: &[u32]) -> Time {
        let mut leave = vec![0; hops.len()]; // the packet before's departure from each hop
        let mut arrive_end = 0;
        for &s in sizes {
            let mut at = 0; // arrival at the hop
            for (h, hop) in hops.iter().enumerate() {
                let start = at.max(leave[h]);
                leave[h] = start + hop.tx(s);
                at = leave[h] + hop.delay;
            }
            arrive_end = at;
        }
        arrive_end
    }

    fn hop(mbps: f64, delay_us: u64) -> Hop {
        Hop {
            rate_bps: mbps * 1e6,
            delay: delay_us * 1_000,
            overhead: 0,
        }
    }

    /// Hand-computed: 8 Mbps serialises a byte in 1 µs. Three 1,000-byte packets over
    /// 8 Mbps (1 ms) then 4 Mbps (2 ms each): the last leaves the second hop at
    /// 1 + 2 × 3 = 7 ms, plus 5 + 3 ms of propagation.
    #[test]
    fn a_train_queues_at_the_slower_hop() {
        let hops = [hop(8.0, 5_000), hop(4.0, 3_000)];
        let train = [Block {
            wire: 1_000,
            count: 3,
        }];
        assert_eq!(train_arrival(&hops, &train), 15_000_000);
        assert_eq!(by_recurrence(&hops, &[1_000; 3]), 15_000_000);
    }

    /// A small packet ahead of the train delays it only at the first hop it shares; a short
    /// last packet leaves the slow hop sooner. By hand, 8 then 4 Mbps, no delays: the 40 B
    /// ACK holds the first link 40 µs; the two 1,000 B packets leave the first hop at 1.04 and
    /// 2.04 ms and the second at 3.04 and 5.04; the 500 B one leaves it at 6.04 ms.
    #[test]
    fn leading_ack_and_short_tail() {
        let hops = [hop(8.0, 0), hop(4.0, 0)];
        let train = [
            Block { wire: 40, count: 1 },
            Block {
                wire: 1_000,
                count: 2,
            },
            Block {
                wire: 500,
                count: 1,
            },
        ];
        assert_eq!(train_arrival(&hops, &train), 6_040_000);
        assert_eq!(by_recurrence(&hops, &[40, 1_000, 1_000, 500]), 6_040_000);
    }

    /// Against the recurrence on paths of up to six hops of mixed rates, delays and framing,
    /// and trains of up to four blocks.
    #[test]
    fn equals_the_recurrence() {
        let mut rng = crate::sim::rng::Rng::stream(7, "idle path");
        let mut below = |n: u64| rng.next_u64() % n;
        for _ in 0..500 {
            let hops: Vec<Hop> = (0..1 + below(6))
                .map(|_| Hop {
                    rate_bps: [1e6, 8e6, 1e8, 1e9, 1e10, 3.3e7][below(6) as usize],
                    delay: below(3) * 1_000 * below(100),
                    overhead: [0, 0, 8, 38][below(4) as usize],
                })
                .collect();
            let train: Vec<Block> = (0..1 + below(4))
                .map(|_| Block {
                    wire: 40 + below(1_500) as u32,
                    count: below(6),
                })
                .collect();
            let sizes: Vec<u32> = train
                .iter()
                .flat_map(|b| std::iter::repeat_n(b.wire, b.count as usize))
                .collect();
            assert_eq!(
                train_arrival(&hops, &train),
                by_recurrence(&hops, &sizes),
                "{hops:?} {train:?}"
            );
        }
    }

    #[test]
    fn nothing_to_send_or_nowhere_to_go() {
        let one = [Block { wire: 40, count: 1 }];
        assert_eq!(train_arrival(&[], &one), 0);
        assert_eq!(train_arrival(&[hop(8.0, 1_000)], &[]), 0);
        assert_eq!(
            train_arrival(&[hop(8.0, 1_000)], &[Block { wire: 40, count: 0 }]),
            0
        );
    }
}
