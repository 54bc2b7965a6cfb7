//! The TCP segment model (RFC 9293 section 3.1) with the options tcplab speaks:
//! MSS, window scale and timestamps (RFC 7323), SACK (RFC 2018), and the AFC option
//! (AFC paper section 4.1.1), Sprout's forecast option (ours, see
//! [`SproutForecastOption`]), and ECN's TCP flags and IP codepoint (RFC 3168). Payload
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
    /// Sprout-permitted, sent on SYN and SYN-ACK by an end whose `cc` is `sprout`
    /// ([`SproutForecastOption`]).
    pub sprout_permitted: bool,
    /// A Sprout forecast option is present (`cc = "sprout"`); read it with
    /// [`TcpOptions::sprout`]. Its 13 bytes are kept in `sack_blocks[2..4]`, which the
    /// option space never lets a segment carrying it use (40 - 17 bytes leave room for at
    /// most two SACK blocks): `Segment` keeps its size, and copying it stays a few vector
    /// moves rather than a `memcpy` call (the per-packet cost is measured on
    /// `bench/ns3-compare/p2p-1.toml`).
    pub sprout_present: bool,
}

/// Sprout's forecast as a TCP option: Winstein, Sivaraman and Balakrishnan (NSDI 2013),
/// section 4 ("the receiver sends the forecast to the sender"; the public implementation
/// carries it in its own datagram header, `DeliveryForecast`). Ours, an RFC 6994
/// experimental option (kind 253, ExID 0x5350, "SP"), 17 bytes:
///
/// | bytes | field |
/// |---|---|
/// | 1 | kind 253 |
/// | 1 | length 17 |
/// | 2 | ExID 0x5350 |
/// | 1 | `seq`: the receiver's tick number (mod 256) the forecast was made at |
/// | 4 | `received`: the highest stream offset received so far (mod 2^32) |
/// | 8 | `deltas`: the forecast, packets per tick over the next 8 ticks |
///
/// `deltas[i]` is `c[i] - c[i-1]` where `c[i]` is the cautious (5th percentile) forecast of
/// the packets delivered over the next `i + 1` ticks (`c[-1] = 0`); the cumulative counts are
/// non-decreasing, so the increments are never negative, and one byte each holds them
/// (saturating at 255 packets per tick, more than the forecaster's bins can reach at its
/// default 1000 packets/s and 20 ms ticks). `received` is the sequence-space form of
/// Sprout's "received or lost" count: everything below the highest byte received has been
/// received or lost (Sprout's receiver drops older holes the same way, with its throwaway
/// window). Negotiated with a 4-byte Sprout-permitted option (kind 253, length 4, the same
/// ExID) on the SYN and SYN-ACK: a peer that does not echo it gets no forecast.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug, Serialize, Deserialize)]
pub struct SproutForecastOption {
    pub seq: u8,
    received: u32,
    pub deltas: [u8; SPROUT_FORECAST_TICKS],
}

impl SproutForecastOption {
    pub fn new(seq: u8, received: u32, deltas: [u8; SPROUT_FORECAST_TICKS]) -> Self {
        SproutForecastOption {
            seq,
            received,
            deltas,
        }
    }
    /// The highest stream offset received, mod 2^32.
    pub fn received(&self) -> u32 {
        self.received
    }
}

/// The forecast's horizon in ticks (Sprout's `NUM_TICKS`).
pub const SPROUT_FORECAST_TICKS: usize = 8;
/// RFC 6994 experiment identifier of Sprout's options ("SP").
pub const SPROUT_EXID: u16 = 0x5350;
/// Wire length of the forecast option.
pub const SPROUT_OPTION_LEN: usize = 5 + 4 + SPROUT_FORECAST_TICKS;

impl TcpOptions {
    /// Sprout's forecast option, if present.
    #[inline]
    pub fn sprout(&self) -> Option<SproutForecastOption> {
        if !self.sprout_present {
            return None;
        }
        let (a, b) = (self.sack_blocks[2], self.sack_blocks[3]);
        let d = ((b.start.0 as u64) << 32 | b.end.0 as u64).to_be_bytes();
        Some(SproutForecastOption::new(a.end.0 as u8, a.start.0, d))
    }
    /// Sets (or clears) Sprout's forecast option. Set it before pushing SACK blocks: it
    /// takes the option space (and the storage) of the third and fourth.
    #[inline]
    pub fn set_sprout(&mut self, f: Option<SproutForecastOption>) {
        debug_assert!(
            self.sack_len <= 2,
            "Sprout's option goes in before the SACK blocks"
        );
        self.sprout_present = f.is_some();
        if let Some(f) = f {
            let d = u64::from_be_bytes(f.deltas);
            self.sack_blocks[2] = SackBlock {
                start: SeqNo(f.received),
                end: SeqNo(f.seq as u32),
            };
            self.sack_blocks[3] = SackBlock {
                start: SeqNo((d >> 32) as u32),
                end: SeqNo(d as u32),
            };
        }
    }
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
        if self.sprout_permitted {
            n += 4; // kind, len, 2-byte ExID (RFC 6994)
        }
        if self.sprout_present {
            n += SPROUT_OPTION_LEN;
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
    fn sprout_option_takes_17_bytes_and_leaves_room_for_one_sack_block() {
        let mut o = TcpOptions {
            timestamps: Some(Timestamps::default()),
            ..Default::default()
        };
        o.set_sprout(Some(SproutForecastOption::new(
            7,
            0xdead_beef,
            [1, 2, 3, 4, 5, 6, 7, 255],
        )));
        // 10 (TS) + 17 = 27, padded to 28.
        assert_eq!(o.wire_len(), 28);
        assert_eq!(o.max_sack_blocks(), 1);
        assert!(o.push_sack(SackBlock::default()));
        assert!(!o.push_sack(SackBlock::default()));
        // 27 + 10 = 37, padded to 40: the option space is full.
        assert_eq!(o.wire_len(), 40);
        // The block pushed and the option do not overwrite each other.
        assert_eq!(o.sack(), &[SackBlock::default()]);
        assert_eq!(
            o.sprout(),
            Some(SproutForecastOption::new(
                7,
                0xdead_beef,
                [1, 2, 3, 4, 5, 6, 7, 255]
            ))
        );
        // Without timestamps two blocks fit beside it, never a third.
        let mut o = TcpOptions::default();
        o.set_sprout(Some(SproutForecastOption::default()));
        assert_eq!(o.max_sack_blocks(), 2);
        // Segment keeps the size it had before Sprout (a copy stays inline moves).
        assert_eq!(std::mem::size_of::<Segment>(), 88);
        let syn = TcpOptions {
            sprout_permitted: true,
            ..Default::default()
        };
        assert_eq!(syn.wire_len(), 4);
    }

    #[test]
    fn payload_tag_depends_on_offset_and_length() {
        assert_ne!(payload_tag(0, 1448), payload_tag(1448, 1448));
        assert_ne!(payload_tag(0, 1448), payload_tag(0, 1447));
    }
}
