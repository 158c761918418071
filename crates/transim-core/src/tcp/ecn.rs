//! Explicit Congestion Notification for TCP (RFC 3168 section 6.1).
//!
//! - Negotiation: the SYN carries ECE and CWR ("ECN-setup SYN"); a receiver that does ECN
//!   answers with ECE alone on its SYN-ACK. Only then does the connection use ECN.
//! - The sender sends new data ECT(0); retransmissions, pure ACKs and the handshake are
//!   Not-ECT (6.1.5, 6.1.4). With `ecn_all_packets` (DCTCP's default, as Linux sends it)
//!   every packet of both ends is ECT(0) once ECN is negotiated, and the SYN and SYN-ACK
//!   that negotiate it too: a switch marking DCTCP's threshold drops Not-ECT packets, so
//!   RFC 3168's Not-ECT SYNs and ACKs would be lost there whenever the queue is past it.
//! - The receiver, once a data packet arrives marked CE, sets ECE on every ACK until a data
//!   packet with CWR arrives (6.1.3).
//! - The sender reacts to ECE at most once per window of data and never while it is already
//!   recovering from a loss (nor within the window a loss recovery started in): ssthresh as after a loss (the congestion control's own
//!   reduction, from the flight size), cwnd = ssthresh, no retransmission; the next new data
//!   segment carries CWR (6.1.2).

use super::cc::{CcKind, CongestionControl};
use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use crate::net::header::tcp::flags;
use crate::net::{Ecn, TcpHeader};
use crate::transport::Ctx;

/// A sender's ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnSender {
    /// Negotiated: data goes out ECT(0) and echoes are acted on.
    pub on: bool,
    /// No reaction to an echo until snd_una passes this (one reduction per window).
    recover: u64,
    /// The next new data segment carries CWR.
    cwr_pending: bool,
    /// Window reductions made in response to ECE.
    pub reductions: u64,
}

/// A receiver's ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnReceiver {
    /// Negotiated.
    pub on: bool,
    /// Set ECE on ACKs (a CE mark arrived and no CWR since).
    echo: bool,
    /// Data packets that arrived marked Congestion Experienced.
    pub ce_received: u64,
}

impl TcpSender {
    /// The flags an ECN-setup SYN adds.
    pub(crate) fn ecn_syn_flags(&self) -> u16 {
        if self.cfg.ecn {
            flags::ECE | flags::CWR
        } else {
            0
        }
    }

    /// The SYN-ACK says whether the peer does ECN (ECE without CWR).
    pub(crate) fn ecn_on_syn_ack(&mut self, p: &TcpHeader) {
        self.ecn.on = self.cfg.ecn && p.has(flags::ECE) && !p.has(flags::CWR);
    }

    /// The ECN field of an outgoing segment, adding CWR to its flags when a reduction is
    /// to be announced: ECT(0) on new data only, or with `ecn_all_packets` on every segment
    /// (the SYN before ECN is negotiated too).
    pub(crate) fn ecn_mark_outgoing(&mut self, h: &mut TcpHeader) -> Ecn {
        let new_data = h.len > 0 && h.tx_count <= 1;
        let ect = if self.cfg.ecn_all_packets {
            self.ecn.on || h.has(flags::SYN)
        } else {
            self.ecn.on && new_data
        };
        if !ect {
            return Ecn::NotEct;
        }
        if new_data && self.ecn.cwr_pending {
            h.flags |= flags::CWR;
            self.ecn.cwr_pending = false;
        }
        self.cfg.ect()
    }

    /// After an ACK was processed (`una_before` was snd_una before it): the congestion
    /// control sees the feedback, and an echo reduces the window once per window of data.
    pub(crate) fn ecn_on_ack(&mut self, p: &TcpHeader, una_before: u64) {
        if !self.ecn.on {
            return;
        }
        let acked = self.snd_una.saturating_sub(una_before);
        self.cc
            .on_ecn_feedback(acked, p.has(flags::ECE), self.snd_una, self.snd_nxt);
        if !p.has(flags::ECE)
            || self.in_recovery
            || self.snd_una <= self.ecn.recover.max(self.recover)
            || self.cc.owns_window()
        {
            return;
        }
        self.ecn.recover = self.snd_max;
        self.ecn.cwr_pending = true;
        self.ecn.reductions += 1;
        let base = self.reduction_base();
        self.win.ssthresh = self.cc.ssthresh_on_ecn(&self.win, base);
        self.win.set_cwnd(self.win.ssthresh);
        self.win.cnt = 0;
    }
}

