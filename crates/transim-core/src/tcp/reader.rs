//! A receiving application that reads at a set rate (`tcp.read_rate`), and the receive
//! window it leaves: the flow control of RFC 9293 §3.8.6.
//!
//! Without a reader the application takes every byte the moment it is in order, so the
//! advertised window is the whole receive buffer. With one, the in-order bytes wait in the
//! buffer until the application reads them, at a constant rate while any are there (a fluid
//! reader: a video player draining at its bit rate, a disk writer, a slow consumer). The
//! window is the buffer less what waits unread, in whole segments (as Linux offers it), and
//! the receiver moves the window's right edge only by at least min(buffer / 2, MSS) at a
//! time (the receiver's silly window syndrome avoidance, RFC 9293 §3.8.6.2.2), and never
//! back. When the application has freed enough
//! (Linux's `tcp_cleanup_rbuf`: the window left is at most half the buffer and the new one at
//! least twice it) the receiver tells the sender at once with a window update.
//!
//! The reader itself is the transports' [`FluidReader`], exact in whole bytes.

use super::receiver::TcpReceiver;
use super::{timers, Ctx};
use crate::net::TcpHeader;
use crate::sim::timer::Timer;
use crate::sim::Time;
use crate::transport::fluid_reader::FluidReader;

/// The receiving application's reader and the window it leaves.
#[derive(Clone, Debug)]
pub(crate) struct Reader {
    /// The application's reading of the in-order bytes handed to the receive buffer.
    fluid: FluidReader,
    /// RCV.NXT + RCV.WND as last advertised (0 before the first advertisement).
    right_edge: u64,
    /// Fires when the window has opened enough for an update of its own.
    pub(crate) update: Timer,
    /// ACKs sent only to report a window the application opened.
    pub(crate) window_updates: u64,
    /// ACKs that advertised a zero window.
    pub(crate) zero_window_acks: u64,
}

/// `bytes` rounded down to whole segments of `mss` (Linux's `__tcp_select_window` offers the
/// free space in whole segments, so that a sender of full segments is never left a window
/// smaller than one and not zero).
fn whole_segments(bytes: u64, mss: u64) -> u64 {
    bytes - bytes % mss.max(1)
}

/// RFC 9293's threshold for moving the right edge: min(Fr · buffer, MSS) with Fr = 1/2.
fn sws_step(buf: u64, mss: u64) -> u64 {
    (buf / 2).min(mss).max(1)
}

impl Reader {
    /// A reader taking `rate_bps` bit/s.
    pub(crate) fn new(rate_bps: f64) -> Reader {
        Reader {
            fluid: FluidReader::new(rate_bps),
            right_edge: 0,
            update: Timer::default(),
            window_updates: 0,
            zero_window_acks: 0,
        }
    }

    /// The read rate, bit/s.
    pub(crate) fn rate_bps(&self) -> f64 {
        self.fluid.rate_bps()
    }

    /// Bytes the application has read by `now`.
    pub(crate) fn read_by(&self, now: Time) -> u64 {
        self.fluid.read_by(now)
    }

    /// Bytes in order in the buffer, not yet read, at `now`.
    pub(crate) fn unread(&self, now: Time) -> u64 {
        self.fluid.unread(now)
    }

    /// `bytes` more arrive in order at `now` ([`FluidReader::deliver`]).
    pub(crate) fn deliver(&mut self, bytes: u64, now: Time) {
        self.fluid.deliver(bytes, now);
    }

    /// The window to advertise at `now` (bytes above `rcv_nxt`), with receive buffer `buf`:
    /// the right edge moves to RCV.NXT + the free space in whole segments when that is at
    /// least min(buf / 2, `mss`) beyond where it was, else stays. With window scaling the
    /// window goes out in units of `grain` bytes (2^shift), rounded up as Linux rounds it, so
    /// that the sender still sees every whole segment the free space holds.
    pub(crate) fn window(
        &mut self,
        rcv_nxt: u64,
        buf: u64,
        mss: u64,
        grain: u64,
        now: Time,
    ) -> u64 {
        let free = whole_segments(buf.saturating_sub(self.unread(now)), mss);
        let edge = rcv_nxt + free.div_ceil(grain) * grain;
        if edge >= self.right_edge + sws_step(buf, mss) || self.right_edge == 0 {
            self.right_edge = edge;
        }
        self.right_edge.saturating_sub(rcv_nxt)
    }

    /// The window last advertised, seen from `rcv_nxt`.
    pub(crate) fn window_left(&self, rcv_nxt: u64) -> u64 {
        self.right_edge.saturating_sub(rcv_nxt)
    }

