//! The completion time a TCP transfer would have alone on idle links with no window limit:
//! the yardstick of flow-completion-time slowdown.
//!
//! The transfer goes as the engine's TCP sends it, minus everything that waits: the SYN
//! there and the SYN-ACK back, then at once the handshake's ACK (none with ns-2's one-way
//! agents) and every segment, full ones of the MSS and a short last one carrying the FIN,
//! each with the options the configuration puts on data (timestamps). The transfer is
//! complete when the last arrives ([`super::results::TcpFlowResult::completion_time`] ends
//! at the receiver's in-order FIN). Congestion and receive windows, queueing behind other
//! flows, losses, pacing and host processing only delay packets, so a run's completion
//! time is never shorter.

use super::connection::TcpConnection;
use crate::net::idle_path::{train_arrival, Block, IdlePath};
use crate::sim::Time;

/// The ideal completion time of connection `c`'s transfer over `path`; None for an
/// open-ended application and for rounds (whose pace the slowest member sets).
pub(super) fn completion(c: &TcpConnection, path: &IdlePath) -> Option<Time> {
    let s = &c.sender;
    // Rounds and timed writes: the application's own waits are not the network's.
    if !s.finite || c.receiver.rounds_total().is_some() || s.timed.is_some() {
        return None;
    }
    let cfg = &s.cfg;
    let syn = Block {
        wire: s.header_bytes(true),
        count: 1,
    };
    let syn_ack = Block {
        wire: 40 + c.receiver.cfg.syn_option_bytes(),
        count: 1,
    };
    let header = s.header_bytes(false);
    let bytes = s.app_end.saturating_sub(1);
    let mss = s.win.mss as u64;
    let rest = bytes % mss;
    let train = [
        Block {
            wire: header,
            count: !cfg.ns2_handshake as u64,
        },
        Block {
            wire: header + mss as u32,
            count: bytes / mss,
        },
        // The FIN rides on the last segment, alone when there are no bytes.
        Block {
            wire: header + rest as u32,
            count: (rest > 0 || bytes == 0) as u64,
        },
    ];
    Some(
        train_arrival(&path.there, &[syn])
            + train_arrival(&path.back, &[syn_ack])
            + train_arrival(&path.there, &train),
    )
}
