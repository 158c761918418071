//! Congestion control: the window-growth and loss-reaction half of a TCP sender. Loss recovery
//! (what to retransmit, when) is a separate axis: [`super::recovery`].
//!
//! Each algorithm is one file implementing [`CongestionControl`]; the [`Cc`] enum dispatches
//! statically (one `match`, no virtual call per ACK). Adding a variant touches its own file,
//! one arm of [`Cc`] and one of [`CcKind`].

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod cubic;
pub mod dctcp;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod hystart;
pub mod hystart_pp;
pub mod illinois;
pub mod ledbat;
pub mod linux_reno;
pub mod lp;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod westwood_classic;
pub mod yeah;

use super::config::CwndUnit;
use crate::sim::Time;

/// The window state that congestion control manipulates.
#[derive(Clone, Debug)]
pub struct Window {
    /// Congestion window in bytes (a multiple of `mss` when counting packets).
    pub cwnd: u64,
    /// Slow-start threshold in bytes.
    pub ssthresh: u64,
    /// Sender MSS in bytes.
    pub mss: u32,
    /// Counting unit.
    pub unit: CwndUnit,
    /// Most bytes one ACK adds in slow start (bytes counting): one MSS (RFC 5681), two (RFC
    /// 3465's L = 2), or no limit (every byte acknowledged, as Linux and ns-3's CUBIC).
    pub ss_limit: u64,
    /// In the slow start that follows a retransmission timeout with RFC 3465's counting,
    /// whose L is then one SMSS: the ACKs of the resent data can cover much that the
    /// receiver already held, and counting it all would send it again in one burst.
    pub after_rto: bool,
    /// A cut's ssthresh is a whole number of segments, at least two: counting packets, or
    /// cutting from the window, as Linux's and ns-2's integer arithmetic (and ns-3's CUBIC
    /// and Linux Reno) give it.
    pub whole_cuts: bool,
    /// Accumulator for congestion avoidance in packet mode (ACKs since the last increase).
    pub cnt: u64,
    /// Optional cap on cwnd.
    pub max_cwnd: Option<u64>,
    /// ns-2's window arithmetic (packet mode): cwnd is a fractional number of packets
    /// (+1 per ACK in slow start, +1/cwnd in avoidance) of which the whole part is sent, and
    /// ssthresh is a whole number of packets, max(2, ⌊window / 2⌋).
    pub ns2: bool,
    /// ns-2's `precision_reduce_`: halving keeps the fraction of window / 2 in cwnd.
    pub precision_reduce: bool,
    /// The fraction of a packet beyond `cwnd` (ns-2 arithmetic), valid while cwnd is still
    /// `frac_at` (any other assignment of cwnd means a whole number of packets).
    pub frac: f64,
    /// The cwnd `frac` belongs to.
    pub frac_at: u64,
}

impl Window {
    /// True while cwnd is below ssthresh.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// cwnd in whole segments.
    #[inline]
    pub fn segments(&self) -> u64 {
        self.cwnd / self.mss as u64
    }

    /// cwnd in packets with ns-2's fraction.
    #[inline]
    pub fn pkts(&self) -> f64 {
        let whole = (self.cwnd / self.mss as u64) as f64;
        if self.cwnd == self.frac_at {
            whole + self.frac
        } else {
            whole
        }
    }

    /// Set cwnd to `x` packets (ns-2 arithmetic): the whole part in bytes, the rest kept.
    #[inline]
    pub fn set_pkts(&mut self, x: f64) {
        let whole = x.floor().max(0.0);
        self.cwnd = whole as u64 * self.mss as u64;
        self.frac = x - whole;
        self.frac_at = self.cwnd;
        self.clamp();
    }

    /// Set cwnd to a whole number of bytes (dropping any ns-2 fraction).
    #[inline]
    pub fn set_cwnd(&mut self, bytes: u64) {
        self.cwnd = bytes;
        self.frac = 0.0;
    }

    /// ns-2's ssthresh after a loss, in bytes: ⌊window / 2⌋ packets, at least 2, where window
    /// = min(cwnd, `base`) with cwnd's whole part (or its fraction, with `precision_reduce`).
    pub fn ns2_ssthresh(&self, base: u64) -> u64 {
        (self.ns2_half(base).floor() as u64).max(2) * self.mss as u64
    }

