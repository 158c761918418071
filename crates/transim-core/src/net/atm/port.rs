//! A switch output port's cell discipline: which arriving cells the buffer takes (tail drop,
//! early packet discard, partial packet discard), binary EFCI marking with hysteresis, and
//! ERICA's load measurement from which backward RM cells get their explicit rate.
//!
//! The port decides at admission, before the link's FIFO takes the cell, so a cell's
//! departure stays known the moment it is accepted (one event per cell per hop).

use crate::net::header::cell::{CellHeader, CellKind};
use crate::net::DropCause;
use crate::sim::Time;
use std::collections::HashMap;

/// How a port discards cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Discard {
    /// Early packet discard: a frame whose first cell arrives while at least this many cells
    /// wait is discarded whole.
    pub epd_threshold: Option<u32>,
    /// Partial packet discard: after a cell of a frame is dropped, drop the rest of the frame
    /// except its last cell.
    pub ppd: bool,
}

/// ERICA's parameters (Jain et al., ATM Forum/96-1172).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EricaParams {
    /// Target utilisation U: the ABR capacity is U × the link's cell rate.
    pub target: f64,
    /// Averaging interval.
    pub interval: Time,
    /// Take a VC's rate from the switch's own count of its cells in the last interval
    /// (96-1172's refinement for sources that do not use their ACR) instead of the CCR
    /// field of its RM cells.
    pub measured_ccr: bool,
}

/// ERICA's state at one port.
#[derive(Clone, Debug)]
pub struct Erica {
    p: EricaParams,
    /// Target ABR capacity in cells/s.
    capacity: f64,
    interval_end: Time,
    cells: u64,
    /// Cells of each VC whose forward direction uses this port, this interval.
    vcs: HashMap<u32, u64>,
    /// Their rates (cells/s) over the last complete interval.
    rates: HashMap<u32, f64>,
    /// Overload factor z of the last complete interval.
    pub load: f64,
    /// Fair share A/N of the last complete interval.
    pub fair_share: f64,
}

impl Erica {
    /// ERICA on a link of `cell_rate` cells per second.
    pub fn new(p: EricaParams, cell_rate: f64) -> Self {
        let capacity = p.target * cell_rate;
        Erica {
            p,
            capacity,
            interval_end: p.interval,
            cells: 0,
            vcs: HashMap::new(),
            rates: HashMap::new(),
            load: 0.0,
            fair_share: capacity,
        }
    }

    /// Close the averaging intervals that ended by `now`.
    fn roll(&mut self, now: Time) {
        if now < self.interval_end {
            return;
        }
        let secs = self.p.interval as f64 * 1e-9;
        if now >= self.interval_end + self.p.interval {
            // At least one whole interval passed without a cell.
            self.load = 0.0;
            self.fair_share = self.capacity;
            self.rates.clear();
            let k = (now - self.interval_end) / self.p.interval + 1;
            self.interval_end += k * self.p.interval;
        } else {
            self.load = self.cells as f64 / secs / self.capacity;
            self.fair_share = self.capacity / self.vcs.len().max(1) as f64;
            self.rates.clear();
            for (&vc, &n) in &self.vcs {
                self.rates.insert(vc, n as f64 / secs);
            }
            self.interval_end += self.p.interval;
        }
        self.cells = 0;
        self.vcs.clear();
    }

    /// Count a cell entering the port: every cell is load; data and forward RM cells also
    /// make their VC active here (`vc` = Some).
    fn count(&mut self, now: Time, vc: Option<u32>) {
        self.roll(now);
        self.cells += 1;
        if let Some(vc) = vc {
            *self.vcs.entry(vc).or_insert(0) += 1;
        }
    }

    /// The explicit rate for VC direction `vc` whose RM cell carries `ccr`:
    /// min(A, max(A/N, CCR/z)), CCR measured at the port when so configured.
    pub fn explicit_rate(&mut self, now: Time, vc: u32, ccr: f64) -> f64 {
        self.roll(now);
        if self.load <= 0.0 {
            return self.capacity;
        }
        let ccr = if self.p.measured_ccr {
            self.rates.get(&vc).copied().unwrap_or(0.0)
        } else {
            ccr
        };
        self.fair_share.max(ccr / self.load).min(self.capacity)
    }
}

