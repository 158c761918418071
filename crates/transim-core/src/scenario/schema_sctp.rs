//! The `[sctp]` table (scenario-wide defaults; a flow's own `sctp` table overrides them) and
//! the per-flow extra paths of a multi-homed association.

use super::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};

/// What counts as bytes outstanding.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OutstandingSpec {
    /// User data only (Linux lksctp, INET's default).
    Data,
    /// User data plus the 16-byte DATA chunk header (ns-2).
    Chunks,
}

/// Stream scheduler names.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerSpec {
    /// One message per stream in turn.
    RoundRobin,
    /// In the order written.
    Fcfs,
}

/// SCTP options; every field is optional and falls back to the flow-level, then the
/// scenario-level table, then RFC 9260's value.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SctpSpec {
    /// Path MTU in bytes (1500).
    #[serde(default)]
    pub mtu: Option<u32>,
    /// Receive buffer: the advertised window (128 KiB).
    #[serde(default)]
    pub rcv_buf: Option<Size>,
    /// The receiving application reads at this rate (default: at once, so the window is
    /// the whole buffer less what waits for reassembly or its turn in its stream).
    #[serde(default)]
    pub read_rate: Option<Rate>,
    /// Initial cwnd (RFC 4960: min(4·MTU, max(2·MTU, 4380)); RFC 2960's was 2·MTU).
    #[serde(default)]
    pub initial_cwnd: Option<Size>,
    /// "data" (default) or "chunks".
    #[serde(default)]
    pub outstanding: Option<OutstandingSpec>,
    /// SACK every this many packets with DATA (2).
    #[serde(default)]
    pub sack_freq: Option<u32>,
    /// Delayed-SACK timer (200 ms).
    #[serde(default)]
    pub sack_delay: Option<Duration>,
    /// RTO.Initial (3 s).
    #[serde(default)]
    pub rto_initial: Option<Duration>,
    /// RTO.Min (1 s).
    #[serde(default)]
    pub rto_min: Option<Duration>,
    /// RTO.Max (60 s).
    #[serde(default)]
    pub rto_max: Option<Duration>,
    /// Max.Burst in packets (4).
    #[serde(default)]
    pub max_burst: Option<u32>,
    /// How long Max.Burst's lower cwnd lasts: "restore" (default: for the one round of
    /// sending, as Linux restores it; ns-2 limits the packets without touching cwnd) or
    /// "lower" (for good, RFC 4960's text read literally, Linux 2.6).
    #[serde(default)]
    pub max_burst_cwnd: Option<MaxBurstCwndSpec>,
    /// Missing reports that trigger fast retransmit (3; RFC 2960: 4).
    #[serde(default)]
    pub fast_rtx_threshold: Option<u32>,
    /// "round_robin" (default) or "fcfs".
    #[serde(default)]
    pub scheduler: Option<SchedulerSpec>,
    /// Send every message unordered.
    #[serde(default)]
    pub unordered: Option<bool>,
    /// Path.Max.Retrans (5).
    #[serde(default)]
    pub path_max_retrans: Option<u32>,
    /// Association.Max.Retrans (10).
    #[serde(default)]
    pub assoc_max_retrans: Option<u32>,
    /// HB.interval (30 s).
    #[serde(default)]
    pub hb_interval: Option<Duration>,
    /// Heartbeats to idle destinations of a multi-homed association (on).
    #[serde(default)]
    pub heartbeats: Option<bool>,
    /// What an idle destination's cwnd does: "rfc" (default; RFC 9260 §7.2.1, ns-2: halved
    /// per RTO without DATA, down to 4·MTU) or "off" (kept).
    #[serde(default)]
    pub cwnd_after_idle: Option<CwndAfterIdleSpec>,
}

/// How long Max.Burst's lower cwnd lasts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MaxBurstCwndSpec {
    /// Restored once the packets allowed have gone.
    Restore,
    /// Kept.
    Lower,
}

/// What an idle destination's cwnd does.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CwndAfterIdleSpec {
    /// Halved per RTO without DATA sent to it, down to 4·MTU (RFC 9260 §7.2.1, ns-2).
    Rfc,
    /// Kept.
    Off,
}

impl SctpSpec {
    /// Fields of `self` where set, else those of `base`.
    pub fn over(&self, base: &SctpSpec) -> SctpSpec {
        macro_rules! merge {
            ($($f:ident),*) => { SctpSpec { $($f: self.$f.clone().or_else(|| base.$f.clone()),)* } };
        }
        merge!(
            mtu,
            rcv_buf,
            read_rate,
            initial_cwnd,
            outstanding,
            sack_freq,
            sack_delay,
            rto_initial,
            rto_min,
            rto_max,
            max_burst,
            max_burst_cwnd,
            fast_rtx_threshold,
            scheduler,
            unordered,
            path_max_retrans,
            assoc_max_retrans,
            hb_interval,
            heartbeats,
            cwnd_after_idle
        )
    }
}

/// An extra (source, destination) address pair of a multi-homed association.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    /// Local node of the sending end.
    pub src: String,
    /// Node of the receiving end.
    pub dst: String,
}

/// A link failure: down from `from` until `to`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DownSpec {
    /// When the link fails.
    pub from: Duration,
    /// When it comes back (omit: never).
    #[serde(default)]
    pub to: Option<Duration>,
}
