//! The engine's ATM half: packets entering a VC become cells at its entry adapter, cells move
//! hop by hop along the VC's path through switch ports, and the exit adapter reassembles
//! frames (or turns RM cells around). See ARCHITECTURE.md, "ATM: cells in the same engine".

use super::Simulation;
use crate::net::atm::abr::{turn_around, Next};
use crate::net::atm::layer::AtmNet;
use crate::net::atm::vc::{cell_packet, Reassembled, VcDirection};
use crate::net::header::cell::{CellHeader, CellKind};
use crate::net::store::{Offered, HOP_UNKNOWN};
use crate::net::{DropCause, Header, Packet};
use crate::sim::events::Event;

impl Simulation {
    fn atm_mut(&mut self) -> &mut AtmNet {
        self.atm
            .as_deref_mut()
            .expect("ATM links exist only with an ATM layer")
    }

    fn new_uid(&mut self) -> u64 {
        let u = self.next_uid;
        self.next_uid += 1;
        u
    }

    /// An IP packet enters its VC at the entry adapter: a UBR adapter puts all its cells on
    /// the first link at once (the link serialises them at line rate); an ABR adapter queues
    /// them and paces them at ACR.
    pub(super) fn segment(&mut self, p: Packet) {
        let (flow, from_sender) = (p.flow, p.from_sender);
        let now = self.now;
        let d = self.atm_mut().dir_mut(flow, from_sender);
        let (number, cells) = d.segment(p);
        if let Some(abr) = &d.abr {
            if d.scheduled.is_none() {
                let at = abr.last_sent.map_or(now, |t| (t + abr.spacing()).max(now));
                d.scheduled = Some(at);
                self.events
                    .push(at, Event::CellSend(AtmNet::index(flow, from_sender)));
            }
            return;
        }
        let first = d.path[0];
        d.books.sent += cells as u64;
        d.books.data_sent += cells as u64;
        for i in 0..cells {
            let uid = self.new_uid();
            let d = self.atm_mut().dir(flow, from_sender);
            let c = cell_packet(
                uid,
                flow,
                from_sender,
                d,
                VcDirection::data_cell(number, i, cells),
            );
            self.enqueue_on(first, &c);
        }
    }

    /// The ABR adapter's pacing event: send the next cell (an RM cell when due) and schedule
    /// the one after at the current ACR.
    pub(super) fn abr_send(&mut self, vc: u32) {
        let (flow, from_sender) = (vc / 2, vc.is_multiple_of(2));
        let now = self.now;
        let d = self.atm_mut().dir_mut(flow, from_sender);
        if d.scheduled != Some(now) {
            return; // superseded by an earlier schedule
        }
        d.scheduled = None;
        let has_data = d.has_unsent();
        let abr = d.abr.as_mut().expect("only ABR adapters pace");
        if let Some(due) = abr.last_sent.map(|t| t + abr.spacing()) {
            if now < due {
                // ACR fell since this was scheduled.
                d.scheduled = Some(due);
                self.events.push(due, Event::CellSend(vc));
                return;
            }
        }
        let header = match abr.next(now, has_data) {
            None => return,
            Some(Next::Rm(rm)) => CellHeader {
                kind: CellKind::ForwardRm,
                rm,
                ..Default::default()
            },
            Some(Next::Data) => {
                d.books.data_sent += 1;
                d.next_data_cell()
            }
        };
        d.books.sent += 1;
        let first = d.path[0];
        if d.has_unsent() {
            let at = now + d.abr.as_ref().expect("ABR").spacing();
            d.scheduled = Some(at);
            self.events.push(at, Event::CellSend(vc));
        }
        let uid = self.new_uid();
        let d = self.atm_mut().dir(flow, from_sender);
        let c = cell_packet(uid, flow, from_sender, d, header);
        self.enqueue_on(first, &c);
    }

