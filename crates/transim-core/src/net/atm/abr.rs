//! ABR end systems per ATM Forum TM 4.0 (af-tm-0056.000 §5.10.4): the source's allowed cell
//! rate and when it sends forward RM cells, and the destination's turnaround. Rates are in
//! cells per second.

use crate::net::header::cell::RmFields;
use crate::sim::Time;

/// An ABR VC's negotiated parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbrParams {
    /// Peak cell rate.
    pub pcr: f64,
    /// Minimum cell rate.
    pub mcr: f64,
    /// Initial cell rate.
    pub icr: f64,
    /// Rate increase factor (of PCR).
    pub rif: f64,
    /// Rate decrease factor.
    pub rdf: f64,
    /// Cutoff decrease factor (rule 6).
    pub cdf: f64,
    /// Rate of out-of-rate cells: the source never paces slower than this.
    pub tcr: f64,
    /// One forward RM cell per Nrm cells.
    pub nrm: u32,
    /// At least this many cells between forward RM cells sent for Trm.
    pub mrm: u32,
    /// Forward RM cells without a backward one before rule 6 cuts the rate.
    pub crm: u32,
    /// Upper bound on the time between forward RM cells.
    pub trm: Time,
    /// ACR falls back to ICR when no forward RM cell was sent for this long (rule 5).
    pub adtf: Time,
}

impl AbrParams {
    /// TM 4.0 and ATM-FORUM-MIB defaults for a VC with this peak rate: ICR = PCR (YATS:
    /// min(PCR, TBE/FRTT) with the default TBE), RIF = RDF = CDF = 1/16, Nrm 32, Mrm 2,
    /// Trm 100 ms, ADTF 0.5 s, TCR 10 cells/s, CRM = TBE/Nrm with TBE = 2^24 − 1.
    pub fn defaults(pcr: f64) -> Self {
        AbrParams {
            pcr,
            mcr: 0.0,
            icr: pcr,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            cdf: 1.0 / 16.0,
            tcr: 10.0,
            nrm: 32,
            mrm: 2,
            crm: 16_777_215 / 32,
            trm: 100_000_000,
            adtf: 500_000_000,
        }
    }
}

/// What the source sends at its next transmission opportunity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Next {
    /// A forward RM cell with these fields.
    Rm(RmFields),
    /// A data cell.
    Data,
}

/// The source side of one VC direction.
#[derive(Clone, Debug)]
pub struct AbrSource {
    /// Parameters.
    pub p: AbrParams,
    /// Allowed cell rate.
    pub acr: f64,
    /// In-rate cells sent since the last forward RM cell.
    count: u32,
    /// When the last forward RM cell was sent.
    last_frm: Option<Time>,
    /// Forward RM cells sent since the last backward RM cell.
    unacked: u32,
    /// When the last in-rate cell was sent.
    pub last_sent: Option<Time>,
    /// Forward RM cells sent.
    pub frm_sent: u64,
    /// Backward RM cells received.
    pub brm_received: u64,
    /// Integral of ACR over time (cells), and when it was last brought up to date.
    acr_area: f64,
    acr_since: Time,
}

impl AbrSource {
    /// A source starting at ICR.
    pub fn new(p: AbrParams) -> Self {
        AbrSource {
            p,
            acr: p.icr,
            count: 0,
            last_frm: None,
            unacked: 0,
            last_sent: None,
            frm_sent: 0,
            brm_received: 0,
            acr_area: 0.0,
            acr_since: 0,
        }
    }

    /// Bring the ACR integral up to `now` (before every change of ACR).
    fn integrate(&mut self, now: Time) {
        self.acr_area += self.acr * (now.saturating_sub(self.acr_since)) as f64 * 1e-9;
        self.acr_since = self.acr_since.max(now);
    }

    /// Time-averaged ACR from `start` to `end` (cells/s).
    pub fn mean_acr(&self, start: Time, end: Time) -> f64 {
        let area = self.acr_area + self.acr * end.saturating_sub(self.acr_since) as f64 * 1e-9;
        let span = end.saturating_sub(start) as f64 * 1e-9;
        if span > 0.0 {
            area / span
        } else {
            self.acr
        }
    }

    /// Rules 3, 5, 6: the cell to send now, given whether data cells are waiting. The first
    /// cell is a forward RM cell; then one after Nrm−1 other cells, or after Mrm cells once
    /// Trm has passed. None: nothing to send.
    pub fn next(&mut self, now: Time, has_data: bool) -> Option<Next> {
        let rm_due = match self.last_frm {
            None => true,
            Some(t) => {
                self.count + 1 >= self.p.nrm || (self.count >= self.p.mrm && now - t >= self.p.trm)
            }
        };
        if !has_data && self.last_frm.is_some() {
            return None;
        }
        self.last_sent = Some(now);
        if rm_due {
            self.integrate(now);
            if let Some(t) = self.last_frm {
                // Rule 5: a long silence (ADTF) returns the rate to ICR.
                if now - t > self.p.adtf && self.acr > self.p.icr {
                    self.acr = self.p.icr;
                }
            }
            // Rule 6: CRM forward RM cells unanswered cut the rate by CDF.
            if self.unacked >= self.p.crm {
                self.acr = (self.acr - self.acr * self.p.cdf).max(self.p.mcr);
            }
            self.count = 0;
            self.last_frm = Some(now);
            self.unacked += 1;
            self.frm_sent += 1;
            return Some(Next::Rm(RmFields {
                ci: false,
                ni: false,
                er: self.p.pcr as f32,
                ccr: self.acr as f32,
                mcr: self.p.mcr as f32,
            }));
        }
        self.count += 1;
        Some(Next::Data)
    }