    /// ns-2's halved window in packets (`halfwin`): ⌊⌊window⌋ / 2⌋, or window / 2 with
    /// `precision_reduce`.
    pub fn ns2_half(&self, base: u64) -> f64 {
        let mss = self.mss as f64;
        if self.precision_reduce {
            // windowd(): cwnd with its fraction, or the base (the advertised window) if
            // smaller.
            self.pkts().min(base as f64 / mss) / 2.0
        } else {
            ((self.cwnd.min(base) / self.mss as u64) / 2) as f64
        }
    }

    /// After a fast retransmit: cwnd = ssthresh, or ns-2's halved window (at least one
    /// packet) plus `extra` packets of inflation.
    pub fn halve(&mut self, base: u64, extra: u64) {
        self.after_rto = false;
        if self.ns2 {
            self.set_pkts(self.ns2_half(base).max(1.0) + extra as f64);
        } else {
            self.set_cwnd(self.ssthresh + extra * self.mss as u64);
        }
    }

    /// Fast-recovery inflation by `bytes` (ns-2 keeps its fraction: `dupwnd_` is separate).
    #[inline]
    pub fn inflate(&mut self, bytes: u64) {
        if self.ns2 {
            self.set_pkts(self.pkts() + bytes as f64 / self.mss as f64);
        } else {
            self.cwnd += bytes;
        }
    }

    /// Slow-start growth for one ACK that newly acknowledged `acked` bytes:
    /// min(acked, SMSS) in bytes (RFC 5681; `ss_limit` raises the SMSS), or one segment per
    /// ACK in packet mode.
    #[inline]
    pub fn slow_start(&mut self, acked: u64) {
        if self.ns2 {
            self.set_pkts(self.pkts() + 1.0);
            return;
        }
        let mss = self.mss as u64;
        self.cwnd += match self.unit {
            CwndUnit::Bytes if self.ss_limit > mss => return self.count_bytes(acked),
            CwndUnit::Bytes => acked.min(mss),
            CwndUnit::Packets => mss,
        };
        self.clamp();
    }

    /// Slow start counting bytes (`ss_limit` above one MSS), which stops at ssthresh as
    /// Linux's `tcp_slow_start` does: one cumulative ACK after a repair can cover hundreds
    /// of segments. After a timeout RFC 3465's L falls to one SMSS until slow start ends.
    #[cold]
    fn count_bytes(&mut self, acked: u64) {
        let limit = if self.after_rto {
            self.mss as u64
        } else {
            self.ss_limit
        };
        self.cwnd = (self.cwnd + acked.min(limit)).min(self.ssthresh);
        if self.cwnd >= self.ssthresh {
            self.after_rto = false;
        }
        self.clamp();
    }

    /// ssthresh `bytes` after a cut, in whole segments where this window takes them
    /// ([`Window::whole_cuts`]).
    #[inline]
    pub fn cut(&self, bytes: u64) -> u64 {
        if !self.whole_cuts {
            return bytes;
        }
        let mss = self.mss as u64;
        (bytes / mss).max(2) * mss
    }

    /// Reno congestion avoidance for one ACK: SMSS²/cwnd bytes, or one segment per cwnd ACKs.
    #[inline]
    pub fn reno_avoidance(&mut self) {
        if self.ns2 {
            let p = self.pkts();
            self.set_pkts(p + 1.0 / p);
            return;
        }
        let mss = self.mss as u64;
        match self.unit {
            CwndUnit::Bytes => self.cwnd += (mss * mss / self.cwnd).max(1),
            CwndUnit::Packets => {
                self.cnt += 1;
                if self.cnt >= self.segments() {
                    self.cnt = 0;
                    self.cwnd += mss;
                }
            }
        }
        self.clamp();
    }

    /// Reno's rule for one ACK of new data: slow start below ssthresh, else one segment per
    /// RTT.
    #[inline]
    pub fn reno_on_ack(&mut self, acked: u64) {
        if self.in_slow_start() {
            self.slow_start(acked);
        } else {
            self.reno_avoidance();
        }
    }

