//! ATM as a network layer (see ARCHITECTURE.md, "ATM: cells in the same engine"): AAL5
//! framing, virtual circuits with their segmentation and reassembly adapters, ABR end-system
//! rules (TM 4.0) and switch output ports (tail drop, EPD, PPD, EFCI, ERICA).

pub mod aal5;
pub mod abr;
pub mod layer;
pub mod port;
pub mod results;
pub mod vc;
