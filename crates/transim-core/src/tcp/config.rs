//! The resolved, numeric configuration of one TCP connection (profile defaults merged with the
//! scenario's choices). Built by `scenario::build`; read by the sender and receiver.

use super::cc::CcKind;
use crate::sim::Time;
use crate::transport::{WindowFacts, WindowLimit};

/// How the initial window is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// A fixed number of segments.
    Segments(u32),
    /// RFC 3390: min(4·MSS, max(2·MSS, 4380 B)).
    Rfc3390,
    /// Linux 2.6 `tcp_init_cwnd`: MSS > 1460 → 2, > 1095 → 3, else 4 segments.
    Linux26,
    /// RFC 6928: min(10·MSS, max(2·MSS, 14600 B)).
    Rfc6928,
}

impl InitialWindow {
    /// Initial window in bytes for this MSS.
    pub fn bytes(self, mss: u32) -> u64 {
        let m = mss as u64;
        match self {
            InitialWindow::Segments(n) => n as u64 * m,
            InitialWindow::Rfc3390 => (4 * m).min((2 * m).max(4380)),
            InitialWindow::Linux26 => {
                m * if mss > 1460 {
                    2
                } else if mss > 1095 {
                    3
                } else {
                    4
                }
            }
            InitialWindow::Rfc6928 => (10 * m).min((2 * m).max(14600)),
        }
    }
}

/// Whether cwnd grows in bytes (RFC 5681) or in whole segments per ACK (Linux, ns-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndUnit {
    /// cwnd in bytes; slow start adds min(acked, SMSS), avoidance SMSS²/cwnd per ACK.
    Bytes,
    /// cwnd in segments; +1 per ACK in slow start, +1 per cwnd ACKs in avoidance; the
    /// send test counts packets in flight.
    Packets,
}

/// Receiver acknowledgement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayedAck {
    /// Acknowledge every segment at once.
    Off,
    /// Acknowledge every `count`-th segment, or when the timer expires.
    Every {
        /// Segments per ACK.
        count: u32,
        /// Delayed-ACK timer.
        timeout: Time,
        /// Data segments acknowledged at once at connection start (0 unless the scenario
        /// sets `quickacks`; ns-3 acknowledges the first at once, as 1 does).
        quickacks: u32,
    },
    /// Linux: quick-ACK the first segments, then ACK when more than one full segment is
    /// unacknowledged, or when the timer expires.
    Linux {
        /// Delayed-ACK timer (the ATO).
        timeout: Time,
        /// Segments acknowledged at once at connection start.
        quickacks: u32,
    },
}

/// Nagle's algorithm variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nagle {
    /// Send small segments at once.
    Off,
    /// RFC 896: hold a sub-MSS segment while any data is unacknowledged.
    Rfc896,
    /// Minshall (Linux): hold a sub-MSS segment while a previous sub-MSS segment is
    /// unacknowledged.
    Minshall,
}

/// How the data of an application that writes in pieces becomes segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packetization {
    /// Every write goes into the send buffer and the sender segments the byte stream
    /// (ns-2, ns-3 and the RFCs' model).
    Stream,
    /// Linux `tcp_sendmsg`: each write appends to the tail segment only while it is unsent
    /// and below the MSS, else starts a new segment, and the stack tries to send after each
    /// write. A segment once sent keeps its size.
    Write,
}

pub use super::recovery::Recovery;

/// When a recovery restarts the retransmission timer on partial ACKs (RFC 6582 §4.1 for
/// NewReno; the SACK schemes restart it on every one unless told otherwise, as RFC 6298 §5.3
/// does, while ns-3 applies the impatient rule to them too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// Only on the first partial ACK of a recovery (RFC 6582's recommendation).
    Impatient,
    /// On every partial ACK (Fall & Floyd's NewReno, ns-2).
    SlowButSteady,
}