    /// Add `segments` (possibly a fraction) to cwnd: whole segments are applied, the rest is
    /// carried in `acc` (each algorithm keeps its own accumulator).
    #[inline]
    pub fn grow(&mut self, acc: &mut f64, segments: f64) {
        *acc += segments;
        let whole = acc.floor();
        if whole >= 1.0 {
            self.cwnd += whole as u64 * self.mss as u64;
            *acc -= whole;
            self.clamp();
        }
    }

    /// Apply the cwnd cap.
    #[inline]
    pub fn clamp(&mut self) {
        if let Some(m) = self.max_cwnd {
            self.cwnd = self.cwnd.min(m);
        }
    }
}

/// What the sender tells congestion control about one ACK of new data.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Current time.
    pub now: Time,
    /// Bytes newly acknowledged.
    pub acked: u64,
    /// RTT sample from this ACK, if any.
    pub rtt: Option<Time>,
    /// Smoothed RTT.
    pub srtt: Time,
    /// Minimum RTT seen.
    pub min_rtt: Time,
    /// Bytes in flight before this ACK.
    pub flight: u64,
    /// Bytes believed in the network after this ACK (the recovery variant's pipe in loss
    /// recovery, else the bytes outstanding), for an algorithm that reads it
    /// ([`CongestionControl::reads_delivery`]; [`AckInfo::pipe`]): in SACK recovery it is
    /// counted over the scoreboard, work the others need not pay for on every ACK.
    pub pipe: Option<u64>,
    /// The connection is repairing a loss: this ACK leaves data outstanding at the last fast
    /// retransmit or timeout unacknowledged.
    pub recovering: bool,
    /// Payload bytes delivered (ACKed or SACKed) so far, this ACK included; counted only for
    /// an algorithm that [reads it](CongestionControl::reads_delivery), 0 for the others.
    pub delivered: u64,
    /// This ACK's delivery-rate sample, if it delivered data; taken only for an algorithm
    /// that [reads it](CongestionControl::reads_delivery), `None` for the others.
    pub sample: Option<super::rate::RateSample>,
}

impl AckInfo {
    /// [`AckInfo::pipe`], for an algorithm that says it reads it.
    ///
    /// # Panics
    /// If the sender did not count it: the algorithm's
    /// [`CongestionControl::reads_delivery`] returned false (a bug in the algorithm).
    #[inline]
    pub fn pipe(&self) -> u64 {
        self.pipe
            .expect("the pipe is counted for congestion controls whose reads_delivery says so")
    }
}

/// What a congestion control learns when it takes over a running connection.
#[derive(Clone, Copy, Debug)]
pub struct HandOver {
    /// Current time.
    pub now: Time,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Time,
    /// Smallest RTT seen (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    /// Bytes in flight.
    pub flight: u64,
    /// A per-connection random value (algorithms with randomised choices draw from it).
    pub seed: u64,
}

/// What an algorithm believes about the path, reported beside the truth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathModel {
    /// Bottleneck bandwidth estimate (payload bytes per second).
    pub bandwidth: f64,
    /// Round-trip propagation delay estimate.
    pub min_rtt: Time,
    /// The algorithm's state, for display ("startup", "probe_bw", …).
    pub state: &'static str,
}

