//! TCP endpoints. A connection is a [`sender::TcpSender`] (active open, sends data) and a
//! [`receiver::TcpReceiver`] (passive open, acknowledges). Congestion control ([`cc`]) and loss
//! recovery ([`config::Recovery`]) are separate axes.

pub mod cc;
pub mod config;
pub mod ful;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;
pub mod timer;

use crate::net::{Link, Packet};
use crate::sim::events::EventQueue;
use crate::sim::Time;

/// What an endpoint may touch while handling an event: the clock, the event queue (for its
/// timers) and the outbox for the packets it sends.
pub struct Ctx<'a> {
    /// Current time.
    pub now: Time,
    /// Pending events.
    pub events: &'a mut EventQueue,
    /// Packets to inject at the endpoint's node.
    pub out: &'a mut Vec<Packet>,
    /// Packet id counter.
    pub next_uid: &'a mut u64,
    /// The endpoint's first-hop link, for receivers using the FUL bit (None otherwise).
    pub uplink: Option<&'a Link>,
}
