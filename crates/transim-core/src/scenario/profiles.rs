//! Named profiles: the defaults on which RFCs, Linux 2.6 and ns-2 disagree (see the table in
//! the algorithm fact sheet, §2.24), and resolution of a [`TcpSpec`] into a [`TcpConfig`].

use super::error::ScenarioError;
use super::schema::*;
use crate::sim::{Time, MILLISECOND, SECOND};
use crate::tcp::cc::hystart::HyStartMode;
use crate::tcp::cc::CcKind;
use crate::tcp::config::*;

/// Resolve the merged TCP table of one flow; `path` names where its fields came from.
pub fn resolve(spec: &TcpSpec, path: &str) -> Result<TcpConfig, ScenarioError> {
    let profile = spec.profile.unwrap_or_default();
    let (name, d) = defaults(profile);
    let cc_name = spec.cc.clone().unwrap_or_else(|| "reno".into());
    // "adaptive" starts with its `start` variant; the connection's builder sets it up.
    let cc_name = if cc_name == "adaptive" {
        spec.adaptive
            .as_ref()
            .and_then(|a| a.start.clone())
            .unwrap_or_else(|| "reno".into())
    } else {
        cc_name
    };
    let cc = CcKind::from_name(&cc_name).ok_or_else(|| {
        let names: Vec<_> = CcKind::ALL
            .iter()
            .map(|(n, _)| format!("\"{n}\""))
            .collect();
        ScenarioError::new(
            format!("{path}.cc"),
            format!(
                "got {cc_name:?}; expected one of {} or \"adaptive\"",
                names.join(", ")
            ),
        )
    })?;
    if cc == CcKind::Dctcp && spec.ecn == Some(false) {
        return Err(ScenarioError::new(
            format!("{path}.ecn"),
            "got false; cc = \"dctcp\" needs ECN (leave ecn unset or true)",
        ));
    }
    let ecn = spec.ecn.unwrap_or(cc == CcKind::Dctcp);
    if spec.ecn_all_packets == Some(true) && !ecn {
        return Err(ScenarioError::new(
            format!("{path}.ecn_all_packets"),
            "got true without ECN; set ecn = true too (or use cc = \"dctcp\")",
        ));
    }
    if spec.ecn_codepoint.is_some() && !ecn {
        return Err(ScenarioError::new(
            format!("{path}.ecn_codepoint"),
            "is set without ECN; set ecn = true too (or use cc = \"dctcp\")",
        ));
    }
    let timestamps = spec.timestamps.unwrap_or(d.timestamps);
    let mtu = spec.mtu.map(|s| s.0).unwrap_or(1500);
    if !(68..=65_535).contains(&mtu) {
        return Err(ScenarioError::new(
            format!("{path}.mtu"),
            format!("got {mtu}; expected an MTU between 68 and 65535 bytes"),
        ));
    }
    let opts = if timestamps { 12 } else { 0 };
    let mss = match spec.mss {
        Some(m) => {
            if m.0 == 0 || m.0 + 40 + opts > mtu {
                return Err(ScenarioError::new(
                    format!("{path}.mss"),
                    format!(
                        "got {}; expected at least 1 byte and at most {} (MTU {mtu} − 40 bytes of IP/TCP headers{})",
                        m.0,
                        mtu.saturating_sub(40 + opts),
                        if timestamps { " − 12 bytes of timestamp option" } else { "" }
                    ),
                ));
            }
            m.0 as u32
        }
        None => d.mss.unwrap_or(mtu as u32 - 40 - opts as u32),
    };
    let rcv_buf = spec.rcv_buf.map(|s| s.0).unwrap_or(d.rcv_buf);
    if rcv_buf < mss as u64 {
        return Err(ScenarioError::new(
            format!("{path}.rcv_buf"),
            format!("got {rcv_buf}; expected at least one MSS ({mss} bytes)"),
        ));
    }
    let read_rate = spec.read_rate.map(|r| r.0);
    if let (Some(r), Profile::Ns2) = (read_rate, profile) {
        return Err(ScenarioError::new(
            format!("{path}.read_rate"),
            format!(
                "got {r} bit/s with profile \"ns2\"; ns-2's one-way TCP sink has no receive \
                 buffer for a slow application to fill (choose profile \"rfc\" or \"linux-2.6\")"
            ),
        ));
    }
    let count = spec.delayed_ack_count.unwrap_or(2);
    if count == 0 {
        return Err(ScenarioError::new(
            format!("{path}.delayed_ack_count"),
            "got 0; expected at least 1",
        ));
    }
    let policy = spec.delayed_ack.unwrap_or(d.delayed_ack);
    // Linux's policy brings its own timer (the 40 ms minimum ATO) unless one is given.
    let default_timeout = if policy == DelayedAckSpec::Linux {
        40 * MILLISECOND
    } else {
        d.delack_timeout
    };
    let timeout = spec
        .delayed_ack_timeout
        .map(|x| x.0)
        .unwrap_or(default_timeout);
    if timeout == 0 || timeout > 500 * MILLISECOND {
        return Err(ScenarioError::new(
            format!("{path}.delayed_ack_timeout"),
            format!("got {timeout} ns; expected more than 0 and at most 500ms (RFC 1122)"),
        ));
    }
    // Linux (tcp_incr_quickack) acknowledges rcv_wnd / (2·MSS) segments at once, 2 to 16,
    // with the receive window as it is when data starts: tcp_select_initial_window in 2.6.x
    // opens it at 4·MSS (3 above 1460 bytes, 2 above 4380), so 2 quick ACKs.
    let initial_rcv_wnd = rcv_buf.min(
        match mss {
            0..=1460 => 4,
            1461..=4380 => 3,
            _ => 2,
        } * mss as u64,
    );
    let delayed_ack = match policy {
        DelayedAckSpec::Off => DelayedAck::Off,
        DelayedAckSpec::On => DelayedAck::Every {
            count,
            timeout,
            quickacks: spec.quickacks.unwrap_or(0),
        },
        DelayedAckSpec::Linux => DelayedAck::Linux {
            timeout,
            quickacks: spec
                .quickacks
                .unwrap_or_else(|| (initial_rcv_wnd / (2 * mss as u64)).clamp(2, 16) as u32),
        },
    };
    let mut dupthresh = spec.dupthresh.unwrap_or(3);
    if dupthresh == 0 {
        return Err(ScenarioError::new(
            format!("{path}.dupthresh"),
            "got 0; expected at least 1",
        ));
    }
    let fast_retransmit = spec.fast_retransmit.unwrap_or(true);
    if !fast_retransmit {
        // Loss is repaired by the retransmission timer alone (YATS' FRETR = 0).
        for (set, name) in [
            (spec.dupthresh.is_some(), "dupthresh"),
            (spec.limited_transmit == Some(true), "limited_transmit"),
        ] {
            if set {
                return Err(ScenarioError::new(
                    format!("{path}.{name}"),
                    "is set but fast_retransmit = false: duplicate ACKs trigger nothing",
                ));
            }
        }
        dupthresh = u32::MAX;
    }
    let rto_min = spec.rto_min.map(|x| x.0).unwrap_or(d.rto_min);
    let rto_max = spec.rto_max.map(|x| x.0).unwrap_or(d.rto_max);
    let rto_initial = spec.rto_initial.map(|x| x.0).unwrap_or(d.rto_initial);
    if rto_min == 0 || rto_max < rto_min {
        return Err(ScenarioError::new(
            format!("{path}.rto_max"),
            format!(
                "got rto_min {rto_min} ns and rto_max {rto_max} ns; expected 0 < rto_min ≤ rto_max"
            ),
        ));
    }
    if rto_initial == 0 {
        return Err(ScenarioError::new(
            format!("{path}.rto_initial"),
            "got 0; expected a positive duration",
        ));
    }
    let initial_window = match spec.initial_window.unwrap_or(d.iw) {
        IwSpec::Segments(n) => InitialWindow::Segments(n),
        IwSpec::Rule(IwRule::Rfc3390) => InitialWindow::Rfc3390,
        IwSpec::Rule(IwRule::Linux26) => InitialWindow::Linux26,
        IwSpec::Rule(IwRule::Rfc6928) => InitialWindow::Rfc6928,
    };
    if spec.snd_buf.is_some_and(|b| b.0 == 0) {
        return Err(ScenarioError::new(
            format!("{path}.snd_buf"),
            "got 0; expected at least one byte (leave it out for an unlimited send buffer)",
        ));
    }
    if let Some(t) = spec.initial_ssthresh {
        if t.0 < 2 * mss as u64 {
            return Err(ScenarioError::new(
                format!("{path}.initial_ssthresh"),
                format!(
                    "got {} bytes; expected at least 2·MSS = {} bytes (RFC 5681's floor)",
                    t.0,
                    2 * mss
                ),
            ));
        }
    }
    if spec.ful_high == Some(0) {
        return Err(ScenarioError::new(
            format!("{path}.ful_high"),
            "got 0; expected at least 1 packet waiting in the uplink buffer",
        ));
    }
    let ful = match spec.ful {
        Some(true) => {
            let bit = spec.ful_bit.unwrap_or(4);
            if !(4..=6).contains(&bit) {
                return Err(ScenarioError::new(format!("{path}.ful_bit"), format!("got {bit}; expected 4, 5 or 6 (a reserved bit of TCP header byte 12; bit 7 is AccECN's AE)")));
            }
            if let (Some(h), Some(l)) = (spec.ful_high, spec.ful_low) {
                if l >= h {
                    return Err(ScenarioError::new(
                        format!("{path}.ful_low"),
                        format!("got {l}; expected less than ful_high ({h})"),
                    ));
                }
            }
            let safety = spec.ful_safety_timer.map(|d| d.0).unwrap_or(SECOND);
            if safety == 0 {
                return Err(ScenarioError::new(
                    format!("{path}.ful_safety_timer"),
                    "got 0; expected a positive duration",
                ));
            }
            Some(crate::tcp::ful::FulConfig {
                high: spec.ful_high,
                low: spec.ful_low,
                safety,
                bit,
            })
        }
        _ => {
            for (set, name) in [
                (spec.ful_high.is_some(), "ful_high"),
                (spec.ful_low.is_some(), "ful_low"),
                (spec.ful_safety_timer.is_some(), "ful_safety_timer"),
                (spec.ful_bit.is_some(), "ful_bit"),
            ] {
                if set {
                    return Err(ScenarioError::new(
                        format!("{path}.{name}"),
                        "is set but ful is not true",
                    ));
                }
            }
            None
        }
    };
    let max_cwnd = spec.max_cwnd.map(|s| s.0);
    if let Some(m) = max_cwnd {
        if m < mss as u64 {
            return Err(ScenarioError::new(
                format!("{path}.max_cwnd"),
                format!("got {m}; expected at least one MSS ({mss} bytes)"),
            ));
        }
    }
    let recovery = match spec.recovery.unwrap_or(RecoverySpec::Newreno) {
        RecoverySpec::Tahoe => Recovery::Tahoe,
        RecoverySpec::Reno => Recovery::Reno,
        RecoverySpec::Newreno => Recovery::NewReno,
        RecoverySpec::Sack1 => Recovery::Sack1,
        RecoverySpec::Sackplus => Recovery::SackPlus,
        RecoverySpec::Rfc6675 => Recovery::Rfc6675,
        RecoverySpec::RackTlp => Recovery::RackTlp,
    };
    let cwnd_unit = spec.cwnd_unit.unwrap_or(d.cwnd_unit);
    if spec.precision_reduce == Some(true) && cwnd_unit != CwndUnitSpec::Ns2 {
        return Err(ScenarioError::new(
            format!("{path}.precision_reduce"),
            "needs cwnd_unit = \"ns2\" (ns-2's fractional window arithmetic)",
        ));
    }
    if spec.sackplus_detect.is_some() && recovery != Recovery::SackPlus {
        return Err(ScenarioError::new(
            format!("{path}.sackplus_detect"),
            format!(
                "applies to recovery = \"sackplus\" only (this flow's recovery is \"{}\")",
                recovery.name()
            ),
        ));
    }
    // SACK-based recovery needs the receiver to send SACK blocks: on unless switched off.
    let sack = match spec.sack {
        Some(false) if recovery.uses_sack() => {
            return Err(ScenarioError::new(
                format!("{path}.sack"),
                format!("got false; recovery \"{}\" needs SACK (set sack = true or choose tahoe, reno or newreno)", recovery.name()),
            ))
        }
        Some(v) => v,
        None => recovery.uses_sack() || d.sack,
    };
    let prr = spec.prr.unwrap_or(false);
    if prr && !matches!(recovery, Recovery::Rfc6675 | Recovery::RackTlp) {
        return Err(ScenarioError::new(
            format!("{path}.prr"),
            format!(
                "got true with recovery \"{}\"; Proportional Rate Reduction paces SACK \
                 recovery: choose recovery = \"rfc6675\" or \"rack-tlp\"",
                recovery.name()
            ),
        ));
    }
    let sack_option_ns2 = spec.sack_option.unwrap_or(d.sack_option) == SackOptionSpec::Ns2;
    let dsack = spec.dsack.unwrap_or(d.dsack) && sack && !sack_option_ns2;
    if spec.dsack == Some(true) && !dsack {
        return Err(ScenarioError::new(
            format!("{path}.dsack"),
            "got true; D-SACK blocks need SACK (sack = true) with sack_option = \"rfc2018\"",
        ));
    }
    let undo = spec.undo.unwrap_or(false);
    if undo {
        let why = if !dsack {
            Some("needs D-SACK (dsack = true): D-SACKs are how the sender learns a retransmission was not needed")
        } else if !recovery.uses_sack() {
            Some("applies to SACK recovery (rfc6675, rack-tlp, sackplus, sack1)")
        } else if prr {
            Some("does not combine with prr: PRR sets cwnd on every ACK of a recovery")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ScenarioError::new(
                format!("{path}.undo"),
                format!("got true; it {why}"),
            ));
        }
    }
    let max_blocks = if timestamps { 3 } else { 4 };
    let sack_blocks = spec
        .sack_blocks
        .unwrap_or(d.sack_blocks.unwrap_or(max_blocks).min(max_blocks));
    if !(1..=max_blocks).contains(&sack_blocks) {
        return Err(ScenarioError::new(
            format!("{path}.sack_blocks"),
            format!(
                "got {sack_blocks}; expected 1 to {max_blocks} (TCP option space{})",
                if timestamps { " with timestamps" } else { "" }
            ),
        ));
    }
    Ok(TcpConfig {
        profile: name,
        cc,
        recovery,
        mss,
        mtu: mtu as u32,
        timestamps,
        sack,
        sack_blocks,
        window_scale: spec.window_scale.unwrap_or(d.window_scale),
        rcv_buf,
        read_rate,
        snd_buf: spec.snd_buf.map(|s| s.0.max(1)),
        initial_window,
        initial_ssthresh: spec
            .initial_ssthresh
            .map(|s| s.0.max(2 * mss as u64))
            .unwrap_or(u64::MAX / 4),
        max_cwnd,
        cwnd_unit: match cwnd_unit {
            CwndUnitSpec::Bytes => CwndUnit::Bytes,
            CwndUnitSpec::Packets | CwndUnitSpec::Ns2 => CwndUnit::Packets,
        },
        ns2_window: cwnd_unit == CwndUnitSpec::Ns2,
        // ns-2.35's precisionReduce_ default (true since 2006) goes with its arithmetic.
        precision_reduce: spec
            .precision_reduce
            .unwrap_or(cwnd_unit == CwndUnitSpec::Ns2),
        ns2_fr_guard: spec.fr_guard.unwrap_or(d.fr_guard) == FrGuardSpec::Ns2,
        ns2_handshake: spec.handshake.unwrap_or(d.handshake) == HandshakeSpec::Ns2,
        halving_base: match spec.halving_base.unwrap_or(d.halving) {
            HalvingSpec::Flight => HalvingBase::Flight,
            HalvingSpec::Window => HalvingBase::Window,
            HalvingSpec::Pipe => HalvingBase::Pipe,
        },
        delayed_ack,
        nagle: match spec.nagle.unwrap_or(d.nagle) {
            NagleSpec::Off => Nagle::Off,
            NagleSpec::Rfc896 => Nagle::Rfc896,
            NagleSpec::Minshall => Nagle::Minshall,
        },
        packetization: match spec.packetization.unwrap_or(d.packetization) {
            PacketizationSpec::Stream => Packetization::Stream,
            PacketizationSpec::Write => Packetization::Write,
        },
        limited_transmit: fast_retransmit && spec.limited_transmit.unwrap_or(d.limited_transmit),
        slow_start_after_idle: spec
            .slow_start_after_idle
            .unwrap_or(d.slow_start_after_idle),
        prr,
        dsack,
        undo,
        pacing: spec.pacing.unwrap_or(false),
        // DCTCP needs ECN: it is on unless the scenario turned it off (refused above).
        ecn,
        ecn_all_packets: ecn && spec.ecn_all_packets.unwrap_or(cc == CcKind::Dctcp),
        ect1: spec.ecn_codepoint == Some(EcnCodepointSpec::Ect1),
        ful,
        // SACK recovery restarts the timer on every partial ACK (RFC 6298 §5.3) unless the
        // scenario asks for the impatient rule (ns-3 applies it to SACK recovery too).
        partial_ack_timer: match spec.partial_ack_timer.unwrap_or(if recovery.uses_sack() {
            PartialAckTimerSpec::SlowButSteady
        } else {
            d.partial_ack_timer
        }) {
            PartialAckTimerSpec::Impatient => PartialAckTimer::Impatient,
            PartialAckTimerSpec::SlowButSteady => PartialAckTimer::SlowButSteady,
        },
        grow_on_exit: match spec.grow_on_exit {
            Some(true) if !recovery.uses_sack() && recovery != Recovery::NewReno => {
                return Err(ScenarioError::new(
                    format!("{path}.grow_on_exit"),
                    "applies to SACK recovery (rfc6675, rack-tlp, sack1, sackplus) and \
                     newreno; set recovery to one of them or leave grow_on_exit out",
                ))
            }
            Some(true) if cwnd_unit == CwndUnitSpec::Ns2 => {
                return Err(ScenarioError::new(
                    format!("{path}.grow_on_exit"),
                    "is ns-3's rule; ns-2's arithmetic (cwnd_unit = \"ns2\") leaves recovery \
                     its own way",
                ))
            }
            g => g.unwrap_or(false),
        },
        byte_counting: match spec.byte_counting {
            None | Some(ByteCountingSpec::Off) => ByteCounting::Off,
            Some(_) if cwnd_unit != CwndUnitSpec::Bytes => {
                return Err(ScenarioError::new(
                    format!("{path}.byte_counting"),
                    "counts bytes: it needs cwnd_unit = \"bytes\" (this flow counts packets)",
                ))
            }
            Some(ByteCountingSpec::Rfc3465) => ByteCounting::Rfc3465,
            Some(ByteCountingSpec::Full) => ByteCounting::Full,
        },
        cwnd_growth: match spec.cwnd_growth.unwrap_or(d.cwnd_growth) {
            CwndGrowthSpec::Always => CwndGrowth::Always,
            CwndGrowthSpec::CwndLimited => CwndGrowth::CwndLimited,
            CwndGrowthSpec::Linux => CwndGrowth::Linux,
        },
        hystart: match spec.hystart {
            None | Some(HyStartSpec::Off) => HyStartMode::Off,
            Some(HyStartSpec::Linux) => HyStartMode::Linux,
            Some(HyStartSpec::Ns3) => HyStartMode::Ns3,
            Some(HyStartSpec::Rfc9406) => HyStartMode::Rfc9406,
        },
        sackplus_detect_once: spec.sackplus_detect == Some(SackPlusDetectSpec::Once),
        sack_option_ns2,
        maxburst: match spec.maxburst {
            Some(0) => {
                return Err(ScenarioError::new(
                    format!("{path}.maxburst"),
                    "got 0; expected at least 1 segment per ACK (leave it out for no cap)",
                ))
            }
            m => m,
        },
        dupthresh,
        rto_initial,
        rto_min,
        rto_max,
        clock_granularity: spec.clock_granularity.map(|x| x.0).unwrap_or(d.granularity),
    })
}

