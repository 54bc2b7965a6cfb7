//! Dialogue tests for ECN in the endpoint (RFC 3168 section 6.1): negotiation (6.1.1), ECT
//! on new data only (6.1.2, 6.1.4-6.1.6), the receiver's ECE echo until CWR (6.1.3) and
//! the sender's one reduction per window of data with CWR on the next new segment (6.1.2).
//! Feed a segment at time t and assert exactly what goes out.

mod common;
use common::script::{ack, drain, ms, offs, one, synack, IRS, ISS};
use common::{run, Channel, Scenario};
use tcplab_core::segment::payload_tag;
use tcplab_core::tcp::{Endpoint, EndpointState, TcpConfig, Timer};
use tcplab_core::{Duration, Ecn, Flags, Instant, Segment, SeqNo, TcpOptions};

fn cfg(ecn: bool) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        min_rto: Duration::from_millis(200),
        timestamps: false,
        sack: false,
        ecn,
        // RFC 5681's FlightSize / 2 and RFC 6298's RTO, whose figures the comments give.
        ssthresh_rule: tcplab_core::tcp::SsthreshRule::FlightSize,
        rto_rule: tcplab_core::tcp::RtoRule::Rfc6298,
        rtt_source: tcplab_core::tcp::RttSource::SendTime,
        abc_limit_pkts: 1,
        ..TcpConfig::default()
    }
}

fn mss_opts() -> TcpOptions {
    TcpOptions {
        mss: Some(1000),
        ..Default::default()
    }
}

/// The peer's SYN (seq IRS) with the given extra flags.
fn peer_syn(extra: Flags) -> Segment {
    Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN | extra,
        window: 65535,
        options: mss_opts(),
        ..Default::default()
    }
}

/// A data segment from the peer at stream offset `off` (1000 bytes), acknowledging our
/// SYN, with the IP ECN field `ecn` and extra TCP flags.
fn peer_data(off: u32, ecn: Ecn, extra: Flags) -> Segment {
    Segment {
        seq: SeqNo(IRS + 1 + off),
        ack: SeqNo(ISS + 1),
        flags: Flags::ACK | extra,
        window: 65535,
        payload_len: 1000,
        payload_tag: payload_tag(off as u64, 1000),
        ecn,
        ..Default::default()
    }
}

/// `ack(off)` with ECE set.
fn ece_ack(off: u32) -> Segment {
    let mut s = ack(off, &[]);
    s.flags = s.flags | Flags::ECE;
    s
}

/// Active open: our SYN, then the peer's SYN-ACK with `synack_extra` flags at 50 ms.
/// Returns the endpoint (established) and the SYN it sent.
fn client(ecn: bool, synack_extra: Flags) -> (Endpoint, Segment) {
    let mut a = Endpoint::new(cfg(ecn), SeqNo(ISS));
    a.connect(ms(0));
    let syn = one(&mut a, ms(0));
    let mut sa = synack(65535, mss_opts());
    sa.flags = sa.flags | synack_extra;
    a.handle_segment(ms(50), &sa);
    let third = one(&mut a, ms(50));
    // The handshake's ACK is a pure ACK: never ECT, never ECE or CWR.
    assert_eq!((third.flags, third.ecn), (Flags::ACK, Ecn::NotEct));
    assert_eq!(a.state(), EndpointState::Established);
    (a, syn)
}

/// Passive open: the peer's SYN with `syn_extra`, our SYN-ACK, the peer's ACK at 50 ms.
/// Returns the endpoint (established) and the SYN-ACK it sent.
fn server(ecn: bool, syn_extra: Flags) -> (Endpoint, Segment) {
    let mut b = Endpoint::new(cfg(ecn), SeqNo(ISS));
    b.listen();
    b.handle_segment(ms(0), &peer_syn(syn_extra));
    let sa = one(&mut b, ms(0));
    let third = Segment {
        seq: SeqNo(IRS + 1),
        ack: SeqNo(ISS + 1),
        flags: Flags::ACK,
        window: 65535,
        ..Default::default()
    };
    b.handle_segment(ms(50), &third);
    assert!(drain(&mut b, ms(50)).is_empty());
    assert_eq!(b.state(), EndpointState::Established);
    (b, sa)
}

