//! The interface between the engine and the transports (TCP, SCTP, …, or a test's own).
//!
//! The engine moves packets, runs timers and keeps connection-agnostic books (packets
//! injected, delivered, dropped by cause); everything a protocol knows lives behind
//! [`Transport`], one object per flow that holds both of the flow's ends. See the
//! repository's `ARCHITECTURE.md` for how a transport is added.
//!
//! Dispatch is dynamic (`Box<dyn Transport>`): one indirect call per packet delivered to an
//! endpoint and per timer, which callgrind shows to be lost in the noise beside the work the
//! endpoint does (~3,000 instructions per packet), and it lets a transport be defined outside
//! this crate (the toy constant-rate transport in `tests/transport.rs`).

use crate::net::{DropCause, Link, Packet};
use crate::sim::events::{Event, EventQueue};
use crate::sim::Time;
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

mod fields;
pub mod fluid_reader;
pub mod rtt;
pub mod write_times;

pub use crate::sim::events::TimerId;

static EMPTY_ROUTES: crate::engine::Routes = crate::engine::Routes::EMPTY;

/// The network as endpoints may look at it: link directions and routes (read only).
#[derive(Clone, Copy)]
pub struct NetView<'a> {
    /// Link directions.
    pub links: &'a [Link],
    /// Next hops.
    pub routes: &'a crate::engine::Routes,
}

impl<'a> NetView<'a> {
    /// A view of no network (unit tests of endpoints).
    pub fn empty() -> Self {
        NetView {
            links: &[],
            routes: &EMPTY_ROUTES,
        }
    }

    /// The first link direction on `flow`'s route from `from` to `to`.
    #[inline]
    pub fn first_hop(&self, from: u32, to: u32, flow: u32) -> &'a Link {
        &self.links[self.routes.next(from, to, flow) as usize]
    }
}

/// What an endpoint may touch while handling an event: the clock, the event queue (for its
/// timers), the outbox for the packets it sends, and a read-only view of the network.
pub struct Ctx<'a> {
    /// Current time.
    pub now: Time,
    /// Pending events.
    pub events: &'a mut EventQueue,
    /// Packets to inject, each at its `src` node.
    pub out: &'a mut Vec<Packet>,
    /// Packet id counter.
    pub next_uid: &'a mut u64,
    /// The network.
    pub net: NetView<'a>,
}

impl<'a> Ctx<'a> {
    /// A context with no network around it (unit tests of endpoints).
    pub fn detached(
        now: Time,
        events: &'a mut EventQueue,
        out: &'a mut Vec<Packet>,
        next_uid: &'a mut u64,
    ) -> Self {
        Ctx {
            now,
            events,
            out,
            next_uid,
            net: NetView::empty(),
        }
    }

    /// A fresh packet id.
    #[inline]
    pub fn uid(&mut self) -> u64 {
        *self.next_uid += 1;
        *self.next_uid
    }

    /// Schedule timer `timer` of flow `flow` at `at` (a one-shot; see
    /// [`crate::sim::timer::Timer`] for a restartable timer).
    #[inline]
    pub fn schedule(&mut self, at: Time, flow: u32, timer: TimerId) {
        self.events.push(at, Event::Timer { flow, timer });
    }
}

/// A rate in bit/s from a byte count and a duration in seconds (0 for no time).
pub fn bits_per_second(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        0.0
    }
}

/// Where a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropSite {
    /// The link direction.
    pub link: u32,
    /// The node that link direction leaves from.
    pub from: u32,
}

/// What the engine knows about a flow at the end of a run, handed to its transport for its
/// results.
#[derive(Clone, Debug)]
pub struct FlowFacts {
    /// When the flow started.
    pub start: Time,
    /// When the run ended.
    pub end: Time,
    /// The propagation round trip: link delays along the route there and back.
    pub true_rtt: Time,
    /// The slowest link rate on the route from the initiating end (bit/s).
    pub true_capacity_bps: f64,
    /// Data-direction packets dropped, all causes.
    pub data_packets_dropped: u64,
    /// The route both ways as idle links serve packets (None where packets cross the path
    /// as ATM cells).
    pub idle_path: Option<crate::net::idle_path::IdlePath>,
}

