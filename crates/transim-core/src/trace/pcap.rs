//! Packet captures Wireshark opens: one pcap file per chosen link direction, written as the
//! run goes (memory stays flat), with nanosecond timestamps of simulated time and real
//! bytes — an IPv4 header (checksummed, with the packet's ECN field as it is when the
//! transmission starts) around the bytes each transport renders for its
//! packets (TCP with its options, SCTP with its chunks and CRC32c, UDP for datagrams).
//!
//! A packet is captured when its transmission on the link direction starts, as a capture on
//! the sending interface would see it: packets the queue refuses are not in the file;
//! packets a loss model or a script corrupts are (they used the link). Node n has the
//! address 10.x.y.z = 10.0.0.0 + n + 1.

use crate::net::{Ecn, Packet};
use crate::sim::Time;
use etherparse::{IpNumber, Ipv4Ecn, Ipv4Header};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The IPv4 address of node `n`.
pub fn node_ip(n: u32) -> [u8; 4] {
    (0x0A00_0000u32 + n + 1).to_be_bytes()
}

/// The open capture files, by link direction.
pub struct PcapSet {
    files: Vec<Option<PcapWriter<BufWriter<File>>>>,
    /// Paths written, in link order.
    pub paths: Vec<PathBuf>,
    transport: Vec<u8>,
    frame: Vec<u8>,
    ip_id: u16,
    /// Packets written.
    pub packets: u64,
}

impl PcapSet {
    /// Create one file per chosen link direction (`chosen[i]` for link i) in `dir`, named
    /// after the link (`r1->r2` → `r1_to_r2.pcap`).
    pub fn create(dir: &Path, names: &[String], chosen: &[bool]) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let header = PcapHeader {
            datalink: DataLink::IPV4,
            ts_resolution: TsResolution::NanoSecond,
            ..Default::default()
        };
        let mut files = Vec::with_capacity(names.len());
        let mut paths = vec![];
        for (name, &on) in names.iter().zip(chosen) {
            if !on {
                files.push(None);
                continue;
            }
            let path = dir.join(format!("{}.pcap", name.replace("->", "_to_")));
            let w = PcapWriter::with_header(BufWriter::new(File::create(&path)?), header)
                .map_err(std::io::Error::other)?;
            files.push(Some(w));
            paths.push(path);
        }
        Ok(PcapSet {
            files,
            paths,
            transport: Vec::with_capacity(2048),
            frame: Vec::with_capacity(2048),
            ip_id: 0,
            packets: 0,
        })
    }

    /// Scratch space for a transport to render its bytes into (cleared).
    pub fn transport_buf(&mut self) -> &mut Vec<u8> {
        self.transport.clear();
        &mut self.transport
    }

    /// Write the packet whose transport bytes are in the scratch buffer, on link `link` at
    /// time `t`, with IP protocol `proto`.
    pub fn write(&mut self, link: u32, t: Time, p: &Packet, proto: u8) -> std::io::Result<()> {
        let Some(w) = self.files[link as usize].as_mut() else {
            return Ok(());
        };
        self.ip_id = self.ip_id.wrapping_add(1);
        let mut ip = Ipv4Header::new(
            self.transport.len() as u16,
            64,
            IpNumber(proto),
            node_ip(p.src),
            node_ip(p.dst),
        )
        .map_err(std::io::Error::other)?;
        ip.identification = self.ip_id;
        ip.ecn = match p.ecn {
            Ecn::NotEct => Ipv4Ecn::ZERO,
            Ecn::Ect1 => Ipv4Ecn::ONE,
            Ecn::Ect0 => Ipv4Ecn::TWO,
            Ecn::Ce => Ipv4Ecn::TRHEE, // sic: etherparse's name for 0b11
        };
        ip.header_checksum = ip.calc_header_checksum();
        self.frame.clear();
        ip.write(&mut self.frame)?;
        self.frame.extend_from_slice(&self.transport);
        let ts = std::time::Duration::from_nanos(t);
        w.write_packet(&PcapPacket::new(ts, self.frame.len() as u32, &self.frame))
            .map_err(std::io::Error::other)?;
        self.packets += 1;
        Ok(())
    }

    /// Render a datagram as UDP (ports from the flow, the datagram's number in the first
    /// eight payload bytes) into the scratch buffer; returns the IP protocol (17).
    pub fn udp(&mut self, p: &Packet, seq: u64, len: u32) -> u8 {
        let mut payload = vec![0u8; len as usize];
        let n = payload.len().min(8);
        payload[..n].copy_from_slice(&seq.to_be_bytes()[..n]);
        let port = 10_000 + (p.flow % 50_000) as u16;
        let h = etherparse::UdpHeader::with_ipv4_checksum(
            port,
            port,
            &Ipv4Header::new(
                (8 + payload.len()) as u16,
                64,
                IpNumber::UDP,
                node_ip(p.src),
                node_ip(p.dst),
            )
            .expect("a datagram fits an IPv4 packet"),
            &payload,
        )
        .expect("a datagram fits an IPv4 packet");
        self.transport.clear();
        self.transport.extend_from_slice(&h.to_bytes());
        self.transport.extend_from_slice(&payload);
        17
    }

    /// Flush and close every file.
    pub fn finish(&mut self) -> std::io::Result<()> {
        use std::io::Write;
        for w in self.files.iter_mut() {
            if let Some(w) = w.take() {
                w.into_writer().flush()?;
            }
        }
        Ok(())
    }
}