/// What ssthresh halves on a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalvingBase {
    /// FlightSize (RFC 5681).
    Flight,
    /// min(cwnd, rwnd) (ns-2, Linux's tcp_reno_ssthresh uses cwnd).
    Window,
    /// ns-3's rule (`TcpSocketBase::EnterRecovery` passes `BytesInFlight()`, RFC 6675's
    /// pipe, to `GetSsThresh`): FlightSize less the SACKed and lost data when fast recovery
    /// starts, with the head counted lost; without SACK each duplicate ACK counts as one
    /// segment SACKed (all of them with Limited Transmit, else one) and the head is counted
    /// back in. A timeout halves FlightSize, except in a recovery without SACK, where ns-3's
    /// `ReTxTimeout` halves `BytesInFlight()` too: FlightSize less the duplicate ACKs counted
    /// as SACKed since the recovery began (less those a partial ACK covered).
    Pipe,
}

/// Which ACKs may grow cwnd (`tcp.cwnd_growth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndGrowth {
    /// Every ACK of new data outside recovery (RFC 5681's text, ns-2, ns-3's NewReno).
    Always,
    /// Only while the window limits the sender: when the last send stopped with no room
    /// in cwnd for another full segment (Linux 2.6's `tcp_is_cwnd_limited` without TSO,
    /// ns-3's `m_isCwndLimited` for its CUBIC). A sender held back by the receive window or
    /// the application does not grow a window it is not using (RFC 9438 §5.8, RFC 7661).
    CwndLimited,
    /// Linux from 3.16 (`tcp_cwnd_validate`, `tcp_is_cwnd_limited`): a send that found cwnd
    /// full keeps the window's growth on until the data then outstanding is acknowledged,
    /// and slow start also grows while cwnd is below twice the most segments in flight in
    /// that window.
    Linux,
}

impl CwndGrowth {
    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            CwndGrowth::Always => "always",
            CwndGrowth::CwndLimited => "cwnd_limited",
            CwndGrowth::Linux => "linux",
        }
    }
}

/// How much one ACK may add to cwnd in slow start (`tcp.byte_counting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteCounting {
    /// At most one SMSS per ACK (RFC 5681).
    Off,
    /// Bytes acknowledged, at most 2·SMSS per ACK (RFC 3465, L = 2).
    Rfc3465,
    /// Every byte acknowledged (Linux's `tcp_slow_start` counts every segment; ns-3's CUBIC).
    Full,
}

impl ByteCounting {
    /// Scenario names.
    pub const NAMES: &'static [(&'static str, ByteCounting)] = &[
        ("off", ByteCounting::Off),
        ("rfc3465", ByteCounting::Rfc3465),
        ("full", ByteCounting::Full),
    ];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("?", |(n, _)| n)
    }

    /// The most bytes one ACK adds in slow start, for segments of `mss` bytes.
    pub fn limit(self, mss: u32) -> u64 {
        match self {
            ByteCounting::Off => mss as u64,
            ByteCounting::Rfc3465 => 2 * mss as u64,
            ByteCounting::Full => u64::MAX,
        }
    }
}

