//! Wire bytes to the simulator's view of a packet (DESIGN.md "the live driver maps wire
//! bytes to the element's view of a packet ... and back, fixing checksums"): an IPv4
//! header (RFC 791) and, for TCP (RFC 9293 3.1), sequence and acknowledgment numbers,
//! flags, window and payload length, so that links, queues (which look at `ip_len`) and
//! elements (which look at the segment) see what they see in a simulation.

use tcplab_core::{Ecn, Flags, Instant, Segment, SeqNo, Timestamps};
use tcplab_sim::Packet;

/// What the emulator needs from an IPv4 header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub proto: u8,
    pub total_len: u16,
    pub header_len: usize,
}

pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// The IPv4 header of `b`, or None for anything else (IPv6, truncated, bad length).
pub fn parse_ipv4(b: &[u8]) -> Option<Ipv4> {
    if b.len() < 20 || b[0] >> 4 != 4 {
        return None;
    }
    let header_len = ((b[0] & 0x0f) as usize) * 4;
    let total_len = u16::from_be_bytes([b[2], b[3]]);
    if header_len < 20 || (total_len as usize) < header_len || total_len as usize > b.len() {
        return None;
    }
    Some(Ipv4 {
        src: [b[12], b[13], b[14], b[15]],
        dst: [b[16], b[17], b[18], b[19]],
        proto: b[9],
        total_len,
        header_len,
    })
}

/// Source and destination ports of a TCP or UDP datagram.
pub fn ports(b: &[u8], ip: &Ipv4) -> Option<(u16, u16)> {
    let t = b.get(ip.header_len..ip.header_len + 4)?;
    Some((
        u16::from_be_bytes([t[0], t[1]]),
        u16::from_be_bytes([t[2], t[3]]),
    ))
}

/// The TCP segment of `b` as the simulator's `Segment` (options other than those the
/// length accounts for are not decoded: elements read seq, ack, flags, window, length).
pub fn segment(b: &[u8], ip: &Ipv4) -> Segment {
    let mut s = Segment {
        ecn: match b[1] & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        },
        ..Segment::default()
    };
    if ip.proto != PROTO_TCP {
        s.payload_len = (ip.total_len as usize - ip.header_len) as u32;
        return s;
    }
    let Some(t) = b.get(ip.header_len..ip.header_len + 20) else {
        return s;
    };
    s.seq = SeqNo(u32::from_be_bytes([t[4], t[5], t[6], t[7]]));
    s.ack = SeqNo(u32::from_be_bytes([t[8], t[9], t[10], t[11]]));
    let doff = ((t[12] >> 4) as usize) * 4;
    s.flags = Flags(t[13]);
    s.window = u16::from_be_bytes([t[14], t[15]]);
    s.payload_len = (ip.total_len as usize).saturating_sub(ip.header_len + doff) as u32;
    // Options (RFC 9293 3.2): only the timestamps (RFC 7323) matter to an element (BSF
    // copies them into the ACKs it forges).
    let opts = b
        .get(ip.header_len + 20..ip.header_len + doff.max(20))
        .unwrap_or(&[]);
    let mut i = 0;
    while i < opts.len() {
        match opts[i] {
            0 => break,
            1 => i += 1,
            k => {
                let Some(&len) = opts.get(i + 1) else { break };
                let len = len as usize;
                if len < 2 || i + len > opts.len() {
                    break;
                }
                if k == 8 && len == 10 {
                    let o = &opts[i + 2..i + 10];
                    s.options.timestamps = Some(Timestamps {
                        tsval: u32::from_be_bytes([o[0], o[1], o[2], o[3]]),
                        tsecr: u32::from_be_bytes([o[4], o[5], o[6], o[7]]),
                    });
                }
                i += len;
            }
        }
    }
    s
}

fn ecn_bits(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    }
}