/// Binary (EFCI) feedback: congested above `high` cells waiting, until at or below `low`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Efci {
    /// Set the congestion state above this many cells.
    pub high: u32,
    /// Clear it at or below this many.
    pub low: u32,
}

/// Why a frame is being discarded at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Discarding {
    /// EPD refused the frame at its first cell: all its cells go.
    Early,
    /// A cell was lost: the rest go except the last.
    Partial,
}

/// Counters of a port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortStats {
    /// Frames refused whole by EPD.
    pub epd_frames: u64,
    /// Frames cut by PPD after a cell loss.
    pub ppd_frames: u64,
    /// Data cells marked with EFCI.
    pub efci_marked: u64,
}

/// One output port's discipline.
#[derive(Clone, Debug)]
pub struct CellPort {
    /// Buffer in cells (waiting, not counting the one on the wire).
    pub buffer: u32,
    /// Discard policy.
    pub discard: Discard,
    /// EFCI marking, if the port gives binary feedback.
    pub efci: Option<Efci>,
    /// ERICA, if the port computes explicit rates.
    pub erica: Option<Erica>,
    congested: bool,
    /// VC directions whose current frame is being discarded.
    discarding: HashMap<u32, Discarding>,
    /// Counters.
    pub stats: PortStats,
}

impl CellPort {
    /// A port with a buffer of `buffer` cells.
    pub fn new(buffer: u32, discard: Discard, efci: Option<Efci>, erica: Option<Erica>) -> Self {
        CellPort {
            buffer,
            discard,
            efci,
            erica,
            congested: false,
            discarding: HashMap::new(),
            stats: PortStats::default(),
        }
    }

