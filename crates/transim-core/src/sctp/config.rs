//! SCTP's resolved configuration (from the scenario's `[sctp]` table and a flow's own).

use crate::sim::Time;

/// Order in which the sender serves its streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamScheduler {
    /// One message from each stream with data in turn (ns-2, INET, lksctp's default).
    RoundRobin,
    /// Messages in the order the application wrote them.
    Fcfs,
}

/// An association's parameters.
#[derive(Clone, Debug)]
pub struct SctpConfig {
    /// Path MTU (bytes at the IP layer).
    pub mtu: u32,
    /// Largest user data per DATA chunk: MTU − IP 20 − common header 12 − DATA header 16.
    pub frag_point: u32,
    /// Initial cwnd (bytes).
    pub initial_cwnd: u64,
    /// Receive buffer: the advertised receiver window when the application reads at once.
    pub rcv_buf: u64,
    /// The receiving application's read rate (bit/s); None: it reads at once.
    pub read_rate: Option<f64>,
    /// Count the 16-byte DATA chunk header in the bytes outstanding (ns-2) or not (lksctp,
    /// INET).
    pub outstanding_with_headers: bool,
    /// SACK every this many packets with DATA.
    pub sack_freq: u32,
    /// Delayed-SACK timer.
    pub sack_delay: Time,
    /// RTO.Initial, RTO.Min, RTO.Max.
    pub rto_initial: Time,
    /// RTO.Min.
    pub rto_min: Time,
    /// RTO.Max.
    pub rto_max: Time,
    /// Max.Burst (packets): cwnd is clamped to flight + Max.Burst·MTU before sending.
    pub max_burst: u32,
    /// The clamp lasts only while sending (Linux, and in effect ns-2), else for good (RFC
    /// 4960's text read literally; Linux 2.6).
    pub max_burst_restore: bool,
    /// Missing reports that trigger a fast retransmission.
    pub fast_rtx_threshold: u32,
    /// Stream scheduler.
    pub scheduler: StreamScheduler,
    /// Send every message unordered.
    pub unordered: bool,
    /// Path.Max.Retrans: errors beyond which a destination is inactive.
    pub path_max_retrans: u32,
    /// Association.Max.Retrans: errors beyond which the association is aborted.
    pub assoc_max_retrans: u32,
    /// HB.interval.
    pub hb_interval: Time,
    /// Send heartbeats to idle destinations.
    pub heartbeats: bool,
    /// Lower an idle destination's cwnd per RTO without DATA (RFC 9260 §7.2.1).
    pub idle_decay: bool,
}

impl Default for SctpConfig {
    /// RFC 9260's values at MTU 1500 (what the scenario's `[sctp]` table defaults to).
    fn default() -> Self {
        use crate::sim::{MILLISECOND, SECOND};
        SctpConfig {
            mtu: 1500,
            frag_point: 1452,
            initial_cwnd: Self::rfc4960_initial_cwnd(1500),
            rcv_buf: 128 * 1024,
            read_rate: None,
            outstanding_with_headers: false,
            sack_freq: 2,
            sack_delay: 200 * MILLISECOND,
            rto_initial: 3 * SECOND,
            rto_min: SECOND,
            rto_max: 60 * SECOND,
            max_burst: 4,
            max_burst_restore: true,
            fast_rtx_threshold: 3,
            scheduler: StreamScheduler::RoundRobin,
            unordered: false,
            path_max_retrans: 5,
            assoc_max_retrans: 10,
            hb_interval: 30 * SECOND,
            heartbeats: true,
            idle_decay: true,
        }
    }
}

impl SctpConfig {
    /// RFC 4960 / RFC 9260 initial cwnd: min(4·MTU, max(2·MTU, 4380)).
    pub fn rfc4960_initial_cwnd(mtu: u32) -> u64 {
        let m = mtu as u64;
        (4 * m).min((2 * m).max(4380))
    }

    /// Bytes a DATA chunk of `len` user bytes adds to the outstanding count.
    #[inline]
    pub fn counted(&self, len: u32) -> u64 {
        len as u64 + if self.outstanding_with_headers { 16 } else { 0 }
    }
}