    /// When the application will have freed enough of the buffer for a window update of
    /// its own: the window left is at most half the buffer, and the one the receiver could
    /// advertise (as [`Reader::window`] would, in units of `grain`) is at least twice it and
    /// beyond the SWS step. None when the window left is larger (the sender is not held
    /// back) or no buffer could hold the window wanted.
    pub(crate) fn update_due(
        &self,
        rcv_nxt: u64,
        buf: u64,
        mss: u64,
        grain: u64,
        now: Time,
    ) -> Option<Time> {
        let left = self.window_left(rcv_nxt);
        if left > buf / 2 {
            return None;
        }
        let target = (2 * left).max(left + sws_step(buf, mss));
        // The fewest whole segments of free space whose advertised window reaches it (at
        // most a unit beyond the segments), so that a due update always moves the edge.
        let mut want = target.div_ceil(mss) * mss;
        while want >= mss && (want - mss).div_ceil(grain) * grain >= target {
            want -= mss;
        }
        if want > buf {
            return None;
        }
        // buffer − unread(t) ≥ want  ⟺  read_by(t) ≥ delivered − (buffer − want).
        let need = self.fluid.delivered().saturating_sub(buf - want);
        Some(self.fluid.time_read(need, now))
    }
}

impl TcpReceiver {
    /// A segment without data or flags that take sequence space: a zero-window probe when it
    /// lies below rcv_nxt, answered with an ACK, which carries the window (RFC 9293
    /// §3.10.7.4: an unacceptable segment draws an ACK).
    #[cold]
    #[inline(never)]
    pub(crate) fn reader_on_bare_segment(&mut self, p: &TcpHeader, ctx: &mut Ctx) {
        if p.seq < self.rcv_nxt {
            self.send_ack(ctx);
        }
    }

    /// More bytes are in order in the buffer at `now` (the receiver's count has moved on).
    #[cold]
    #[inline(never)]
    pub(crate) fn reader_deliver(&mut self, now: Time) {
        let total = self.stats.bytes_delivered;
        if let Some(r) = self.reader.as_deref_mut() {
            r.deliver(total - r.fluid.delivered(), now);
        }
    }

    /// Move the window's right edge as far as the application has freed the buffer (by the
    /// SWS rule), before an ACK goes out, and set the window it advertises; count a zero
    /// window.
    #[cold]
    #[inline(never)]
    pub(crate) fn reader_advance_window(&mut self, now: Time) {
        let (rcv_nxt, buf, mss) = (self.rcv_nxt, self.cfg.rcv_buf, self.cfg.mss as u64);
        let grain = 1 << self.cfg.wscale_shift();
        if let Some(r) = self.reader.as_deref_mut() {
            self.window = r.window(rcv_nxt, buf, mss, grain, now);
            if self.window == 0 {
                r.zero_window_acks += 1;
            }
        }
    }

    /// Before an ACK goes out: set the window it advertises, and arm the window-update timer
    /// for when the application will have opened the window enough (or disarm it: the
    /// window left is large, or all data is in).
    #[cold]
    #[inline(never)]
    pub(crate) fn reader_before_ack(&mut self, ctx: &mut Ctx) {
        self.reader_advance_window(ctx.now);
        self.reader_schedule_update(ctx);
    }

    /// Arm or disarm the window-update timer after the window was set.
    fn reader_schedule_update(&mut self, ctx: &mut Ctx) {
        let (rcv_nxt, buf, mss) = (self.rcv_nxt, self.cfg.rcv_buf, self.cfg.mss as u64);
        let grain = 1 << self.cfg.wscale_shift();
        let done = self.stats.fin_at.is_some();
        let flow = self.flow;
        let Some(r) = self.reader.as_deref_mut() else {
            return;
        };
        match r.update_due(rcv_nxt, buf, mss, grain, ctx.now) {
            Some(at) if !done => r.update.set(at, flow, timers::WINDOW_UPDATE, ctx.events),
            _ => r.update.cancel(),
        }
    }