impl TcpReceiver {
    /// The SYN asks for ECN (ECE and CWR): the flags the SYN-ACK answers with.
    pub(crate) fn ecn_on_syn(&mut self, p: &TcpHeader) -> u16 {
        self.ecn.on = self.cfg.ecn && p.has(flags::ECE) && p.has(flags::CWR);
        if self.ecn.on {
            flags::ECE
        } else {
            0
        }
    }

    /// A data packet arrived with ECN field `ecn`: CWR ends the echo, CE (re)starts it.
    /// A DCTCP receiver instead echoes each packet's CE state exactly (RFC 8257 section
    /// 3.2): when the state changes while a delayed ACK is pending, that ACK goes out at
    /// once with the old state.
    pub(crate) fn ecn_on_data(&mut self, p: &TcpHeader, ecn: Ecn, ctx: &mut Ctx) {
        if !self.ecn.on {
            return;
        }
        if self.cfg.cc == CcKind::Dctcp {
            let ce = ecn == Ecn::Ce;
            if ce != self.ecn.echo && self.delayed_ack_pending() {
                self.send_ack(ctx);
            }
            self.ecn.echo = ce;
            self.ecn.ce_received += ce as u64;
            return;
        }
        if p.has(flags::CWR) {
            self.ecn.echo = false;
        }
        if ecn == Ecn::Ce {
            self.ecn.echo = true;
            self.ecn.ce_received += 1;
        }
    }

