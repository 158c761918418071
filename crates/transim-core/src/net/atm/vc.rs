//! Virtual circuits: one per flow, both directions over the same links. Each direction has a
//! segmenting adapter at its entry (the frame FIFO, the ABR source) and a reassembling
//! adapter at its exit (AAL5's frame check, the ABR destination's EFCI state), and its own
//! cell books.

use super::aal5::cells_for;
use super::abr::AbrSource;
use crate::net::header::cell::{CellHeader, CellKind, RmFields};
use crate::net::{DropCause, Header, Packet};
use crate::sim::Time;
use std::collections::VecDeque;

/// Cell counts of one VC direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CellBooks {
    /// Cells the entry adapter put on the first link (data and RM).
    pub sent: u64,
    /// Data cells among them.
    pub data_sent: u64,
    /// Cells that reached the exit adapter.
    pub received: u64,
    /// Cells dropped, by cause (indexed by [`DropCause::index`]).
    #[serde(skip)]
    pub dropped: [u64; DropCause::COUNT],
    /// AAL5 frames segmented.
    pub frames: u64,
    /// Frames reassembled intact.
    pub frames_ok: u64,
    /// Frames lost in the VC (a cell missing, or every cell).
    pub frames_bad: u64,
    /// Ends of frame that reached reassembly with cells missing: garbage the network
    /// carried to the end (what EPD and PPD exist to avoid).
    pub frames_partial: u64,
}

/// A frame waiting in the VC: its number, its cell count and its IP packet.
#[derive(Clone, Copy, Debug)]
struct Frame {
    number: u32,
    cells: u16,
    packet: Packet,
}

/// What the exit adapter made of a data cell.
#[derive(Debug)]
pub enum Reassembled {
    /// Not the end of a frame.
    Pending,
    /// End of a frame: packets discarded (their frames lost cells) and the packet released,
    /// if its frame was intact.
    Frame {
        /// Packets whose frames are lost.
        lost: Vec<Packet>,
        /// The packet, if its frame arrived whole.
        good: Option<Packet>,
    },
}

/// One direction of a VC.
#[derive(Debug)]
pub struct VcDirection {
    /// The links of this direction, in order.
    pub path: Vec<u32>,
    /// Entry node (segmentation) and exit node (reassembly).
    pub entry: u32,
    /// Exit node.
    pub exit: u32,
    /// LLC/SNAP encapsulation.
    pub llc_snap: bool,
    frames: VecDeque<Frame>,
    next_frame: u32,
    /// ABR: the next frame to send and its next cell.
    send_frame: u32,
    send_cell: u16,
    /// ABR source, for ABR VCs.
    pub abr: Option<AbrSource>,
    /// ABR pacing: when the pending send event fires.
    pub scheduled: Option<Time>,
    /// Exit adapter: cells since the last end of frame, the frame they belong to, and
    /// whether they are exactly that frame's first cells.
    rx_cells: u32,
    rx_frame: u32,
    rx_ok: bool,
    /// EFCI state of the last data cell received (the ABR destination's memory).
    pub efci_seen: bool,
    /// Cell counts.
    pub books: CellBooks,
}

impl VcDirection {
    /// A direction over `path` from `entry` to `exit`.
    pub fn new(path: Vec<u32>, entry: u32, exit: u32, llc_snap: bool) -> Self {
        VcDirection {
            path,
            entry,
            exit,
            llc_snap,
            frames: VecDeque::new(),
            next_frame: 1,
            send_frame: 1,
            send_cell: 0,
            abr: None,
            scheduled: None,
            rx_cells: 0,
            rx_frame: 0,
            rx_ok: true,
            efci_seen: false,
            books: CellBooks::default(),
        }
    }

    /// Take an IP packet into the VC: store it and return the header of its cells' first
    /// cell and the cell count.
    pub fn segment(&mut self, p: Packet) -> (u32, u16) {
        let cells = cells_for(p.wire, self.llc_snap).min(u16::MAX as u32) as u16;
        let number = self.next_frame;
        self.next_frame += 1;
        self.frames.push_back(Frame {
            number,
            cells,
            packet: p,
        });
        self.books.frames += 1;
        (number, cells)
    }

    /// The data cell header of cell `index` of frame `number` (of `cells`).
    pub fn data_cell(number: u32, index: u16, cells: u16) -> CellHeader {
        CellHeader {
            hop: 0,
            cells,
            index,
            kind: CellKind::Data,
            efci: false,
            frame: number,
            rm: RmFields::default(),
        }
    }

    /// ABR: true when data cells wait to be sent.
    pub fn has_unsent(&self) -> bool {
        self.send_frame < self.next_frame
    }

    /// ABR: the next data cell to send (call only when [`Self::has_unsent`]).
    pub fn next_data_cell(&mut self) -> CellHeader {
        let front = self
            .frames
            .front()
            .expect("unsent frames are stored")
            .number;
        let f = self.frames[(self.send_frame - front) as usize];
        let c = Self::data_cell(f.number, self.send_cell, f.cells);
        self.send_cell += 1;
        if self.send_cell == f.cells {
            self.send_cell = 0;
            self.send_frame += 1;
        }
        c
    }