/// The interface every congestion-control algorithm implements.
pub trait CongestionControl {
    /// Grow the window on an ACK of new data outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo);
    /// Every ACK, new or duplicate, in or out of recovery, before the sender's own window
    /// changes: for estimators (bandwidth, RTT) and, for algorithms that [own the
    /// window](CongestionControl::owns_window), the window itself. `a.acked` is 0 for a
    /// duplicate ACK.
    fn observe(&mut self, _w: &mut Window, _a: &AckInfo) {}
    /// The connection is established (first RTT sample known): initialise from it.
    fn start(&mut self, _w: &Window, _h: &HandOver) {}
    /// Take over a running connection (mid-session switching): initialise private state
    /// from the window and the connection's estimates. cwnd and ssthresh are kept.
    fn hand_over(&mut self, _w: &Window, _h: &HandOver) {}
    /// True for model-based algorithms (BBR) that set cwnd on every ACK, in loss recovery
    /// too: the recovery variants then leave cwnd alone (no halving, inflation or deflation).
    fn owns_window(&self) -> bool {
        false
    }
    /// Pacing rate in payload bytes per second, for algorithms that pace.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// The algorithm is deliberately sending below its rate (BBR's ProbeRTT): rate samples
    /// until the data now in flight is delivered are application-limited.
    fn app_limited(&self) -> bool {
        false
    }
    /// The algorithm reads the connection's delivery state: [`AckInfo::pipe`],
    /// [`AckInfo::delivered`] and [`AckInfo::sample`] (the sender counts the pipe and keeps
    /// the delivery-rate state only then; see [`super::rate`]).
    fn reads_delivery(&self) -> bool {
        false
    }
    /// The algorithm's own path model, for those that keep one.
    fn model(&self) -> Option<PathModel> {
        None
    }
    /// New ssthresh after a loss is detected; `base` is the quantity being reduced
    /// (FlightSize or the window, per the halving-base option).
    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64;
    /// Called on a retransmission timeout, after ssthresh and cwnd were set.
    fn on_timeout(&mut self, _w: &mut Window) {}
    /// New data is about to leave with nothing outstanding, for an algorithm that [reads the
    /// delivery state](CongestionControl::reads_delivery): `app_limited` when the application
    /// left the connection idle, `delivered` the payload bytes delivered so far (BBR v3's
    /// `BBRHandleRestartFromIdle`).
    fn on_restart_from_idle(
        &mut self,
        _w: &mut Window,
        _now: Time,
        _app_limited: bool,
        _delivered: u64,
    ) {
    }
    /// A transmission was judged lost (its data is being sent again), for an algorithm that
    /// [reads the delivery state](CongestionControl::reads_delivery): BBR v3's per-loss step.
    fn on_lost(&mut self, _w: &Window, _lost: &super::rate::LostTransmission, _now: Time) {}
    /// ECN: the new ssthresh (and cwnd) after an echo, at most once per window of data.
    /// Default: the loss response (RFC 3168).
    fn ssthresh_on_ecn(&mut self, w: &Window, base: u64) -> u64 {
        self.ssthresh_on_loss(w, base)
    }
    /// ECN: every ACK of an ECN connection, after it was processed: bytes it newly
    /// acknowledged, whether it carried ECE, and snd_una / snd_nxt (DCTCP's estimator).
    fn on_ecn_feedback(&mut self, _acked: u64, _ece: bool, _snd_una: u64, _snd_nxt: u64) {}
}

/// Names of the available algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    /// Reno / NewReno AIMD.
    Reno,
    /// CUBIC, RFC 9438 constants.
    Cubic,
    /// CUBIC with Linux 2.6.2x constants (β = 819/1024).
    Cubic26,
    /// Westwood+ (Linux's `westwood`, ns-3's `TcpWestwoodPlus`).
    Westwood,
    /// Westwood as first published (per-ACK samples, Tustin filter).
    WestwoodClassic,
    /// TCP-LP.
    Lp,
    /// YeAH-TCP.
    Yeah,
    /// Veno.
    Veno,
    /// Vegas.
    Vegas,
    /// HighSpeed TCP (RFC 3649).
    HighSpeed,
    /// Scalable TCP.
    Scalable,
    /// BIC.
    Bic,
    /// H-TCP.
    Htcp,
    /// Hybla.
    Hybla,
    /// Illinois.
    Illinois,
    /// BBR v1.
    Bbr,
    /// BBR v3 (draft-ietf-ccwg-bbr).
    Bbr3,
    /// DCTCP (RFC 8257).
    Dctcp,
    /// Reno counting segments as Linux does.
    LinuxReno,
    /// LEDBAT (RFC 6817).
    Ledbat,
}

