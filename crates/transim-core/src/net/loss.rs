//! Loss models attachable to a link direction: Bernoulli, Gilbert–Elliott (per-packet
//! two-state Markov chain) and scripted drops for forced-drop experiments.

use super::Packet;
use crate::sim::rng::Rng;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The link's queue was full (drop-tail).
    Queue,
    /// A random loss model decided so.
    LossModel,
    /// A scripted drop.
    Script,
    /// Removed from a queue by ACK filtering (a newer ACK of the same flow replaced it).
    Filtered,
    /// Its transmission started while the link was down (a scheduled failure).
    LinkDown,
    /// ATM: a cell of a frame refused whole by early packet discard.
    Epd,
    /// ATM: a cell dropped by partial packet discard after another cell of its frame.
    Ppd,
    /// ATM: an IP packet whose AAL5 frame lost cells, discarded at reassembly.
    Cells,
    /// An active queue manager (RED, CoDel) dropped it early, before the queue was full.
    Aqm,
}

impl DropCause {
    /// Number of causes.
    pub const COUNT: usize = 9;

    /// All causes, in reporting order.
    pub const ALL: [DropCause; Self::COUNT] = [
        DropCause::Queue,
        DropCause::LossModel,
        DropCause::Script,
        DropCause::Filtered,
        DropCause::LinkDown,
        DropCause::Epd,
        DropCause::Ppd,
        DropCause::Cells,
        DropCause::Aqm,
    ];

    /// Name used in results.
    pub fn name(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::LossModel => "loss_model",
            DropCause::Script => "script",
            DropCause::Filtered => "filtered",
            DropCause::LinkDown => "link_down",
            DropCause::Epd => "epd",
            DropCause::Ppd => "ppd",
            DropCause::Cells => "cells",
            DropCause::Aqm => "aqm",
        }
    }

    /// Index into per-cause counter arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A random loss process on one link direction. It advances once per packet it sees.
#[derive(Clone, Debug)]
pub enum LossModel {
    /// Never loses.
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        /// Loss probability.
        p: f64,
    },
    /// Two-state Markov chain, one step per packet: a packet is lost with the loss
    /// probability of the current state, then the chain moves.
    GilbertElliott {
        /// P(good → bad) per packet.
        p_gb: f64,
        /// P(bad → good) per packet.
        p_bg: f64,
        /// Loss probability in the good state (1 − k).
        loss_good: f64,
        /// Loss probability in the bad state (1 − h).
        loss_bad: f64,
        /// Current state.
        bad: bool,
    },
}

/// The statistics a Gilbert–Elliott parameter set implies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeStats {
    /// Stationary probability of the bad state, p_gb / (p_gb + p_bg).
    pub pi_bad: f64,
    /// Stationary (mean) loss rate.
    pub loss_rate: f64,
    /// Mean length of a run of consecutive losses.
    pub mean_burst: f64,
    /// Mean sojourn in the bad state, 1 / p_bg, in packets.
    pub mean_bad_sojourn: f64,
}

/// Exact stationary loss rate and mean loss-run length of a Gilbert–Elliott chain.
///
/// The mean run length is the loss rate divided by the rate at which runs start,
/// P(loss now and no loss at the previous packet), summed over state pairs.
pub fn gilbert_elliott_stats(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64) -> GeStats {
    let pi_b = if p_gb + p_bg > 0.0 {
        p_gb / (p_gb + p_bg)
    } else {
        0.0
    };
    let pi = [1.0 - pi_b, pi_b];
    let l = [loss_good, loss_bad];
    let trans = [[1.0 - p_gb, p_gb], [p_bg, 1.0 - p_bg]];
    let loss_rate = pi[0] * l[0] + pi[1] * l[1];
    let mut run_starts = 0.0;
    for s in 0..2 {
        for t in 0..2 {
            run_starts += pi[s] * (1.0 - l[s]) * trans[s][t] * l[t];
        }
    }
    GeStats {
        pi_bad: pi_b,
        loss_rate,
        mean_burst: if run_starts > 0.0 {
            loss_rate / run_starts
        } else {
            f64::INFINITY
        },
        mean_bad_sojourn: if p_bg > 0.0 {
            1.0 / p_bg
        } else {
            f64::INFINITY
        },
    }
}

impl LossModel {
    /// Decide the fate of the next packet: true means lost.
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.chance(*p),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
            } => {
                let lost = rng.chance(if *bad { *loss_bad } else { *loss_good });
                *bad = if *bad {
                    !rng.chance(*p_bg)
                } else {
                    rng.chance(*p_gb)
                };
                lost
            }
        }
    }

    /// Stationary loss rate implied by the parameters.
    pub fn mean_loss_rate(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                ..
            } => gilbert_elliott_stats(p_gb, p_bg, loss_good, loss_bad).loss_rate,
        }
    }
}

/// Drops decided in advance: "the i-th packet on this link direction" and "the k-th
/// transmission of segment n of flow f".
#[derive(Clone, Debug, Default)]
pub struct ScriptedDrops {
    /// 1-based packet numbers on this link direction (counting every packet offered to it),
    /// sorted (the builder sorts them; lookups are binary searches).
    pub packets: Vec<u64>,
    /// (flow, segment index, transmission number), as [`crate::net::Header::data_unit`] numbers them.
    pub segments: Vec<(u32, u32, u16)>,
    /// Drop before the queue (the packet never uses the link) instead of on the wire.
    pub at_enqueue: bool,
}

impl ScriptedDrops {
    /// True when the packet numbered `n` on this link, `p`, is to be dropped.
    #[inline]
    pub fn matches(&self, n: u64, p: &Packet) -> bool {
        (!self.packets.is_empty() && self.packets.binary_search(&n).is_ok())
            || (!self.segments.is_empty()
                && p.hdr.data_unit().is_some_and(|(s, k)| {
                    self.segments
                        .iter()
                        .any(|&(f, s2, k2)| f == p.flow && s2 == s && k2 == k)
                }))
    }

    /// True when there is nothing scripted.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty() && self.segments.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_gilbert_stats_match_closed_forms() {
        // Simple Gilbert: loss 0 in good, 1 in bad ⇒ loss = p/(p+r), burst = 1/r.
        let s = gilbert_elliott_stats(0.01, 0.25, 0.0, 1.0);
        assert!((s.loss_rate - 0.01 / 0.26).abs() < 1e-12);
        assert!((s.mean_burst - 4.0).abs() < 1e-9);
        // Bernoulli as a degenerate chain: run length 1/(1-p).
        let b = gilbert_elliott_stats(0.3, 0.7, 0.1, 0.1);
        assert!((b.loss_rate - 0.1).abs() < 1e-12);
        assert!((b.mean_burst - 1.0 / 0.9).abs() < 1e-9);
    }
}
