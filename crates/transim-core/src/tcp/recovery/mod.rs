//! Loss recovery: which segments to retransmit and when, and what the window does meanwhile.
//! It is an axis of its own, orthogonal to congestion control ([`super::cc`]): any scheme runs
//! with any algorithm, which decides only how much the window shrinks and how it grows.
//!
//! Each scheme is one file implementing `LossRecovery`; the [`Recovery`] enum dispatches
//! statically (one `match` per hook, no virtual call per ACK), as ns-3's `TcpRecoveryOps`
//! stands beside `TcpCongestionOps`. Two families share their ACK flow:
//! - the duplicate-ACK schemes (`classic`: `tahoe`, `reno`, `newreno`) count duplicate
//!   ACKs and implement `DupAckRecovery`;
//! - the SACK schemes (`sack_flow`: `sack1`, `sackplus`, `rfc6675`, `rack_tlp`) keep
//!   the scoreboard of [`super::sack`] and implement `SackRecovery`.
//!
//! Adding a scheme touches its own file, the arms of [`Recovery`] (its name and properties), one
//! line of the `dispatch!` macro and the scheme's name in the scenario schema.

pub mod classic;
pub mod newreno;
pub mod prr;
pub mod rack_reo;
pub mod rack_tlp;
pub mod reno;
pub mod rfc6675;
pub mod sack1;
pub mod sack_flow;
pub mod sackplus;
pub mod tahoe;

use super::cc::AckInfo;
use super::config::PartialAckTimer;
use super::sender::TcpSender;
use super::Ctx;
use crate::net::TcpHeader;
use crate::sim::Time;

/// Loss-recovery scheme (orthogonal to congestion control).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (go-back-N).
    Tahoe,
    /// RFC 5681 fast retransmit / fast recovery.
    Reno,
    /// RFC 6582 NewReno.
    NewReno,
    /// Fall & Floyd's Sack1 (ns-2): packet-counted pipe, scoreboard, one retransmission per
    /// hole before a timeout.
    Sack1,
    /// Sack1 plus detection of lost retransmissions (the SackPlus study).
    SackPlus,
    /// RFC 6675 conservative SACK-based recovery.
    Rfc6675,
    /// RACK-TLP (RFC 8985): time-based loss detection and tail loss probes, sending as
    /// RFC 6675.
    RackTlp,
}

impl Recovery {
    /// True for Fall & Floyd's Sack1 and SackPlus (which builds on it).
    pub fn is_sack1(self) -> bool {
        matches!(self, Recovery::Sack1 | Recovery::SackPlus)
    }

    /// True for the recovery schemes driven by SACK information.
    pub fn uses_sack(self) -> bool {
        matches!(
            self,
            Recovery::Sack1 | Recovery::SackPlus | Recovery::Rfc6675 | Recovery::RackTlp
        )
    }

    /// True for the schemes that send tail loss probes.
    pub fn probes_tail(self) -> bool {
        self == Recovery::RackTlp
    }

    /// Name in scenarios and results.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack1 => "sack1",
            Recovery::SackPlus => "sackplus",
            Recovery::Rfc6675 => "rfc6675",
            Recovery::RackTlp => "rack-tlp",
        }
    }
}

/// A loss-recovery scheme. Its hooks are associated functions on the sender (a scheme keeps
/// its state in the sender: [`super::sack::SackState`], [`rack_tlp::RackState`]), so the
/// implementing types are markers that select code at compile time.
pub(crate) trait LossRecovery {
    /// Process an ACK from the receiver: cumulative, duplicate or a window update.
    fn on_ack(s: &mut TcpSender, p: &TcpHeader, ctx: &mut Ctx);

    /// Bytes believed in the network once the current ACK is counted (the ACK information's
    /// pipe): the bytes outstanding unless the scheme keeps its own count in recovery.
    #[inline]
    fn pipe(s: &TcpSender) -> u64 {
        s.flight()
    }

    /// pipe in segments, as the trace reports it.
    fn pipe_segments(s: &TcpSender) -> f64 {
        s.flight_segments() as f64
    }

    /// Send what the scheme allows now (the pacing timer fired).
    fn send(s: &mut TcpSender, ctx: &mut Ctx) {
        s.try_send(ctx);
    }

    /// At most this many segments leave in one send of new or go-back-N data.
    #[inline]
    fn burst_cap(s: &TcpSender) -> Option<u32> {
        s.cfg.maxburst
    }

    /// A retransmission timeout, before the window is cut.
    fn before_timeout(_s: &mut TcpSender) {}

    /// A retransmission timeout, once go-back-N is set up.
    fn on_timeout(_s: &mut TcpSender) {}

    /// The segment at position `i` of the queue was just SACKed.
    #[inline]
    fn on_sacked(_s: &mut TcpSender, _i: usize, _now: Time) {}

    /// The segment starting at `start` is being sent again (any retransmission), while the
    /// highest sequence sent is `snd_max`.
    #[inline]
    fn on_resent(_s: &mut TcpSender, _start: u64, _snd_max: u64) {}
}

/// The hooks of the duplicate-ACK schemes (the flow is [`classic`]'s).
pub(crate) trait DupAckRecovery {
    /// The duplicate-ACK threshold was reached: ssthresh is set and `recover` is snd_max;
    /// retransmit and set the window (`base` is the amount the reduction halves).
    fn enter(s: &mut TcpSender, base: u64, ctx: &mut Ctx);

    /// A new cumulative ACK in recovery (already counted: `info`). Returns whether the
    /// retransmission timer restarts.
    fn recovery_ack(s: &mut TcpSender, info: &AckInfo, ctx: &mut Ctx) -> bool;
}

