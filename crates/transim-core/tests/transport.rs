//! A second transport, written here with no TCP code touched: a constant-rate datagram
//! sender and a sink, plugged into a scenario's flow. It runs through the same engine
//! (links, queues, loss models, timers, conservation), the same results (its own fields
//! flattened beside the engine's) and the same traces (its own series, the packet trace).

use serde::Serialize;
use serde_json::json;
use std::any::Any;
use transim_core::net::{DatagramHeader, DropCause, Header, Packet};
use transim_core::sim::{secs, Time, MILLISECOND};
use transim_core::trace::packet_event;
use transim_core::transport::{Ctx, Detail, DropSite, FlowFacts, Series, TimerId, Transport};

/// Sends a `size`-byte datagram every `interval` until `count` are sent; the sink counts.
struct Cbr {
    flow: u32,
    src: u32,
    dst: u32,
    size: u32,
    interval: Time,
    count: u64,
    sent: u64,
    received: u64,
    last_seq: Option<u64>,
    reordered: u64,
    dropped_by_queue: u64,
    first_arrival: Option<Time>,
    arrivals: Vec<f64>,
}

const SEND: TimerId = 7;

impl Cbr {
    fn new(flow: u32, src: u32, dst: u32, size: u32, interval: Time, count: u64) -> Self {
        Cbr {
            flow,
            src,
            dst,
            size,
            interval,
            count,
            sent: 0,
            received: 0,
            last_seq: None,
            reordered: 0,
            dropped_by_queue: 0,
            first_arrival: None,
            arrivals: vec![],
        }
    }

    fn send_one(&mut self, ctx: &mut Ctx) {
        let uid = ctx.uid();
        ctx.out.push(Packet {
            uid,
            flow: self.flow,
            src: self.src,
            dst: self.dst,
            wire: 28 + self.size,
            from_sender: true,
            lost: None,
            hdr: Header::Datagram(DatagramHeader {
                seq: self.sent,
                len: self.size,
            }),
            ..Default::default()
        });
        self.sent += 1;
        if self.sent < self.count {
            ctx.schedule(ctx.now + self.interval, self.flow, SEND);
        }
    }
}

#[derive(Debug, Serialize)]
struct CbrResult {
    datagrams_sent: u64,
    datagrams_received: u64,
    reordered: u64,
    dropped_by_queue: u64,
    first_arrival: Option<f64>,
    goodput_bps: f64,
}

#[derive(Debug)]
struct CbrSeries {
    arrivals: Vec<f64>,
}

impl Series for CbrSeries {
    fn into_columns(self: Box<Self>) -> Vec<(&'static str, Vec<f64>)> {
        let n = self.arrivals.len();
        vec![
            ("t", self.arrivals),
            ("count", (1..=n).map(|i| i as f64).collect()),
        ]
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Transport for Cbr {
    fn protocol(&self) -> &'static str {
        "cbr"
    }
    fn start(&mut self, ctx: &mut Ctx) {
        self.send_one(ctx);
    }
    fn on_packet(&mut self, p: &Packet, ctx: &mut Ctx) {
        let Header::Datagram(h) = p.hdr else {
            panic!("not a datagram")
        };
        self.received += 1;
        if self.last_seq.is_some_and(|s| h.seq <= s) {
            self.reordered += 1;
        }
        self.last_seq = Some(h.seq);
        self.first_arrival.get_or_insert(ctx.now);
        self.arrivals.push(secs(ctx.now));
    }
    fn on_timer(&mut self, timer: TimerId, ctx: &mut Ctx) {
        assert_eq!(timer, SEND);
        self.send_one(ctx);
    }
    fn on_drop(&mut self, _p: &Packet, cause: DropCause, _site: DropSite) {
        if cause == DropCause::Queue {
            self.dropped_by_queue += 1;
        }
    }
    fn results(&mut self, facts: &FlowFacts) -> Detail {
        let active = secs(facts.end - facts.start);
        Detail::new(CbrResult {
            datagrams_sent: self.sent,
            datagrams_received: self.received,
            reordered: self.reordered,
            dropped_by_queue: self.dropped_by_queue,
            first_arrival: self.first_arrival.map(secs),
            goodput_bps: self.received as f64 * self.size as f64 * 8.0 / active,
        })
    }
    fn take_trace(&mut self) -> Option<Box<dyn Series>> {
        Some(Box::new(CbrSeries {
            arrivals: std::mem::take(&mut self.arrivals),
        }))
    }
}

/// A scenario whose one flow we replace with a CBR flow: 1 Mbps, 10 ms, a 5-packet queue.
fn run_cbr(size: u32, interval: Time, count: u64) -> transim_core::results::RunOutput {
    let v = json!({
        "duration": "2s", "seed": 1,
        "topology": {"kind": "explicit", "nodes": ["a", "b"],
            "links": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "10ms", "queue": 5}]},
        "flows": [{"src": "a", "dst": "b", "start": "100ms"}],
        "trace": {"packets": true}
    });
    let sc = transim_core::scenario::parse(v).unwrap();
    let mut sim = transim_core::scenario::build(&sc).unwrap();
    let f = &mut sim.flows[0];
    f.transport = Box::new(Cbr::new(0, f.src, f.dst, size, interval, count));
    let cons = sim.run().expect("conservation holds");
    transim_core::results::collect(sim, "cbr".into(), 1, cons)
}

