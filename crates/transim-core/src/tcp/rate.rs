//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation): every transmission
//! snapshots how much the connection had delivered and when; when the segment is delivered
//! (cumulatively ACKed or SACKed) the data delivered since that snapshot, over the longer of
//! the send and ACK intervals, is one sample of the delivery rate. BBR builds its bottleneck
//! bandwidth estimate from these samples; other algorithms may read them too.
//!
//! A connection keeps this state ([`RateState`]) only if its congestion control reads it,
//! or may switch to one that does. The snapshots then live beside the retransmission queue,
//! in step with it, so that the queue's entries stay small for every other connection.

use crate::sim::Time;
use std::collections::VecDeque;

/// A connection's delivery-rate state, if it keeps one: off its sender's hot lines, which
/// it would otherwise widen for every connection that does not.
#[derive(Clone, Debug, Default)]
pub struct RateState(Option<Box<Kept>>);

/// The kept state: the sampler and the send snapshot of each segment in the retransmission
/// queue, oldest first.
#[derive(Clone, Debug, Default)]
struct Kept {
    rate: DeliveryRate,
    snaps: VecDeque<SendSnapshot>,
}

impl LostTransmission {
    /// Payload bytes lost.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.range.1 - self.range.0
    }
}

impl RateState {
    /// Keep the state from now on: called before the connection sends anything (in the
    /// middle of a connection, [`RateState::keep_from`]).
    pub fn keep(&mut self) {
        self.0.get_or_insert_with(Default::default);
    }

    /// Whether the state is kept.
    #[inline]
    pub fn kept(&self) -> bool {
        self.0.is_some()
    }

    /// The connection is application-limited: its samples are marked so until the data in
    /// flight when it became so is delivered (false if the state is not kept).
    #[inline]
    pub fn app_limited(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|k| k.rate.app_limited_until != 0)
    }

    /// Start keeping the state in the middle of a connection with `in_queue` segments
    /// outstanding: they count as sent now, by an idle connection. Nothing changes if it
    /// is kept already.
    pub fn keep_from(&mut self, now: Time, in_queue: usize) {
        if self.kept() {
            return;
        }
        let k = self.0.get_or_insert_with(Default::default);
        let snap = k.rate.on_send(now, true, 0);
        k.snaps = std::iter::repeat_n(snap, in_queue).collect();
    }

    /// Payload bytes delivered so far (0 if the state is not kept).
    #[inline]
    pub fn delivered(&self) -> u64 {
        self.0.as_ref().map_or(0, |k| k.rate.delivered)
    }

    /// A new segment joins the back of the retransmission queue, sent at `now` (`idle`:
    /// nothing was outstanding), leaving `in_flight` bytes in the network, its own included.
    #[inline]
    pub fn on_sent_new(&mut self, now: Time, idle: bool, in_flight: u64) {
        if let Some(k) = self.0.as_deref_mut() {
            let snap = k.rate.on_send(now, idle, in_flight);
            k.snaps.push_back(snap);
        }
    }

    /// The segment at position `pos` of the retransmission queue, sequence `range`, is sent
    /// again at `now`, leaving `in_flight` bytes in the network. Sending it again is the
    /// sender's verdict that its last transmission was lost: its bytes count as lost, and
    /// what that transmission's snapshot knew is returned (`None` if the state is not kept).
    #[inline]
    pub fn on_resent(
        &mut self,
        pos: usize,
        now: Time,
        idle: bool,
        range: (u64, u64),
        in_flight: u64,
    ) -> Option<LostTransmission> {
        let k = self.0.as_deref_mut()?;
        let bytes = range.1 - range.0;
        k.rate.lost += bytes;
        let old = k.snaps[pos];
        k.snaps[pos] = k.rate.on_send(now, idle, in_flight);
        Some(LostTransmission {
            range,
            tx_in_flight: old.tx_in_flight,
            lost_since: k.rate.lost - old.lost,
            app_limited: old.app_limited,
            delivered: k.rate.delivered,
        })
    }

    /// `bytes` of the segment at position `pos` of the retransmission queue, last sent at
    /// `sent`, are delivered at `now`.
    #[inline]
    pub fn on_delivered(&mut self, pos: usize, bytes: u64, sent: Time, now: Time) {
        if let Some(k) = self.0.as_deref_mut() {
            let snap = k.snaps[pos];
            k.rate.on_delivered(bytes, sent, &snap, now);
        }
    }

    /// The oldest segment leaves the retransmission queue.
    #[inline]
    pub fn on_popped(&mut self) {
        if let Some(k) = self.0.as_deref_mut() {
            k.snaps.pop_front();
        }
    }

    /// See [`DeliveryRate::mark_app_limited`].
    #[inline]
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        if let Some(k) = self.0.as_deref_mut() {
            k.rate.mark_app_limited(in_flight);
        }
    }

    /// The snapshots held (for tests: one per segment in the retransmission queue).
    #[cfg(test)]
    pub(crate) fn snapshots(&self) -> usize {
        self.0.as_ref().map_or(0, |k| k.snaps.len())
    }

    /// See [`DeliveryRate::take_sample`] (`None` if the state is not kept).
    #[inline]
    pub fn take_sample(&mut self, min_rtt: Time) -> Option<RateSample> {
        self.0.as_deref_mut()?.rate.take_sample(min_rtt)
    }
}