    /// A data cell reached the exit adapter. At the end of a frame, the frames before it
    /// that never completed are lost, and it is released if exactly its own cells arrived
    /// (AAL5's length and CRC check).
    pub fn reassemble(&mut self, c: &CellHeader) -> Reassembled {
        self.books.received += 1;
        self.efci_seen = c.efci;
        if self.rx_cells == 0 {
            self.rx_frame = c.frame;
            self.rx_ok = c.index == 0;
        } else {
            self.rx_ok &= c.frame == self.rx_frame && c.index as u32 == self.rx_cells;
        }
        self.rx_cells += 1;
        if !c.is_last() {
            return Reassembled::Pending;
        }
        let whole = self.rx_ok && self.rx_cells == c.cells as u32;
        self.rx_cells = 0;
        if !whole {
            self.books.frames_partial += 1;
        }
        let mut lost = Vec::new();
        while let Some(f) = self.frames.front() {
            if f.number > c.frame {
                break;
            }
            let f = self.frames.pop_front().expect("front exists");
            if f.number == c.frame && whole {
                self.books.frames_ok += 1;
                return Reassembled::Frame {
                    lost,
                    good: Some(f.packet),
                };
            }
            self.books.frames_bad += 1;
            lost.push(f.packet);
        }
        Reassembled::Frame { lost, good: None }
    }

    /// IP packets inside the VC (segmented, not yet reassembled or discarded).
    pub fn packets_inside(&self) -> impl Iterator<Item = &Packet> {
        self.frames.iter().map(|f| &f.packet)
    }
}

/// Make a cell packet of VC direction `dir` of `flow`.
pub fn cell_packet(
    uid: u64,
    flow: u32,
    from_sender: bool,
    d: &VcDirection,
    c: CellHeader,
) -> Packet {
    Packet {
        uid,
        flow,
        src: d.entry,
        dst: d.exit,
        wire: super::aal5::CELL_BYTES,
        from_sender,
        lost: None,
        ecn: crate::net::Ecn::NotEct,
        hops: 0,
        hdr: Header::Cell(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> VcDirection {
        VcDirection::new(vec![0, 2], 0, 2, true)
    }

    fn ip(uid: u64, wire: u32) -> Packet {
        Packet {
            uid,
            wire,
            ..Default::default()
        }
    }

    /// Segment packets, deliver the cells `keep` says, return the uids released and lost.
    fn run(sizes: &[u32], keep: impl Fn(u32, u16) -> bool) -> (Vec<u64>, Vec<u64>) {
        let mut d = dir();
        let mut cells = vec![];
        for (i, &w) in sizes.iter().enumerate() {
            let (n, k) = d.segment(ip(i as u64, w));
            for j in 0..k {
                cells.push(VcDirection::data_cell(n, j, k));
            }
        }
        let (mut good, mut lost) = (vec![], vec![]);
        for c in cells.iter().filter(|c| keep(c.frame, c.index)) {
            if let Reassembled::Frame { lost: l, good: g } = d.reassemble(c) {
                lost.extend(l.iter().map(|p| p.uid));
                good.extend(g.map(|p| p.uid));
            }
        }
        (good, lost)
    }

    #[test]
    fn whole_frames_are_released_in_order() {
        let (good, lost) = run(&[2040, 40, 1500], |_, _| true);
        assert_eq!(good, vec![0, 1, 2]);
        assert!(lost.is_empty());
    }

    #[test]
    fn a_lost_middle_cell_discards_its_frame_only() {
        let (good, lost) = run(&[2040, 2040, 2040], |f, i| !(f == 2 && i == 10));
        assert_eq!(good, vec![0, 2]);
        assert_eq!(lost, vec![1]);
    }

    #[test]
    fn a_lost_last_cell_merges_two_frames_and_both_die() {
        // Frame 1 loses its last cell (index 42 of 43): its cells run into frame 2's, and
        // AAL5's check fails at frame 2's end.
        let (good, lost) = run(&[2040, 2040, 2040], |f, i| !(f == 1 && i == 42));
        assert_eq!(good, vec![2]);
        assert_eq!(lost, vec![0, 1]);
    }

    #[test]
    fn a_frame_dropped_whole_is_found_lost_at_the_next_end() {
        let (good, lost) = run(&[2040, 2040, 2040], |f, _| f != 2);
        assert_eq!(good, vec![0, 2]);
        assert_eq!(lost, vec![1]);
    }

    #[test]
    fn ppd_tail_keeps_frames_apart() {
        // Frame 2 loses cells 5.. except its last (PPD): frame 2 is lost, 3 survives.
        let (good, lost) = run(&[2040, 2040, 2040], |f, i| {
            !(f == 2 && (5..42).contains(&i))
        });
        assert_eq!(good, vec![0, 2]);
        assert_eq!(lost, vec![1]);
    }

    #[test]
    fn abr_cursor_walks_frames_cell_by_cell() {
        let mut d = dir();
        d.segment(ip(0, 40)); // 2 cells
        d.segment(ip(1, 41)); // 57 bytes → 2 cells
        let mut got = vec![];
        while d.has_unsent() {
            let c = d.next_data_cell();
            got.push((c.frame, c.index, c.is_last()));
        }
        assert_eq!(
            got,
            vec![(1, 0, false), (1, 1, true), (2, 0, false), (2, 1, true)]
        );
    }
}
