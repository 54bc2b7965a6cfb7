//! The TCP segment model (RFC 9293 section 3.1) with the options tcplab speaks:
//! MSS, window scale and timestamps (RFC 7323), SACK (RFC 2018), and the AFC option
//! (AFC paper section 4.1.1), and ECN's TCP flags and IP codepoint (RFC 3168). Payload
//! bytes are virtual (see [`payload_tag`]).

use crate::seq::SeqNo;
use serde::{Deserialize, Serialize};

/// TCP header flags.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Flags(pub u8);

impl Flags {
    pub const FIN: Flags = Flags(0x01);
    pub const SYN: Flags = Flags(0x02);
    pub const RST: Flags = Flags(0x04);
    pub const PSH: Flags = Flags(0x08);
    pub const ACK: Flags = Flags(0x10);
    /// ECN-Echo (RFC 3168 6.1): the receiver saw a CE mark; in a SYN, ECN is requested.
    pub const ECE: Flags = Flags(0x40);
    /// Congestion Window Reduced (RFC 3168 6.1): the sender reacted to an ECE.
    pub const CWR: Flags = Flags(0x80);
    pub const NONE: Flags = Flags(0);

    pub fn contains(self, o: Flags) -> bool {
        self.0 & o.0 == o.0
    }
    pub fn syn(self) -> bool {
        self.contains(Flags::SYN)
    }
    pub fn fin(self) -> bool {
        self.contains(Flags::FIN)
    }
    pub fn ack(self) -> bool {
        self.contains(Flags::ACK)
    }
    pub fn rst(self) -> bool {
        self.contains(Flags::RST)
    }
    pub fn ece(self) -> bool {
        self.contains(Flags::ECE)
    }
    pub fn cwr(self) -> bool {
        self.contains(Flags::CWR)
    }
}

/// The ECN field of the IP header carrying a segment (RFC 3168 section 5). It belongs to
/// IP, but travels with the segment: the endpoint sets ECT on what it sends and reads CE
/// on what it receives, and a queue on the way may turn ECT into CE.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub enum Ecn {
    /// Not ECN-Capable Transport (00).
    #[default]
    NotEct,
    /// ECT(1) (01).
    Ect1,
    /// ECT(0) (10), what RFC 3168 senders set.
    Ect0,
    /// Congestion Experienced (11).
    Ce,
}

impl Ecn {
    /// The two bits as they sit in the IPv4 TOS byte's low end.
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }
    /// ECN-capable: a congested queue may mark it instead of dropping it.
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, o: Flags) -> Flags {
        Flags(self.0 | o.0)
    }
}

impl std::fmt::Debug for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = [
            (0x02, "S"),
            (0x10, "."),
            (0x01, "F"),
            (0x04, "R"),
            (0x08, "P"),
            (0x40, "E"),
            (0x80, "W"),
        ];
        let s: String = names
            .iter()
            .filter(|(b, _)| self.0 & b != 0)
            .map(|(_, n)| *n)
            .collect();
        write!(f, "[{s}]")
    }
}

/// One SACK block: the half-open range `[start, end)` held by the receiver.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub struct SackBlock {
    pub start: SeqNo,
    pub end: SeqNo,
}

/// RFC 7323 timestamps option.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub struct Timestamps {
    pub tsval: u32,
    pub tsecr: u32,
}

/// At most 4 SACK blocks fit in 40 option bytes, 3 next to timestamps (RFC 2018 section 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// Option kinds (IANA). AFC uses an experimental kind (RFC 6994 shared experimental 253).
pub mod kind {
    pub const EOL: u8 = 0;
    pub const NOP: u8 = 1;
    pub const MSS: u8 = 2;
    pub const WINDOW_SCALE: u8 = 3;
    pub const SACK_PERMITTED: u8 = 4;
    pub const SACK: u8 = 5;
    pub const TIMESTAMPS: u8 = 8;
    pub const EXPERIMENTAL: u8 = 253;
}

/// The options carried by one segment. Fixed size: no allocation per segment.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: Option<Timestamps>,
    pub sack_blocks: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_len: u8,
    /// AFC-permitted, sent on SYN and SYN-ACK (AFC section 4.1.1).
    pub afc_permitted: bool,
    /// The receiver's smoothed application read rate in kbit/s (AFC section 4.1.1).
    pub afc_rate_kbps: Option<u32>,
}