/// Writes back what a queue or an element changed in the packet's view (the ECN field; the
/// TCP sequence and acknowledgment numbers, flags and window) and fixes the checksums.
/// Returns whether anything changed.
pub fn apply_changes(b: &mut [u8], before: &Segment, after: &Segment) -> bool {
    let Some(ip) = parse_ipv4(b) else {
        return false;
    };
    let mut changed = false;
    if before.ecn != after.ecn {
        b[1] = (b[1] & !3) | ecn_bits(after.ecn);
        changed = true;
    }
    if ip.proto == PROTO_TCP && b.len() >= ip.header_len + 20 {
        let t = ip.header_len;
        if before.seq != after.seq {
            b[t + 4..t + 8].copy_from_slice(&after.seq.0.to_be_bytes());
            changed = true;
        }
        if before.ack != after.ack {
            b[t + 8..t + 12].copy_from_slice(&after.ack.0.to_be_bytes());
            changed = true;
        }
        if before.flags != after.flags {
            b[t + 13] = after.flags.0;
            changed = true;
        }
        if before.window != after.window {
            b[t + 14..t + 16].copy_from_slice(&after.window.to_be_bytes());
            changed = true;
        }
    }
    if changed {
        fix_checksums(b);
    }
    changed
}

/// A packet an element created (a segment without payload, such as BSF's zero-window ACK)
/// as wire bytes from `src` to `dst`: IPv4 (TTL 64, DF), TCP with the timestamps option if
/// the segment has one, real checksums. A segment with payload cannot be forged (the bytes
/// are the kernel's): None.
pub fn forge(
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    seg: &Segment,
    ip_id: u16,
) -> Option<Vec<u8>> {
    if seg.payload_len > 0 {
        return None;
    }
    let opt_len = if seg.options.timestamps.is_some() {
        12
    } else {
        0
    };
    let total = 20 + 20 + opt_len;
    let mut b = vec![0u8; total];
    b[0] = 0x45;
    b[1] = ecn_bits(seg.ecn);
    b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    b[4..6].copy_from_slice(&ip_id.to_be_bytes());
    b[6] = 0x40;
    b[8] = 64;
    b[9] = PROTO_TCP;
    b[12..16].copy_from_slice(&src.0);
    b[16..20].copy_from_slice(&dst.0);
    let t = &mut b[20..];
    t[0..2].copy_from_slice(&src.1.to_be_bytes());
    t[2..4].copy_from_slice(&dst.1.to_be_bytes());
    t[4..8].copy_from_slice(&seg.seq.0.to_be_bytes());
    t[8..12].copy_from_slice(&seg.ack.0.to_be_bytes());
    t[12] = (((20 + opt_len) / 4) as u8) << 4;
    t[13] = seg.flags.0;
    t[14..16].copy_from_slice(&seg.window.to_be_bytes());
    if let Some(ts) = seg.options.timestamps {
        t[20] = 1;
        t[21] = 1;
        t[22] = 8;
        t[23] = 10;
        t[24..28].copy_from_slice(&ts.tsval.to_be_bytes());
        t[28..32].copy_from_slice(&ts.tsecr.to_be_bytes());
    }
    fix_checksums(&mut b);
    Some(b)
}

/// The packet the simulator's modules see for wire bytes `b`: `id` names the slot holding
/// the bytes, `flow` the route (the emulator's (source, destination) host pair), and
/// `ip_len` the IP datagram's length, which is what every link and queue charges.
pub fn packet(id: u64, route: u32, b: &[u8], ip: &Ipv4, now: Instant) -> Packet {
    Packet {
        id,
        flow: route,
        from_sender: true,
        hop: 0,
        ip_len: ip.total_len as u32,
        sent_at: now,
        seg: segment(b, ip),
    }
}

