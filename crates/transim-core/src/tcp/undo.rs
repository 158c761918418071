//! Undoing a window reduction that D-SACKs show was not needed (`tcp.undo`): RFC 3708's
//! detection, Linux's response (`tcp_try_undo_dsack`, `tcp_undo_cwnd_reduction`).
//!
//! A recovery episode (a fast retransmit or a timeout) remembers cwnd and ssthresh from
//! before its reduction and where it began (SND.UNA), and counts its retransmissions. Each
//! D-SACK at or above that point reports a retransmitted segment the receiver already had.
//! When every retransmission of the episode has been reported so, nothing was lost: cwnd
//! becomes max(cwnd, prior cwnd) and ssthresh max(ssthresh, prior ssthresh). A new episode
//! starts the count afresh. Only the shared window is restored: congestion controls that
//! keep their own state (CUBIC's W_max, for one) keep it.

/// The window before an episode's reduction, and what is left to undo it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prior {
    cwnd: u64,
    ssthresh: u64,
    /// SND.UNA when the episode began: D-SACKs below it are about older data.
    marker: u64,
    /// Retransmissions of the episode not yet reported by a D-SACK.
    retrans: u64,
}

/// The undo state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Undo {
    prior: Option<Prior>,
    /// Reductions undone (a result counter).
    pub undone: u64,
}

impl Undo {
    /// An episode begins at `snd_una`, before the reduction of `cwnd` and `ssthresh`.
    pub fn start(&mut self, cwnd: u64, ssthresh: u64, snd_una: u64) {
        self.prior = Some(Prior {
            cwnd,
            ssthresh,
            marker: snd_una,
            retrans: 0,
        });
    }

    /// A segment of the episode was sent again.
    #[inline]
    pub fn on_retransmit(&mut self) {
        if let Some(p) = self.prior.as_mut() {
            p.retrans += 1;
        }
    }

    /// A D-SACK for [left, right), `segments` segments: if it completes the episode's count,
    /// the (cwnd, ssthresh) to restore, at least the current ones.
    pub fn on_dsack(
        &mut self,
        left: u64,
        segments: u64,
        cwnd: u64,
        ssthresh: u64,
    ) -> Option<(u64, u64)> {
        let p = self.prior.as_mut()?;
        if left < p.marker || p.retrans == 0 {
            return None;
        }
        p.retrans = p.retrans.saturating_sub(segments.max(1));
        if p.retrans > 0 {
            return None;
        }
        let p = self.prior.take()?;
        self.undone += 1;
        Some((cwnd.max(p.cwnd), ssthresh.max(p.ssthresh)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_retransmission_reported_undoes_the_reduction() {
        let mut u = Undo::default();
        u.start(20_000, 1 << 40, 5_001);
        u.on_retransmit();
        u.on_retransmit();
        // Reduced to 10,000 / 10,000; one D-SACK is not enough, the second is.
        assert_eq!(u.on_dsack(5_001, 1, 10_000, 10_000), None);
        assert_eq!(
            u.on_dsack(6_001, 1, 10_000, 10_000),
            Some((20_000, 1 << 40))
        );
        assert_eq!(u.undone, 1);
        // Nothing left to undo.
        assert_eq!(u.on_dsack(7_001, 1, 10_000, 10_000), None);
    }

    #[test]
    fn dsacks_below_the_episode_or_without_retransmissions_do_not_count() {
        let mut u = Undo::default();
        u.start(20_000, 30_000, 5_001);
        assert_eq!(
            u.on_dsack(5_001, 1, 10_000, 10_000),
            None,
            "nothing resent yet"
        );
        u.on_retransmit();
        assert_eq!(u.on_dsack(4_001, 1, 10_000, 10_000), None, "older data");
        // A larger window since (slow start after the reduction) is kept.
        assert_eq!(u.on_dsack(5_001, 1, 25_000, 10_000), Some((25_000, 30_000)));
    }

    #[test]
    fn a_new_episode_starts_the_count_afresh() {
        let mut u = Undo::default();
        u.start(20_000, 1 << 40, 1);
        u.on_retransmit();
        u.start(10_000, 10_000, 9_001);
        u.on_retransmit();
        u.on_retransmit();
        assert_eq!(u.on_dsack(9_001, 2, 5_000, 5_000), Some((10_000, 10_000)));
    }
}