impl TcpOptions {
    pub fn sack(&self) -> &[SackBlock] {
        &self.sack_blocks[..self.sack_len as usize]
    }
    /// Appends a SACK block; returns false when the option space is full.
    pub fn push_sack(&mut self, b: SackBlock) -> bool {
        let cap = self.max_sack_blocks();
        if (self.sack_len as usize) < cap {
            self.sack_blocks[self.sack_len as usize] = b;
            self.sack_len += 1;
            true
        } else {
            false
        }
    }
    /// How many SACK blocks fit beside the other options of this segment.
    pub fn max_sack_blocks(&self) -> usize {
        let other = self.len_without_sack();
        // SACK option: 2 bytes + 8 per block, inside 40 bytes of option space.
        ((40usize.saturating_sub(other) - 2) / 8).min(MAX_SACK_BLOCKS)
    }
    fn len_without_sack(&self) -> usize {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 3;
        }
        if self.sack_permitted {
            n += 2;
        }
        if self.timestamps.is_some() {
            n += 10;
        }
        if self.afc_permitted {
            n += 4; // kind, len, 2-byte ExID (RFC 6994)
        }
        if self.afc_rate_kbps.is_some() {
            n += 8; // kind, len, ExID, 4-byte rate
        }
        n
    }
    /// Option bytes on the wire, padded to a multiple of 4 (as Linux lays them out with NOPs).
    pub fn wire_len(&self) -> u32 {
        let mut n = self.len_without_sack();
        if self.sack_len > 0 {
            n += 2 + 8 * self.sack_len as usize;
        }
        (n.div_ceil(4) * 4) as u32
    }
}

/// A TCP segment. Ports and addresses live in the simulator's packet, not here.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub struct Segment {
    pub seq: SeqNo,
    pub ack: SeqNo,
    pub flags: Flags,
    /// The raw 16-bit window field (already right-shifted by the sender's window scale).
    pub window: u16,
    pub options: TcpOptions,
    pub payload_len: u32,
    /// Digest of the payload bytes: `payload_tag(stream_offset, payload_len)`.
    pub payload_tag: u64,
    /// The IP header's ECN codepoint.
    pub ecn: Ecn,
}

/// IPv4 header without options.
pub const IPV4_HEADER_LEN: u32 = 20;
/// TCP header without options.
pub const TCP_HEADER_LEN: u32 = 20;

impl Segment {
    /// TCP header plus options.
    pub fn tcp_header_len(&self) -> u32 {
        TCP_HEADER_LEN + self.options.wire_len()
    }
    /// Length of the IP datagram carrying this segment.
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER_LEN + self.tcp_header_len() + self.payload_len
    }
    /// Sequence space consumed: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload_len + self.flags.syn() as u32 + self.flags.fin() as u32
    }
}

/// Payload bytes are virtual: the byte at stream offset `o` is `pattern_byte(o)`, and a
/// segment carries a digest of its bytes instead of the bytes (no copy, no allocation per
/// packet). The sender computes the tag from its send-buffer offset; the receiver checks
/// it against the offset implied by the sequence number, so any disagreement between the
/// two (ISN, wrap-around, a resend of the wrong range) is caught at arrival.
pub fn payload_tag(stream_offset: u64, len: u32) -> u64 {
    let mut z = stream_offset
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((len as u64) << 1 | 1);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The byte the application writes at stream offset `o` (used by the pcap exporter to
/// materialise payloads and by the byte-stream check).
pub fn pattern_byte(o: u64) -> u8 {
    (o.wrapping_mul(31) ^ (o >> 8).wrapping_mul(7)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_segment_with_timestamps_is_1500_bytes_at_mss_1448() {
        // ns-3 and Linux: MSS 1448 = 1500 - 20 (IP) - 20 (TCP) - 12 (TS option padded).
        let mut s = Segment::default();
        s.options.timestamps = Some(Timestamps::default());
        s.payload_len = 1448;
        assert_eq!(s.ip_len(), 1500);
    }

    #[test]
    fn sack_blocks_fit_the_option_space() {
        let mut o = TcpOptions::default();
        assert_eq!(o.max_sack_blocks(), 4);
        o.timestamps = Some(Timestamps::default());
        assert_eq!(o.max_sack_blocks(), 3);
        for i in 0..4 {
            let ok = o.push_sack(SackBlock {
                start: SeqNo(i * 10),
                end: SeqNo(i * 10 + 5),
            });
            assert_eq!(ok, i < 3);
        }
        // 10 (TS) + 2 + 24 = 36 bytes.
        assert_eq!(o.wire_len(), 36);
    }

    #[test]
    fn payload_tag_depends_on_offset_and_length() {
        assert_ne!(payload_tag(0, 1448), payload_tag(1448, 1448));
        assert_ne!(payload_tag(0, 1448), payload_tag(0, 1447));
    }
}
