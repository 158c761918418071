//! Packets and their headers, link directions (rate, delay, finite queue), queue disciplines
//! and loss models.

pub mod atm;
pub mod backlog;
pub mod header;
pub mod host;
pub mod idle_path;
pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod store;

pub use header::{CellHeader, DatagramHeader, Header, SackBlocks, SctpHeader, TcpHeader};
pub use link::{JitterSpec, Link, LinkStats, QueueLimit};
pub use loss::{DropCause, LossModel, ScriptedDrops};
pub use packet::{Ecn, Packet};
pub use store::PacketStore;