    /// The window-update timer fired: send the update if the window is due, else wait on.
    pub(crate) fn on_window_timer(&mut self, ctx: &mut Ctx) {
        let (rcv_nxt, buf, mss) = (self.rcv_nxt, self.cfg.rcv_buf, self.cfg.mss as u64);
        let grain = 1 << self.cfg.wscale_shift();
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
        match r.update_due(rcv_nxt, buf, mss, grain, ctx.now) {
            Some(at) if at <= ctx.now => {
                r.window_updates += 1;
                self.send_ack(ctx);
            }
            Some(at) => r.update.set(at, flow, timers::WINDOW_UPDATE, ctx.events),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;

    /// 8 Mb/s reads a byte per microsecond.
    const MBPS8: f64 = 8e6;

    #[test]
    fn the_right_edge_moves_by_at_least_the_sws_step_and_never_back() {
        let (buf, mss) = (8_000, 1_000);
        let mut r = Reader::new(MBPS8);
        assert_eq!(r.window(1, buf, mss, 1, 0), 8_000);
        // 6,000 bytes arrive at t = 0; by 0.5 ms 500 are read: the edge could move 500 only.
        r.deliver(6_000, 0);
        assert_eq!(r.window(6_001, buf, mss, 1, MILLISECOND / 2), 2_000);
        // By 1 ms 1,000 are read: the edge moves by the MSS.
        assert_eq!(r.window(6_001, buf, mss, 1, MILLISECOND), 3_000);
        // The rest arrive: the window closes to zero and stays closed until 1 MSS is read.
        r.deliver(3_000, MILLISECOND);
        assert_eq!(r.window(9_001, buf, mss, 1, MILLISECOND), 0);
        assert_eq!(r.window(9_001, buf, mss, 1, MILLISECOND + 999_000), 0);
        assert_eq!(r.window(9_001, buf, mss, 1, 2 * MILLISECOND), 1_000);
    }

    #[test]
    fn windows_come_in_whole_segments() {
        let (buf, mss) = (8_000, 1_448);
        let mut r = Reader::new(MBPS8);
        assert_eq!(r.window(1, buf, mss, 1, 0), 7_240);
        r.deliver(7_240, 0);
        assert_eq!(r.window(7_241, buf, mss, 1, 0), 0);
        // 2,000 bytes free: one segment's worth is offered, not 2,000.
        assert_eq!(
            r.window(7_241, buf, mss, 1, 2 * MILLISECOND - 760_000),
            1_448
        );
        // The segment took the window to zero: due when a whole segment is free again.
        r.deliver(1_448, 2 * MILLISECOND);
        assert_eq!(r.window(8_689, buf, mss, 1, 2 * MILLISECOND), 0);
        let due = r.update_due(8_689, buf, mss, 1, 2 * MILLISECOND).unwrap();
        assert_eq!(r.unread(due), buf - mss);
    }

    #[test]
    fn a_scaled_window_is_rounded_up_to_its_unit() {
        // 999-byte segments and 2-byte units: one segment's window goes out as 1,000 (999
        // rounded down would hold no segment).
        let (buf, mss) = (100_000, 999);
        let mut r = Reader::new(MBPS8);
        assert_eq!(r.window(1, buf, mss, 2, 0), 99_900);
        r.deliver(99_900, 0);
        assert_eq!(r.window(99_901, buf, mss, 2, 0), 0);
        assert_eq!(r.window(99_901, buf, mss, 2, 999_000), 1_000);
        // The segment leaves a 1-byte unit: the next update is due when one segment is free
        // again (899 more bytes read), not two, and it moves the edge.
        r.deliver(999, 999_000);
        let due = r.update_due(100_900, buf, mss, 2, 999_000).unwrap();
        assert_eq!(due, 1_898_000);
        assert_eq!(r.window(100_900, buf, mss, 2, due), 1_000);
    }

    #[test]
    fn an_update_is_due_when_the_window_can_double_past_the_step() {
        let (buf, mss) = (8_000, 1_000);
        let mut r = Reader::new(MBPS8);
        r.window(1, buf, mss, 1, 0);
        r.deliver(8_000, 0);
        assert_eq!(r.window(8_001, buf, mss, 1, 0), 0);
        // Zero window: due when one MSS is read, at 1 ms.
        assert_eq!(r.update_due(8_001, buf, mss, 1, 0), Some(MILLISECOND));
        assert_eq!(r.window(8_001, buf, mss, 1, MILLISECOND), 1_000);
        // 1,000 left: due when 2,000 can be advertised, another 1,000 read: 2 ms.
        assert_eq!(
            r.update_due(8_001, buf, mss, 1, MILLISECOND),
            Some(2 * MILLISECOND)
        );
        // More than half the buffer left: none.
        assert_eq!(r.window(8_001, buf, mss, 1, 6 * MILLISECOND), 6_000);
        assert_eq!(r.update_due(8_001, buf, mss, 1, 6 * MILLISECOND), None);
    }
}
