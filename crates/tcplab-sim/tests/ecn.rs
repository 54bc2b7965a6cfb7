//! ECN end to end (RFC 3168 section 6.1) in the simulator: a flow with `tcp.ecn` on both
//! ends negotiates it and sends its new data as ECT(0), as the summary and the pcap of
//! both links show. CE marks come from a marking queue (RED), not tested here: the
//! reactions to CE, ECE and CWR are the dialogue tests' (tcplab-core tests/ecn_dialogue.rs).

mod common;
use common::*;
use tcplab_sim::config::*;

/// A 10 Mbit/s, 40 ms RTT download through a drop-tail buffer of 34 packets (the BDP),
/// which overflows now and then: there are retransmissions and loss reductions.
fn scenario(ecn: bool, receiver_ecn: Option<bool>, pcap: Option<&str>) -> Scenario {
    let mut s = p2p(
        "ecn-end-to-end",
        fixed(10_000_000, 20, 34),
        fixed(10_000_000, 20, 1000),
        10,
    );
    s.flows[0].tcp.ecn = ecn;
    if let Some(r) = receiver_ecn {
        let mut rcv = s.flows[0].tcp.clone();
        rcv.ecn = r;
        s.flows[0].receiver_tcp = Some(rcv);
    }
    if let Some(dir) = pcap {
        for link in ["downlink", "uplink"] {
            s.record.pcap.push(PcapSpec {
                link: link.into(),
                path: format!("{dir}/{link}.pcap"),
                snaplen: 0,
            });
        }
    }
    s.record.timeseries = false;
    s
}

/// One captured packet's ECN codepoint, TCP flags and payload length (the writer's
/// LINKTYPE_RAW IPv4 records without IP options).
struct Pkt {
    ecn: u8,
    flags: u8,
    seq: u32,
    payload: usize,
}

fn read_pcap(path: &str) -> Vec<Pkt> {
    let file = std::fs::read(path).unwrap();
    let le = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap()) as usize;
    let mut p = 24;
    let mut out = Vec::new();
    while p < file.len() {
        let incl = le(&file[p + 8..p + 12]);
        let ip = &file[p + 16..p + 16 + incl];
        let ip_len = u16::from_be_bytes([ip[2], ip[3]]) as usize;
        let thl = (ip[20 + 12] >> 4) as usize * 4;
        out.push(Pkt {
            ecn: ip[1] & 0b11,
            flags: ip[20 + 13],
            seq: u32::from_be_bytes(ip[24..28].try_into().unwrap()),
            payload: ip_len - 20 - thl,
        });
        p += 16 + incl;
    }
    out
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;

#[test]
fn an_ecn_flow_negotiates_and_sends_its_new_data_as_ect0() {
    let dir = std::env::temp_dir().join(format!("tcplab-ecn-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let out = run_ok(&scenario(true, None, Some(d)));
    let f = &out.summary.flows[0];
    let e = f.ecn.expect("ECN counters for an ECN flow");
    assert!(e.negotiated);
    assert!(f.retransmits > 0, "the buffer should overflow");
    // No queue marks: nothing CE, no echo, no ECE reduction; loss reductions set CWR.
    assert_eq!((e.ce_received, e.ece_sent, e.reductions), (0, 0, 0));
    assert!(e.cwr_sent > 0);

    let down = read_pcap(&format!("{d}/downlink.pcap"));
    let up = read_pcap(&format!("{d}/uplink.pcap"));
    std::fs::remove_dir_all(&dir).unwrap();
    // The handshake: the ECN-setup SYN (ECE+CWR) and SYN-ACK (ECE alone), neither ECT.
    let syns: Vec<&Pkt> = down
        .iter()
        .chain(&up)
        .filter(|p| p.flags & SYN != 0)
        .collect();
    assert_eq!(syns.len(), 2);
    for s in syns {
        let want = if s.flags & ACK != 0 { ECE } else { ECE | CWR };
        assert_eq!((s.flags & (ECE | CWR), s.ecn), (want, 0b00));
    }
    // Data (server to client), as captured after the queue: a segment beyond everything
    // seen before is new data and ECT(0); one below is a retransmission and Not-ECT (RFC
    // 3168 6.1.5; its original may have been dropped before the capture). CWR rides on
    // new data only.
    let data: Vec<&Pkt> = down.iter().filter(|p| p.payload > 0).collect();
    let mut high = data[0].seq;
    let (mut ect, mut not_ect) = (0u64, 0u64);
    for p in &data {
        let new = p.seq.wrapping_sub(high) as i32 >= 0;
        if new {
            high = p.seq.wrapping_add(p.payload as u32);
            ect += 1;
        } else {
            not_ect += 1;
        }
        assert_eq!(p.ecn, if new { 0b10 } else { 0b00 }, "seq {}", p.seq);
        assert!(p.flags & CWR == 0 || new);
    }
    // What the sender sent is what was captured, what the queue dropped and what was still
    // queued (at most its 34 packets) when the run ended.
    let drops = out.summary.links[0].drops.queue;
    assert_eq!(out.summary.links[0].name, "downlink");
    let queued = (e.ect_sent + f.retransmits) - (ect + not_ect + drops);
    assert!(queued <= 34, "{queued}");
    assert!(ect <= e.ect_sent && not_ect <= f.retransmits && ect > 0 && not_ect > 0);
    let cwr = data.iter().filter(|p| p.flags & CWR != 0).count() as u64;
    assert!(cwr > 0 && cwr <= e.cwr_sent);
    // ACKs (client to server) are never ECT and, without CE, never carry ECE.
    let acks: Vec<&Pkt> = up.iter().filter(|p| p.flags & SYN == 0).collect();
    assert!(!acks.is_empty());
    assert!(acks
        .iter()
        .all(|p| p.ecn == 0 && p.flags & (ECE | CWR) == 0));
}

#[test]
fn ecn_needs_both_ends_and_without_marks_changes_nothing_else() {
    let plain = run_ok(&scenario(false, None, None));
    assert!(plain.summary.flows[0].ecn.is_none());
    // A summary without ECN has no `ecn` key at all (runs without it are unchanged).
    let json = serde_json::to_string(&plain.summary).unwrap();
    assert!(!json.contains("\"ecn\""), "{json}");
    // One end only: reported (the key is set), not negotiated, nothing ECT.
    for (snd, rcv) in [(true, false), (false, true)] {
        let out = run_ok(&scenario(snd, Some(rcv), None));
        let e = out.summary.flows[0].ecn.expect("ECN counters");
        assert!(!e.negotiated);
        assert_eq!(e.ect_sent + e.cwr_sent + e.ce_received, 0);
    }
    // Both ends: without CE marks the run is the plain run, packet for packet (ECT bits
    // and CWR flags change no length, and no reaction happens without ECE).
    let mut ecn = run_ok(&scenario(true, None, None));
    assert!(ecn.summary.flows[0].ecn.unwrap().negotiated);
    ecn.summary.flows[0].ecn = None;
    assert_eq!(ecn.summary, plain.summary);
}