impl CcKind {
    /// Every algorithm, with its scenario name.
    pub const ALL: &'static [(&'static str, CcKind)] = &[
        ("reno", CcKind::Reno),
        ("cubic", CcKind::Cubic),
        ("cubic-2.6", CcKind::Cubic26),
        ("westwood", CcKind::Westwood),
        ("veno", CcKind::Veno),
        ("vegas", CcKind::Vegas),
        ("highspeed", CcKind::HighSpeed),
        ("scalable", CcKind::Scalable),
        ("bic", CcKind::Bic),
        ("htcp", CcKind::Htcp),
        ("hybla", CcKind::Hybla),
        ("illinois", CcKind::Illinois),
        ("bbr", CcKind::Bbr),
        ("bbr3", CcKind::Bbr3),
        ("dctcp", CcKind::Dctcp),
        ("linux-reno", CcKind::LinuxReno),
        ("ledbat", CcKind::Ledbat),
        ("westwood-classic", CcKind::WestwoodClassic),
        ("lp", CcKind::Lp),
        ("yeah", CcKind::Yeah),
    ];

    /// Other names accepted for an algorithm (reported under its name in [`CcKind::ALL`]).
    pub const ALIASES: &'static [(&'static str, CcKind)] = &[("westwood+", CcKind::Westwood)];

    /// Look up a name.
    pub fn from_name(name: &str) -> Option<CcKind> {
        Self::ALL
            .iter()
            .chain(Self::ALIASES)
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
    }

    /// Scenario name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }

    /// A fresh instance.
    pub fn build(self) -> Cc {
        match self {
            CcKind::Reno => Cc::Reno(reno::Reno),
            CcKind::Cubic => Cc::Cubic(cubic::Cubic::rfc9438()),
            CcKind::Cubic26 => Cc::Cubic(cubic::Cubic::linux26()),
            CcKind::Westwood => Cc::Westwood(westwood::Westwood::default()),
            CcKind::Veno => Cc::Veno(veno::Veno::default()),
            CcKind::Vegas => Cc::Vegas(vegas::Vegas::default()),
            CcKind::HighSpeed => Cc::HighSpeed(highspeed::HighSpeed::default()),
            CcKind::Scalable => Cc::Scalable(scalable::Scalable),
            CcKind::Bic => Cc::Bic(bic::Bic::default()),
            CcKind::Htcp => Cc::Htcp(htcp::Htcp::default()),
            CcKind::Hybla => Cc::Hybla(hybla::Hybla::default()),
            CcKind::Illinois => Cc::Illinois(illinois::Illinois::default()),
            CcKind::Bbr => Cc::Bbr(Box::default()),
            CcKind::Bbr3 => Cc::Bbr3(Box::default()),
            CcKind::Dctcp => Cc::Dctcp(dctcp::Dctcp::default()),
            CcKind::LinuxReno => Cc::LinuxReno(linux_reno::LinuxReno),
            CcKind::Ledbat => Cc::Ledbat(ledbat::Ledbat::default()),
            CcKind::WestwoodClassic => {
                Cc::WestwoodClassic(westwood_classic::WestwoodClassic::default())
            }
            CcKind::Lp => Cc::Lp(lp::Lp::default()),
            CcKind::Yeah => Cc::Yeah(yeah::Yeah::default()),
        }
    }
}

/// A congestion-control instance (static dispatch over the variants).
#[derive(Clone, Debug)]
pub enum Cc {
    /// Reno.
    Reno(reno::Reno),
    /// CUBIC.
    Cubic(cubic::Cubic),
    /// Westwood+.
    Westwood(westwood::Westwood),
    /// Veno.
    Veno(veno::Veno),
    /// Vegas.
    Vegas(vegas::Vegas),
    /// HighSpeed.
    HighSpeed(highspeed::HighSpeed),
    /// Scalable.
    Scalable(scalable::Scalable),
    /// BIC.
    Bic(bic::Bic),
    /// H-TCP.
    Htcp(htcp::Htcp),
    /// Hybla.
    Hybla(hybla::Hybla),
    /// Illinois.
    Illinois(illinois::Illinois),
    /// BBR (boxed: its state is larger than the others').
    Bbr(Box<bbr::Bbr>),
    /// BBR v3 (boxed, as BBR v1).
    Bbr3(Box<bbr3::Bbr3>),
    /// DCTCP.
    Dctcp(dctcp::Dctcp),
    /// Linux-style Reno.
    LinuxReno(linux_reno::LinuxReno),
    /// LEDBAT.
    Ledbat(ledbat::Ledbat),
    /// Classic Westwood.
    WestwoodClassic(westwood_classic::WestwoodClassic),
    /// TCP-LP.
    Lp(lp::Lp),
    /// YeAH-TCP.
    Yeah(yeah::Yeah),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Reno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Westwood($c) => $e,
            Cc::Veno($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::HighSpeed($c) => $e,
            Cc::Scalable($c) => $e,
            Cc::Bic($c) => $e,
            Cc::Htcp($c) => $e,
            Cc::Hybla($c) => $e,
            Cc::Illinois($c) => $e,
            Cc::Bbr($c) => $e,
            Cc::Bbr3($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::LinuxReno($c) => $e,
            Cc::Ledbat($c) => $e,
            Cc::WestwoodClassic($c) => $e,
            Cc::Lp($c) => $e,
            Cc::Yeah($c) => $e,
        }
    };
}

