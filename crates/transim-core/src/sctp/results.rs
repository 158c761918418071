//! SCTP's results for one flow: the association, each destination, each stream.

use super::association::SctpAssociation;
use super::receiver::StreamStats;
use crate::sim::secs;
use crate::transport::{bits_per_second, Detail, FlowFacts};
use serde::Serialize;

/// One destination at the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct PathResult {
    /// Source node.
    pub src: String,
    /// Destination node.
    pub dst: String,
    /// Reachable at the end.
    pub active: bool,
    /// cwnd at the end (bytes).
    pub cwnd: u64,
    /// ssthresh at the end (bytes).
    pub ssthresh: u64,
    /// Smoothed RTT (s), null without a sample.
    pub srtt: Option<f64>,
    /// RTO (s).
    pub rto: f64,
    /// Packets sent on it.
    pub packets: u64,
    /// User bytes sent on it (retransmissions included).
    pub data_bytes: u64,
    /// Error counter at the end.
    pub errors: u32,
    /// Times cwnd was lowered because no DATA went here for an RTO (RFC 9260 §7.2.1).
    pub idle_decays: u64,
}

/// SCTP's results for one flow (flattened beside the engine's fields in the run's results).
#[derive(Clone, Debug, Serialize)]
pub struct SctpFlowResult {
    /// Fragmentation point (user bytes per DATA chunk).
    pub frag_point: u32,
    /// Time the association was established (s).
    pub established: Option<f64>,
    /// Time from the start until every message was delivered (s), for finite applications.
    pub completion_time: Option<f64>,
    /// First DATA arrival to the last arrival of new DATA at the receiver (s).
    pub transfer_time: Option<f64>,
    /// User bytes delivered to the application.
    pub bytes_delivered: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// DATA chunks that reached the receiver (duplicates included).
    pub data_chunks_delivered: u64,
    /// Goodput (bit/s) over the active time.
    pub goodput_bps: f64,
    /// User data arriving at the receiver, duplicates included (bit/s).
    pub throughput_bps: f64,
    /// Seconds the flow was active.
    pub active_time: f64,
    /// Packets the sender sent.
    pub segments_sent: u64,
    /// DATA chunks sent, retransmissions included.
    pub data_chunks_sent: u64,
    /// DATA chunks retransmitted.
    pub retransmissions: u64,
    /// By fast retransmit.
    pub retransmissions_fast: u64,
    /// After T3-rtx expiries.
    pub retransmissions_timeout: u64,
    /// T3-rtx expiries.
    pub timeouts: u64,
    /// Entries into fast recovery.
    pub fast_retransmits: u64,
    /// SACKs the receiver sent.
    pub sacks_sent: u64,
    /// Duplicate DATA chunks received.
    pub duplicate_chunks: u64,
    /// INIT / COOKIE ECHO retransmissions.
    pub init_retries: u64,
    /// Heartbeats sent.
    pub heartbeats: u64,
    /// Failovers: (time in s, from path, to path).
    pub failovers: Vec<(f64, u8, u8)>,
    /// The association was aborted after too many errors.
    pub aborted: bool,
    /// The primary path's cwnd at the end (bytes).
    pub final_cwnd: u64,
    /// The primary path's smoothed RTT (s).
    pub srtt: f64,
    /// The primary path's RTO (s).
    pub rto: f64,
    /// Each destination, the primary first.
    pub paths: Vec<PathResult>,
    /// Each stream's deliveries.
    pub streams: Vec<StreamStats>,
    /// With `sctp.read_rate`: what the receiving application read, and the flow control.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader: Option<SctpReaderResult>,
}

/// A receiving application that reads at a set rate (`sctp.read_rate`), and the flow
/// control it caused.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SctpReaderResult {
    /// The application's read rate (bit/s).
    pub read_rate_bps: f64,
    /// Bytes the application read by the end of the run.
    pub bytes_read: u64,
    /// Bytes delivered into the receive buffer and not yet read at the end of the run.
    pub unread_at_end: u64,
    /// SACKs that advertised a zero window.
    pub zero_window_sacks: u64,
    /// SACKs the receiver sent only to report a window the application opened.
    pub window_updates: u64,
    /// DATA chunks dropped because they arrived at a zero window.
    pub chunks_dropped_zero_window: u64,
}

impl Detail {
    /// SCTP's results for a flow (`flow_result.detail.sctp()`). Panics if the flow is not
    /// SCTP.
    pub fn sctp(&self) -> &SctpFlowResult {
        self.downcast::<SctpFlowResult>()
            .expect("the flow is not an SCTP flow")
    }
}

/// Collect an association's results at the end of a run.
pub(crate) fn collect(a: &SctpAssociation, facts: &FlowFacts) -> SctpFlowResult {
    let s = &a.sender;
    let r = &a.receiver.stats;
    let done = s.stats.all_acked_at.is_some() && r.last_data.is_some();
    let completion = if done {
        r.last_data.map(|t| t.saturating_sub(facts.start))
    } else {
        None
    };
    let active = completion.unwrap_or(facts.end.saturating_sub(facts.start));
    let primary = &s.paths[0];
    SctpFlowResult {
        frag_point: s.cfg.frag_point,
        established: s.stats.established_at.map(secs),
        completion_time: completion.map(secs),
        transfer_time: match (r.first_data, r.last_data) {
            (Some(x), Some(y)) => Some(secs(y - x)),
            _ => None,
        },
        bytes_delivered: r.bytes_delivered,
        messages_delivered: r.messages,
        data_chunks_delivered: r.data_chunks,
        goodput_bps: bits_per_second(r.bytes_delivered, secs(active)),
        throughput_bps: bits_per_second(
            if completion.is_some() {
                r.received_at_last_data
            } else {
                r.bytes_received
            },
            secs(active),
        ),
        active_time: secs(active),
        segments_sent: s.stats.packets,
        data_chunks_sent: s.stats.data_chunks,
        retransmissions: s.stats.rtx_fast + s.stats.rtx_timeout,
        retransmissions_fast: s.stats.rtx_fast,
        retransmissions_timeout: s.stats.rtx_timeout,
        timeouts: s.stats.timeouts,
        fast_retransmits: s.stats.fast_retransmits,
        sacks_sent: r.sacks,
        duplicate_chunks: r.duplicates,
        init_retries: s.stats.init_retries,
        heartbeats: s.stats.heartbeats,
        failovers: s
            .stats
            .failovers
            .iter()
            .map(|&(t, a, b)| (secs(t), a, b))
            .collect(),
        aborted: s.stats.aborted,
        final_cwnd: primary.cwnd,
        srtt: secs(primary.rtt.srtt),
        rto: secs(primary.rtt.rto()),
        paths: s
            .paths
            .iter()
            .zip(&a.path_names)
            .map(|(p, (src, dst))| PathResult {
                src: src.clone(),
                dst: dst.clone(),
                active: p.active,
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                srtt: p.rtt.has_sample.then(|| secs(p.rtt.srtt)),
                rto: secs(p.rtt.rto()),
                packets: p.packets,
                data_bytes: p.data_bytes,
                errors: p.errors,
                idle_decays: p.idle_decays,
            })
            .collect(),
        streams: r.streams.clone(),
        reader: a.receiver.reader.as_deref().map(|rd| SctpReaderResult {
            read_rate_bps: rd.rate_bps(),
            bytes_read: rd.read_by(facts.end),
            unread_at_end: rd.unread(facts.end),
            zero_window_sacks: rd.zero_window_sacks,
            window_updates: rd.window_updates,
            chunks_dropped_zero_window: rd.dropped_chunks,
        }),
    }
}