/// Full configuration of a TCP connection.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Profile the defaults came from.
    pub profile: &'static str,
    /// Congestion control.
    pub cc: CcKind,
    /// CUBIC's HyStart (none for the other algorithms).
    pub hystart: super::cc::hystart::HyStartMode,
    /// Loss recovery.
    pub recovery: Recovery,
    /// Bytes of payload in a full segment.
    pub mss: u32,
    /// Path MTU (IP packet size limit).
    pub mtu: u32,
    /// Timestamps option on every segment (12 bytes with padding).
    pub timestamps: bool,
    /// SACK permitted (the receiver sends SACK blocks).
    pub sack: bool,
    /// Most SACK blocks per ACK (3 with timestamps, 4 without, by option space).
    pub sack_blocks: u8,
    /// Window scaling.
    pub window_scale: bool,
    /// Receive buffer (advertised window when the application reads at once).
    pub rcv_buf: u64,
    /// The receiving application reads at this rate, bit/s (None: at once). See
    /// [`super::reader`].
    pub read_rate: Option<f64>,
    /// Send buffer limit for applications that write (None = unlimited).
    pub snd_buf: Option<u64>,
    /// Initial window rule.
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes.
    pub initial_ssthresh: u64,
    /// Cap on cwnd in bytes (ns-2 `window_`), if any.
    pub max_cwnd: Option<u64>,
    /// Counting unit of cwnd.
    pub cwnd_unit: CwndUnit,
    /// Slow start's growth per ACK.
    pub byte_counting: ByteCounting,
    /// Which ACKs may grow cwnd.
    pub cwnd_growth: CwndGrowth,
    /// What ssthresh halves.
    pub halving_base: HalvingBase,
    /// Receiver ACK policy.
    pub delayed_ack: DelayedAck,
    /// Nagle.
    pub nagle: Nagle,
    /// How a `writes` application's data becomes segments.
    pub packetization: Packetization,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    /// Restart from a smaller window after an idle RTO (Linux's `tcp_cwnd_restart`).
    pub slow_start_after_idle: bool,
    /// Proportional Rate Reduction in SACK recovery (RFC 9937).
    pub prr: bool,
    /// The receiver reports duplicate data in a D-SACK block (RFC 2883).
    pub dsack: bool,
    /// Undo a recovery's window reduction once D-SACKs report every retransmission of it
    /// ([`super::undo`]).
    pub undo: bool,
    /// Pace at Linux's default rate when congestion control sets none.
    pub pacing: bool,
    /// RFC 3168 ECN.
    pub ecn: bool,
    /// With ECN negotiated, every packet ECT(0) (control packets and retransmissions too),
    /// as Linux's DCTCP.
    pub ecn_all_packets: bool,
    /// ECN-capable packets carry ECT(1), the L4S identifier, instead of ECT(0).
    pub ect1: bool,
    /// The FUL bit, if this connection uses it (study 5).
    pub ful: Option<super::ful::FulConfig>,
    /// NewReno's timer rule on partial ACKs.
    pub partial_ack_timer: PartialAckTimer,
    /// SACK recovery and NewReno: on the ACK that ends recovery cwnd = ssthresh and congestion
    /// control grows it on that ACK (ns-3's `ProcessAck`; RFC 6675 leaves cwnd at ssthresh
    /// there, RFC 6582's first option takes min(ssthresh, FlightSize + MSS)).
    pub grow_on_exit: bool,
    /// SackPlus: detect a hole's lost retransmission only once per episode.
    pub sackplus_detect_once: bool,
    /// SACK blocks add 8 bytes each and nothing else (ns-2), not RFC 2018's 4 + 8n.
    pub sack_option_ns2: bool,
    /// ns-2's `maxburst_`: at most this many segments per send opportunity (an ACK).
    pub maxburst: Option<u32>,
    /// ns-2's window arithmetic (`cwnd_unit = "ns2"`): fractional cwnd in packets, whole
    /// ssthresh.
    pub ns2_window: bool,
    /// ns-2's `precision_reduce_`: halving keeps the fraction.
    pub precision_reduce: bool,
    /// ns-2's fast-retransmit guard (`highest_ack_ > recover_`): the ACK must pass the last
    /// reduction's high mark by a packet, not just reach it.
    pub ns2_fr_guard: bool,
    /// ns-2's one-way handshake: a 40-byte SYN and reply without options, and no third-leg
    /// ACK (data follows the reply at once).
    pub ns2_handshake: bool,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: u32,
    /// Initial RTO.
    pub rto_initial: Time,
    /// Minimum RTO.
    pub rto_min: Time,
    /// Maximum RTO.
    pub rto_max: Time,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: Time,
}

impl TcpConfig {
    /// The ECN-capable codepoint this connection's packets carry.
    #[inline]
    pub fn ect(&self) -> crate::net::Ecn {
        if self.ect1 {
            crate::net::Ecn::Ect1
        } else {
            crate::net::Ecn::Ect0
        }
    }

    /// TCP option bytes on every non-SYN segment.
    pub fn option_bytes(&self) -> u32 {
        if self.timestamps {
            12
        } else {
            0
        }
    }