/// A transmission the sender has judged lost (by sending its data again), as its send
/// snapshot saw the connection (BBR v3's per-loss step, draft-ietf-ccwg-bbr §5.5.10.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LostTransmission {
    /// Its sequence range, `[start, end)`.
    pub range: (u64, u64),
    /// Bytes in flight just after it was sent (its own included).
    pub tx_in_flight: u64,
    /// Bytes judged lost since it was sent, its own included.
    pub lost_since: u64,
    /// It was sent while the connection was application-limited.
    pub app_limited: bool,
    /// Payload bytes delivered so far.
    pub delivered: u64,
}

/// The connection's delivery counters.
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    /// Payload bytes delivered (ACKed or SACKed) so far.
    pub delivered: u64,
    /// Payload bytes judged lost (sent again) so far.
    pub lost: u64,
    /// When `delivered` last grew.
    pub delivered_at: Time,
    /// Send time of the most recently delivered segment's transmission (the start of the
    /// current send interval).
    first_sent_at: Time,
    /// Non-zero while the connection is application-limited: the `delivered` value at which
    /// the limited period's data will all have been delivered.
    app_limited_until: u64,
    /// The sample being assembled from the segments this ACK delivers.
    pending: Pending,
}

/// What a transmission remembers about the connection when it leaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct SendSnapshot {
    /// `delivered` at send time.
    pub delivered: u64,
    /// `delivered_at` at send time.
    pub delivered_at: Time,
    /// Start of the send interval at send time.
    pub first_sent_at: Time,
    /// The connection was application-limited.
    pub app_limited: bool,
    /// Bytes in flight just after this transmission, its own included.
    pub tx_in_flight: u64,
    /// `lost` at send time.
    pub lost: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    /// Some segment was delivered by this ACK.
    any: bool,
    /// Bytes newly delivered by this ACK.
    bytes: u64,
    prior_delivered: u64,
    prior_time: Time,
    send_elapsed: Time,
    ack_elapsed: Time,
    app_limited: bool,
    tx_in_flight: u64,
    lost_at_send: u64,
}

/// One delivery-rate sample, produced per ACK that delivered data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Bytes delivered by this ACK (ACKed plus SACKed).
    pub newly_delivered: u64,
    /// `delivered` when the most recently sent of the delivered segments was sent (BBR's
    /// round-trip counter compares against it).
    pub prior_delivered: u64,
    /// Bytes delivered over the sample interval.
    pub delivered: u64,
    /// Sample interval (ns); `None` when shorter than the minimum RTT (not a valid rate).
    pub interval: Option<Time>,
    /// The sampled segment was sent while application-limited.
    pub app_limited: bool,
    /// Bytes in flight just after the sampled segment was sent.
    pub tx_in_flight: u64,
    /// Bytes judged lost between the sampled segment's transmission and this ACK.
    pub lost: u64,
}

impl RateSample {
    /// Delivery rate in bytes per second, when the interval is valid.
    #[inline]
    pub fn rate(&self) -> Option<f64> {
        self.interval
            .filter(|&i| i > 0)
            .map(|i| self.delivered as f64 * 1e9 / i as f64)
    }
}

impl DeliveryRate {
    /// Snapshot for a transmission at `now` that leaves `in_flight` bytes in the network;
    /// `idle` when nothing was outstanding, which restarts the send and ACK intervals.
    #[inline]
    pub fn on_send(&mut self, now: Time, idle: bool, in_flight: u64) -> SendSnapshot {
        if idle {
            self.first_sent_at = now;
            self.delivered_at = now;
        }
        SendSnapshot {
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent_at: self.first_sent_at,
            app_limited: self.app_limited_until != 0,
            tx_in_flight: in_flight,
            lost: self.lost,
        }
    }