    /// Admit a cell of VC direction `vc` arriving at `now` with `waiting` cells in the
    /// buffer; may set its EFCI bit. `Err(cause)`: the cell is dropped.
    pub fn admit(
        &mut self,
        now: Time,
        vc: u32,
        c: &mut CellHeader,
        waiting: usize,
    ) -> Result<(), DropCause> {
        let waiting = waiting as u64;
        if let Some(e) = self.efci {
            if waiting > e.high as u64 {
                self.congested = true;
            } else if waiting <= e.low as u64 {
                self.congested = false;
            }
        }
        if c.kind != CellKind::Data {
            // RM cells belong to no frame: only a full buffer refuses them.
            if waiting >= self.buffer as u64 {
                return Err(DropCause::Queue);
            }
            if let Some(er) = self.erica.as_mut() {
                er.count(now, (c.kind == CellKind::ForwardRm).then_some(vc));
            }
            return Ok(());
        }
        if c.is_first() {
            self.discarding.remove(&vc);
            if let Some(t) = self.discard.epd_threshold {
                if waiting >= t as u64 {
                    self.stats.epd_frames += 1;
                    if !c.is_last() {
                        self.discarding.insert(vc, Discarding::Early);
                    }
                    return Err(DropCause::Epd);
                }
            }
        } else if let Some(&d) = self.discarding.get(&vc) {
            let last = c.is_last();
            if last {
                self.discarding.remove(&vc);
            }
            match d {
                Discarding::Early => return Err(DropCause::Epd),
                Discarding::Partial if !last => return Err(DropCause::Ppd),
                // PPD keeps the last cell to delimit the frame, if there is room.
                Discarding::Partial => {}
            }
        }
        if waiting >= self.buffer as u64 {
            if self.discard.ppd && !c.is_last() {
                self.stats.ppd_frames += 1;
                self.discarding.insert(vc, Discarding::Partial);
            }
            return Err(DropCause::Queue);
        }
        if self.congested {
            c.efci = true;
            self.stats.efci_marked += 1;
        }
        if let Some(er) = self.erica.as_mut() {
            er.count(now, Some(vc));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(frame: u32, index: u16, cells: u16) -> CellHeader {
        CellHeader {
            frame,
            index,
            cells,
            ..Default::default()
        }
    }

    fn port(epd: Option<u32>, ppd: bool) -> CellPort {
        CellPort::new(
            10,
            Discard {
                epd_threshold: epd,
                ppd,
            },
            None,
            None,
        )
    }

    /// Offer the frame's cells while the queue holds `waiting(i)` cells; return which passed.
    fn offer(p: &mut CellPort, frame: u32, n: u16, waiting: impl Fn(u16) -> usize) -> Vec<bool> {
        (0..n)
            .map(|i| p.admit(0, 7, &mut cell(frame, i, n), waiting(i)).is_ok())
            .collect()
    }

    #[test]
    fn epd_refuses_a_frame_whole_at_its_first_cell() {
        let mut p = port(Some(5), false);
        // Queue at the threshold when the first cell arrives: all five cells refused, even
        // though the queue then drains.
        assert_eq!(offer(&mut p, 1, 5, |_| 5), vec![false; 5]);
        assert_eq!(offer(&mut p, 2, 5, |_| 4), vec![true; 5]);
        assert_eq!(p.stats.epd_frames, 1);
    }

    #[test]
    fn epd_never_cuts_an_accepted_frame_below_the_buffer() {
        let mut p = port(Some(5), false);
        // The first cell arrives below the threshold; later cells find the queue above it
        // (but below the buffer of 10): the whole frame is taken.
        assert_eq!(offer(&mut p, 1, 6, |i| 4 + i as usize), vec![true; 6]);
    }

    #[test]
    fn a_full_buffer_still_drops_midway_without_ppd() {
        let mut p = port(Some(5), false);
        let got = offer(&mut p, 1, 6, |i| if i == 2 { 10 } else { 4 });
        assert_eq!(got, vec![true, true, false, true, true, true]);
    }

    #[test]
    fn ppd_drops_the_rest_but_keeps_the_last_cell() {
        let mut p = port(None, true);
        let got = offer(&mut p, 1, 6, |i| if i == 2 { 10 } else { 0 });
        assert_eq!(got, vec![true, true, false, false, false, true]);
        assert_eq!(p.stats.ppd_frames, 1);
        // The next frame is not affected.
        assert_eq!(offer(&mut p, 2, 3, |_| 0), vec![true; 3]);
    }

    #[test]
    fn efci_marks_with_hysteresis() {
        let mut p = CellPort::new(
            100,
            Discard {
                epd_threshold: None,
                ppd: false,
            },
            Some(Efci { high: 30, low: 20 }),
            None,
        );
        let mut marks = vec![];
        for w in [25, 31, 25, 21, 20, 25] {
            let mut c = cell(1, 0, 1);
            p.admit(0, 1, &mut c, w).unwrap();
            marks.push(c.efci);
        }
        assert_eq!(marks, vec![false, true, true, true, false, false]);
    }

    #[test]
    fn erica_fair_share_and_vc_share() {
        // 1000 cells/s link, U = 0.9 → A = 900; interval 1 s.
        let mut e = Erica::new(
            EricaParams {
                target: 0.9,
                interval: 1_000_000_000,
                measured_ccr: false,
            },
            1000.0,
        );
        // 1800 cells from 3 VCs in the first second: z = 2, fair share 300.
        for i in 0..1800u64 {
            e.count(i * 500_000, Some((i % 3) as u32));
        }
        let t = 1_000_000_000;
        // A VC at 1000 cells/s: max(300, 1000/2) = 500; at 200: max(300, 100) = 300.
        assert!((e.explicit_rate(t, 0, 1000.0) - 500.0).abs() < 1e-9);
        assert!((e.explicit_rate(t, 0, 200.0) - 300.0).abs() < 1e-9);
        // Never above A.
        assert!((e.explicit_rate(t, 0, 1e6) - 900.0).abs() < 1e-9);
        // An idle interval: no load → A.
        assert!((e.explicit_rate(3 * t, 0, 200.0) - 900.0).abs() < 1e-9);
    }

    #[test]
    fn erica_with_measured_rates_ignores_an_inflated_ccr() {
        let mut e = Erica::new(
            EricaParams {
                target: 0.9,
                interval: 1_000_000_000,
                measured_ccr: true,
            },
            1000.0,
        );
        // VC 0 sends 1200 cells, VC 1 600 in the second: z = 2; fair share 450.
        for i in 0..1800u64 {
            e.count(i * 500_000, Some(if i % 3 == 2 { 1 } else { 0 }));
        }
        // Backward RM cells of other VCs add load but no active VC.
        let t = 1_000_000_000;
        // VC 0 measured at 1200 cells/s: 1200/2 = 600 whatever its RM cell claims.
        assert!((e.explicit_rate(t, 0, 5000.0) - 600.0).abs() < 1e-9);
        // VC 1 at 600: max(450, 300) = 450.
        assert!((e.explicit_rate(t, 1, 5000.0) - 450.0).abs() < 1e-9);
    }
}
