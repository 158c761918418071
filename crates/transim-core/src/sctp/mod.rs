//! SCTP (RFC 9260, with the RFC 4460 clarifications study 1 relies on): association
//! set-up and graceful shutdown, streams with ordered and unordered delivery, a round-robin
//! or first-come stream scheduler, fragmentation and bundling, SACK with gap blocks and
//! duplicate TSNs, delayed SACK, congestion control per destination, fast retransmit and
//! fast recovery, T3-rtx, multi-homing with heartbeats, failover and path recovery.
//!
//! One [`association::SctpAssociation`] per flow holds both ends: the [`sender::SctpSender`]
//! opens the association and sends the messages, the [`receiver::SctpReceiver`] accepts it
//! and delivers them. Messages flow one way (the study's server → client transfer).

pub mod association;
pub mod chunk;
pub mod config;
pub mod path;
pub mod reader;
pub mod receiver;
pub mod results;
pub mod sender;
pub mod trace;
pub mod wire;

/// The timers of an association, as [`crate::sim::events::TimerId`]s.
pub mod timers {
    use crate::sim::events::TimerId;
    /// T1-init / T1-cookie, and T2-shutdown.
    pub const T1: TimerId = 0;
    /// The receiver's delayed-SACK timer.
    pub const SACK: TimerId = 1;
    /// The receiver's window-update timer (with `sctp.read_rate`).
    pub const WINDOW_UPDATE: TimerId = 2;
    /// The sending application's next timed write (`app.at`).
    pub const APP_WRITE: TimerId = 3;
    /// T3-rtx of path k.
    pub fn t3(k: usize) -> TimerId {
        16 + 2 * k as TimerId
    }
    /// Heartbeat timer of path k.
    pub fn hb(k: usize) -> TimerId {
        17 + 2 * k as TimerId
    }
    /// The most paths an association may have (so that its timer ids fit).
    pub const MAX_PATHS: usize = 1000;
}