/// The Internet checksum (RFC 1071) of `data`, folded, starting from `sum`.
pub fn checksum(mut sum: u32, data: &[u8]) -> u16 {
    let mut i = 0;
    while i + 1 < data.len() {
        sum += u16::from_be_bytes([data[i], data[i + 1]]) as u32;
        i += 2;
    }
    if i < data.len() {
        sum += (data[i] as u32) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Recomputes the IPv4 header checksum and, for TCP, the TCP checksum (RFC 9293 3.1,
/// over the pseudo-header), after an element rewrote or created the packet.
pub fn fix_checksums(b: &mut [u8]) {
    let Some(ip) = parse_ipv4(b) else { return };
    b[10] = 0;
    b[11] = 0;
    let c = checksum(0, &b[..ip.header_len]);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    if ip.proto == PROTO_TCP && b.len() >= ip.header_len + 20 {
        let end = ip.total_len as usize;
        let tcp_len = end - ip.header_len;
        let mut sum = 0u32;
        for w in [&ip.src, &ip.dst] {
            sum +=
                u16::from_be_bytes([w[0], w[1]]) as u32 + u16::from_be_bytes([w[2], w[3]]) as u32;
        }
        sum += PROTO_TCP as u32 + tcp_len as u32;
        b[ip.header_len + 16] = 0;
        b[ip.header_len + 17] = 0;
        let c = checksum(sum, &b[ip.header_len..end]);
        b[ip.header_len + 16..ip.header_len + 18].copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SYN from 10.0.0.1:10000 to 10.0.0.2:5001 as Linux sends it, checksums included.
    fn syn() -> Vec<u8> {
        let mut b = vec![
            0x45, 0, 0, 40, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0,
            2, // IPv4
            0x27, 0x10, 0x13, 0x89, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
        ];
        fix_checksums(&mut b);
        b
    }

    #[test]
    fn an_ipv4_tcp_header_maps_to_the_simulators_view() {
        let b = syn();
        let ip = parse_ipv4(&b).unwrap();
        assert_eq!(
            (ip.src, ip.dst, ip.proto, ip.total_len),
            ([10, 0, 0, 1], [10, 0, 0, 2], 6, 40)
        );
        assert_eq!(ports(&b, &ip), Some((10000, 5001)));
        let p = packet(7, 3, &b, &ip, Instant::from_nanos(5));
        assert_eq!((p.id, p.flow, p.ip_len, p.seg.ip_len()), (7, 3, 40, 40));
        assert!(p.seg.flags.syn());
        assert_eq!(
            (p.seg.seq, p.seg.window, p.seg.payload_len),
            (SeqNo(1), 0xffff, 0)
        );
    }

    #[test]
    fn checksums_verify_to_zero_after_fixing() {
        // RFC 1071: the sum over a header including its own checksum folds to 0xffff.
        let b = syn();
        assert_eq!(checksum(0, &b[..20]), 0);
        let mut sum = 0u32;
        for w in [[10u8, 0, 0, 1], [10, 0, 0, 2]] {
            sum +=
                u16::from_be_bytes([w[0], w[1]]) as u32 + u16::from_be_bytes([w[2], w[3]]) as u32;
        }
        sum += 6 + 20;
        assert_eq!(checksum(sum, &b[20..]), 0);
    }

    #[test]
    fn a_forged_zero_window_ack_parses_back_with_valid_checksums() {
        let seg = Segment {
            seq: SeqNo(7),
            ack: SeqNo(1_000_000),
            flags: Flags::ACK,
            window: 0,
            options: tcplab_core::TcpOptions {
                timestamps: Some(Timestamps { tsval: 5, tsecr: 9 }),
                ..Default::default()
            },
            ..Segment::default()
        };
        let b = forge(([10, 0, 0, 2], 5001), ([10, 0, 0, 1], 10000), &seg, 3).unwrap();
        let ip = parse_ipv4(&b).unwrap();
        assert_eq!((ip.total_len, ports(&b, &ip)), (52, Some((5001, 10000))));
        let back = segment(&b, &ip);
        assert_eq!(
            (back.seq, back.ack, back.window, back.flags),
            (seg.seq, seg.ack, 0, Flags::ACK)
        );
        assert_eq!(back.options.timestamps, seg.options.timestamps);
        assert_eq!(checksum(0, &b[..20]), 0);
        // A rewrite (an element zeroing the window of a real ACK) keeps them valid.
        let mut real = syn();
        let before = segment(&real, &parse_ipv4(&real).unwrap());
        let after = Segment {
            window: 0,
            ecn: Ecn::Ce,
            ..before
        };
        assert!(apply_changes(&mut real, &before, &after));
        let ip = parse_ipv4(&real).unwrap();
        assert_eq!(segment(&real, &ip).window, 0);
        assert_eq!(real[1] & 3, 3);
        assert_eq!(checksum(0, &real[..20]), 0);
        assert!(forge(
            ([0; 4], 1),
            ([0; 4], 2),
            &Segment {
                payload_len: 1,
                ..seg
            },
            0
        )
        .is_none());
    }

    #[test]
    fn other_packets_are_not_ipv4() {
        assert_eq!(parse_ipv4(&[0x60; 40]), None);
        assert_eq!(parse_ipv4(&[0x45, 0, 0, 200]), None);
        let mut b = syn();
        b[3] = 60; // longer than the buffer
        assert_eq!(parse_ipv4(&b), None);
    }
}