#[test]
fn a_transport_defined_outside_the_engine_runs_through_it() {
    // 972-byte payload + 28 header = 1000 bytes = 8 ms at 1 Mbps; one every 10 ms: no queue.
    let out = run_cbr(972, 10 * MILLISECOND, 100);
    let f = &out.result.flows[0];
    assert_eq!(f.protocol, "cbr");
    let d = f.detail.downcast::<CbrResult>().expect("the CBR results");
    assert_eq!((d.datagrams_sent, d.datagrams_received), (100, 100));
    assert_eq!((f.packets_sent, f.packets_delivered), (100, 100));
    // First datagram: sent at 100 ms, 8 ms serialisation, 10 ms propagation.
    assert_eq!(d.first_arrival, Some(0.118));
    // Results serialise flat: the engine's fields and the transport's side by side.
    let j = serde_json::to_value(f).unwrap();
    assert_eq!(j["datagrams_received"], 100);
    assert_eq!(j["packets_delivered"], 100);
    assert_eq!(j["protocol"], "cbr");
    // Its series: one row per arrival, 10 ms apart.
    let cols = out.flow_traces[0]
        .as_ref()
        .unwrap()
        .downcast::<CbrSeries>()
        .unwrap();
    assert_eq!(cols.arrivals.len(), 100);
    assert!((cols.arrivals[99] - cols.arrivals[0] - 0.99).abs() < 1e-9);
    // The packet trace sees its datagrams with their sequence numbers.
    let pt = out.packet_trace.unwrap();
    let delivered: Vec<u64> = (0..pt.t.len())
        .filter(|&i| pt.kind[i] == packet_event::DELIVER)
        .map(|i| pt.seq[i])
        .collect();
    assert_eq!(delivered, (0..100).collect::<Vec<_>>());
}

#[test]
fn overload_is_dropped_by_the_queue_and_every_packet_is_accounted_for() {
    // 1000-byte packets every 4 ms = 2 Mbps into 1 Mbps: the queue holds 5 waiting + 1 being
    // sent, then half are dropped. Sent 1.2 s of traffic (300 datagrams).
    let out = run_cbr(972, 4 * MILLISECOND, 300);
    let f = &out.result.flows[0];
    let d = f.detail.downcast::<CbrResult>().unwrap();
    assert_eq!(d.datagrams_sent, 300);
    assert_eq!(
        f.drops["queue"], d.dropped_by_queue,
        "the engine told the transport"
    );
    assert_eq!(d.datagrams_received + d.dropped_by_queue, 300);
    // The link is busy from 100 ms, starting datagram k at 100 + 8k ms. The queue fills
    // after a few arrivals and stays full, so what is accepted is what has started plus 5
    // waiting: at the last arrival (100 + 299·4 = 1296 ms) 150 have started (k ≤ 149), so
    // 155 were accepted and everything accepted is delivered before the run ends.
    assert_eq!(d.datagrams_received, 155, "{d:?}");
    assert_eq!(d.reordered, 0);
    let c = out.result.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_flight);
}