    /// The connection has no data to send although the window would allow it: samples taken
    /// until the data now in flight is delivered are marked application-limited.
    #[inline]
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// A segment of `bytes` sent at `sent` with snapshot `snap` is delivered at `now`.
    #[inline]
    pub fn on_delivered(&mut self, bytes: u64, sent: Time, snap: &SendSnapshot, now: Time) {
        self.delivered += bytes;
        self.delivered_at = now;
        let p = &mut self.pending;
        p.bytes += bytes;
        if !p.any || snap.delivered > p.prior_delivered {
            p.any = true;
            p.prior_delivered = snap.delivered;
            p.prior_time = snap.delivered_at;
            p.app_limited = snap.app_limited;
            p.tx_in_flight = snap.tx_in_flight;
            p.lost_at_send = snap.lost;
            p.send_elapsed = sent.saturating_sub(snap.first_sent_at);
            p.ack_elapsed = now.saturating_sub(snap.delivered_at);
            self.first_sent_at = sent;
        }
    }

    /// Close this ACK's sample; `min_rtt` rejects intervals too short to be a real rate
    /// (`Time::MAX` when unknown: no sample is then valid).
    #[inline]
    pub fn take_sample(&mut self, min_rtt: Time) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let p = std::mem::take(&mut self.pending);
        if !p.any {
            return None;
        }
        let interval = p.send_elapsed.max(p.ack_elapsed);
        Some(RateSample {
            newly_delivered: p.bytes,
            prior_delivered: p.prior_delivered,
            delivered: self.delivered - p.prior_delivered,
            interval: (interval >= min_rtt && min_rtt != Time::MAX).then_some(interval),
            app_limited: p.app_limited,
            tx_in_flight: p.tx_in_flight,
            lost: self.lost - p.lost_at_send,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// A sender that sends one 1000-byte segment every 1 ms over a path with a 10 ms RTT
    /// delivers 1000 bytes per ms: every sample after the first round says 1 MB/s.
    #[test]
    fn steady_stream_samples_the_sending_rate() {
        let mut st = DeliveryRate::default();
        let mut sent: Vec<(Time, SendSnapshot)> = vec![];
        let mut samples = vec![];
        for k in 0..100u64 {
            let now = k * MS;
            // deliveries due now (sent 10 ms ago)
            if k >= 10 {
                let (t, snap) = sent[(k - 10) as usize];
                st.on_delivered(1000, t, &snap, now);
                samples.push(st.take_sample(10 * MS));
            }
            let snap = st.on_send(now, k == 0, 0);
            sent.push((now, snap));
        }
        // The first sample's ACK interval runs from the idle start: 1000 bytes in 10 ms.
        let first = samples[0].unwrap();
        assert_eq!(first.interval, Some(10 * MS));
        assert!((first.rate().unwrap() - 1e5).abs() < 1e-6);
        // A sample over less than the minimum RTT is not a rate.
        let mut short = DeliveryRate::default();
        let snap = short.on_send(0, true, 0);
        short.on_delivered(1000, 0, &snap, 5 * MS);
        assert_eq!(short.take_sample(10 * MS).unwrap().interval, None);
        let late = samples[20].unwrap();
        assert_eq!(late.newly_delivered, 1000);
        let r = late.rate().unwrap();
        assert!((r - 1e6).abs() < 1.0, "rate {r}");
    }

    /// Two segments delivered by one ACK: the sample follows the most recently sent one.
    #[test]
    fn one_ack_delivering_two_segments_samples_the_newer() {
        let mut st = DeliveryRate::default();
        let a = st.on_send(0, true, 0);
        st.on_delivered(500, 0, &a, 5 * MS);
        st.take_sample(MS);
        let b = st.on_send(6 * MS, false, 0);
        let c = st.on_send(7 * MS, false, 0);
        st.on_delivered(1000, 6 * MS, &b, 20 * MS);
        st.on_delivered(1000, 7 * MS, &c, 20 * MS);
        let s = st.take_sample(MS).unwrap();
        assert_eq!(s.newly_delivered, 2000);
        assert_eq!(s.prior_delivered, 500);
        assert_eq!(s.delivered, 2000);
        // ACK interval 20 − 5 ms exceeds the send interval 7 − 0 ms.
        assert_eq!(s.interval, Some(15 * MS));
    }

    /// As the draft says: the mark clears once more than the marked amount is delivered.
    #[test]
    fn app_limited_marks_samples_until_its_data_is_delivered() {
        let mut st = DeliveryRate::default();
        st.mark_app_limited(1000);
        let a = st.on_send(0, true, 0);
        assert!(a.app_limited);
        st.on_delivered(1000, 0, &a, 10 * MS);
        assert!(st.take_sample(MS).unwrap().app_limited);
        let b = st.on_send(10 * MS, true, 0);
        assert!(b.app_limited, "delivered 1000 is not beyond the mark 1000");
        st.on_delivered(1000, 10 * MS, &b, 20 * MS);
        assert!(st.take_sample(MS).unwrap().app_limited);
        let c = st.on_send(20 * MS, true, 0);
        assert!(!c.app_limited);
    }

    /// Kept, the connection's state gives the samples a sampler fed the same transmissions
    /// directly gives, each delivery paired with its own segment's snapshot by position;
    /// not kept, it gives none and counts nothing.
    #[test]
    fn the_kept_state_pairs_each_delivery_with_its_segment() {
        let (mut kept, mut not) = (RateState::default(), RateState::default());
        kept.keep();
        let mut direct = DeliveryRate::default();
        let mut snaps = VecDeque::new();
        for (k, st) in [&mut kept, &mut not].into_iter().enumerate() {
            for i in 0..4u64 {
                st.on_sent_new(i * MS, i == 0, (i + 1) * 1000);
                if k == 0 {
                    snaps.push_back(direct.on_send(i * MS, i == 0, (i + 1) * 1000));
                }
            }
        }
        // The third segment is SACKed first, then the first two are ACKed and leave.
        let samples = |st: &mut RateState| {
            st.on_delivered(2, 1000, 2 * MS, 12 * MS);
            let a = st.take_sample(MS);
            st.on_delivered(0, 1000, 0, 14 * MS);
            st.on_delivered(1, 1000, MS, 14 * MS);
            st.on_popped();
            st.on_popped();
            let b = st.take_sample(MS);
            // Position 0 is now the third segment, already delivered; the fourth is resent.
            let lost = st.on_resent(1, 15 * MS, false, (3000, 4000), 2000);
            st.on_delivered(1, 1000, 15 * MS, 25 * MS);
            (a, b, st.take_sample(MS), lost)
        };
        direct.on_delivered(1000, 2 * MS, &snaps[2], 12 * MS);
        let a = direct.take_sample(MS);
        direct.on_delivered(1000, 0, &snaps[0], 14 * MS);
        direct.on_delivered(1000, MS, &snaps[1], 14 * MS);
        let b = direct.take_sample(MS);
        direct.lost += 1000;
        let resent = direct.on_send(15 * MS, false, 2000);
        direct.on_delivered(1000, 15 * MS, &resent, 25 * MS);
        let c = direct.take_sample(MS);
        assert!(a.is_some() && b.is_some() && c.is_some());
        // The fourth segment's first transmission left 4000 bytes in flight; it is the only
        // loss since.
        let lost = Some(LostTransmission {
            range: (3000, 4000),
            tx_in_flight: 4000,
            lost_since: 1000,
            app_limited: false,
            delivered: 3000,
        });
        assert_eq!(samples(&mut kept), (a, b, c, lost));
        assert_eq!(c.unwrap().tx_in_flight, 2000);
        assert_eq!(kept.delivered(), 4000);
        assert_eq!(kept.snapshots(), 2);
        assert_eq!(samples(&mut not), (None, None, None, None));
        assert_eq!((not.delivered(), not.snapshots()), (0, 0));
    }
    /// A sample carries the in-flight volume its segment left and the losses judged since
    /// it was sent (BBR v3's loss rate per round: lost / tx_in_flight).
    #[test]
    fn samples_carry_in_flight_at_send_and_losses_since() {
        let mut st = DeliveryRate::default();
        let a = st.on_send(0, true, 1000);
        st.on_delivered(1000, 0, &a, 10 * MS);
        let s = st.take_sample(MS).unwrap();
        assert_eq!((s.tx_in_flight, s.lost), (1000, 0));
        let b = st.on_send(10 * MS, false, 2000);
        // Two earlier segments are judged lost after `b` was sent.
        st.lost += 3000;
        st.on_delivered(1000, 10 * MS, &b, 11 * MS);
        let s = st.take_sample(MS).unwrap();
        assert_eq!((s.tx_in_flight, s.lost), (2000, 3000));
        let c = st.on_send(12 * MS, false, 500);
        st.on_delivered(1000, 12 * MS, &c, 22 * MS);
        let s = st.take_sample(MS).unwrap();
        assert_eq!((s.tx_in_flight, s.lost), (500, 0));
    }
}
