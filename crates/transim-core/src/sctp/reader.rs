//! SCTP's flow control with a receiving application that reads at a set rate
//! (`sctp.read_rate`).
//!
//! Without a reader the application takes every message the moment it is complete and its
//! turn has come, so the window (a_rwnd) is the receive buffer less the fragments and
//! messages still waiting. With one, delivered messages wait in the buffer until the
//! application reads them at a constant rate ([`FluidReader`]), and a_rwnd is what all of
//! that leaves of the buffer (RFC 9260 §6.2).
//!
//! - **Window updates.** When the application has opened the window by at least
//!   max(`rcv_buf` / 16, MTU) beyond the a_rwnd last advertised, the receiver sends a SACK
//!   at once to say so (Linux's `sctp_peer_needs_update`, with its default
//!   `rwnd_update_shift` of 4).
//! - **A zero window** (RFC 9260 §6.2). While the buffer has no room, a DATA chunk with a
//!   TSN above the highest received so far is dropped and the receiver sends a SACK at
//!   once, which leaves the chunk out. (A chunk below it, filling a gap, is accepted. The
//!   RFC's SHOULD, to drop the highest TSN held for reordering in its place, is not
//!   modelled.)
//! - **The sender** may always have one DATA chunk in flight whatever the window (§6.1
//!   rule A): that chunk probes a closed window, at once, as Linux sends it (the RFC's
//!   SHOULD is to wait one RTO first). A chunk that arrives while the buffer has some room,
//!   even less than the chunk, is accepted, as the RFC and Linux accept it, so on a path
//!   without loss the buffer holds at most one chunk more than `rcv_buf` (chunks that fill
//!   gaps are accepted at a zero window too). While SACKs keep coming during
//!   probing, expired probes do not count as errors toward Path.Max.Retrans or
//!   Association.Max.Retrans ([`super::sender`]).

use super::chunk::ChunkStore;
use super::receiver::SctpReceiver;
use super::timers;
use crate::sim::timer::Timer;
use crate::sim::Time;
use crate::transport::fluid_reader::FluidReader;
use crate::transport::Ctx;

/// The receiving application's reader, the window last advertised and the flow control's
/// counters.
#[derive(Clone, Debug)]
pub struct SctpReader {
    /// The application's reading of the delivered messages' bytes.
    pub(super) fluid: FluidReader,
    /// The a_rwnd of the last SACK (bytes).
    advertised: u64,
    /// Fires when the application will have opened the window enough for an update.
    pub(super) update: Timer,
    /// SACKs sent only to report a window the application opened.
    pub window_updates: u64,
    /// SACKs that advertised a zero window.
    pub zero_window_sacks: u64,
    /// DATA chunks dropped because the window was zero.
    pub dropped_chunks: u64,
}

impl SctpReader {
    /// A reader taking `rate_bps` bit/s.
    pub fn new(rate_bps: f64) -> SctpReader {
        SctpReader {
            fluid: FluidReader::new(rate_bps),
            advertised: 0,
            update: Timer::default(),
            window_updates: 0,
            zero_window_sacks: 0,
            dropped_chunks: 0,
        }
    }

    /// The read rate, bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.fluid.rate_bps()
    }

    /// Bytes the application has read by `now`.
    pub fn read_by(&self, now: Time) -> u64 {
        self.fluid.read_by(now)
    }

    /// Bytes delivered and not yet read at `now`.
    pub fn unread(&self, now: Time) -> u64 {
        self.fluid.unread(now)
    }
}

impl SctpReceiver {
    /// How far the window must open beyond the last a_rwnd for an update of its own:
    /// max(`rcv_buf` / 16, MTU).
    fn update_step(&self) -> u64 {
        (self.cfg.rcv_buf >> 4).max(self.cfg.mtu as u64)
    }

    /// Whether a new DATA chunk with TSN `tsn` is dropped at `now`: the window is zero and
    /// the TSN is above the highest received (RFC 9260 §6.2). Counts it.
    pub(super) fn reader_refuses(&mut self, tsn: u64, now: Time) -> bool {
        if tsn <= self.highest_tsn() || self.free_space(now) > 0 {
            return false;
        }
        if let Some(r) = self.reader.as_deref_mut() {
            r.dropped_chunks += 1;
        }
        true
    }

    /// A SACK goes out advertising `a_rwnd`: note it, count a zero window, and arm the
    /// window-update timer.
    pub(super) fn reader_advertised(&mut self, a_rwnd: u64, ctx: &mut Ctx) {
        if let Some(r) = self.reader.as_deref_mut() {
            r.advertised = a_rwnd;
            if a_rwnd == 0 {
                r.zero_window_sacks += 1;
            }
        }
        self.arm_window_update(ctx);
    }

    /// Arm the window-update timer for when the application will have opened the window by
    /// the update step beyond the a_rwnd last advertised, if no more data arrives; disarm
    /// it when the buffer cannot open that far.
    fn arm_window_update(&mut self, ctx: &mut Ctx) {
        let step = self.update_step();
        let (buffer, waiting, flow) = (
            self.cfg.rcv_buf,
            self.held_bytes + self.ready_bytes,
            self.flow,
        );
        let Some(r) = self.reader.as_deref_mut() else {
            return;
        };
        // free(t) ≥ advertised + step  ⟺  unread(t) ≤ buffer − waiting − advertised − step.
        match buffer.checked_sub(waiting + r.advertised + step) {
            Some(allowed) => {
                let need = r.fluid.delivered().saturating_sub(allowed);
                let at = r.fluid.time_read(need, ctx.now);
                r.update.set(at, flow, timers::WINDOW_UPDATE, ctx.events);
            }
            None => r.update.cancel(),
        }
    }

    /// The window-update timer fired: send the update if the window has opened by the step
    /// since the last SACK, else wait on (data that arrived meanwhile fills the buffer).
    pub fn on_window_timer(&mut self, ctx: &mut Ctx, store: &mut ChunkStore) {
        let flow = self.flow;
        let Some(r) = self.reader.as_deref_mut() else {
            return;
        };
        if !r
            .update
            .fire(ctx.now, flow, timers::WINDOW_UPDATE, ctx.events)
        {
            return;
        }
        let advertised = r.advertised;
        if self.free_space(ctx.now) >= advertised + self.update_step() {
            if let Some(r) = self.reader.as_deref_mut() {
                r.window_updates += 1;
            }
            self.send_sack(ctx, store);
        } else {
            self.arm_window_update(ctx);
        }
    }
}
