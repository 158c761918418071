//! Packets, link directions (rate, delay, finite queue), loss models and routing.

pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;

pub use link::{Link, LinkStats};
pub use loss::{DropCause, LossModel, ScriptedDrops};
pub use packet::{Packet, SackBlocks};
