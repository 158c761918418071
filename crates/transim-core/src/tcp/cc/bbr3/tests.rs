//! BBR v3's loss responses and bounds, step by step against the draft's pseudocode.

use super::*;
use crate::tcp::rate::LostTransmission;

const MSS: u64 = 1000;

fn window(cwnd: u64) -> Window {
    Window {
        cwnd,
        ..crate::tcp::cc::test_support::window(0, 0)
    }
}

/// A flow whose model is 1.25 MB/s over 40 ms: a BDP of 50,000 bytes.
fn probing(state: State) -> Bbr3 {
    let mut max_bw_filter = TwoCycleMax::default();
    max_bw_filter.update(1.25e6);
    Bbr3 {
        state,
        max_bw_filter,
        max_bw: 1.25e6,
        bw: 1.25e6,
        min_rtt: 40 * MILLISECOND,
        full_bw_reached: true,
        bw_probe_samples: true,
        ..Bbr3::default()
    }
}

fn lost(start: u64, tx_in_flight: u64, lost_since: u64) -> LostTransmission {
    LostTransmission {
        range: (start, start + MSS),
        tx_in_flight,
        lost_since,
        app_limited: false,
        delivered: 500_000,
    }
}

fn ack(recovering: bool, delivered: u64) -> AckInfo {
    AckInfo {
        now: SECOND,
        acked: MSS,
        rtt: None,
        srtt: 40 * MILLISECOND,
        min_rtt: 40 * MILLISECOND,
        flight: 0,
        pipe: Some(0),
        recovering,
        delivered,
        sample: None,
    }
}

/// The filter holds this cycle's and the last cycle's largest samples; a cycle without one
/// keeps the older cycle (else the estimate would fall to 0).
#[test]
fn the_bandwidth_filter_spans_two_cycles() {
    let mut f = TwoCycleMax::default();
    f.update(5.0);
    f.advance();
    f.update(3.0);
    assert_eq!(f.max(), 5.0);
    f.advance();
    assert_eq!(f.max(), 3.0);
    f.advance();
    assert_eq!(f.max(), 3.0, "an empty cycle forgets nothing");
    f.update(4.0);
    assert_eq!(f.max(), 4.0);
}

/// In UP, a loss whose transmission left 101 segments in flight, with 3 lost since (2.97 %,
/// over 2 %): the bound is where 2 % was crossed, (0.02 · 100,000 − 2,000) / 0.98 = 0
/// bytes into it, i.e. 100,000 — above 0.7 of the 50,000-byte BDP — and the flow goes
/// DOWN. A second loss of the same probe changes nothing.
#[test]
fn a_probe_losing_over_two_percent_sets_the_bound_and_goes_down() {
    let mut b = probing(State::ProbeBwUp);
    let w = window(100_000);
    b.handle_lost(&w, &lost(0, 101_000, 3_000), SECOND);
    assert_eq!(b.inflight_longterm, 100_000);
    assert_eq!(b.state, State::ProbeBwDown);
    assert!(!b.bw_probe_samples);
    b.state = State::ProbeBwUp;
    b.handle_lost(&w, &lost(5_000, 60_000, 10_000), SECOND);
    assert_eq!(b.inflight_longterm, 100_000, "one response per probe");
    assert_eq!(b.state, State::ProbeBwUp);
}

/// Under 2 % (1 lost of 101 in flight), nothing is bounded; far over it, the bound never
/// falls below 0.7 of the target in flight (min(BDP, cwnd) = 50,000 → 35,000).
#[test]
fn the_bound_needs_two_percent_and_keeps_beta_of_the_target() {
    let mut b = probing(State::ProbeBwUp);
    let w = window(100_000);
    b.handle_lost(&w, &lost(0, 101_000, 1_000), SECOND);
    assert_eq!(b.inflight_longterm, u64::MAX);
    assert_eq!(b.state, State::ProbeBwUp);
    b.handle_lost(&w, &lost(2_000, 20_000, 10_000), SECOND);
    assert_eq!(b.inflight_longterm, 35_000);
    // An application-limited transmission stops the probe but sets no bound.
    let mut b = probing(State::ProbeBwUp);
    let l = LostTransmission {
        app_limited: true,
        ..lost(0, 101_000, 3_000)
    };
    b.handle_lost(&w, &l, SECOND);
    assert_eq!(
        (b.inflight_longterm, b.state),
        (u64::MAX, State::ProbeBwDown)
    );
}