impl Cc {
    /// Give CUBIC this HyStart (`tcp.hystart`); the other algorithms have none.
    pub fn set_hystart(&mut self, mode: hystart::HyStartMode) {
        if let Cc::Cubic(c) = self {
            c.hystart = hystart::HyStart::new(mode).map(Box::new);
        }
    }

    /// When CUBIC's HyStart first ended slow start, and which HyStart it is (None for a flow
    /// without one).
    pub fn hystart(&self) -> Option<(hystart::HyStartMode, Option<hystart::Exit>)> {
        match self {
            Cc::Cubic(c) => c.hystart.as_ref().map(|h| (h.mode(), h.first_exit())),
            _ => None,
        }
    }

    /// The algorithm's kind.
    pub fn kind(&self) -> CcKind {
        match self {
            Cc::Reno(_) => CcKind::Reno,
            Cc::Cubic(c) if c.beta > 0.75 => CcKind::Cubic26,
            Cc::Cubic(_) => CcKind::Cubic,
            Cc::Westwood(_) => CcKind::Westwood,
            Cc::Veno(_) => CcKind::Veno,
            Cc::Vegas(_) => CcKind::Vegas,
            Cc::HighSpeed(_) => CcKind::HighSpeed,
            Cc::Scalable(_) => CcKind::Scalable,
            Cc::Bic(_) => CcKind::Bic,
            Cc::Htcp(_) => CcKind::Htcp,
            Cc::Hybla(_) => CcKind::Hybla,
            Cc::Illinois(_) => CcKind::Illinois,
            Cc::Bbr(_) => CcKind::Bbr,
            Cc::Bbr3(_) => CcKind::Bbr3,
            Cc::Dctcp(_) => CcKind::Dctcp,
            Cc::LinuxReno(_) => CcKind::LinuxReno,
            Cc::Ledbat(_) => CcKind::Ledbat,
            Cc::WestwoodClassic(_) => CcKind::WestwoodClassic,
            Cc::Lp(_) => CcKind::Lp,
            Cc::Yeah(_) => CcKind::Yeah,
        }
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        dispatch!(self, c => c.on_ack(w, a))
    }
    #[inline]
    fn ssthresh_on_loss(&mut self, w: &Window, base: u64) -> u64 {
        w.cut(dispatch!(self, c => c.ssthresh_on_loss(w, base)))
    }
    #[inline]
    fn on_timeout(&mut self, w: &mut Window) {
        dispatch!(self, c => c.on_timeout(w))
    }
    fn on_restart_from_idle(
        &mut self,
        w: &mut Window,
        now: Time,
        app_limited: bool,
        delivered: u64,
    ) {
        dispatch!(self, c => c.on_restart_from_idle(w, now, app_limited, delivered))
    }
    #[inline]
    fn on_lost(&mut self, w: &Window, lost: &super::rate::LostTransmission, now: Time) {
        dispatch!(self, c => c.on_lost(w, lost, now))
    }
    #[inline]
    fn observe(&mut self, w: &mut Window, a: &AckInfo) {
        dispatch!(self, c => c.observe(w, a))
    }
    fn start(&mut self, w: &Window, h: &HandOver) {
        dispatch!(self, c => c.start(w, h))
    }
    fn hand_over(&mut self, w: &Window, h: &HandOver) {
        dispatch!(self, c => c.hand_over(w, h))
    }
    #[inline]
    fn owns_window(&self) -> bool {
        dispatch!(self, c => c.owns_window())
    }
    fn ssthresh_on_ecn(&mut self, w: &Window, base: u64) -> u64 {
        w.cut(dispatch!(self, c => c.ssthresh_on_ecn(w, base)))
    }
    #[inline]
    fn on_ecn_feedback(&mut self, acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        dispatch!(self, c => c.on_ecn_feedback(acked, ece, snd_una, snd_nxt))
    }
    #[inline]
    fn pacing_rate(&self) -> Option<f64> {
        dispatch!(self, c => c.pacing_rate())
    }
    #[inline]
    fn app_limited(&self) -> bool {
        dispatch!(self, c => c.app_limited())
    }
    fn reads_delivery(&self) -> bool {
        dispatch!(self, c => c.reads_delivery())
    }
    fn model(&self) -> Option<PathModel> {
        dispatch!(self, c => c.model())
    }
}