    /// Rules 8 and 9: a backward RM cell arrives.
    pub fn on_backward_rm(&mut self, now: Time, rm: &RmFields) {
        self.integrate(now);
        self.brm_received += 1;
        self.unacked = 0;
        if rm.ci {
            self.acr -= self.acr * self.p.rdf;
        } else if !rm.ni {
            self.acr = (self.acr + self.p.rif * self.p.pcr).min(self.p.pcr);
        }
        self.acr = self.acr.min(rm.er as f64).max(self.p.mcr);
    }

    /// Time between in-rate cells at the current rate (never slower than TCR).
    pub fn spacing(&self) -> Time {
        (1e9 / self.acr.max(self.p.tcr)).round().max(1.0) as Time
    }
}

/// The destination's turnaround of a forward RM cell: direction reversed, CI set when the last
/// data cell arrived with EFCI.
pub fn turn_around(rm: &RmFields, efci_seen: bool) -> RmFields {
    RmFields {
        ci: rm.ci || efci_seen,
        ..*rm
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MILLISECOND;

    fn params() -> AbrParams {
        let mut p = AbrParams::defaults(1000.0);
        p.icr = 100.0;
        p.mcr = 10.0;
        p
    }

    fn brm(ci: bool, ni: bool, er: f32) -> RmFields {
        RmFields {
            ci,
            ni,
            er,
            ccr: 0.0,
            mcr: 0.0,
        }
    }

    #[test]
    fn first_cell_is_rm_then_one_per_nrm() {
        let mut s = AbrSource::new(params());
        let kinds: Vec<bool> = (0..65)
            .map(|i| matches!(s.next(i, true), Some(Next::Rm(_))))
            .collect();
        let rm_at: Vec<usize> = (0..65).filter(|&i| kinds[i]).collect();
        assert_eq!(
            rm_at,
            vec![0, 32, 64],
            "one RM cell in every Nrm = 32 cells"
        );
    }

    #[test]
    fn trm_sends_rm_after_mrm_cells() {
        let mut s = AbrSource::new(params());
        assert!(matches!(s.next(0, true), Some(Next::Rm(_))));
        assert_eq!(s.next(1, true), Some(Next::Data));
        assert_eq!(s.next(2, true), Some(Next::Data));
        // Two cells since the last RM and Trm (100 ms) has passed → RM.
        assert!(matches!(s.next(100 * MILLISECOND, true), Some(Next::Rm(_))));
    }

    #[test]
    fn rate_increases_by_rif_pcr_and_is_capped() {
        let mut s = AbrSource::new(params());
        s.on_backward_rm(0, &brm(false, false, 1000.0));
        assert_eq!(s.acr, 100.0 + 1000.0 / 16.0);
        for _ in 0..100 {
            s.on_backward_rm(0, &brm(false, false, 1000.0));
        }
        assert_eq!(s.acr, 1000.0, "ACR never exceeds PCR");
    }

    #[test]
    fn ci_decreases_by_rdf_and_floor_is_mcr() {
        let mut s = AbrSource::new(params());
        s.on_backward_rm(0, &brm(true, false, 1000.0));
        assert_eq!(s.acr, 100.0 * 15.0 / 16.0);
        for _ in 0..200 {
            s.on_backward_rm(0, &brm(true, false, 1000.0));
        }
        assert_eq!(s.acr, 10.0, "ACR never falls below MCR");
    }

    #[test]
    fn ni_holds_and_er_caps() {
        let mut s = AbrSource::new(params());
        s.on_backward_rm(0, &brm(false, true, 1000.0));
        assert_eq!(s.acr, 100.0, "NI: no increase");
        s.on_backward_rm(0, &brm(false, false, 50.0));
        assert_eq!(s.acr, 50.0, "ER caps ACR");
        s.on_backward_rm(0, &brm(false, false, 1.0));
        assert_eq!(s.acr, 10.0, "an ER below MCR leaves ACR at MCR");
    }

    #[test]
    fn adtf_returns_to_icr() {
        let mut s = AbrSource::new(params());
        s.next(0, true);
        s.on_backward_rm(0, &brm(false, false, 1000.0));
        s.on_backward_rm(0, &brm(false, false, 1000.0));
        assert!(s.acr > 100.0);
        // The next RM cell after more than ADTF (0.5 s) of silence resets ACR to ICR.
        s.next(1, true);
        s.next(2, true);
        assert!(matches!(s.next(600 * MILLISECOND, true), Some(Next::Rm(_))));
        assert_eq!(s.acr, 100.0);
    }

    #[test]
    fn crm_unanswered_rm_cells_cut_the_rate() {
        let mut p = params();
        p.crm = 2;
        let mut s = AbrSource::new(p);
        // Two RM cells with no answer; the third applies rule 6.
        s.next(0, true);
        for i in 1..32 {
            s.next(i, true);
        }
        s.next(32, true); // second RM
        assert_eq!(s.acr, 100.0);
        for i in 33..64 {
            s.next(i, true);
        }
        s.next(64, true); // third RM: unacked = 2 ≥ CRM
        assert_eq!(s.acr, 100.0 * 15.0 / 16.0);
    }

    #[test]
    fn turnaround_carries_efci_as_ci() {
        let f = brm(false, false, 5.0);
        assert!(turn_around(&f, true).ci);
        assert!(!turn_around(&f, false).ci);
        assert_eq!(turn_around(&f, false).er, 5.0);
    }

    #[test]
    fn spacing_follows_acr() {
        let s = AbrSource::new(params());
        assert_eq!(s.spacing(), 10 * MILLISECOND); // 100 cells/s
    }
}