/// Outside probing, the first round with a loss sets the short-term model from the long one
/// and cuts it: bw_shortterm = max(bw_latest, 0.7 · max_bw), inflight_shortterm =
/// max(inflight_latest, 0.7 · cwnd). While probing (REFILL) a lossy round cuts nothing.
#[test]
fn a_lossy_round_outside_probing_cuts_the_short_term_model() {
    for (state, cut) in [(State::ProbeBwCruise, true), (State::ProbeBwRefill, false)] {
        let mut b = probing(state);
        b.bw_probe_samples = false;
        b.handle_lost(&window(80_000), &lost(0, 80_000, 1_000), SECOND);
        assert!(b.loss_in_round);
        b.bw_latest = 0.5e6;
        b.inflight_latest = 30_000;
        // The ACK that ends the loss round: its segment was sent after the loss.
        let rs = Rs {
            has_data: true,
            delivery_rate: 0.4e6,
            delivered: 20_000,
            prior_delivered: 500_000,
            ..Rs::default()
        };
        b.update_latest_delivery_signals(&rs, 510_000);
        assert!(b.loss_round_start);
        b.update_congestion_signals(&rs, 510_000, 80_000);
        if cut {
            assert_eq!(b.bw_shortterm, 0.7 * 1.25e6);
            assert_eq!(b.inflight_shortterm, 56_000);
        } else {
            assert!(b.bw_shortterm.is_infinite());
            assert_eq!(b.inflight_shortterm, u64::MAX);
        }
        assert!(!b.loss_in_round, "the round's loss is spent");
    }
}

/// In UP, with cwnd at the bound and cwnd-limited, inflight_longterm grows by one segment
/// per cwnd of data acknowledged in the first round, two in the second, four in the third.
#[test]
fn the_bound_grows_one_two_four_segments_a_round() {
    let cwnd = 100 * MSS;
    let mut b = probing(State::ProbeBwUp);
    b.inflight_longterm = cwnd;
    b.cwnd_limited_in_round = true;
    b.raise_inflight_longterm_slope(cwnd, MSS);
    let acked = Rs {
        newly_acked: MSS,
        ..Rs::default()
    };
    let mut growth = vec![];
    for _ in 0..3 {
        let before = b.inflight_longterm;
        for _ in 0..100 {
            b.probe_inflight_longterm_upward(&acked, b.inflight_longterm, MSS);
        }
        growth.push(b.inflight_longterm - before);
        b.round_start = true;
        b.probe_inflight_longterm_upward(&Rs::default(), b.inflight_longterm, MSS);
        b.round_start = false;
    }
    // Each round divides the bound it began with by its growth: ⌊100,000 / 1,000⌋ = 100,
    // ⌊101,000 / 2,000⌋ = 50 and ⌊103,000 / 4,000⌋ = 25 segments acknowledged per step.
    assert_eq!(growth, vec![MSS, 2 * MSS, 4 * MSS]);
}

/// Startup ends on loss after a round of recovery that lost over 2 % in six separate
/// ranges; contiguous lost segments are one range, and five ranges are not enough.
#[test]
fn startup_ends_on_six_lost_ranges_over_two_percent() {
    for (starts, ends) in [
        (vec![0, 2, 4, 6, 8, 10], true),
        (vec![0, 2, 4, 6, 8], false),
        (vec![0, 1, 2, 3, 4, 5, 6, 8, 10, 12], false),
    ] {
        let mut b = Bbr3 {
            max_bw: 1.25e6,
            bw: 1.25e6,
            min_rtt: 40 * MILLISECOND,
            ..Bbr3::default()
        };
        for s in &starts {
            b.handle_lost(&window(100_000), &lost(s * MSS, 100_000, 500), SECOND);
        }
        b.inflight_latest = 70_000;
        b.loss_round_start = true;
        let rs = Rs {
            has_data: true,
            tx_in_flight: 100_000,
            lost: 3_000,
            ..Rs::default()
        };
        b.check_startup_done(&rs, &ack(true, 600_000));
        assert_eq!(b.full_bw_reached, ends, "lost at {starts:?}");
        if ends {
            assert_eq!(b.state, State::Drain);
            assert_eq!(
                b.inflight_longterm, 70_000,
                "max(BDP 50,000, last round's 70,000)"
            );
        } else {
            assert_eq!(b.state, State::Startup);
        }
        assert_eq!(b.loss_ranges_in_round, 0, "counted afresh each round");
    }
}