/// Windows and ACKs for the variants' unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{AckInfo, Window};
    use crate::sim::Time;
    use crate::tcp::config::CwndUnit;

    /// A byte-counted window of 1000-byte segments.
    pub fn window(cwnd_segments: u64, ssthresh_segments: u64) -> Window {
        Window {
            cwnd: cwnd_segments * 1000,
            ssthresh: ssthresh_segments * 1000,
            mss: 1000,
            unit: CwndUnit::Bytes,
            ss_limit: 1000,
            after_rto: false,
            whole_cuts: false,
            cnt: 0,
            max_cwnd: None,
            ns2: false,
            precision_reduce: false,
            frac: 0.0,
            frac_at: 0,
        }
    }

    /// An ACK of `acked` new bytes with this smallest RTT seen.
    pub fn ack(acked: u64, min_rtt: Time) -> AckInfo {
        AckInfo {
            now: 0,
            acked,
            rtt: None,
            srtt: 0,
            min_rtt,
            flight: 0,
            pipe: Some(0),
            recovering: false,
            delivered: 0,
            sample: None,
        }
    }
}

/// Every flow's sender holds a [`Cc`], as large as its largest variant: a variant's rare
/// state (BBR's, CUBIC's HyStart) goes in a box.
#[test]
fn the_dispatch_enum_stays_small() {
    assert!(
        std::mem::size_of::<Cc>() <= 88,
        "{}",
        std::mem::size_of::<Cc>()
    );
}

#[cfg(test)]
mod byte_counting_tests {
    use super::test_support::window;
    use crate::tcp::config::ByteCounting;

    /// One ACK covering `acked` bytes in slow start, segments of 1000 bytes, cwnd 10 and
    /// ssthresh 100 segments: RFC 5681 adds at most one MSS, RFC 3465 (L = 2) at most two,
    /// full counting all of it; counting bytes stops at ssthresh.
    fn grow(counting: ByteCounting, acked: u64, ssthresh: u64) -> u64 {
        let mut w = window(10, ssthresh);
        w.ss_limit = counting.limit(w.mss);
        w.slow_start(acked);
        w.cwnd / 1000
    }

    #[test]
    fn each_rule_adds_what_it_counts() {
        for (acked, off, rfc3465, full) in
            [(1000, 11, 11, 11), (2000, 11, 12, 12), (5000, 11, 12, 15)]
        {
            assert_eq!(grow(ByteCounting::Off, acked, 100), off, "acked {acked}");
            assert_eq!(
                grow(ByteCounting::Rfc3465, acked, 100),
                rfc3465,
                "acked {acked}"
            );
            assert_eq!(grow(ByteCounting::Full, acked, 100), full, "acked {acked}");
        }
        // A cumulative ACK after a repair covering 300 segments: to ssthresh, not beyond.
        assert_eq!(grow(ByteCounting::Full, 300_000, 64), 64);
        assert_eq!(grow(ByteCounting::Full, 300_000, 1_000_000), 310);
        // RFC 5681's one MSS is not capped at ssthresh (transim's rule before the option).
        assert_eq!(grow(ByteCounting::Off, 2000, 10), 11);
    }

    /// With an ACK per two segments, RFC 5681's slow start grows cwnd by half each round and
    /// counting bytes doubles it: from 10 segments, 15 and 20 after one round.
    #[test]
    fn one_round_of_delayed_acks() {
        for (counting, after) in [(ByteCounting::Off, 15), (ByteCounting::Full, 20)] {
            let mut w = window(10, 1000);
            w.ss_limit = counting.limit(w.mss);
            for _ in 0..5 {
                w.slow_start(2000);
            }
            assert_eq!(w.cwnd / 1000, after, "{counting:?}");
        }
    }

