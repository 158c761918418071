//! The ATM layer of a simulation: every flow's VC (both directions) and the facts the engine
//! needs to move cells.

use super::vc::VcDirection;

/// The VCs of a simulation, indexed by flow.
#[derive(Debug, Default)]
pub struct AtmNet {
    /// Per flow: its VC's two directions (data direction first), or None for a flow that
    /// crosses no ATM link.
    pub vcs: Vec<Option<Box<[VcDirection; 2]>>>,
}

impl AtmNet {
    /// Index of a VC direction: `2·flow + (0 data direction, 1 reverse)`.
    #[inline]
    pub fn index(flow: u32, from_sender: bool) -> u32 {
        2 * flow + (!from_sender) as u32
    }

    /// The VC direction a packet of `flow` travelling from the sender (or back) uses.
    #[inline]
    pub fn dir(&self, flow: u32, from_sender: bool) -> &VcDirection {
        &self.vcs[flow as usize]
            .as_ref()
            .expect("cells belong to flows with a VC")[(!from_sender) as usize]
    }

    /// Mutable access to a VC direction.
    #[inline]
    pub fn dir_mut(&mut self, flow: u32, from_sender: bool) -> &mut VcDirection {
        &mut self.vcs[flow as usize]
            .as_mut()
            .expect("cells belong to flows with a VC")[(!from_sender) as usize]
    }

    /// Both directions of a flow's VC: (the one given, the other).
    #[inline]
    pub fn pair_mut(
        &mut self,
        flow: u32,
        from_sender: bool,
    ) -> (&mut VcDirection, &mut VcDirection) {
        let [a, b] = &mut **self.vcs[flow as usize]
            .as_mut()
            .expect("cells belong to flows with a VC");
        if from_sender {
            (a, b)
        } else {
            (b, a)
        }
    }
}