/// What bounds a flow's packet count, for estimates made before a run.
#[derive(Clone, Copy, Debug)]
pub struct VolumeHint {
    /// Bytes of a full data packet on the wire.
    pub packet_bytes: u64,
    /// The most bytes it can have in flight (receive buffer, window cap), if bounded.
    pub window_bytes: Option<u64>,
    /// The bytes the application sends, if finite.
    pub app_bytes: Option<u64>,
}

/// What bounds a flow's window, in its scenario's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowLimit {
    /// The receive buffer (`rcv_buf`), in bytes.
    Buffer(u64),
    /// A receive buffer larger than the 65,535 bytes that can be advertised without window
    /// scaling.
    Unscaled(u64),
    /// A cap on cwnd (`max_cwnd`), in bytes.
    CwndCap(u64),
}

/// A flow's windows and packets, as advice on a scenario reads them
/// ([`Transport::window_facts`]).
#[derive(Clone, Copy, Debug)]
pub struct WindowFacts {
    /// The most payload bytes the windows let it have in flight.
    pub window: u64,
    /// What sets `window`.
    pub limit: WindowLimit,
    /// Payload bytes of a full data packet.
    pub payload: u32,
    /// Bytes of a full data packet on the wire (IP and up).
    pub data_wire: u32,
    /// Bytes of an acknowledgement on the wire.
    pub ack_wire: u32,
    /// It negotiates ECN.
    pub ecn: bool,
    /// The receiving application reads at this rate, bit/s of payload (None: at once).
    pub read_rate: Option<f64>,
    /// How many duplicate reports the sender takes as a loss, with the recovery's name,
    /// when that count alone decides (None: time-based detection, RACK-TLP's).
    pub dupthresh: Option<(u32, &'static str)>,
}

/// One flow's protocol endpoints, as the engine drives them.
pub trait Transport: Send {
    /// The protocol's name as the scenario spells it ("tcp").
    fn protocol(&self) -> &'static str;

    /// Called once when the run begins, right after the flow's start has been scheduled:
    /// schedule one-off events of the transport's own (timers with ids it chooses).
    fn schedule(&mut self, _flow: u32, _events: &mut EventQueue) {}

    /// The flow's start time has come: open the connection.
    fn start(&mut self, ctx: &mut Ctx);

    /// A packet of this flow reached the end it is addressed to (`p.dst`).
    fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx);

    /// A timer this transport scheduled is due (it may be stale: the transport decides).
    fn on_timer(&mut self, timer: TimerId, ctx: &mut Ctx);

    /// A packet of this flow was dropped (the ground truth only a simulator knows: loss
    /// accounting, study counters). The engine has already counted it.
    fn on_drop(&mut self, _p: &Packet, _cause: DropCause, _site: DropSite) {}

    /// The transport's own results, once the run is over.
    fn results(&mut self, facts: &FlowFacts) -> Detail;

    /// The sending application has now written `total` bytes in all (a new round of a
    /// `rounds` application, whose receiving end schedules [`Event::RoundReached`] for its
    /// flow at each round's share delivered); `last`: it writes nothing more after them.
    fn app_release(&mut self, _total: u64, _last: bool, _ctx: &mut Ctx) {}

    /// Addresses of the state a packet from the sender (`from_sender`) or from the receiver
    /// touches first when it is delivered: the handling endpoint's own state (its first
    /// cache lines) and one more place (two lines) that moves as the transfer goes on, such
    /// as the oldest unacknowledged segment. The engine asks again after every delivery in
    /// that direction and fetches them into the cache an event ahead of the next. 0: no
    /// hint. (A pair, not an array: a pair comes back in two registers, while an array is
    /// written to memory and read back with one wider load that cannot be forwarded from
    /// those writes, which then waits for every store before it.)
    fn hot_state(&self, _from_sender: bool) -> (usize, usize) {
        (0, 0)
    }