    /// Option bytes on a SYN or SYN-ACK: MSS 4, SACK-permitted 2, timestamps 10, window
    /// scale 3, padded to a multiple of 4.
    pub fn syn_option_bytes(&self) -> u32 {
        if self.ns2_handshake {
            return 0; // ns-2's one-way agent: a bare 40-byte SYN
        }
        let raw: u32 = 4
            + if self.sack { 2 } else { 0 }
            + if self.timestamps { 10 } else { 0 }
            + if self.window_scale { 3 } else { 0 };
        raw.div_ceil(4) * 4
    }

    /// The most of `window` bytes the receiver can advertise: the 16-bit window field
    /// holds at most 65,535 units of 2^shift bytes, and the scaled window counts whole units.
    pub fn advertisable(&self, window: u64) -> u64 {
        let shift = self.wscale_shift();
        (window.min(65_535u64 << shift) >> shift) << shift
    }

    /// The most bytes a sender can have in flight by its windows alone (the receive buffer
    /// as it can be advertised, and the cap on cwnd, ns-2's `window_`, if any), what sets
    /// that, and its packets' sizes.
    pub fn window_facts(&self) -> WindowFacts {
        let adv = self.advertisable(self.rcv_buf);
        let (window, limit) = match self.max_cwnd {
            Some(m) if m < adv => (m, WindowLimit::CwndCap(m)),
            _ if adv < self.rcv_buf => (adv, WindowLimit::Unscaled(self.rcv_buf)),
            _ => (adv, WindowLimit::Buffer(self.rcv_buf)),
        };
        let ack_wire = 40 + self.option_bytes();
        WindowFacts {
            window,
            limit,
            payload: self.mss,
            data_wire: self.mss + ack_wire,
            ack_wire,
            ecn: self.ecn,
            read_rate: self.read_rate,
            dupthresh: (self.recovery != Recovery::RackTlp)
                .then(|| (self.dupthresh, self.recovery.name())),
        }
    }

    /// Window-scale shift needed to advertise `rcv_buf`.
    pub fn wscale_shift(&self) -> u8 {
        if !self.window_scale {
            return 0;
        }
        shift_for(self.rcv_buf)
    }
}

/// The smallest window-scale shift (at most 14, RFC 7323) that brings `rcv_buf` within the
/// 16-bit window field: the buffer's bits beyond 16.
fn shift_for(rcv_buf: u64) -> u8 {
    let bits = 64 - rcv_buf.leading_zeros();
    bits.saturating_sub(16).min(14) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_scale_shift_is_the_smallest_that_fits_16_bits() {
        for buf in [
            0u64,
            1,
            65_535,
            65_536,
            131_071,
            131_072,
            1 << 20,
            16 << 20,
            (1 << 30) + 1,
        ]
        .into_iter()
        .chain((0..40).map(|k| (1u64 << k) - 1))
        {
            let mut s = 0u8;
            while (buf >> s) > 65_535 && s < 14 {
                s += 1;
            }
            assert_eq!(shift_for(buf), s, "rcv_buf {buf}");
        }
    }

    #[test]
    fn initial_window_tables() {
        // RFC 3390 in segments: ≤1095 → 4, 1095 < MSS < 2190 → 3, ≥ 2190 → 2.
        assert_eq!(InitialWindow::Rfc3390.bytes(1000), 4000);
        assert_eq!(InitialWindow::Rfc3390.bytes(1460), 4380);
        // The formula is in bytes: 4380 B at MSS 1448 (room for three full segments).
        assert_eq!(InitialWindow::Rfc3390.bytes(1448), 4380);
        assert_eq!(InitialWindow::Rfc3390.bytes(2190), 4380);
        // Linux 2.6: 1448 (timestamps on) → 3 segments = 4344; 2000 → 2.
        assert_eq!(InitialWindow::Linux26.bytes(1448), 4344);
        assert_eq!(InitialWindow::Linux26.bytes(2000), 4000);
        assert_eq!(InitialWindow::Rfc6928.bytes(1460), 14600);
    }
}
