//! SackPlus: Sack1 with detection of lost retransmissions. Every retransmission records the
//! highest sequence sent at that moment; when a SACK's first block ends above that record
//! while the hole is still unacknowledged, the retransmission was lost: the hole leaves pipe
//! and is sent again at once, with no further window reduction (`sackplus_detect = "once"`
//! limits this to one detection per hole and episode). Every other hook is Sack1's.

use super::sack1::{self, Sack1};
use super::{sack_flow, LossRecovery, SackRecovery};
use crate::net::{SackBlocks, TcpHeader};
use crate::sim::Time;
use crate::tcp::sender::TcpSender;
use crate::tcp::Ctx;

/// SackPlus (marker type).
pub(crate) struct SackPlus;

impl LossRecovery for SackPlus {
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx) {
        sack1::on_ack::<Self>(s, p, ctx);
    }

    #[inline]
    fn pipe(s: &TcpSender) -> u64 {
        Sack1::pipe(s)
    }

    fn pipe_segments(s: &TcpSender) -> f64 {
        Sack1::pipe_segments(s)
    }

    fn send(s: &mut TcpSender, ctx: &mut Ctx) {
        sack_flow::send_now::<Self>(s, ctx);
    }

    fn on_timeout(s: &mut TcpSender) {
        Sack1::on_timeout(s);
    }

    #[inline]
    fn on_resent(s: &mut TcpSender, start: u64, snd_max: u64) {
        s.sack.retransmitted.push_back((snd_max, start));
    }
}

impl SackRecovery for SackPlus {
    #[inline]
    fn on_cumulative(s: &mut TcpSender, ack: u64, now: Time) {
        Sack1::on_cumulative(s, ack, now);
    }

    #[inline]
    fn on_duplicate_in_recovery(s: &mut TcpSender) {
        Sack1::on_duplicate_in_recovery(s);
    }

    #[inline]
    fn on_recovery_ack(s: &mut TcpSender, p: &TcpHeader) {
        detect_lost_retransmissions(s, &p.sack, p.ack);
    }

    fn dupack_counts(new_info: bool) -> bool {
        Sack1::dupack_counts(new_info)
    }

    fn should_enter(s: &mut TcpSender, counts: bool, ctx: &mut Ctx) -> bool {
        Sack1::should_enter(s, counts, ctx)
    }

    fn start_episode(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        sack1::start_episode::<Self>(s, ctx)
    }

    fn exit(s: &mut TcpSender) {
        Sack1::exit(s);
    }

    fn send_one(s: &mut TcpSender, ctx: &mut Ctx) -> bool {
        sack1::send_one::<Self>(s, ctx)
    }
}

/// A retransmitted hole whose recorded snd_max lies below the first SACK block's right edge
/// was lost again: it leaves the pipe and becomes eligible at once.
fn detect_lost_retransmissions(s: &mut TcpSender, sb: &SackBlocks, ack: u64) {
    if sb.is_empty() {
        return;
    }
    let first_right = sb.get(ack, 0).1;
    let once = s.cfg.sackplus_detect_once;
    while let Some(&(high, start)) = s.sack.retransmitted.front() {
        if high >= first_right {
            break;
        }
        s.sack.retransmitted.pop_front();
        let i = s.rtx_first_ending_after(start);
        let Some(seg) = s.rtx.get_mut(i) else {
            continue;
        };
        // Still outstanding, not SACKed, and this entry is its latest retransmission.
        if seg.start <= start
            && seg.rtx_episode
            && !seg.sacked
            && seg.rtx_high == high
            && !(once && seg.rtx_lost_seen)
        {
            seg.rtx_episode = false;
            seg.rtx_lost_seen = true;
            let start = seg.start;
            s.sack.pipe -= 1;
            s.stats.lost_retransmissions_detected += 1;
            s.sack.hole_from = s.sack.hole_from.min(start);
        }
    }
}
