//! An ATM cell's header as the simulation carries it: the VC it belongs to (the packet's flow
//! and direction), its place on the VC's path, the AAL5 frame it is part of, the payload-type
//! bits (EFCI, end of frame, RM) and, for resource-management cells, the RM fields.

/// Kind of cell, from the payload-type field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CellKind {
    /// A user-data cell of an AAL5 frame.
    #[default]
    Data,
    /// A forward RM cell (source → destination).
    ForwardRm,
    /// A backward RM cell (destination → source, turned around).
    BackwardRm,
}

/// The fields of an RM cell (ATM Forum TM 4.0). Rates in cells per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RmFields {
    /// Congestion indication: the source must decrease.
    pub ci: bool,
    /// No increase.
    pub ni: bool,
    /// Explicit rate.
    pub er: f32,
    /// Current cell rate of the source when it sent the cell.
    pub ccr: f32,
    /// Minimum cell rate of the VC.
    pub mcr: f32,
}

/// One cell's header.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellHeader {
    /// Index of the next link on the VC's path (0 = the first link of the stretch).
    pub hop: u16,
    /// Cells in this cell's frame (0 for RM cells).
    pub cells: u16,
    /// Position of this cell in its frame, 0-based.
    pub index: u16,
    /// Data or RM.
    pub kind: CellKind,
    /// Explicit forward congestion indication (the middle payload-type bit).
    pub efci: bool,
    /// Number of the AAL5 frame on this VC direction (1-based; 0 for RM cells).
    pub frame: u32,
    /// RM fields (RM cells only).
    pub rm: RmFields,
}

impl Eq for CellHeader {}

impl CellHeader {
    /// The last cell of its frame (AAL5's end-of-frame bit in the payload type).
    #[inline]
    pub fn is_last(&self) -> bool {
        self.kind == CellKind::Data && self.index + 1 == self.cells
    }

    /// The first cell of its frame.
    #[inline]
    pub fn is_first(&self) -> bool {
        self.kind == CellKind::Data && self.index == 0
    }
}