/// The hooks of the SACK schemes (the flow is [`sack_flow`]'s).
pub(crate) trait SackRecovery {
    /// A new cumulative ACK up to `ack`, before the acknowledged segments leave the queue.
    #[inline]
    fn on_cumulative(_s: &mut TcpSender, _ack: u64, _now: Time) {}

    /// A duplicate ACK in recovery, before congestion control sees it.
    #[inline]
    fn on_duplicate_in_recovery(_s: &mut TcpSender) {}

    /// Any ACK in recovery that does not end it, once the scoreboard is updated.
    #[inline]
    fn on_recovery_ack(_s: &mut TcpSender, _p: &TcpHeader) {}

    /// Outside recovery, after a new cumulative ACK: whether losses are now detected.
    #[inline]
    fn loss_after_new_ack(_s: &mut TcpSender, _ctx: &mut Ctx) -> bool {
        false
    }

    /// Whether a duplicate ACK counts toward the threshold (`new_info`: it SACKed new data).
    fn dupack_counts(new_info: bool) -> bool;

    /// Outside recovery, after a duplicate ACK (`counts`: it counted): whether recovery
    /// starts.
    fn should_enter(s: &mut TcpSender, counts: bool, ctx: &mut Ctx) -> bool;

    /// The amount the window reduction halves.
    fn halving_base(s: &mut TcpSender) -> u64 {
        s.reduction_base()
    }

    /// The episode has begun (window reduced, `recover` set, episode marks cleared): the first
    /// retransmission and the pipe. Returns false when nothing more may be sent on this ACK.
    fn start_episode(s: &mut TcpSender, ctx: &mut Ctx) -> bool;

    /// Everything outstanding at the fast retransmit is acknowledged.
    fn exit(s: &mut TcpSender);

    /// Before the send loop in recovery: bring the loss marks and pipe up to date.
    #[inline]
    fn before_send(_s: &mut TcpSender, _ctx: &mut Ctx) {}

    /// A fast-recovery retransmission of the segment at `i` has left.
    #[inline]
    fn on_retransmitted(_s: &mut TcpSender, _i: usize, _now: Time) {}

    /// Send one segment if the pipe admits it: the scheme's choice of hole or new data.
    /// Returns false when nothing was sent.
    fn send_one(s: &mut TcpSender, ctx: &mut Ctx) -> bool;
}

/// Call a `LossRecovery` hook of the scheme `$kind` names.
macro_rules! dispatch {
    ($kind:expr, $f:ident($($arg:expr),*)) => {
        match $kind {
            Recovery::Tahoe => <tahoe::Tahoe as LossRecovery>::$f($($arg),*),
            Recovery::Reno => <reno::Reno as LossRecovery>::$f($($arg),*),
            Recovery::NewReno => <newreno::NewReno as LossRecovery>::$f($($arg),*),
            Recovery::Sack1 => <sack1::Sack1 as LossRecovery>::$f($($arg),*),
            Recovery::SackPlus => <sackplus::SackPlus as LossRecovery>::$f($($arg),*),
            Recovery::Rfc6675 => <rfc6675::Rfc6675 as LossRecovery>::$f($($arg),*),
            Recovery::RackTlp => <rack_tlp::RackTlp as LossRecovery>::$f($($arg),*),
        }
    };
}

impl TcpSender {
    /// A partial ACK arrived: whether it restarts the retransmission timer (every one, or
    /// only the first of the episode: `partial_ack_timer`).
    pub(crate) fn partial_ack_restarts_timer(&mut self) -> bool {
        let first = !self.partial_seen;
        self.partial_seen = true;
        match self.cfg.partial_ack_timer {
            PartialAckTimer::Impatient => first,
            PartialAckTimer::SlowButSteady => true,
        }
    }

    /// Process an ACK with the configured scheme.
    #[inline]
    pub(crate) fn recovery_on_ack(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        dispatch!(self.cfg.recovery, on_ack(self, p, ctx))
    }

    /// The configured scheme's pipe in bytes.
    #[inline]
    pub(crate) fn pipe_bytes(&self) -> u64 {
        dispatch!(self.cfg.recovery, pipe(self))
    }

    /// The configured scheme's pipe in segments (for the trace).
    pub(crate) fn pipe_segments(&self) -> f64 {
        dispatch!(self.cfg.recovery, pipe_segments(self))
    }

    /// Send what the configured scheme allows now.
    pub(crate) fn recovery_send(&mut self, ctx: &mut Ctx) {
        dispatch!(self.cfg.recovery, send(self, ctx))
    }

    /// The configured scheme's cap on one send.
    #[inline]
    pub(crate) fn burst_cap(&self) -> Option<u32> {
        dispatch!(self.cfg.recovery, burst_cap(self))
    }

    /// Tell the configured scheme a timeout fired (before the window is cut).
    pub(crate) fn recovery_before_timeout(&mut self) {
        dispatch!(self.cfg.recovery, before_timeout(self))
    }

    /// Tell the configured scheme a timeout fired (go-back-N set up).
    pub(crate) fn recovery_on_timeout(&mut self) {
        dispatch!(self.cfg.recovery, on_timeout(self))
    }

    /// Tell the configured scheme the segment at `i` was SACKed.
    #[inline]
    pub(crate) fn recovery_on_sacked(&mut self, i: usize, now: Time) {
        dispatch!(self.cfg.recovery, on_sacked(self, i, now))
    }

    /// Tell the configured scheme a segment is being sent again.
    #[inline]
    pub(crate) fn recovery_on_resent(&mut self, start: u64, snd_max: u64) {
        dispatch!(self.cfg.recovery, on_resent(self, start, snd_max))
    }
}
