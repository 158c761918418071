//! What a run reports about a flow's VC: per direction, the cells sent, received and dropped
//! by cause, the AAL5 frames, the cell loss ratio and, for ABR, the source's final rate.

use super::layer::AtmNet;
use super::vc::{CellBooks, VcDirection};
use crate::net::DropCause;
use crate::sim::Time;
use serde::Serialize;
use std::collections::BTreeMap;

/// One direction of a VC.
#[derive(Clone, Debug, Serialize)]
pub struct VcDirectionResult {
    /// Cell counts and frames.
    #[serde(flatten)]
    pub books: CellBooks,
    /// Cells dropped by cause.
    pub cells_dropped: BTreeMap<&'static str, u64>,
    /// Cells dropped / cells sent.
    pub cell_loss_ratio: f64,
    /// ABR: allowed cell rate at the end (cells/s).
    pub acr_final: Option<f64>,
    /// ABR: time-averaged allowed cell rate over the run (cells/s).
    pub acr_mean: Option<f64>,
    /// ABR: forward RM cells sent.
    pub frm_sent: Option<u64>,
    /// ABR: backward RM cells received.
    pub brm_received: Option<u64>,
}

/// A flow's VC.
#[derive(Clone, Debug, Serialize)]
pub struct VcResult {
    /// "ubr" or "abr".
    pub service: &'static str,
    /// Links the VC crosses (data direction).
    pub hops: usize,
    /// The data direction.
    pub data: VcDirectionResult,
    /// The reverse direction (ACKs).
    pub reverse: VcDirectionResult,
}

fn direction(d: &VcDirection, end: Time) -> VcDirectionResult {
    let dropped: u64 = d.books.dropped.iter().sum();
    VcDirectionResult {
        books: d.books,
        cells_dropped: [
            DropCause::Queue,
            DropCause::Epd,
            DropCause::Ppd,
            DropCause::LossModel,
        ]
        .iter()
        .map(|c| (c.name(), d.books.dropped[c.index()]))
        .chain(
            DropCause::ALL
                .iter()
                .filter(|c| {
                    !matches!(
                        c,
                        DropCause::Queue | DropCause::Epd | DropCause::Ppd | DropCause::LossModel
                    ) && d.books.dropped[c.index()] > 0
                })
                .map(|c| (c.name(), d.books.dropped[c.index()])),
        )
        .collect(),
        cell_loss_ratio: if d.books.sent > 0 {
            dropped as f64 / d.books.sent as f64
        } else {
            0.0
        },
        acr_final: d.abr.as_ref().map(|a| a.acr),
        acr_mean: d.abr.as_ref().map(|a| a.mean_acr(0, end)),
        frm_sent: d.abr.as_ref().map(|a| a.frm_sent),
        brm_received: d.abr.as_ref().map(|a| a.brm_received),
    }
}

impl AtmNet {
    /// The result of flow `flow`'s VC, if it has one.
    pub fn result(&self, flow: usize, end: Time) -> Option<VcResult> {
        let vc = self.vcs.get(flow)?.as_ref()?;
        Some(VcResult {
            service: if vc[0].abr.is_some() { "abr" } else { "ubr" },
            hops: vc[0].path.len(),
            data: direction(&vc[0], end),
            reverse: direction(&vc[1], end),
        })
    }
}