    /// The flags an ACK adds: ECE while echoing.
    pub(crate) fn ecn_ack_flags(&self) -> u16 {
        if self.ecn.echo {
            flags::ECE
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::scenario::profiles::resolve;
    use crate::scenario::schema::{DelayedAckSpec, TcpSpec};
    use crate::sim::events::EventQueue;
    use crate::sim::{Time, MILLISECOND};
    use crate::tcp::receiver::tests::seg;

    fn cfg() -> crate::tcp::config::TcpConfig {
        let spec = TcpSpec {
            ecn: Some(true),
            delayed_ack: Some(DelayedAckSpec::Off),
            ..Default::default()
        };
        resolve(&spec, "tcp").unwrap()
    }

    struct Sender {
        s: TcpSender,
        ev: EventQueue,
        out: Vec<Packet>,
        uid: u64,
    }

    impl Sender {
        /// A sender with `cfg` that has sent its SYN.
        fn started(cfg: crate::tcp::config::TcpConfig) -> Self {
            let mut h = Sender {
                s: TcpSender::new(cfg, 0, 0, 1, None, None),
                ev: EventQueue::new(),
                out: vec![],
                uid: 0,
            };
            let mut ctx = Ctx::detached(0, &mut h.ev, &mut h.out, &mut h.uid);
            h.s.start(&mut ctx);
            h
        }
        fn established() -> Self {
            let mut h = Sender::started(cfg());
            let syn = h.out[0].tcp();
            assert!(syn.has(flags::ECE) && syn.has(flags::CWR), "ECN-setup SYN");
            assert_eq!(h.out[0].ecn, Ecn::NotEct);
            h.ack(10 * MILLISECOND, 1, flags::SYN | flags::ACK | flags::ECE);
            assert!(h.s.ecn.on);
            h
        }
        fn ack(&mut self, now: Time, ack: u64, fl: u16) {
            let p = TcpHeader {
                flags: fl,
                ack,
                wnd: 1 << 24,
                ..Default::default()
            };
            let mut ctx = Ctx::detached(now, &mut self.ev, &mut self.out, &mut self.uid);
            self.s.on_packet(&p, &mut ctx);
        }
        fn data(&self) -> Vec<&Packet> {
            self.out.iter().filter(|p| p.tcp().len > 0).collect()
        }
    }

    /// RFC 3168 6.1.2 on a hand-followed exchange: an echo halves the window once (to the
    /// congestion control's ssthresh from the flight size), the next new segment carries
    /// CWR, further echoes for data sent before the reduction change nothing, and an echo
    /// for later data reduces again.
    #[test]
    fn sender_halves_once_per_window_and_announces_cwr() {
        let mut h = Sender::established();
        let mss = h.s.win.mss as u64;
        let iw = h.data().len() as u64;
        assert!(iw >= 2);
        assert!(
            h.data().iter().all(|p| p.ecn == Ecn::Ect0),
            "new data is ECT(0)"
        );
        assert!(h.data().iter().all(|p| !p.tcp().has(flags::CWR)));
        // The first segment acknowledged, with ECE: slow start sends two more (flight
        // iw + 1 segments), then the echo halves: ssthresh = max(flight/2, 2 MSS).
        h.ack(50 * MILLISECOND, 1 + mss, flags::ACK | flags::ECE);
        let flight = h.s.snd_max - h.s.snd_una;
        assert_eq!(flight, (iw + 1) * mss);
        let expect = (flight / 2).max(2 * mss);
        assert_eq!(h.s.win.ssthresh, expect);
        assert_eq!(h.s.win.cwnd, expect);
        assert_eq!(h.s.ecn.reductions, 1);
        let recover = h.s.snd_max;
        // More echoes for data sent before the reduction: no second reduction.
        let sent_before = h.data().len();
        let mut ack = 1 + mss;
        let mut t = 50 * MILLISECOND;
        while ack + mss < recover {
            ack += mss;
            t += MILLISECOND;
            h.ack(t, ack, flags::ACK | flags::ECE);
            assert_eq!(h.s.ecn.reductions, 1, "ACK {ack}: one reduction per window");
        }
        // The first new segment after the reduction carries CWR, the others do not.
        let after: Vec<_> = h.data()[sent_before..].to_vec();
        assert!(!after.is_empty());
        assert!(after[0].tcp().has(flags::CWR));
        assert!(after[1..].iter().all(|p| !p.tcp().has(flags::CWR)));
        // An echo acknowledging past the reduction point reduces again.
        h.ack(t + MILLISECOND, recover + mss, flags::ACK | flags::ECE);
        assert_eq!(h.s.ecn.reductions, 2);
    }

    /// Retransmissions go out Not-ECT (6.1.5), and no echo reduces the window while a
    /// loss recovery runs.
    #[test]
    fn retransmissions_are_not_ect_and_recovery_ignores_echoes() {
        let mut h = Sender::established();
        // Three duplicate ACKs for the first segment: fast retransmit.
        for k in 0..3 {
            h.ack((20 + k) * MILLISECOND, 1, flags::ACK);
        }
        let rtx: Vec<_> = h
            .data()
            .into_iter()
            .filter(|p| p.tcp().tx_count > 1)
            .collect();
        assert_eq!(rtx.len(), 1);
        assert_eq!(rtx[0].ecn, Ecn::NotEct);
        let ssthresh = h.s.win.ssthresh;
        h.ack(24 * MILLISECOND, 1, flags::ACK | flags::ECE);
        assert_eq!(h.s.ecn.reductions, 0);
        assert_eq!(
            h.s.win.ssthresh, ssthresh,
            "no second reduction inside recovery"
        );
        // After recovery, an echo for data sent during it is still in the reduced window.
        h.ack(30 * MILLISECOND, h.s.recover, flags::ACK | flags::ECE);
        assert_eq!(h.s.ecn.reductions, 0);
    }

    /// RFC 3168 6.1.3: a CE mark sets ECE on every ACK until a data packet with CWR; a CWR
    /// packet that is itself marked starts the echo again.
    #[test]
    fn receiver_echoes_until_cwr() {
        let mut r = TcpReceiver::new(cfg(), 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let arrive = |r: &mut TcpReceiver, h: TcpHeader, ecn: Ecn, ctx: &mut Ctx| {
            r.ecn_on_data(&h, ecn, ctx);
            r.on_packet(&h, ctx);
        };
        arrive(
            &mut r,
            seg(flags::SYN | flags::ECE | flags::CWR, 0, 0),
            Ecn::NotEct,
            &mut ctx,
        );
        let syn_ack = ctx.out.last().unwrap().tcp();
        assert!(syn_ack.has(flags::ECE) && !syn_ack.has(flags::CWR));
        let mut seq = 1;
        let mut next = |fl: u16| {
            let h = seg(flags::ACK | fl, seq, 1000);
            seq += 1000;
            h
        };
        let plan = [
            (0, Ecn::Ect0, false),
            (0, Ecn::Ce, true),
            (0, Ecn::Ect0, true),
            (0, Ecn::Ect0, true),
            (flags::CWR, Ecn::Ect0, false),
            (0, Ecn::Ect0, false),
            (flags::CWR, Ecn::Ce, true),
            (0, Ecn::Ect0, true),
        ];
        for (k, (fl, ecn, echo)) in plan.into_iter().enumerate() {
            arrive(&mut r, next(fl), ecn, &mut ctx);
            let ack = ctx.out.last().unwrap().tcp();
            assert_eq!(ack.ack, 1 + 1000 * (k as u64 + 1), "one ACK per segment");
            assert_eq!(ack.has(flags::ECE), echo, "segment {k}");
        }
        assert_eq!(r.ecn.ce_received, 2);
    }

    /// RFC 8257 section 3.2: a DCTCP receiver with delayed ACKs echoes each packet's CE
    /// state exactly; when the state changes while an ACK is pending, that ACK goes out at
    /// once carrying the old state.
    #[test]
    fn dctcp_receiver_echoes_ce_exactly() {
        let spec = TcpSpec {
            cc: Some("dctcp".into()),
            delayed_ack: Some(DelayedAckSpec::On),
            delayed_ack_count: Some(2),
            ..Default::default()
        };
        let cfg = resolve(&spec, "tcp").unwrap();
        assert!(cfg.ecn, "dctcp turns ECN on");
        let mut r = TcpReceiver::new(cfg, 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        let syn = seg(flags::SYN | flags::ECE | flags::CWR, 0, 0);
        r.ecn_on_data(&syn, Ecn::NotEct, &mut ctx);
        r.on_packet(&syn, &mut ctx);
        let acks = |ctx: &Ctx| ctx.out.len();
        let arrive = |r: &mut TcpReceiver, k: u64, ecn: Ecn, ctx: &mut Ctx| {
            let h = seg(flags::ACK, 1 + 1000 * k, 1000);
            r.ecn_on_data(&h, ecn, ctx);
            r.on_packet(&h, ctx);
        };
        let n0 = acks(&ctx);
        arrive(&mut r, 0, Ecn::Ect0, &mut ctx); // pending
        assert_eq!(acks(&ctx), n0);
        arrive(&mut r, 1, Ecn::Ce, &mut ctx); // state change: ACK 1001 without ECE now
        let a = ctx.out[n0].tcp();
        assert_eq!((a.ack, a.has(flags::ECE)), (1001, false));
        assert_eq!(acks(&ctx), n0 + 1, "segment 1 now pending");
        arrive(&mut r, 2, Ecn::Ce, &mut ctx); // second of the pair: ACK with ECE
        let a = ctx.out.last().unwrap().tcp();
        assert_eq!((a.ack, a.has(flags::ECE)), (3001, true));
        arrive(&mut r, 3, Ecn::Ect0, &mut ctx); // change, nothing pending: no extra ACK
        assert_eq!(acks(&ctx), n0 + 2);
        arrive(&mut r, 4, Ecn::Ect0, &mut ctx);
        let a = ctx.out.last().unwrap().tcp();
        assert_eq!((a.ack, a.has(flags::ECE)), (5001, false));
        assert_eq!(r.ecn.ce_received, 2);
    }

    /// A DCTCP connection's configuration, with `ecn_all_packets` as given.
    fn dctcp(all: Option<bool>) -> crate::tcp::config::TcpConfig {
        let spec = TcpSpec {
            cc: Some("dctcp".into()),
            ecn_all_packets: all,
            delayed_ack: Some(DelayedAckSpec::Off),
            ..Default::default()
        };
        resolve(&spec, "tcp").unwrap()
    }

    /// `ecn_codepoint = "ect1"` (the L4S identifier): whatever RFC 3168 or `ecn_all_packets`
    /// would send ECT(0) goes out ECT(1) instead, from both ends; Not-ECT stays Not-ECT.
    /// Without ECN the codepoint is refused by name.
    #[test]
    fn ect1_replaces_ect0() {
        for (cc, control) in [("dctcp", Ecn::Ect1), ("reno", Ecn::NotEct)] {
            let spec = TcpSpec {
                cc: Some(cc.into()),
                ecn: Some(true),
                ecn_codepoint: Some(crate::scenario::schema::EcnCodepointSpec::Ect1),
                delayed_ack: Some(DelayedAckSpec::Off),
                ..Default::default()
            };
            let cfg = resolve(&spec, "tcp").unwrap();
            let mut s = Sender::started(cfg.clone());
            assert_eq!(s.out[0].ecn, control, "{cc}: SYN");
            s.ack(10 * MILLISECOND, 1, flags::SYN | flags::ACK | flags::ECE);
            assert!(!s.data().is_empty());
            assert!(
                s.data().iter().all(|p| p.ecn == Ecn::Ect1),
                "{cc}: new data"
            );

            let mut r = TcpReceiver::new(cfg, 0, 1, 0);
            let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
            let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
            r.on_packet(&seg(flags::SYN | flags::ECE | flags::CWR, 0, 0), &mut ctx);
            let data = seg(flags::ACK, 1, 1000);
            r.ecn_on_data(&data, Ecn::Ect1, &mut ctx);
            r.on_packet(&data, &mut ctx);
            assert!(ctx.out.iter().all(|p| p.ecn == control), "{cc}: receiver");
        }
        let spec = TcpSpec {
            ecn_codepoint: Some(crate::scenario::schema::EcnCodepointSpec::Ect1),
            ..Default::default()
        };
        assert_eq!(resolve(&spec, "tcp").unwrap_err().path, "tcp.ecn_codepoint");
    }

    /// Linux's DCTCP: every packet of both ends ECT(0), the SYN before ECN is agreed, the
    /// SYN-ACK, pure ACKs and retransmissions too; with `ecn_all_packets = false` RFC 3168's
    /// rule (new data only).
    #[test]
    fn dctcp_sends_every_packet_ect_unless_told_not_to() {
        for (all, control) in [(None, Ecn::Ect0), (Some(false), Ecn::NotEct)] {
            let mut s = Sender::started(dctcp(all));
            assert_eq!(s.out[0].ecn, control, "SYN ({all:?})");
            s.ack(10 * MILLISECOND, 1, flags::SYN | flags::ACK | flags::ECE);
            assert!(s.s.ecn.on);
            assert!(s.data().iter().all(|p| p.ecn == Ecn::Ect0), "new data");
            for k in 0..3 {
                s.ack((20 + k) * MILLISECOND, 1, flags::ACK);
            }
            let rtx: Vec<_> = s
                .data()
                .into_iter()
                .filter(|p| p.tcp().tx_count > 1)
                .collect();
            assert_eq!(rtx.len(), 1);
            assert_eq!(rtx[0].ecn, control, "retransmission ({all:?})");

            let mut r = TcpReceiver::new(dctcp(all), 0, 1, 0);
            let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
            let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
            let syn = seg(flags::SYN | flags::ECE | flags::CWR, 0, 0);
            r.on_packet(&syn, &mut ctx);
            let data = seg(flags::ACK, 1, 1000);
            r.ecn_on_data(&data, Ecn::Ect0, &mut ctx);
            r.on_packet(&data, &mut ctx);
            assert_eq!(ctx.out.len(), 2, "SYN-ACK and one ACK");
            assert!(ctx.out[0].tcp().has(flags::SYN));
            assert!(ctx.out.iter().all(|p| p.ecn == control), "{all:?}");
        }
        // Without ECN there is nothing to send ECN-capable: refused by name.
        let spec = TcpSpec {
            ecn_all_packets: Some(true),
            ..Default::default()
        };
        let e = resolve(&spec, "tcp").unwrap_err();
        assert_eq!(e.path, "tcp.ecn_all_packets");
        // A peer that declines ECN gets Not-ECT after the SYN.
        let mut s = Sender::started(dctcp(None));
        s.ack(10 * MILLISECOND, 1, flags::SYN | flags::ACK);
        assert!(!s.s.ecn.on);
        assert!(s.out[1..].iter().all(|p| p.ecn == Ecn::NotEct));
    }

    /// Without ECN on the receiving side's configuration the SYN-ACK does not agree.
    #[test]
    fn no_agreement_without_ecn() {
        let cfg = resolve(&TcpSpec::default(), "tcp").unwrap();
        let mut r = TcpReceiver::new(cfg, 0, 1, 0);
        let (mut ev, mut out, mut uid) = (EventQueue::new(), Vec::new(), 0);
        let mut ctx = Ctx::detached(0, &mut ev, &mut out, &mut uid);
        r.on_packet(&seg(flags::SYN | flags::ECE | flags::CWR, 0, 0), &mut ctx);
        assert!(!ctx.out[0].tcp().has(flags::ECE));
        assert!(!r.ecn.on);
    }
}
