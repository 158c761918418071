//! TCP endpoints. A connection is a [`sender::TcpSender`] (active open, sends data) and a
//! [`receiver::TcpReceiver`] (passive open, acknowledges). Congestion control ([`cc`]) and loss
//! recovery ([`recovery`]) are separate axes.

pub mod adaptive;
pub mod cc;
pub mod config;
pub mod connection;
pub(crate) mod cwnd_use;
pub mod ecn;
pub mod ful;
mod ideal;
pub mod persist;
pub mod rate;
pub mod reader;
pub mod receiver;
pub mod recovery;
pub mod results;
pub use crate::transport::rtt;
pub mod rtx_find;
pub mod sack;
pub mod scoreboard;
pub mod sender;
pub mod trace;
pub mod undo;
pub mod wire;
pub mod writes;

pub use crate::transport::Ctx;

/// The timers of a TCP connection, as [`crate::sim::events::TimerId`]s.
pub mod timers {
    use crate::sim::events::TimerId;
    /// Sender retransmission timer (also drives SYN retransmission).
    pub const RTO: TimerId = 0;
    /// Receiver delayed-ACK timer.
    pub const DEL_ACK: TimerId = 1;
    /// Receiver FUL timer: check whether the uplink buffer has drained.
    pub const FUL: TimerId = 2;
    /// Sender FUL safety timer.
    pub const FUL_SAFETY: TimerId = 3;
    /// Sender pacing: the next segment may leave.
    pub const PACE: TimerId = 4;
    /// The adaptive framework looks its path up in the decision map.
    pub const ADAPT: TimerId = 5;
    /// RACK's reordering timer (RFC 8985).
    pub const RACK: TimerId = 6;
    /// The tail loss probe timer (RFC 8985).
    pub const TLP: TimerId = 7;
    /// Receiver with a slow application: the window has opened enough for an update.
    pub const WINDOW_UPDATE: TimerId = 8;
    /// Sender's persist timer: probe a window too small for the next segment (RFC 9293).
    pub const PERSIST: TimerId = 9;
    /// Sender: the application's next timed write is due (`app.at`).
    pub const APP_WRITE: TimerId = 10;
    /// Scheduled congestion-control switch k is `SWITCH + k`.
    pub const SWITCH: TimerId = 16;
}
