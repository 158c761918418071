//! The `[atm]` table: which service the VCs get, the switches' output-port disciplines and
//! the ABR end systems' parameters. Its presence makes a dumbbell an ATM network; in an
//! explicit topology the links marked `atm = true` carry cells.

use super::units::{Duration, Probability, Rate};
use serde::{Deserialize, Serialize};

/// ATM service category of the VCs.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ServiceSpec {
    /// Unspecified bit rate: cells at line rate, no feedback.
    #[default]
    Ubr,
    /// Available bit rate: sources paced at ACR by RM-cell feedback (TM 4.0).
    Abr,
}

/// Switch discard policy.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DiscardSpec {
    /// Drop cells when the buffer is full.
    #[default]
    Tail,
    /// Early packet discard (frames refused whole above `epd_threshold`).
    Epd,
    /// Partial packet discard (after a lost cell, the rest of the frame but its last cell).
    Ppd,
    /// Both: EPD at the threshold, PPD when the buffer overflows anyway.
    EpdPpd,
}

/// Switch feedback to ABR sources.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackSpec {
    /// None.
    #[default]
    None,
    /// Binary: EFCI bit in data cells above the high threshold until below the low one.
    Efci,
    /// Explicit rate computed by ERICA into backward RM cells.
    Erica,
}

/// Where ERICA takes a VC's current rate from.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EricaCcrSpec {
    /// The switch counts each VC's cells per averaging interval (96-1172's refinement;
    /// robust to sources that do not use their ACR, such as window-limited TCP).
    #[default]
    Measured,
    /// The CCR field of the RM cell (the basic algorithm).
    Rm,
}

/// ABR end-system parameters (ATM Forum TM 4.0). Defaults: PCR the rate of the VC's first
/// link, MCR 0, ICR = PCR, RIF = RDF = CDF = 1/16, Nrm 32, Mrm 2, Trm 100 ms, ADTF 0.5 s.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    /// Peak cell rate, as the bit rate of the cell stream (e.g. "150Mbps").
    #[serde(default)]
    pub pcr: Option<Rate>,
    /// Minimum cell rate (default 0).
    #[serde(default)]
    pub mcr: Option<Rate>,
    /// Initial cell rate (default PCR).
    #[serde(default)]
    pub icr: Option<Rate>,
    /// Rate increase factor, a fraction of PCR.
    #[serde(default)]
    pub rif: Option<Probability>,
    /// Rate decrease factor.
    #[serde(default)]
    pub rdf: Option<Probability>,
    /// Cutoff decrease factor.
    #[serde(default)]
    pub cdf: Option<Probability>,
    /// Cells per forward RM cell.
    #[serde(default)]
    pub nrm: Option<u32>,
    /// Minimum cells between forward RM cells sent on Trm.
    #[serde(default)]
    pub mrm: Option<u32>,
    /// Forward RM cells without an answer before the rate is cut (default TBE/Nrm with
    /// TBE = 2^24 − 1).
    #[serde(default)]
    pub crm: Option<u32>,
    /// Longest time between forward RM cells.
    #[serde(default)]
    pub trm: Option<Duration>,
    /// ACR falls back to ICR after this long without a forward RM cell.
    #[serde(default)]
    pub adtf: Option<Duration>,
}

/// The `[atm]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AtmSpec {
    /// "ubr" (default) or "abr".
    #[serde(default)]
    pub service: Option<ServiceSpec>,
    /// LLC/SNAP encapsulation (RFC 2684), 8 bytes per frame (default true).
    #[serde(default)]
    pub llc_snap: Option<bool>,
    /// Switch output buffer in cells (default 4096).
    #[serde(default)]
    pub switch_buffer: Option<u32>,
    /// "tail" (default), "epd", "ppd" or "epd_ppd".
    #[serde(default)]
    pub discard: Option<DiscardSpec>,
    /// EPD threshold in cells (required with EPD).
    #[serde(default)]
    pub epd_threshold: Option<u32>,
    /// "none" (default), "efci" or "erica" (ABR only).
    #[serde(default)]
    pub feedback: Option<FeedbackSpec>,
    /// EFCI: congested above this many cells waiting (default 300).
    #[serde(default)]
    pub efci_high: Option<u32>,
    /// EFCI: no longer congested at or below this many (default 200).
    #[serde(default)]
    pub efci_low: Option<u32>,
    /// ERICA target utilisation (default 0.9).
    #[serde(default)]
    pub erica_target: Option<Probability>,
    /// ERICA averaging interval (default 1 ms).
    #[serde(default)]
    pub erica_interval: Option<Duration>,
    /// ERICA's source of a VC's current rate: "measured" (default) or "rm".
    #[serde(default)]
    pub erica_ccr: Option<EricaCcrSpec>,
    /// Per-VC queueing at switch ports: round robin over VCs, one cell per turn, one shared
    /// buffer (default false: one FIFO).
    #[serde(default)]
    pub per_vc_queueing: Option<bool>,
    /// ABR end systems.
    #[serde(default)]
    pub abr: Option<AbrSpec>,
}
