//! A minimal datagram header (UDP-like): a sequence number the application chose and the
//! payload length. Constant-rate and other unreliable transports use it.

/// One datagram's header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagramHeader {
    /// Sequence number of the datagram (set by the sending transport, e.g. 0, 1, 2, …).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
}