/// Profile defaults.
struct Defaults {
    mss: Option<u32>,
    timestamps: bool,
    sack: bool,
    window_scale: bool,
    rcv_buf: u64,
    iw: IwSpec,
    cwnd_unit: CwndUnitSpec,
    halving: HalvingSpec,
    delayed_ack: DelayedAckSpec,
    delack_timeout: Time,
    nagle: NagleSpec,
    packetization: PacketizationSpec,
    limited_transmit: bool,
    slow_start_after_idle: bool,
    dsack: bool,
    partial_ack_timer: PartialAckTimerSpec,
    /// Most SACK blocks per ACK (None: as many as the option space holds).
    sack_blocks: Option<u8>,
    sack_option: SackOptionSpec,
    fr_guard: FrGuardSpec,
    handshake: HandshakeSpec,
    rto_initial: Time,
    rto_min: Time,
    rto_max: Time,
    granularity: Time,
    cwnd_growth: CwndGrowthSpec,
}

fn defaults(p: Profile) -> (&'static str, Defaults) {
    match p {
        // RFC 5681/6298/3390/3042/1122 as written.
        Profile::Rfc => (
            "rfc",
            Defaults {
                mss: None,
                timestamps: false,
                sack: false,
                window_scale: true,
                rcv_buf: 4 << 20,
                iw: IwSpec::Rule(IwRule::Rfc3390),
                cwnd_unit: CwndUnitSpec::Bytes,
                halving: HalvingSpec::Flight,
                delayed_ack: DelayedAckSpec::On,
                delack_timeout: 200 * MILLISECOND,
                nagle: NagleSpec::Rfc896,
                packetization: PacketizationSpec::Stream,
                limited_transmit: true,
                slow_start_after_idle: false,
                dsack: false,
                partial_ack_timer: PartialAckTimerSpec::Impatient,
                sack_blocks: None,
                sack_option: SackOptionSpec::Rfc2018,
                fr_guard: FrGuardSpec::Rfc6582,
                handshake: HandshakeSpec::Rfc,
                rto_initial: SECOND,
                rto_min: SECOND,
                rto_max: 60 * SECOND,
                granularity: MILLISECOND,
                cwnd_growth: CwndGrowthSpec::Always,
            },
        ),
        // Linux 2.6.15-era: timestamps (MSS 1448), IW table, packet-counted cwnd, quick-ACK
        // then 40 ms delayed ACKs, Minshall's Nagle, RTO 3 s initial / 200 ms min.
        Profile::Linux26 => (
            "linux-2.6",
            Defaults {
                mss: None,
                timestamps: true,
                sack: true,
                window_scale: true,
                rcv_buf: 87_380,
                iw: IwSpec::Rule(IwRule::Linux26),
                cwnd_unit: CwndUnitSpec::Packets,
                halving: HalvingSpec::Window,
                delayed_ack: DelayedAckSpec::Linux,
                delack_timeout: 40 * MILLISECOND,
                nagle: NagleSpec::Minshall,
                packetization: PacketizationSpec::Write,
                limited_transmit: true,
                // net.ipv4.tcp_slow_start_after_idle = 1.
                slow_start_after_idle: true,
                // net.ipv4.tcp_dsack = 1.
                dsack: true,
                partial_ack_timer: PartialAckTimerSpec::Impatient,
                sack_blocks: None,
                sack_option: SackOptionSpec::Rfc2018,
                fr_guard: FrGuardSpec::Rfc6582,
                handshake: HandshakeSpec::Rfc,
                rto_initial: 3 * SECOND,
                rto_min: 200 * MILLISECOND,
                rto_max: 120 * SECOND,
                granularity: MILLISECOND,
                // tcp_reno_cong_avoid and bictcp_cong_avoid return at once unless
                // tcp_is_cwnd_limited (in_flight >= snd_cwnd without TSO).
                cwnd_growth: CwndGrowthSpec::CwndLimited,
            },
        ),
        // ns-2.35 Agent/TCP defaults: packetSize_ 1000, window_ 20, windowInit_ 2, no
        // delayed ACK (TCPSink), tcpTick_ 10 ms, minrto_ 0.2 s, rtxcur_init_ 3 s,
        // singledup_ 1, precisionReduce_ true, TCP/Newreno newreno_changes1_ 1.
        Profile::Ns2 => (
            "ns2",
            Defaults {
                mss: Some(1000),
                timestamps: false,
                sack: false,
                window_scale: false,
                rcv_buf: 20_000,
                iw: IwSpec::Segments(2),
                cwnd_unit: CwndUnitSpec::Ns2,
                halving: HalvingSpec::Window,
                delayed_ack: DelayedAckSpec::Off,
                delack_timeout: 100 * MILLISECOND,
                nagle: NagleSpec::Off,
                packetization: PacketizationSpec::Stream,
                limited_transmit: true,
                slow_start_after_idle: false,
                dsack: false,
                // newreno_changes1_ 1: only the first partial ACK restarts the timer.
                partial_ack_timer: PartialAckTimerSpec::Impatient,
                // TCPSink maxSackBlocks_ 3.
                sack_blocks: Some(3),
                sack_option: SackOptionSpec::Ns2,
                fr_guard: FrGuardSpec::Ns2,
                handshake: HandshakeSpec::Ns2,
                rto_initial: 3 * SECOND,
                rto_min: 200 * MILLISECOND,
                rto_max: 60 * SECOND,
                granularity: 10 * MILLISECOND,
                // opencwnd() runs on every new ACK.
                cwnd_growth: CwndGrowthSpec::Always,
            },
        ),
    }
}