    /// The timers (bit `k` for [`TimerId`] `k`, below 16) that the end receiving the
    /// sender's packets handles, such as a delayed ACK; the others are the sender's. With
    /// [`Transport::hot_state`] this tells the engine which end's state a timer event will
    /// read, to fetch it an event ahead. 0 (the default): every timer is the sender's.
    fn receiver_timers(&self) -> u16 {
        0
    }

    /// The pairs of nodes (sender's end, receiver's end) this flow's packets travel between
    /// besides the flow's own two ends, such as a multi-homed association's other paths.
    /// Packets go both ways along each. The engine works out from these which links only
    /// one link feeds; a pair left out would break that. Empty (the default): only the
    /// flow's own ends.
    fn other_node_pairs(&self) -> Vec<(u32, u32)> {
        Vec::new()
    }

    /// The transport's time series, if it was asked to keep them.
    fn take_trace(&mut self) -> Option<Box<dyn Series>>;

    /// What advice on the scenario before a run needs to know of the flow's windows and
    /// packets ([`crate::scenario::advice`]); None: nothing to say.
    fn window_facts(&self) -> Option<WindowFacts> {
        None
    }

    /// What bounds this flow's packet count (for estimating trace sizes before a run).
    fn volume_hint(&self) -> VolumeHint {
        VolumeHint {
            packet_bytes: 1000,
            window_bytes: None,
            app_bytes: None,
        }
    }

    /// Rows of the time series held now (for streaming traces to disk).
    fn trace_rows(&self) -> usize {
        0
    }

    /// Hand over the rows held so far and keep recording. Transports whose series are built
    /// at the end return None here and everything from [`Transport::take_trace`].
    fn drain_trace(&mut self) -> Option<Box<dyn Series>> {
        None
    }

    /// For packet captures: render `p`'s transport header and payload into `out` as bytes
    /// on the wire (`src`, `dst`: the IPv4 addresses, for checksums) and return the IP
    /// protocol number. None: this transport has no wire format (datagrams are written as
    /// UDP by the capture itself).
    fn wire_bytes(
        &self,
        _p: &Packet,
        _src: [u8; 4],
        _dst: [u8; 4],
        _out: &mut Vec<u8>,
    ) -> Option<u8> {
        None
    }
}

/// A transport's own results for one flow: serialised flat beside the engine's fields,
/// and open to typed access from Rust (`as_any().downcast_ref`).
pub trait FlowDetail: Any + Debug + Send + Sync {
    /// The fields, in name order, each as a JSON value (an error for results that are not
    /// a struct).
    fn fields(&self) -> Result<Vec<(&'static str, serde_json::Value)>, serde_json::Error>;
    /// For downcasting to the transport's own type.
    fn as_any(&self) -> &dyn Any;
}

impl<T: serde::Serialize + Any + Debug + Send + Sync> FlowDetail for T {
    fn fields(&self) -> Result<Vec<(&'static str, serde_json::Value)>, serde_json::Error> {
        fields::sorted_fields(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A shared handle on a transport's results.
#[derive(Clone, Debug)]
pub struct Detail(pub Arc<dyn FlowDetail>);

impl Detail {
    /// Wrap a transport's results.
    pub fn new<T: FlowDetail>(d: T) -> Self {
        Detail(Arc::new(d))
    }

    /// The results as the transport's own type, if they are of that type.
    pub fn downcast<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }
}

impl serde::Serialize for Detail {
    /// As a JSON object with its keys in order (what serde_json's sorted map would write).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let fields = self.0.fields().map_err(S::Error::custom)?;
        let mut map = s.serialize_map(Some(fields.len()))?;
        for (key, value) in &fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A transport's time series: named columns of equal length.
pub trait Series: Any + Debug + Send {
    /// The columns, in order.
    fn into_columns(self: Box<Self>) -> Vec<(&'static str, Vec<f64>)>;
    /// For downcasting to the transport's own type.
    fn as_any(&self) -> &dyn Any;
}

impl dyn Series {
    /// The series as the transport's own type, if it is of that type.
    pub fn downcast<T: 'static>(&self) -> Option<&T> {
        self.as_any().downcast_ref::<T>()
    }
}
