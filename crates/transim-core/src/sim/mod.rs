//! The discrete-event kernel: simulated time, the event queue and seeded random streams.

pub mod events;
pub mod huge_pages;
pub mod prefetch;
pub mod rng;
pub mod timer;

/// Simulated time in integer nanoseconds since the start of the run.
pub type Time = u64;

/// One second in [`Time`] units.
pub const SECOND: Time = 1_000_000_000;
/// One millisecond in [`Time`] units.
pub const MILLISECOND: Time = 1_000_000;
/// One microsecond in [`Time`] units.
pub const MICROSECOND: Time = 1_000;

/// Seconds as a float, for reporting.
pub fn secs(t: Time) -> f64 {
    t as f64 / SECOND as f64
}

/// Time to serialise `bytes` at `rate_bps`, rounded up to the next nanosecond so that a link
/// never runs faster than its rate.
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    let ns = (bytes as f64 * 8.0 * 1e9) / rate_bps;
    let r = ns.round();
    // Exact integers stay exact (1500 B at 10 Mbps = 1.2 ms); anything else rounds up.
    if (ns - r).abs() < 1e-6 {
        r as Time
    } else {
        ns.ceil() as Time
    }
}
