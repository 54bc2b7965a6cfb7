//! Classic libpcap capture files (nanosecond variant, magic 0xa1b23c4d; LINKTYPE_RAW, i.e.
//! bare IPv4) of simulated TCP segments, with real IPv4 (RFC 791) and TCP (RFC 9293)
//! headers and Internet checksums (RFC 1071), so Wireshark and tcptrace read them as-is;
//! the IP ECN field and the TCP ECE/CWR flags are those of RFC 3168 (sections 5 and 6.1).

use std::io::{self, Write};
use tcplab_core::segment::{
    kind, pattern_byte, IPV4_HEADER_LEN, SPROUT_EXID, SPROUT_OPTION_LEN, TCP_HEADER_LEN,
};
use tcplab_core::{Instant, Segment, TcpOptions};

/// pcap magic for nanosecond timestamps (written little-endian like any native writer).
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: the record starts with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// RFC 6994 experiment identifier of the AFC option (AFC paper section 4.1.1).
pub const AFC_EXID: u16 = 0xAFC0;

const MAX_IP_LEN: usize = 65_535;

/// Writes one capture file. Wrap files in a `BufWriter`: each packet is two `write_all`s.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    /// The packet under construction; reserved once for the largest IPv4 datagram.
    buf: Vec<u8>,
    ip_id: u16,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header. `snaplen` 0 stores whole packets; otherwise records keep
    /// their first `snaplen` bytes (checksums still cover the whole packet).
    pub fn new(mut out: W, snaplen: u32) -> io::Result<Self> {
        let header_snaplen = if snaplen == 0 {
            MAX_IP_LEN as u32
        } else {
            snaplen
        };
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay 0.
        h[16..20].copy_from_slice(&header_snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen,
            buf: Vec::with_capacity(MAX_IP_LEN),
            ip_id: 0,
        })
    }

    /// Appends one record. Payload bytes are the stream's pattern bytes starting at
    /// `payload_stream_offset` (the sender's send-buffer offset of the first payload byte).
    pub fn write_segment(
        &mut self,
        ts: Instant,
        src: ([u8; 4], u16),
        dst: ([u8; 4], u16),
        seg: &Segment,
        payload_stream_offset: u64,
    ) -> io::Result<()> {
        let ip_len = seg.ip_len() as usize;
        if ip_len > MAX_IP_LEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("segment of {ip_len} IP bytes does not fit an IPv4 datagram"),
            ));
        }
        if seg.tcp_header_len() > 60 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "TCP options of {} bytes exceed the 40-byte option space",
                    seg.options.wire_len()
                ),
            ));
        }
        self.ip_id = self.ip_id.wrapping_add(1);
        let buf = &mut self.buf;
        buf.clear();
        buf.resize(ip_len, 0); // within the reserved capacity: no allocation
        let tcp_len = ip_len - IPV4_HEADER_LEN as usize;
        let thl = seg.tcp_header_len() as usize;

        // IPv4 header (RFC 791): no options, DF set, TTL 64, protocol 6. The TOS byte is
        // DSCP 0 and the segment's ECN codepoint in its low two bits (RFC 3168 section 5);
        // the ECE and CWR flags are bits of `seg.flags`, written with the others below.
        let ip = &mut buf[..IPV4_HEADER_LEN as usize];
        ip[0] = 0x45;
        ip[1] = seg.ecn.bits();
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[4..6].copy_from_slice(&self.ip_id.to_be_bytes());
        ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes());
        ip[8] = 64;
        ip[9] = 6;
        ip[12..16].copy_from_slice(&src.0);
        ip[16..20].copy_from_slice(&dst.0);
        let c = checksum(ip, 0);
        ip[10..12].copy_from_slice(&c.to_be_bytes());

        // TCP header.
        let tcp = &mut buf[IPV4_HEADER_LEN as usize..];
        tcp[0..2].copy_from_slice(&src.1.to_be_bytes());
        tcp[2..4].copy_from_slice(&dst.1.to_be_bytes());
        tcp[4..8].copy_from_slice(&seg.seq.0.to_be_bytes());
        tcp[8..12].copy_from_slice(&seg.ack.0.to_be_bytes());
        tcp[12] = ((thl / 4) as u8) << 4;
        tcp[13] = seg.flags.0;
        tcp[14..16].copy_from_slice(&seg.window.to_be_bytes());
        write_options(&seg.options, &mut tcp[TCP_HEADER_LEN as usize..thl]);
        for (i, b) in tcp[thl..].iter_mut().enumerate() {
            *b = pattern_byte(payload_stream_offset.wrapping_add(i as u64));
        }
        // Pseudo-header (RFC 9293 section 3.1): addresses, protocol, TCP length.
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&src.0);
        pseudo[4..8].copy_from_slice(&dst.0);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&(tcp_len as u16).to_be_bytes());
        let c = checksum(tcp, sum16(&pseudo, 0));
        tcp[16..18].copy_from_slice(&c.to_be_bytes());

        let incl = if self.snaplen == 0 {
            ip_len
        } else {
            ip_len.min(self.snaplen as usize)
        };
        let ns = ts.as_nanos();
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(ip_len as u32).to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(&self.buf[..incl])
    }

    /// Appends one record of a packet that already has its wire bytes (live mode's real
    /// packets, `tcplab-live`): stored as they are, cut at the snaplen.
    pub fn write_raw(&mut self, ts: Instant, packet: &[u8]) -> io::Result<()> {
        let incl = if self.snaplen == 0 {
            packet.len()
        } else {
            packet.len().min(self.snaplen as usize)
        };
        let ns = ts.as_nanos();
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(packet.len() as u32).to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(&packet[..incl])
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Lays the options out in Linux's order (`tcp_options_write`: MSS, SACK-permitted+TS,
/// WS, SACK blocks; experimental options last) in exactly `TcpOptions::wire_len()` bytes.
/// Linux pads each option to a 32-bit word with leading NOPs; `wire_len` only pads the
/// total, so NOPs go where Linux puts them while the padding budget lasts (e.g. TS alone:
/// NOP,NOP,TS; but TS with SACK blocks: TS,SACK with no room for NOPs).
fn write_options(o: &TcpOptions, out: &mut [u8]) {
    let slack = out.len() - raw_len(o);
    let mut ow = OptWriter { out, w: 0, slack };
    if let Some(mss) = o.mss {
        let m = mss.to_be_bytes();
        ow.put(&[kind::MSS, 4, m[0], m[1]]);
    }
    let ts = o.timestamps.map(|t| {
        let (v, e) = (t.tsval.to_be_bytes(), t.tsecr.to_be_bytes());
        [
            kind::TIMESTAMPS,
            10,
            v[0],
            v[1],
            v[2],
            v[3],
            e[0],
            e[1],
            e[2],
            e[3],
        ]
    });
    match (o.sack_permitted, ts) {
        (true, Some(ts)) => {
            ow.put(&[kind::SACK_PERMITTED, 2]);
            ow.put(&ts);
        }
        (sp, ts) => {
            if let Some(ts) = ts {
                ow.nops(2);
                ow.put(&ts);
            }
            if sp {
                ow.nops(2);
                ow.put(&[kind::SACK_PERMITTED, 2]);
            }
        }
    }
    if let Some(ws) = o.window_scale {
        ow.nops(1);
        ow.put(&[kind::WINDOW_SCALE, 3, ws]);
    }
    if o.sack_len > 0 {
        ow.nops(2);
        ow.put(&[kind::SACK, 2 + 8 * o.sack_len]);
        for b in o.sack() {
            ow.put(&b.start.0.to_be_bytes());
            ow.put(&b.end.0.to_be_bytes());
        }
    }
    let exid = AFC_EXID.to_be_bytes();
    if o.afc_permitted {
        ow.put(&[kind::EXPERIMENTAL, 4, exid[0], exid[1]]);
    }
    if let Some(rate) = o.afc_rate_kbps {
        let r = rate.to_be_bytes();
        ow.put(&[
            kind::EXPERIMENTAL,
            8,
            exid[0],
            exid[1],
            r[0],
            r[1],
            r[2],
            r[3],
        ]);
    }
    // Sprout's options (`segment::SproutForecastOption` documents the layout).
    let exid = SPROUT_EXID.to_be_bytes();
    if o.sprout_permitted {
        ow.put(&[kind::EXPERIMENTAL, 4, exid[0], exid[1]]);
    }
    if let Some(f) = o.sprout() {
        let r = f.received().to_be_bytes();
        ow.put(&[
            kind::EXPERIMENTAL,
            SPROUT_OPTION_LEN as u8,
            exid[0],
            exid[1],
            f.seq,
            r[0],
            r[1],
            r[2],
            r[3],
        ]);
        ow.put(&f.deltas);
    }
    ow.nops(ow.slack);
    debug_assert_eq!(
        ow.w,
        ow.out.len(),
        "options must fill exactly wire_len bytes"
    );
}

struct OptWriter<'a> {
    out: &'a mut [u8],
    w: usize,
    /// NOPs still available for alignment.
    slack: usize,
}