    /// RFC 3465's L falls to one SMSS in the slow start after a timeout, until that slow
    /// start reaches ssthresh (or a fast retransmit ends it); full counting keeps its rule
    /// there (the sender hands it only newly delivered bytes).
    #[test]
    fn after_a_timeout_rfc3465_counts_one_segment_per_ack() {
        let mut w = window(1, 4);
        w.ss_limit = ByteCounting::Rfc3465.limit(w.mss);
        w.after_rto = true;
        let mut seen = vec![];
        for _ in 0..4 {
            w.slow_start(5000);
            seen.push(w.cwnd / 1000);
        }
        assert_eq!(seen, [2, 3, 4, 4], "one segment per ACK, up to ssthresh");
        assert!(
            !w.after_rto,
            "reaching ssthresh ends the slow start after the timeout"
        );
        w.ssthresh = 100_000;
        w.slow_start(5000);
        assert_eq!(w.cwnd / 1000, 6, "L = 2 again");
        w.after_rto = true;
        w.ssthresh = 3000;
        w.halve(6000, 0);
        assert!(!w.after_rto, "a fast retransmit ends it too");
    }
}

#[cfg(test)]
mod ns2_tests {
    use super::*;

    fn window(cwnd_pkts: u64, ssthresh_pkts: u64, precision_reduce: bool) -> Window {
        Window {
            cwnd: cwnd_pkts * 1000,
            ssthresh: ssthresh_pkts * 1000,
            mss: 1000,
            unit: CwndUnit::Packets,
            ss_limit: 1000,
            after_rto: false,
            whole_cuts: false,
            cnt: 0,
            max_cwnd: None,
            ns2: true,
            precision_reduce,
            frac: 0.0,
            frac_at: 0,
        }
    }

    /// ns-2's opencwnd(): +1 per ACK in slow start, +1/cwnd per ACK in avoidance (a double),
    /// of which window() sends the whole part.
    #[test]
    fn avoidance_adds_one_over_cwnd_per_ack() {
        let mut w = window(2, 2, false);
        let mut expect = 2.0f64;
        for _ in 0..20 {
            w.reno_on_ack(1000);
            expect += 1.0 / expect;
            assert!(
                (w.pkts() - expect).abs() < 1e-12,
                "{} vs {expect}",
                w.pkts()
            );
            assert_eq!(w.cwnd, expect.floor() as u64 * 1000);
        }
        // 2 → 2.5 → 2.9 → 3.2448…: the third ACK makes room for a third packet.
        let mut w = window(2, 2, false);
        let sizes: Vec<u64> = (0..3)
            .map(|_| {
                w.reno_on_ack(1000);
                w.cwnd
            })
            .collect();
        assert_eq!(sizes, [2000, 2000, 3000]);
        let mut w = window(3, 10, false);
        w.reno_on_ack(1000);
        assert_eq!(
            (w.cwnd, w.pkts()),
            (4000, 4.0),
            "slow start: one packet per ACK"
        );
    }

    /// ns-2's slowdown(): ssthresh = ⌊⌊window⌋ / 2⌋ (at least 2), cwnd = that half; with
    /// precision_reduce cwnd = window / 2 keeps its fraction and ssthresh is its whole part.
    #[test]
    fn halving_keeps_whole_packets_or_the_fraction() {
        let w = window(15, 100, false);
        assert_eq!(w.ns2_ssthresh(u64::MAX), 7000);
        let mut w2 = w.clone();
        w2.halve(u64::MAX, 0);
        assert_eq!((w2.cwnd, w2.pkts()), (7000, 7.0));
        let mut p = window(15, 100, true);
        assert_eq!(p.ns2_ssthresh(u64::MAX), 7000);
        p.halve(u64::MAX, 0);
        assert_eq!((p.cwnd, p.pkts()), (7000, 7.5));
        // The receiver's window bounds it (window() = min(cwnd, wnd)).
        assert_eq!(window(15, 100, false).ns2_ssthresh(9000), 4000);
        // Tiny windows: ssthresh at least 2, cwnd at least 1.
        let mut t = window(3, 100, false);
        assert_eq!(t.ns2_ssthresh(u64::MAX), 2000);
        t.halve(u64::MAX, 0);
        assert_eq!(t.cwnd, 1000);
        // A later whole assignment drops the fraction.
        p.set_cwnd(7000);
        assert_eq!(p.pkts(), 7.0);
    }
}
