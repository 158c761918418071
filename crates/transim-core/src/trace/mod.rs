//! Optional per-packet event log, kept as columns so Python can take them as numpy arrays.
//! When tracing is off nothing is recorded (one branch per event). Per-flow time series are
//! the transports' own ([`crate::transport::Series`]; TCP's is [`crate::tcp::trace::FlowTrace`]).

pub mod pcap;

use crate::net::Packet;
use crate::sim::Time;

/// Which rows a trace keeps: a time window and, for per-flow series, at most one row per
/// `interval` (0: every row).
#[derive(Clone, Copy, Debug)]
pub struct TraceWindow {
    /// First time kept.
    pub start: Time,
    /// Last time kept.
    pub end: Time,
    /// Minimum spacing of rows (0: keep every row).
    pub interval: Time,
    /// The next time a row is due (sampling).
    next: Time,
}

impl Default for TraceWindow {
    fn default() -> Self {
        TraceWindow::new(0, Time::MAX, 0)
    }
}

impl TraceWindow {
    /// Keep rows from `start` to `end`, at most one per `interval`.
    pub fn new(start: Time, end: Time, interval: Time) -> Self {
        TraceWindow {
            start,
            end,
            interval,
            next: start,
        }
    }

    /// Whether a row at `now` is kept (and, when sampling, when the next one is due).
    #[inline]
    pub fn admit(&mut self, now: Time) -> bool {
        if now < self.next || now > self.end {
            return false;
        }
        if self.interval > 0 {
            self.next = now.saturating_add(self.interval);
        }
        true
    }
}

/// Kinds of per-packet event.
pub mod packet_event {
    /// An endpoint sent the packet.
    pub const SEND: u8 = 0;
    /// The packet reached its destination endpoint.
    pub const DELIVER: u8 = 1;
    /// The packet was dropped (see the cause column).
    pub const DROP: u8 = 2;
}

/// Per-packet events, one row each.
#[derive(Clone, Debug, Default)]
pub struct PacketTrace {
    /// Time (s).
    pub t: Vec<f64>,
    /// Event kind ([`packet_event`]).
    pub kind: Vec<u8>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// 1 when sent by the flow's sender (data direction), 0 for ACKs.
    pub from_sender: Vec<u8>,
    /// Sequence number (relative).
    pub seq: Vec<u64>,
    /// Acknowledgement number (relative).
    pub ack: Vec<u64>,
    /// Payload length.
    pub len: Vec<u32>,
    /// Transmission number of the segment (1 = original, 0 for control).
    pub tx: Vec<u16>,
    /// Link where a drop happened (-1 otherwise).
    pub link: Vec<i32>,
    /// Drop cause index (-1 when not a drop).
    pub cause: Vec<i8>,
    /// Bytes on the wire at the IP layer.
    pub wire: Vec<u32>,
    /// The time window kept.
    pub window: TraceWindow,
    /// Per flow, whether its packets are kept (None: every flow).
    pub flows: Option<Vec<bool>>,
}

/// Bytes one packet-trace row takes (in memory and, before compression, on disk).
pub const PACKET_ROW_BYTES: u64 = 45;

impl PacketTrace {
    /// An empty trace keeping `window` and, if given, only the flows marked true.
    pub fn new(window: TraceWindow, flows: Option<Vec<bool>>) -> Self {
        PacketTrace {
            window,
            flows,
            ..Default::default()
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.t.len()
    }

    /// True when no row is held.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Hand over the rows held and keep recording with the same filters.
    pub fn drain(&mut self) -> PacketTrace {
        let empty = PacketTrace::new(self.window, self.flows.clone());
        std::mem::replace(self, empty)
    }

    /// Append one event, if the filters keep it.
    #[inline]
    pub fn record(&mut self, now: Time, kind: u8, p: &Packet, link: i32, cause: i8) {
        if now < self.window.start || now > self.window.end {
            return;
        }
        if let Some(f) = &self.flows {
            if !f.get(p.flow as usize).copied().unwrap_or(false) {
                return;
            }
        }
        self.t.push(now as f64 * 1e-9);
        self.kind.push(kind);
        self.flow.push(p.flow);
        self.from_sender.push(p.from_sender as u8);
        let h = p.hdr.trace_fields();
        self.seq.push(h.seq);
        self.ack.push(h.ack);
        self.len.push(h.len);
        self.tx.push(h.tx);
        self.link.push(link);
        self.cause.push(cause);
        self.wire.push(p.wire);
    }
}