impl OptWriter<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.w..self.w + bytes.len()].copy_from_slice(bytes);
        self.w += bytes.len();
    }
    fn nops(&mut self, want: usize) {
        let k = want.min(self.slack);
        self.slack -= k;
        for _ in 0..k {
            self.put(&[kind::NOP]);
        }
    }
}

/// Option bytes before any padding (the sum `TcpOptions::wire_len` rounds up).
fn raw_len(o: &TcpOptions) -> usize {
    4 * o.mss.is_some() as usize
        + 3 * o.window_scale.is_some() as usize
        + 2 * o.sack_permitted as usize
        + 10 * o.timestamps.is_some() as usize
        + 4 * o.afc_permitted as usize
        + 8 * o.afc_rate_kbps.is_some() as usize
        + 4 * o.sprout_permitted as usize
        + SPROUT_OPTION_LEN * o.sprout_present as usize
        + if o.sack_len > 0 {
            2 + 8 * o.sack_len as usize
        } else {
            0
        }
}

/// One's-complement sum of big-endian 16-bit words (RFC 1071 section 4.1), unfolded; an
/// odd final byte is padded with zero.
fn sum16(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u64;
    }
    if let [b] = chunks.remainder() {
        acc += (*b as u64) << 8;
    }
    acc
}

/// The Internet checksum of `data` plus a partial sum (RFC 1071): fold and complement.
fn checksum(data: &[u8], acc: u64) -> u16 {
    let mut s = sum16(data, acc);
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::segment::SproutForecastOption;
    use tcplab_core::{Flags, SackBlock, SeqNo, Timestamps};

    const SRC: ([u8; 4], u16) = ([10, 0, 0, 1], 5001);
    const DST: ([u8; 4], u16) = ([10, 0, 1, 2], 80);

    fn syn_all_options() -> Segment {
        let mut s = Segment {
            seq: SeqNo(1000),
            flags: Flags::SYN,
            window: 65535,
            ..Default::default()
        };
        s.options.mss = Some(1460);
        s.options.window_scale = Some(7);
        s.options.sack_permitted = true;
        s.options.timestamps = Some(Timestamps {
            tsval: 0x01020304,
            tsecr: 0,
        });
        s.options.afc_permitted = true;
        s
    }

    fn data_ts_sack() -> Segment {
        let mut s = Segment {
            seq: SeqNo(1001),
            ack: SeqNo(77),
            flags: Flags::ACK | Flags::PSH,
            window: 501,
            payload_len: 1001, // odd: exercises the checksum's zero padding
            ..Default::default()
        };
        s.options.timestamps = Some(Timestamps { tsval: 5, tsecr: 6 });
        s.options.push_sack(SackBlock {
            start: SeqNo(3000),
            end: SeqNo(4000),
        });
        s.options.push_sack(SackBlock {
            start: SeqNo(5000),
            end: SeqNo(6000),
        });
        s
    }

    /// Splits a capture into (ts_ns, incl, orig, bytes) records after checking the header.
    fn records(file: &[u8], snaplen: u32) -> Vec<(u64, usize, usize, &[u8])> {
        assert_eq!(&file[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&file[4..8], &[2, 0, 4, 0]);
        assert_eq!(&file[8..16], &[0; 8]);
        assert_eq!(
            u32::from_le_bytes(file[16..20].try_into().unwrap()),
            snaplen
        );
        assert_eq!(u32::from_le_bytes(file[20..24].try_into().unwrap()), 101);
        let mut out = Vec::new();
        let mut p = 24;
        let le = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
        while p < file.len() {
            let r = &file[p..p + 16];
            let ts = le(&r[0..4]) as u64 * 1_000_000_000 + le(&r[4..8]) as u64;
            let (incl, orig) = (le(&r[8..12]) as usize, le(&r[12..16]) as usize);
            out.push((ts, incl, orig, &file[p + 16..p + 16 + incl]));
            p += 16 + incl;
        }
        assert_eq!(p, file.len());
        out
    }

    /// (kind, body) pairs of the options, NOPs included as (1, []); checks every length.
    fn parse_options(opts: &[u8]) -> Vec<(u8, Vec<u8>)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < opts.len() {
            match opts[i] {
                kind::EOL => break,
                kind::NOP => {
                    out.push((1, vec![]));
                    i += 1;
                }
                k => {
                    let len = opts[i + 1] as usize;
                    assert!(
                        len >= 2 && i + len <= opts.len(),
                        "bad option length at {i}: {opts:?}"
                    );
                    out.push((k, opts[i + 2..i + len].to_vec()));
                    i += len;
                }
            }
        }
        out
    }

    fn verify_packet(pkt: &[u8], seg: &Segment, stream_offset: u64) {
        assert_eq!(pkt.len(), seg.ip_len() as usize);
        assert_eq!(pkt[0], 0x45);
        assert_eq!(u16::from_be_bytes([pkt[2], pkt[3]]) as u32, seg.ip_len());
        assert_eq!(&pkt[6..10], &[0x40, 0, 64, 6]);
        assert_eq!(checksum(&pkt[..20], 0), 0, "IPv4 header checksum");
        let tcp = &pkt[20..];
        let mut pseudo = [0u8; 12];
        pseudo[0..8].copy_from_slice(&pkt[12..20]);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&(tcp.len() as u16).to_be_bytes());
        assert_eq!(checksum(tcp, sum16(&pseudo, 0)), 0, "TCP checksum");
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), seg.seq.0);
        assert_eq!(
            u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            seg.ack.0
        );
        assert_eq!((tcp[12] >> 4) as u32 * 4, seg.tcp_header_len());
        assert_eq!(tcp[13], seg.flags.0);
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), seg.window);
        let thl = seg.tcp_header_len() as usize;
        for (i, &b) in tcp[thl..].iter().enumerate() {
            assert_eq!(b, pattern_byte(stream_offset + i as u64));
        }
    }

    #[test]
    fn writes_valid_headers_checksums_and_options() {
        let syn = syn_all_options();
        let data = data_ts_sack();
        let mut ack = Segment {
            seq: SeqNo(77),
            ack: SeqNo(2002),
            flags: Flags::ACK,
            window: 1,
            ..Default::default()
        };
        ack.options.timestamps = Some(Timestamps { tsval: 9, tsecr: 5 });
        ack.options.afc_rate_kbps = Some(6000);
        let mut w = PcapWriter::new(Vec::new(), 0).unwrap();
        w.write_segment(Instant::from_nanos(1_500_000_123), SRC, DST, &syn, 0)
            .unwrap();
        w.write_segment(Instant::from_secs(2), SRC, DST, &data, 1)
            .unwrap();
        w.write_segment(Instant::from_secs(3), DST, SRC, &ack, 0)
            .unwrap();
        let file = w.into_inner();
        let recs = records(&file, 65535);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].0, 1_500_000_123);
        for ((_, incl, orig, bytes), (seg, off)) in
            recs.iter().zip([(&syn, 0), (&data, 1), (&ack, 0)])
        {
            assert_eq!(
                (*incl, *orig),
                (seg.ip_len() as usize, seg.ip_len() as usize)
            );
            verify_packet(bytes, seg, off);
        }
        // IP IDs increment.
        assert_eq!((recs[0].3[5], recs[1].3[5]), (1, 2));

        // SYN: MSS, SACK-permitted + TS (Linux's combined word), NOP, WS, AFC-permitted.
        let o = parse_options(&recs[0].3[40..64]);
        let kinds: Vec<u8> = o.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, [2, 4, 8, 1, 3, 253]);
        assert_eq!(o[0].1, [0x05, 0xb4]);
        assert_eq!(o[2].1, [1, 2, 3, 4, 0, 0, 0, 0]);
        assert_eq!(o[4].1, [7]);
        assert_eq!(o[5].1, [0xaf, 0xc0]);

        // Data: TS then SACK with its two blocks, in exactly wire_len = 28 bytes.
        let o = parse_options(&recs[1].3[40..68]);
        assert_eq!(o.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [8, 5]);
        assert_eq!(o[0].1, [0, 0, 0, 5, 0, 0, 0, 6]);
        let sack: Vec<u32> = o[1]
            .1
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(sack, [3000, 4000, 5000, 6000]);

        // ACK: NOP, NOP, TS (Linux's aligned TS), AFC rate in kbit/s.
        let o = parse_options(&recs[2].3[40..60]);
        assert_eq!(
            o.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [1, 1, 8, 253]
        );
        assert_eq!(o[3].1, [0xaf, 0xc0, 0, 0, 0x17, 0x70]);
    }

    #[test]
    fn every_option_combination_fills_wire_len_exactly() {
        for bits in 0u32..512 {
            let mut o = TcpOptions::default();
            let b = |i: u32| bits & (1 << i) != 0;
            o.mss = b(0).then_some(1400);
            o.window_scale = b(1).then_some(9);
            o.sack_permitted = b(2);
            o.timestamps = b(3).then_some(Timestamps::default());
            o.afc_permitted = b(4);
            o.afc_rate_kbps = b(5).then_some(1);
            o.sprout_permitted = b(7);
            o.set_sprout(b(8).then_some(SproutForecastOption::new(3, 0x0102_0304, [9; 8])));
            if b(6) {
                while o.push_sack(SackBlock::default()) {}
            }
            if o.wire_len() > 40 {
                continue; // not a segment TCP could send
            }
            let mut out = vec![0xee; o.wire_len() as usize];
            write_options(&o, &mut out);
            let parsed = parse_options(&out);
            let n = |k: u8| parsed.iter().filter(|(x, _)| *x == k).count();
            assert_eq!(n(2), o.mss.is_some() as usize, "{bits:b}");
            assert_eq!(n(3), o.window_scale.is_some() as usize);
            assert_eq!(n(4), o.sack_permitted as usize);
            assert_eq!(n(8), o.timestamps.is_some() as usize);
            assert_eq!(n(5), (o.sack_len > 0) as usize);
            assert_eq!(
                n(253),
                o.afc_permitted as usize
                    + o.afc_rate_kbps.is_some() as usize
                    + o.sprout_permitted as usize
                    + o.sprout_present as usize
            );
            if o.sprout_present {
                let body = parsed
                    .iter()
                    .find(|(k, v)| *k == 253 && v.len() == SPROUT_OPTION_LEN - 2)
                    .map(|(_, v)| v.clone())
                    .unwrap();
                assert_eq!(body, [0x53, 0x50, 3, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9]);
            }
        }
    }

    #[test]
    fn snaplen_truncates_but_checksums_cover_the_whole_packet() {
        let data = data_ts_sack();
        let mut full = PcapWriter::new(Vec::new(), 0).unwrap();
        let mut cut = PcapWriter::new(Vec::new(), 68).unwrap();
        let cap = cut.buf.capacity();
        for i in 0..3 {
            full.write_segment(Instant::from_millis(i), SRC, DST, &data, 1)
                .unwrap();
            cut.write_segment(Instant::from_millis(i), SRC, DST, &data, 1)
                .unwrap();
        }
        assert_eq!(cut.buf.capacity(), cap, "no reallocation per packet");
        let (full, cut) = (full.into_inner(), cut.into_inner());
        let (f, c) = (records(&full, 65535), records(&cut, 68));
        assert_eq!((c[0].1, c[0].2), (68, data.ip_len() as usize));
        assert_eq!(c[0].3, &f[0].3[..68]);
    }

    #[test]
    fn oversized_segments_are_an_error_not_a_panic() {
        let s = Segment {
            payload_len: 70_000,
            ..Default::default()
        };
        let mut w = PcapWriter::new(Vec::new(), 0).unwrap();
        assert!(w.write_segment(Instant::ZERO, SRC, DST, &s, 0).is_err());
        let mut s = data_ts_sack();
        s.options.mss = Some(1);
        s.options.window_scale = Some(1);
        s.options.afc_rate_kbps = Some(1);
        assert!(s.options.wire_len() > 40);
        assert!(w.write_segment(Instant::ZERO, SRC, DST, &s, 0).is_err());
        assert_eq!(
            w.into_inner().len(),
            24,
            "nothing written for refused segments"
        );
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(&d, 0), !0xddf2);
    }

    /// RFC 3168: an ECN-setup SYN, ECT(0) data with CWR, a CE-marked segment, an ACK with
    /// ECE, an ECT(1) segment, each: (segment, ECN bits, ECE, CWR).
    fn ecn_segments() -> Vec<(Segment, u8, bool, bool)> {
        use tcplab_core::Ecn;
        let mut syn = syn_all_options();
        syn.flags = Flags::SYN | Flags::ECE | Flags::CWR;
        let with = |ecn, flags| {
            let mut s = data_ts_sack();
            s.ecn = ecn;
            s.flags = s.flags | flags;
            s
        };
        let mut ack = data_ts_sack();
        ack.payload_len = 0;
        ack.flags = Flags::ACK | Flags::ECE;
        vec![
            (syn, 0b00, true, true),
            (with(Ecn::Ect0, Flags::CWR), 0b10, false, true),
            (with(Ecn::Ce, Flags::NONE), 0b11, false, false),
            (ack, 0b00, true, false),
            (with(Ecn::Ect1, Flags::NONE), 0b01, false, false),
        ]
    }

    #[test]
    fn ecn_field_and_flags_are_written_and_the_ip_checksum_holds() {
        let mut w = PcapWriter::new(Vec::new(), 0).unwrap();
        let segs = ecn_segments();
        for (i, (s, ..)) in segs.iter().enumerate() {
            w.write_segment(Instant::from_millis(i as u64), SRC, DST, s, 1)
                .unwrap();
        }
        let file = w.into_inner();
        for ((_, _, _, pkt), (_, bits, ece, cwr)) in records(&file, 65535).iter().zip(&segs) {
            // TOS byte: DSCP 0, ECN in the low two bits (RFC 3168 section 5).
            assert_eq!(pkt[1], *bits);
            // A header with a correct checksum sums to 0xffff (RFC 1071): 0 after `!`.
            assert_eq!(checksum(&pkt[..20], 0), 0);
            let flags = pkt[20 + 13];
            assert_eq!((flags & 0x40 != 0, flags & 0x80 != 0), (*ece, *cwr));
        }
    }

    #[test]
    fn tshark_reads_the_ecn_field_and_flags() {
        if std::process::Command::new("tshark")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("skipped: tshark is not installed");
            return;
        }
        let path =
            std::env::temp_dir().join(format!("tcplab-pcap-ecn-test-{}.pcap", std::process::id()));
        let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 0).unwrap();
        let segs = ecn_segments();
        for (i, (s, ..)) in segs.iter().enumerate() {
            w.write_segment(Instant::from_millis(i as u64), SRC, DST, s, 1)
                .unwrap();
        }
        w.flush().unwrap();
        drop(w);
        let out = std::process::Command::new("tshark")
            .args(["-o", "ip.check_checksum:TRUE", "-T", "fields"])
            .args(["-e", "ip.dsfield.ecn", "-e", "tcp.flags.ece"])
            .args(["-e", "tcp.flags.cwr", "-e", "ip.checksum.status", "-r"])
            .arg(&path)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        // tshark prints booleans as 1/0 (4.x) or True/False (older); checksum status 1 is
        // "Good" (PROTO_CHECKSUM_E_GOOD).
        let flag = |f: &str| matches!(f, "1" | "True");
        let rows: Vec<(u8, bool, bool, String)> = text
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 4, "{l:?}");
                (
                    f[0].parse().unwrap(),
                    flag(f[1]),
                    flag(f[2]),
                    f[3].to_string(),
                )
            })
            .collect();
        let want: Vec<(u8, bool, bool, String)> = segs
            .iter()
            .map(|(_, b, e, c)| (*b, *e, *c, "1".to_string()))
            .collect();
        assert_eq!(rows, want, "{text}");
    }

    #[test]
    fn tshark_finds_nothing_malformed() {
        let probe = std::process::Command::new("tshark")
            .arg("--version")
            .output();
        if probe.is_err() {
            eprintln!("skipped: tshark is not installed");
            return;
        }
        let path =
            std::env::temp_dir().join(format!("tcplab-pcap-test-{}.pcap", std::process::id()));
        let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 0).unwrap();
        w.write_segment(Instant::ZERO, SRC, DST, &syn_all_options(), 0)
            .unwrap();
        w.write_segment(Instant::from_millis(1), SRC, DST, &data_ts_sack(), 1)
            .unwrap();
        w.flush().unwrap();
        drop(w);
        let out = std::process::Command::new("tshark")
            .args([
                "-o",
                "ip.check_checksum:TRUE",
                "-o",
                "tcp.check_checksum:TRUE",
                "-V",
                "-r",
            ])
            .arg(&path)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !text.contains("Malformed") && !text.contains("incorrect"),
            "{text}"
        );
        assert!(text.contains("Transmission Control Protocol"), "{text}");
    }
}