    /// A cell reaches `node`: a switch forwards it along the VC (stamping ERICA's rate into a
    /// backward RM cell); the exit adapter reassembles or turns it around.
    pub(super) fn cell_arrive(&mut self, node: u32, mut p: Packet, mut c: CellHeader) {
        let (flow, from_sender) = (p.flow, p.from_sender);
        let now = self.now;
        c.hop += 1;
        let atm = self.atm.as_deref_mut().expect("cells need an ATM layer");
        let (d, other) = atm.pair_mut(flow, from_sender);
        let hop = c.hop as usize;
        if hop < d.path.len() {
            if c.kind == CellKind::BackwardRm {
                // The port this VC's forward cells leave this switch by (paths are mirror
                // images: the BRM at hop k is where the other direction's hop n−k starts).
                let port = other.path[other.path.len() - hop];
                if let Some(er) = self.links[port as usize]
                    .port
                    .as_deref_mut()
                    .and_then(|pt| pt.erica.as_mut())
                {
                    let vc = AtmNet::index(flow, !from_sender);
                    let rate = er.explicit_rate(now, vc, c.rm.ccr as f64) as f32;
                    c.rm.er = c.rm.er.min(rate);
                }
            }
            let next = d.path[hop];
            p.hdr = Header::Cell(c);
            self.enqueue_on(next, &p);
            return;
        }
        debug_assert_eq!(node, d.exit);
        match c.kind {
            CellKind::Data => match d.reassemble(&c) {
                Reassembled::Pending => {}
                Reassembled::Frame { lost, good } => {
                    let last = *d.path.last().expect("a VC has links");
                    for q in lost {
                        self.count_drop(&q, DropCause::Cells, last);
                    }
                    if let Some(q) = good {
                        if node == q.dst {
                            self.arrive(node, &q, None, HOP_UNKNOWN);
                        } else {
                            self.forward(node, Offered::Given(&q), HOP_UNKNOWN);
                        }
                    }
                }
            },
            CellKind::ForwardRm => {
                d.books.received += 1;
                let rm = turn_around(&c.rm, std::mem::take(&mut d.efci_seen));
                other.books.sent += 1;
                let first = other.path[0];
                let back = CellHeader {
                    kind: CellKind::BackwardRm,
                    rm,
                    ..Default::default()
                };
                let uid = self.new_uid();
                let other = self.atm_mut().dir(flow, !from_sender);
                let q = cell_packet(uid, flow, !from_sender, other, back);
                self.enqueue_on(first, &q);
            }
            CellKind::BackwardRm => {
                d.books.received += 1;
                // The answer to the other direction's source.
                let Some(abr) = other.abr.as_mut() else {
                    return;
                };
                abr.on_backward_rm(now, &c.rm);
                // A higher rate may bring the next cell forward.
                if let (Some(s), Some(last)) = (other.scheduled, abr.last_sent) {
                    let at = (last + abr.spacing()).max(now);
                    if at < s {
                        other.scheduled = Some(at);
                        self.events
                            .push(at, Event::CellSend(AtmNet::index(flow, !from_sender)));
                    }
                }
            }
        }
    }

    /// Cells: every cell an adapter sent reached its exit, was dropped, or is still in a link.
    /// Adds the IP packets waiting inside VCs to `in_flight`.
    pub(super) fn check_cells(
        &self,
        atm: &AtmNet,
        cells_inside: &[u64],
        in_flight: &mut [u64],
    ) -> Result<(), String> {
        for (flow, vc) in atm.vcs.iter().enumerate() {
            let Some(vc) = vc else { continue };
            for (k, d) in vc.iter().enumerate() {
                in_flight[flow] += d.packets_inside().count() as u64;
                let b = &d.books;
                let dropped: u64 = b.dropped.iter().sum();
                let inside = cells_inside[2 * flow + k];
                if b.sent != b.received + dropped + inside {
                    return Err(format!(
                        "cell conservation violated on the VC of flow {:?} ({}): sent {} != received {} + dropped {} + in links {}",
                        self.flows[flow].name,
                        if k == 0 { "data direction" } else { "reverse" },
                        b.sent,
                        b.received,
                        dropped,
                        inside
                    ));
                }
            }
        }
        Ok(())
    }
}