/// An ECN sender (active side) that wrote 30 segments at 100 ms and sent its initial
/// window of 10 (offsets 0-9000), all ECT(0).
fn ecn_sender() -> Endpoint {
    let (mut a, _) = client(true, Flags::ECE);
    assert!(a.ecn_negotiated());
    a.write(ms(100), 30_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(offs(&v), (0..10).map(|i| i * 1000).collect::<Vec<_>>());
    assert!(v.iter().all(|s| s.ecn == Ecn::Ect0 && !s.flags.cwr()));
    a
}

// ------------------------------------------------------------------------ negotiation

#[test]
fn active_open_asks_with_ece_cwr_and_uses_ecn_only_on_an_ecn_setup_synack() {
    // RFC 3168 6.1.1: "an ECN-setup SYN packet" has ECE and CWR set, and a SYN is not ECT.
    let (a, syn) = client(true, Flags::ECE);
    assert_eq!(syn.flags, Flags::SYN | Flags::ECE | Flags::CWR);
    assert_eq!(syn.ecn, Ecn::NotEct);
    assert!(a.ecn_negotiated());
    // Fallback: a peer that does not ask answers with a plain SYN-ACK.
    let (a, _) = client(true, Flags::NONE);
    assert!(!a.ecn_negotiated());
    // A SYN-ACK with ECE and CWR both set is not an ECN-setup SYN-ACK (a reflector).
    let (a, _) = client(true, Flags::ECE | Flags::CWR);
    assert!(!a.ecn_negotiated());
    // Without `ecn` we do not ask, and an (unsolicited) ECN-setup SYN-ACK changes nothing.
    let (a, syn) = client(false, Flags::ECE);
    assert_eq!(syn.flags, Flags::SYN);
    assert!(!a.ecn_negotiated());
}

#[test]
fn passive_open_answers_an_ecn_setup_syn_with_ece_only() {
    // RFC 3168 6.1.1: the ECN-setup SYN-ACK has ECE set and CWR clear, and is not ECT.
    let (b, sa) = server(true, Flags::ECE | Flags::CWR);
    assert_eq!(sa.flags, Flags::SYN | Flags::ACK | Flags::ECE);
    assert_eq!(sa.ecn, Ecn::NotEct);
    assert!(b.ecn_negotiated());
    // The peer did not ask (or sent ECE alone, which is not an ECN-setup SYN): a plain
    // SYN-ACK and no ECN.
    for extra in [Flags::NONE, Flags::ECE] {
        let (b, sa) = server(true, extra);
        assert_eq!(sa.flags, Flags::SYN | Flags::ACK, "{extra:?}");
        assert!(!b.ecn_negotiated());
    }
    // We do not want ECN: the peer's request is declined.
    let (b, sa) = server(false, Flags::ECE | Flags::CWR);
    assert_eq!(sa.flags, Flags::SYN | Flags::ACK);
    assert!(!b.ecn_negotiated());
}

#[test]
fn two_ecn_endpoints_negotiate_and_every_data_segment_is_ect() {
    // The whole transfer over a clean channel: ECN both ways, every data segment (there are
    // no retransmissions) ECT(0), no CE so no ECE, CWR or reduction.
    let sc = |client_ecn, server_ecn| Scenario {
        client: cfg(client_ecn),
        server: cfg(server_ecn),
        client_isn: SeqNo(ISS),
        server_isn: SeqNo(IRS),
        fwd: Channel::default(),
        rev: Channel::default(),
        bytes: 50_000,
        read_chunk: 0,
        read_every: None,
        seed: 1,
        limit: Instant::from_secs(60),
    };
    let o = run(sc(true, true));
    assert!(o.a.ecn_negotiated() && o.b.ecn_negotiated());
    let s = o.a.stats();
    assert_eq!(s.retransmitted_segments, 0);
    assert_eq!(s.ecn_ect_sent, s.data_segments_sent);
    assert_eq!(s.data_segments_sent, 50);
    let r = o.b.stats();
    assert_eq!(
        (
            r.ecn_ce_received,
            r.ecn_ece_sent,
            s.ecn_reductions,
            s.ecn_cwr_sent
        ),
        (0, 0, 0, 0)
    );
    // One side only: no ECN, nothing ECT.
    for (c, sv) in [(true, false), (false, true)] {
        let o = run(sc(c, sv));
        assert!(!o.a.ecn_negotiated() && !o.b.ecn_negotiated());
        assert_eq!(o.a.stats().ecn_ect_sent, 0);
    }
}

// ------------------------------------------------------------------------ ECT

#[test]
fn ect_on_new_data_only_not_on_acks_retransmissions_or_probes() {
    let mut a = ecn_sender();
    // A pure ACK (of data from the peer) is not ECT (RFC 3168 6.1.4).
    a.handle_segment(ms(110), &peer_data(0, Ecn::Ect0, Flags::NONE));
    assert!(drain(&mut a, ms(110)).is_empty());
    let t = a.timer(Timer::DelayedAck).unwrap();
    a.handle_timeout(t);
    let pure = one(&mut a, t);
    assert_eq!(
        (pure.payload_len, pure.flags, pure.ecn),
        (0, Flags::ACK, Ecn::NotEct)
    );
    // The retransmission timeout (the SYN's 50 ms sample gives the 200 ms minimum RTO)
    // resends offset 0: not ECT (RFC 3168 6.1.5).
    let rto = a.timer(Timer::Retransmit).unwrap();
    a.handle_timeout(rto);
    let r = one(&mut a, rto);
    assert_eq!(offs(&[r]), vec![0]);
    assert_eq!(r.ecn, Ecn::NotEct);
    assert!(!r.flags.cwr());
    assert_eq!(a.stats().retransmitted_segments, 1);
    // The timeout reduced the window: the first *new* data segment carries CWR and ECT
    // (RFC 3168 6.1.2, reductions "for any reason").
    a.handle_segment(rto + Duration::from_millis(50), &ack(10_000, &[]));
    let v = drain(&mut a, rto + Duration::from_millis(50));
    assert_eq!(offs(&v)[0], 10_000);
    assert!(v.iter().all(|s| s.ecn == Ecn::Ect0));
    assert_eq!(
        v.iter().map(|s| s.flags.cwr()).collect::<Vec<_>>(),
        [true]
            .into_iter()
            .chain(vec![false; v.len() - 1])
            .collect::<Vec<_>>()
    );
    assert_eq!(a.stats().ecn_cwr_sent, 1);
}

#[test]
fn zero_window_probe_is_not_ect() {
    let mut a = ecn_sender();
    // Everything acknowledged with a zero window: the persist timer probes with one byte
    // of new data, which RFC 3168 6.1.6 says must not be ECT.
    let mut z = ack(10_000, &[]);
    z.window = 0;
    a.handle_segment(ms(150), &z);
    assert!(drain(&mut a, ms(150)).is_empty());
    let p = a.timer(Timer::Persist).expect("persist timer");
    a.handle_timeout(p);
    let probe = one(&mut a, p);
    assert_eq!((offs(&[probe]), probe.payload_len), (vec![10_000], 1));
    assert_eq!(probe.ecn, Ecn::NotEct);
    assert_eq!(a.stats().zero_window_probes_sent, 1);
    // The window opens: the data after the probe byte is new data again, ECT(0).
    a.handle_segment(p + Duration::from_millis(50), &ack(10_001, &[]));
    let v = drain(&mut a, p + Duration::from_millis(50));
    assert_eq!(offs(&v)[0], 10_001);
    assert!(v.iter().all(|s| s.ecn == Ecn::Ect0));
}

#[test]
fn without_ecn_nothing_is_ect_and_ece_is_ignored() {
    let (mut a, _) = client(true, Flags::NONE);
    a.write(ms(100), 30_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(v.len(), 10);
    assert!(v.iter().all(|s| s.ecn == Ecn::NotEct && !s.flags.cwr()));
    // An ECE from a peer that never agreed to ECN is not a congestion signal.
    a.handle_segment(ms(150), &ece_ack(2000));
    assert_eq!(a.stats().ecn_reductions, 0);
    assert_eq!(a.ssthresh(), u64::MAX);
}

// ------------------------------------------------------------------------ receiver

#[test]
fn receiver_acks_a_ce_at_once_and_echoes_ece_until_cwr() {
    let (mut b, _) = server(true, Flags::ECE | Flags::CWR);
    // Without a mark a lone full segment waits for the delayed-ACK timer (or a second
    // segment); the ACK has no ECE.
    b.handle_segment(ms(100), &peer_data(0, Ecn::Ect0, Flags::NONE));
    assert!(drain(&mut b, ms(100)).is_empty());
    b.handle_segment(ms(101), &peer_data(1000, Ecn::Ect0, Flags::NONE));
    assert_eq!(one(&mut b, ms(101)).flags, Flags::ACK);
    // A lone CE-marked segment is ACKed at once, with ECE (RFC 3168 6.1.3; see
    // `Endpoint::ecn_on_data` for why at once).
    b.handle_segment(ms(102), &peer_data(2000, Ecn::Ce, Flags::NONE));
    let a1 = one(&mut b, ms(102));
    assert_eq!(
        (a1.ack, a1.flags, a1.ecn),
        (SeqNo(IRS + 1 + 3000), Flags::ACK | Flags::ECE, Ecn::NotEct)
    );
    // Unmarked segments after it: every ACK still carries ECE (delayed ACKs: one per two
    // segments).
    let mut acks = Vec::new();
    for (i, t) in (3..7).zip(103..) {
        b.handle_segment(ms(t), &peer_data(i * 1000, Ecn::Ect0, Flags::NONE));
        acks.extend(drain(&mut b, ms(t)));
    }
    assert_eq!(acks.len(), 2);
    assert!(acks.iter().all(|s| s.flags == Flags::ACK | Flags::ECE));
    // The segment with CWR ends the echo: its ACK (and all after) have no ECE.
    b.handle_segment(ms(110), &peer_data(7000, Ecn::Ect0, Flags::CWR));
    b.handle_segment(ms(111), &peer_data(8000, Ecn::Ect0, Flags::NONE));
    let a2 = one(&mut b, ms(111));
    assert_eq!((a2.ack, a2.flags), (SeqNo(IRS + 1 + 9000), Flags::ACK));
    b.handle_segment(ms(112), &peer_data(9000, Ecn::Ect0, Flags::NONE));
    let t = b.timer(Timer::DelayedAck).unwrap();
    b.handle_timeout(t);
    assert_eq!(one(&mut b, t).flags, Flags::ACK);
    let s = b.stats();
    assert_eq!(
        (s.ecn_ce_received, s.ecn_ece_sent, s.ecn_cwr_received),
        (1, 3, 1)
    );
}

#[test]
fn a_cwr_segment_marked_ce_starts_a_new_echo() {
    // CWR is processed before CE (as Linux): a marked CWR segment is new congestion.
    let (mut b, _) = server(true, Flags::ECE | Flags::CWR);
    b.handle_segment(ms(100), &peer_data(0, Ecn::Ce, Flags::NONE));
    assert!(one(&mut b, ms(100)).flags.ece());
    b.handle_segment(ms(101), &peer_data(1000, Ecn::Ce, Flags::CWR));
    assert!(one(&mut b, ms(101)).flags.ece());
    b.handle_segment(ms(102), &peer_data(2000, Ecn::Ect0, Flags::CWR));
    b.handle_segment(ms(103), &peer_data(3000, Ecn::Ect0, Flags::NONE));
    assert_eq!(one(&mut b, ms(103)).flags, Flags::ACK);
}

#[test]
fn ce_is_ignored_without_ecn() {
    // A CE mark on a connection that did not negotiate ECN (a misbehaving router) is not
    // echoed: there is no one to understand the echo.
    let (mut b, _) = server(true, Flags::NONE);
    b.handle_segment(ms(100), &peer_data(0, Ecn::Ce, Flags::NONE));
    assert!(drain(&mut b, ms(100)).is_empty());
    b.handle_segment(ms(101), &peer_data(1000, Ecn::Ce, Flags::NONE));
    assert_eq!(one(&mut b, ms(101)).flags, Flags::ACK);
    assert_eq!(b.stats().ecn_ce_received, 0);
}

// ------------------------------------------------------------------------ sender

#[test]
fn one_reduction_per_window_and_cwr_once_on_the_next_new_segment() {
    let mut a = ecn_sender();
    assert_eq!(a.cwnd(), 10_000);
    // ACK of 2000 with ECE: ssthresh = FlightSize / 2 = 8000 / 2 (FlightSize after the
    // ACK), cwnd = ssthresh (RFC 3168 6.1.2 "as a congestion loss"), no fast recovery,
    // nothing retransmitted, and with 8000 in flight nothing new may go.
    a.handle_segment(ms(150), &ece_ack(2000));
    assert_eq!((a.ssthresh(), a.cwnd()), (4000, 4000));
    assert!(!a.in_recovery());
    assert!(drain(&mut a, ms(150)).is_empty());
    // More ECEs for the same window (the receiver repeats ECE until it sees our CWR): no
    // further reduction, and no growth on an ECE ACK. 8000 acknowledged: 2000 in flight,
    // cwnd 4000: two new segments, the first (only) with CWR.
    a.handle_segment(ms(151), &ece_ack(4000));
    a.handle_segment(ms(152), &ece_ack(6000));
    assert!(drain(&mut a, ms(152)).is_empty());
    a.handle_segment(ms(153), &ece_ack(8000));
    assert_eq!((a.ssthresh(), a.cwnd()), (4000, 4000));
    let v = drain(&mut a, ms(153));
    assert_eq!(offs(&v), vec![10_000, 11_000]);
    assert_eq!(
        v.iter().map(|s| (s.flags.cwr(), s.ecn)).collect::<Vec<_>>(),
        vec![(true, Ecn::Ect0), (false, Ecn::Ect0)]
    );
    // ACK of 10000, the snd_nxt of the reduction, still with ECE: the receiver sent it
    // before our CWR arrived, so it is the old congestion (Linux holds CWR state until an
    // ACK *above* high_seq): ignored. Nothing further carries CWR.
    a.handle_segment(ms(200), &ece_ack(10_000));
    assert_eq!(a.stats().ecn_reductions, 1);
    assert_eq!(a.ssthresh(), 4000);
    let v = drain(&mut a, ms(200));
    assert!(!v.is_empty() && v.iter().all(|s| !s.flags.cwr()));
    let s = a.stats();
    assert_eq!(
        (
            s.ecn_ece_received,
            s.ecn_reductions,
            s.ecn_cwr_sent,
            s.retransmitted_segments,
            s.fast_retransmits
        ),
        (5, 1, 1, 0, 0)
    );
    // An ECE on the ACK of data sent after the reduction is new congestion: the second
    // reduction, and the next new segment carries CWR again.
    a.handle_segment(ms(201), &ece_ack(11_000));
    assert_eq!(a.stats().ecn_reductions, 2);
    assert!(a.ssthresh() < 4000);
    let later = ms(250);
    let una = 11_000 + a.bytes_in_flight() as u32;
    a.handle_segment(later, &ack(una, &[]));
    let v = drain(&mut a, later);
    assert!(!v.is_empty());
    assert!(v[0].flags.cwr() && v[1..].iter().all(|s| !s.flags.cwr()));
    assert_eq!(a.stats().ecn_cwr_sent, 2);
}

#[test]
fn a_loss_in_the_window_of_an_ece_reduction_does_not_reduce_again() {
    // RFC 3168 6.1.2: "the congestion window should be reduced only once in response to a
    // series of dropped and/or CE packets from a single window of data". The ACK of 2000
    // carries ECE (reduction to 4000); segment 8000, sent before the reduction, is lost.
    let mut a = ecn_sender();
    a.handle_segment(ms(150), &ece_ack(2000));
    assert_eq!((a.ssthresh(), a.cwnd()), (4000, 4000));
    for (t, off) in [(151, 4000), (152, 6000)] {
        a.handle_segment(ms(t), &ece_ack(off));
        assert!(drain(&mut a, ms(t)).is_empty());
    }
    a.handle_segment(ms(153), &ece_ack(8000));
    let v = drain(&mut a, ms(153));
    assert_eq!(offs(&v), vec![10_000, 11_000]);
    assert!(v[0].flags.cwr());
    // Duplicate ACKs of 8000 as 9000, 10000 (with CWR: the echo ends) and 11000 arrive.
    // The first two send new data (RFC 3042), the third is the fast retransmit of 8000.
    a.handle_segment(ms(200), &ece_ack(8000));
    a.handle_segment(ms(201), &ack(8000, &[]));
    assert_eq!(offs(&drain(&mut a, ms(201))), vec![12_000, 13_000]);
    a.handle_segment(ms(202), &ack(8000, &[]));
    // With cwnd 7000 and 6000 in flight, one new segment follows (ECT, no CWR).
    let v = drain(&mut a, ms(202));
    assert_eq!(offs(&v), vec![8000, 14_000]);
    assert_eq!((v[0].ecn, v[1].ecn), (Ecn::NotEct, Ecn::Ect0));
    assert!(!v[1].flags.cwr());
    // The loss is repaired but not reacted to a second time: ssthresh stays the ECE's
    // 4000 (another halving of the 6000 in flight would give 3000), RFC 6582 recovery at
    // ssthresh + 3 SMSS.
    assert!(a.in_recovery());
    assert_eq!(a.stats().fast_retransmits, 1);
    assert_eq!((a.ssthresh(), a.cwnd()), (4000, 4000 + 3000));
    assert_eq!(a.stats().ecn_reductions, 1);
}

// ------------------------------------------------------------------------ both ends

/// A 300 kB transfer between two ECN endpoints whose forward channel marks CE on the
/// first transmission of the segments at these stream offsets.
fn marked_transfer(ce_offsets: &[u32]) -> common::Outcome {
    run(Scenario {
        client: cfg(true),
        server: cfg(true),
        client_isn: SeqNo(ISS),
        server_isn: SeqNo(IRS),
        fwd: Channel {
            ns_per_byte: 800, // 10 Mbit/s
            ce_seqs: ce_offsets.iter().map(|&o| SeqNo(ISS + 1 + o)).collect(),
            ..Channel::default()
        },
        rev: Channel::default(),
        bytes: 300_000,
        read_chunk: 0,
        read_every: None,
        seed: 1,
        limit: Instant::from_secs(60),
    })
}

#[test]
fn two_endpoints_react_to_ce_marks_once_per_window_without_retransmitting() {
    // Unmarked, the transfer never leaves slow start (ssthresh unset).
    let o = marked_transfer(&[]);
    assert_eq!(o.a.ssthresh(), u64::MAX);
    assert_eq!(o.a.stats().ecn_reductions, 0);
    // Two marks far apart: two echoes, two reductions, two CWRs, no loss reaction.
    let o = marked_transfer(&[50_000, 200_000]);
    let (s, r) = (o.a.stats(), o.b.stats());
    assert_eq!((r.ecn_ce_received, r.ecn_cwr_received), (2, 2));
    assert!(r.ecn_ece_sent >= 2);
    assert_eq!((s.ecn_reductions, s.ecn_cwr_sent), (2, 2));
    assert!(s.ecn_ece_received >= 2);
    assert_eq!(
        (s.retransmitted_segments, s.fast_retransmits, s.timeouts),
        (0, 0, 0)
    );
    assert!(o.a.ssthresh() < u64::MAX);
    // Three marks in one window: three CE arrivals, one reduction, one CWR.
    let o = marked_transfer(&[50_000, 51_000, 53_000]);
    let (s, r) = (o.a.stats(), o.b.stats());
    assert_eq!(r.ecn_ce_received, 3);
    assert_eq!(
        (s.ecn_reductions, s.ecn_cwr_sent, r.ecn_cwr_received),
        (1, 1, 1)
    );
    assert_eq!(s.retransmitted_segments, 0);
}

#[test]
fn losing_the_cwr_segment_is_a_new_window_and_reduces_again() {
    // RFC 3168 6.1.2: if the data packet carrying CWR "is dropped in the network, then the
    // sending TCP will have to reduce the congestion window again and retransmit the
    // dropped packet". The ECE reduction at the ACK of 2000 (hold point 10000), CWR on
    // 10000, which is lost.
    let mut a = ecn_sender();
    a.handle_segment(ms(150), &ece_ack(2000));
    a.handle_segment(ms(151), &ece_ack(4000));
    a.handle_segment(ms(152), &ece_ack(6000));
    a.handle_segment(ms(153), &ece_ack(8000));
    let v = drain(&mut a, ms(153));
    assert_eq!(offs(&v), vec![10_000, 11_000]);
    assert!(v[0].flags.cwr());
    a.handle_segment(ms(200), &ece_ack(10_000));
    assert_eq!(offs(&drain(&mut a, ms(200))), vec![12_000, 13_000]);
    assert_eq!((a.ssthresh(), a.stats().ecn_reductions), (4000, 1));
    // 11000, 12000 and 13000 arrive; the receiver, without the CWR, still echoes ECE.
    // Two duplicate ACKs send new data (RFC 3042), the third retransmits 10000.
    a.handle_segment(ms(250), &ece_ack(10_000));
    a.handle_segment(ms(251), &ece_ack(10_000));
    assert_eq!(offs(&drain(&mut a, ms(251))), vec![14_000, 15_000]);
    a.handle_segment(ms(252), &ece_ack(10_000));
    let v = drain(&mut a, ms(252));
    assert_eq!(offs(&v)[0], 10_000);
    assert_eq!(v[0].ecn, Ecn::NotEct);
    assert!(!v[0].flags.cwr());
    // The lost segment was sent after the reduction: a new window's loss, so ssthresh is
    // halved again (FlightSize 10000-15999 = 6000), and the next new data carries CWR.
    assert!(a.in_recovery());
    assert_eq!(a.ssthresh(), 3000);
    assert_eq!(a.stats().ecn_reductions, 1);
    let una = 16_000;
    a.handle_segment(ms(300), &ack(una, &[]));
    let v = drain(&mut a, ms(300));
    assert!(!a.in_recovery());
    assert!(!v.is_empty() && v[0].flags.cwr() && offs(&v)[0] == 16_000);
    assert_eq!(a.stats().ecn_cwr_sent, 2);
}
