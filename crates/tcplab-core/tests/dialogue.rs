//! Dialogue tests (smoltcp style, DESIGN.md testing layer 1): feed a segment at time t,
//! assert exactly what goes out, and check both sides of every deadline (t - 1 ns and t).

mod common;

use common::script::{drain, ms, one, synack, IRS, ISS, NS};

use common::{run, Channel, Scenario};
use tcplab_core::segment::payload_tag;
use tcplab_core::tcp::{
    Endpoint, EndpointState, PrrRule, RtoRule, RttSource, SsthreshRule, TcpConfig, Timer,
};
use tcplab_core::{Duration, Flags, Instant, SackBlock, Segment, SeqNo, TcpOptions, Timestamps};

/// The RFC rules these dialogues check (RFC 6298's RTO, RFC 5681's FlightSize, Karn's
/// send-time samples, one segment per slow-start ACK) on the default profile's other keys;
/// tests/profiles.rs checks the other profiles' rules.
fn cfg() -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        min_rto: Duration::from_millis(200),
        initial_rto: Duration::from_secs(1),
        rto_rule: RtoRule::Rfc6298,
        ssthresh_rule: SsthreshRule::FlightSize,
        rtt_source: RttSource::SendTime,
        abc_limit_pkts: 1,
        ..TcpConfig::default()
    }
}

/// A segment from the peer: ACK flag set, our ISS-relative acknowledgement.
fn peer(seq: u32, ack: u32, window: u16) -> Segment {
    Segment {
        seq: SeqNo(seq),
        ack: SeqNo(ack),
        flags: Flags::ACK,
        window,
        ..Default::default()
    }
}

/// A data segment from the peer carrying stream offset `off`.
fn peer_data(off: u64, len: u32, ack: u32) -> Segment {
    Segment {
        seq: SeqNo(IRS + 1 + off as u32),
        ack: SeqNo(ack),
        flags: Flags::ACK,
        window: 65535,
        payload_len: len,
        payload_tag: payload_tag(off, len),
        ..Default::default()
    }
}

fn full_syn_options(tsval: u32, tsecr: u32) -> TcpOptions {
    TcpOptions {
        mss: Some(1460),
        window_scale: Some(2),
        sack_permitted: true,
        timestamps: Some(Timestamps { tsval, tsecr }),
        ..Default::default()
    }
}

/// Active open against a scripted peer; returns the endpoint at `ms(50)`, established.
fn client(cfg: TcpConfig, synack_opts: TcpOptions, window: u16) -> Endpoint {
    let mut a = Endpoint::new(cfg, SeqNo(ISS));
    a.connect(ms(0));
    let syn = one(&mut a, ms(0));
    assert_eq!(syn.flags, Flags::SYN);
    let synack = synack(window, synack_opts);
    a.handle_segment(ms(50), &synack);
    let ack = one(&mut a, ms(50));
    assert_eq!(
        (ack.flags, ack.seq, ack.ack),
        (Flags::ACK, SeqNo(ISS + 1), SeqNo(IRS + 1))
    );
    assert_eq!(a.state(), EndpointState::Established);
    a
}

fn plain_opts() -> TcpOptions {
    TcpOptions {
        mss: Some(1000),
        ..Default::default()
    }
}

/// Passive open by a scripted peer; returns the endpoint established at `ms(50)`.
fn server(cfg: TcpConfig) -> Endpoint {
    let mut b = Endpoint::new(cfg, SeqNo(ISS));
    b.listen();
    let syn = Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN,
        window: 65535,
        options: plain_opts(),
        ..Default::default()
    };
    b.handle_segment(ms(0), &syn);
    let sa = one(&mut b, ms(0));
    assert_eq!(
        (sa.flags, sa.seq, sa.ack),
        (Flags::SYN | Flags::ACK, SeqNo(ISS), SeqNo(IRS + 1))
    );
    b.handle_segment(ms(50), &peer(IRS + 1, ISS + 1, 65535));
    assert!(drain(&mut b, ms(50)).is_empty());
    assert_eq!(b.state(), EndpointState::Established);
    b
}

// ------------------------------------------------------------------------ handshake

#[test]
fn handshake_negotiates_all_options() {
    let c = TcpConfig {
        rcv_buf_bytes: 1 << 20,
        ..cfg()
    };
    let mut a = Endpoint::new(c.clone(), SeqNo(ISS));
    a.connect(ms(0));
    let syn = one(&mut a, ms(0));
    assert_eq!(
        (syn.flags, syn.seq, syn.window),
        (Flags::SYN, SeqNo(ISS), 65535)
    );
    // RFC 7323 2.3: shift = smallest s with 2^20 >> s <= 65535, i.e. 5.
    let o = syn.options;
    assert_eq!(
        (o.mss, o.window_scale, o.sack_permitted),
        (Some(1000), Some(5), true)
    );
    assert_eq!(o.timestamps, Some(Timestamps { tsval: 0, tsecr: 0 }));
    assert!(drain(&mut a, ms(0)).is_empty());
    assert_eq!(a.poll_timeout(), Some(ms(1000)));

    let synack = synack(30_000, full_syn_options(777, 0));
    a.handle_segment(ms(50), &synack);
    let ack = one(&mut a, ms(50));
    assert_eq!(
        (ack.flags, ack.seq, ack.ack),
        (Flags::ACK, SeqNo(ISS + 1), SeqNo(IRS + 1))
    );
    // The whole buffer, scaled by 2^5.
    assert_eq!(ack.window, ((1u32 << 20) >> 5) as u16);
    assert_eq!(
        ack.options.timestamps,
        Some(Timestamps {
            tsval: 50,
            tsecr: 777
        })
    );
    assert_eq!(ack.options.sack_len, 0);
    assert_eq!(a.negotiated(), (true, true, 5, 2));
    assert_eq!(a.mss(), 1000);
    // RFC 7323 2.2: the SYN-ACK's window is not scaled.
    assert_eq!(a.peer_window(), 30_000);
    assert_eq!(a.srtt(), Some(Duration::from_millis(50)));
    assert_eq!(
        (a.stats().rtt_samples, a.stats().last_rtt),
        (1, Duration::from_millis(50))
    );
    assert_eq!(a.poll_timeout(), None);

    // First data: offset 0 is the byte after the SYN.
    assert_eq!(a.write(ms(60), 700), 700);
    let d = one(&mut a, ms(60));
    assert_eq!(
        (d.seq, d.payload_len, d.payload_tag),
        (SeqNo(ISS + 1), 700, payload_tag(0, 700))
    );
    assert_eq!(
        d.options.timestamps,
        Some(Timestamps {
            tsval: 60,
            tsecr: 777
        })
    );
}

#[test]
fn handshake_falls_back_when_peer_offers_nothing() {
    let c = TcpConfig {
        rcv_buf_bytes: 1 << 20,
        ..cfg()
    };
    let a = client(c.clone(), TcpOptions::default(), 8000);
    assert_eq!(a.negotiated(), (false, false, 0, 0));
    // RFC 9293 3.7.1: no MSS option means 536.
    assert_eq!(a.mss(), 536);
    let mut a = a;
    a.write(ms(60), 600);
    let d = one(&mut a, ms(60));
    assert_eq!(d.payload_len, 536);
    assert_eq!(d.options.timestamps, None);
    // Unscaled window, capped at the field's maximum.
    assert_eq!(d.window, 65535);
}

#[test]
fn passive_open_answers_only_what_was_offered() {
    let mut b = Endpoint::new(cfg(), SeqNo(ISS));
    b.listen();
    let syn = Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN,
        window: 65535,
        options: plain_opts(),
        ..Default::default()
    };
    b.handle_segment(ms(0), &syn);
    let sa = one(&mut b, ms(0));
    assert_eq!(
        (sa.flags, sa.ack),
        (Flags::SYN | Flags::ACK, SeqNo(IRS + 1))
    );
    assert_eq!(
        sa.options,
        TcpOptions {
            mss: Some(1000),
            ..Default::default()
        }
    );

    let mut b = Endpoint::new(cfg(), SeqNo(ISS));
    b.listen();
    let syn = Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN,
        window: 65535,
        options: full_syn_options(9, 0),
        ..Default::default()
    };
    b.handle_segment(ms(0), &syn);
    let sa = one(&mut b, ms(0));
    // 64000 B fits the field unscaled: shift 0, but the option is still sent.
    assert_eq!(sa.options.window_scale, Some(0));
    assert!(sa.options.sack_permitted);
    assert_eq!(
        sa.options.timestamps,
        Some(Timestamps { tsval: 0, tsecr: 9 })
    );
    // SYN-ACK retransmission at the initial RTO, both sides of the deadline.
    b.handle_timeout(ms(1000) - NS);
    assert!(drain(&mut b, ms(1000) - NS).is_empty());
    b.handle_timeout(ms(1000));
    let sa2 = one(&mut b, ms(1000));
    assert_eq!((sa2.flags, sa2.seq), (Flags::SYN | Flags::ACK, SeqNo(ISS)));
}

#[test]
fn syn_is_retransmitted_with_exponential_backoff() {
    let mut a = Endpoint::new(cfg(), SeqNo(ISS));
    a.connect(ms(0));
    one(&mut a, ms(0));
    for (at, next) in [(1000, 3000), (3000, 7000)] {
        assert_eq!(a.poll_timeout(), Some(ms(at)));
        a.handle_timeout(ms(at) - NS);
        assert!(drain(&mut a, ms(at) - NS).is_empty());
        a.handle_timeout(ms(at));
        let s = one(&mut a, ms(at));
        assert_eq!((s.flags, s.seq), (Flags::SYN, SeqNo(ISS)));
        assert_eq!(a.poll_timeout(), Some(ms(next)));
    }
    assert_eq!(a.stats().timeouts, 2);
    // Karn: no RTT sample from a retransmitted SYN; RFC 5681 3.1: initial window 1 segment.
    let synack = synack(65535, plain_opts());
    a.handle_segment(ms(3100), &synack);
    assert_eq!(a.stats().rtt_samples, 0);
    assert_eq!(a.cwnd(), 1000);
}

// ------------------------------------------------------------------------ delayed ACK

#[test]
fn delayed_ack_second_segment_at_once_lone_segment_at_timeout() {
    let mut b = server(cfg());
    b.handle_segment(ms(100), &peer_data(0, 1000, ISS + 1));
    assert!(drain(&mut b, ms(100)).is_empty());
    assert_eq!(b.poll_timeout(), Some(ms(140)));
    // Second full-sized segment: ACK now (RFC 5681 4.2), timer disarmed.
    b.handle_segment(ms(110), &peer_data(1000, 1000, ISS + 1));
    let a = one(&mut b, ms(110));
    assert_eq!(
        (a.flags, a.seq, a.ack),
        (Flags::ACK, SeqNo(ISS + 1), SeqNo(IRS + 1 + 2000))
    );
    assert_eq!(a.window, 62_000);
    assert_eq!(b.poll_timeout(), None);
    // A lone segment waits exactly delayed_ack_timeout.
    b.handle_segment(ms(200), &peer_data(2000, 1000, ISS + 1));
    assert!(drain(&mut b, ms(200)).is_empty());
    assert_eq!(b.poll_timeout(), Some(ms(240)));
    b.handle_timeout(ms(240) - NS);
    assert!(drain(&mut b, ms(240) - NS).is_empty());
    b.handle_timeout(ms(240));
    let a = one(&mut b, ms(240));
    assert_eq!(a.ack, SeqNo(IRS + 1 + 3000));
    assert_eq!(b.poll_timeout(), None);
    assert_eq!(b.stats().acks_sent, 2);
}

/// RFC 2018 section 3: without timestamps the SACK option holds 4 blocks; `max_sack_blocks`
/// caps them (ns-2's sinks send 3). Five holes, one ACK: the newest blocks, newest first.
#[test]
fn sack_blocks_per_ack_are_capped_by_max_sack_blocks() {
    let blocks_after_five_holes = |max: u8| {
        let mut b = Endpoint::new(
            TcpConfig {
                timestamps: false,
                max_sack_blocks: max,
                ..cfg()
            },
            SeqNo(ISS),
        );
        b.listen();
        let syn = Segment {
            seq: SeqNo(IRS),
            flags: Flags::SYN,
            window: 65535,
            options: TcpOptions {
                mss: Some(1000),
                sack_permitted: true,
                ..Default::default()
            },
            ..Default::default()
        };
        b.handle_segment(ms(0), &syn);
        one(&mut b, ms(0));
        b.handle_segment(ms(50), &peer(IRS + 1, ISS + 1, 65535));
        let mut last = Segment::default();
        for (i, off) in [1000u64, 3000, 5000, 7000, 9000].into_iter().enumerate() {
            b.handle_segment(ms(100 + i as u64), &peer_data(off, 1000, ISS + 1));
            last = one(&mut b, ms(100 + i as u64));
        }
        assert!(last.options.timestamps.is_none());
        last.options
            .sack()
            .iter()
            .map(|bl| bl.start.0 - (IRS + 1))
            .collect::<Vec<u32>>()
    };
    assert_eq!(blocks_after_five_holes(4), vec![9000, 7000, 5000, 3000]);
    assert_eq!(blocks_after_five_holes(3), vec![9000, 7000, 5000]);
    assert_eq!(blocks_after_five_holes(1), vec![9000]);
}

#[test]
fn out_of_order_and_gap_filling_data_are_acked_at_once_with_sack() {
    let mut b = Endpoint::new(cfg(), SeqNo(ISS));
    b.listen();
    let syn = Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN,
        window: 65535,
        options: full_syn_options(1, 0),
        ..Default::default()
    };
    b.handle_segment(ms(0), &syn);
    one(&mut b, ms(0));
    let mut ack = peer(IRS + 1, ISS + 1, 65535);
    ack.options.timestamps = Some(Timestamps { tsval: 2, tsecr: 0 });
    b.handle_segment(ms(50), &ack);
    let with_ts = |mut s: Segment, tsval: u32| {
        s.options.timestamps = Some(Timestamps { tsval, tsecr: 0 });
        s
    };
    b.handle_segment(ms(100), &with_ts(peer_data(1000, 1000, ISS + 1), 3));
    let a = one(&mut b, ms(100));
    assert_eq!(a.ack, SeqNo(IRS + 1));
    assert_eq!(
        a.options.sack(),
        &[SackBlock {
            start: SeqNo(IRS + 1001),
            end: SeqNo(IRS + 2001)
        }]
    );
    // RFC 7323 4.3: an out-of-order segment (SEG.SEQ > Last.ACK.sent) does not update TS.Recent.
    assert_eq!(a.options.timestamps.unwrap().tsecr, 2);
    b.handle_segment(ms(101), &with_ts(peer_data(3000, 1000, ISS + 1), 4));
    let a = one(&mut b, ms(101));
    // RFC 2018: the newest block first.
    assert_eq!(
        a.options.sack(),
        &[
            SackBlock {
                start: SeqNo(IRS + 3001),
                end: SeqNo(IRS + 4001)
            },
            SackBlock {
                start: SeqNo(IRS + 1001),
                end: SeqNo(IRS + 2001)
            }
        ]
    );
    // Filling the first gap: immediate ACK, one block left.
    b.handle_segment(ms(102), &with_ts(peer_data(0, 1000, ISS + 1), 5));
    let a = one(&mut b, ms(102));
    assert_eq!(a.ack, SeqNo(IRS + 2001));
    assert_eq!(
        a.options.sack(),
        &[SackBlock {
            start: SeqNo(IRS + 3001),
            end: SeqNo(IRS + 4001)
        }]
    );
    assert_eq!(a.options.timestamps.unwrap().tsecr, 5);
    assert_eq!(
        b.read(ms(103), 10_000),
        Some(tcplab_core::tcp::ReadChunk {
            offset: 0,
            len: 2000
        })
    );
}

#[test]
fn payload_tag_mismatch_is_counted_and_dropped() {
    let mut b = server(cfg());
    let mut bad = peer_data(0, 1000, ISS + 1);
    bad.payload_tag ^= 1;
    b.handle_segment(ms(100), &bad);
    assert!(drain(&mut b, ms(100)).is_empty());
    assert_eq!(
        (b.stats().payload_tag_mismatches, b.stats().invalid_segments),
        (1, 1)
    );
    assert_eq!(b.readable_bytes(), 0);
    // An ACK for data never sent: counted, answered with an ACK, dropped.
    b.handle_segment(ms(101), &peer(IRS + 1, ISS + 500, 65535));
    assert_eq!(b.stats().invalid_segments, 2);
    assert_eq!(one(&mut b, ms(101)).ack, SeqNo(IRS + 1));
}

// ------------------------------------------------------------------------ RTO

#[test]
fn rto_backs_off_exponentially_and_keeps_backoff_until_a_new_sample() {
    let mut a = client(cfg(), plain_opts(), 65535);
    // SRTT 50 ms, RTTVAR 25 ms: RTO = 150 ms, raised to min_rto = 200 ms.
    assert_eq!(a.write(ms(100), 1000), 1000);
    let d = one(&mut a, ms(100));
    assert_eq!((d.seq, d.payload_len), (SeqNo(ISS + 1), 1000));
    for (at, next) in [(300, 700), (700, 1500)] {
        assert_eq!(a.poll_timeout(), Some(ms(at)));
        a.handle_timeout(ms(at) - NS);
        assert!(drain(&mut a, ms(at) - NS).is_empty());
        a.handle_timeout(ms(at));
        let r = one(&mut a, ms(at));
        assert_eq!(
            (r.seq, r.payload_len, r.payload_tag),
            (SeqNo(ISS + 1), 1000, payload_tag(0, 1000))
        );
        assert_eq!(a.poll_timeout(), Some(ms(next)));
        // RFC 5681 3.1: cwnd = 1 SMSS after an RTO; ssthresh = max(FlightSize/2, 2 SMSS).
        assert_eq!((a.cwnd(), a.ssthresh()), (1000, 2000));
    }
    assert_eq!(a.stats().timeouts, 2);
    // Karn's algorithm (RFC 6298 section 5): the ACK of a retransmitted segment gives no
    // sample, so the backed-off RTO (4 x 200 ms) stays for the next segment...
    a.handle_segment(ms(800), &peer(IRS + 1, ISS + 1001, 65535));
    assert_eq!(a.stats().rtt_samples, 1);
    assert_eq!(a.poll_timeout(), None);
    a.write(ms(900), 1000);
    one(&mut a, ms(900));
    assert_eq!(a.poll_timeout(), Some(ms(1700)));
    // ...until that segment's ACK measures the RTT again: the RTO collapses to 200 ms.
    a.handle_segment(ms(950), &peer(IRS + 1, ISS + 2001, 65535));
    assert_eq!(a.stats().rtt_samples, 2);
    a.write(ms(1000), 1000);
    one(&mut a, ms(1000));
    assert_eq!(a.poll_timeout(), Some(ms(1200)));
}

// ------------------------------------------------------------------------ persist

#[test]
fn zero_window_persist_probe_backoff_and_reopening() {
    let c = TcpConfig {
        nagle: false,
        ..cfg()
    };
    let mut a = client(c, plain_opts(), 2000);
    assert_eq!(a.write(ms(100), 5000), 5000);
    let v = drain(&mut a, ms(100));
    assert_eq!(
        v.iter().map(|s| s.payload_len).collect::<Vec<_>>(),
        vec![1000, 1000]
    );
    // The peer takes both but its buffer is full: window zero, nothing in flight.
    a.handle_segment(ms(150), &peer(IRS + 1, ISS + 2001, 0));
    assert!(drain(&mut a, ms(150)).is_empty());
    assert_eq!(a.stats().zero_window_events, 1);
    assert_eq!(a.timer(Timer::Retransmit), None);
    // RTO after the sample of 50 ms is 200 ms: first probe at 350 ms.
    assert_eq!(a.poll_timeout(), Some(ms(350)));
    a.handle_timeout(ms(350) - NS);
    assert!(drain(&mut a, ms(350) - NS).is_empty());
    a.handle_timeout(ms(350));
    let p = one(&mut a, ms(350));
    assert_eq!(
        (p.seq, p.payload_len, p.payload_tag),
        (SeqNo(ISS + 2001), 1, payload_tag(2000, 1))
    );
    // Backoff: 400 ms, then 800 ms.
    assert_eq!(a.poll_timeout(), Some(ms(750)));
    a.handle_segment(ms(400), &peer(IRS + 1, ISS + 2001, 0));
    assert!(drain(&mut a, ms(400)).is_empty());
    assert_eq!(a.poll_timeout(), Some(ms(750)));
    a.handle_timeout(ms(750) - NS);
    assert!(drain(&mut a, ms(750) - NS).is_empty());
    a.handle_timeout(ms(750));
    let p2 = one(&mut a, ms(750));
    assert_eq!((p2.seq, p2.payload_len), (SeqNo(ISS + 2001), 1));
    assert_eq!(a.poll_timeout(), Some(ms(1550)));
    assert_eq!(a.stats().zero_window_probes_sent, 2);
    // The window reopens: the discarded probe byte goes again, then new data.
    a.handle_segment(ms(800), &peer(IRS + 1, ISS + 2001, 3000));
    let v = drain(&mut a, ms(800));
    let got: Vec<_> = v
        .iter()
        .map(|s| (s.seq.0 - ISS - 1, s.payload_len))
        .collect();
    assert_eq!(
        got,
        vec![(2000, 1), (2001, 1000), (3001, 1000), (4001, 999)]
    );
    assert_eq!(a.timer(Timer::Persist), None);
    assert_eq!(a.poll_timeout(), Some(ms(1000)));
    a.handle_segment(ms(850), &peer(IRS + 1, ISS + 5001, 3000));
    assert!(a.all_data_acked());
    assert_eq!(a.poll_timeout(), None);
}

/// A zero window while data is outstanding: five segments out at 100 ms, the peer ACKs two
/// of them at 150 ms with a zero window, 3000 more bytes are written at 200 ms. RTO and
/// the persist interval are both 200 ms (min_rto, after 50 ms samples), so either the
/// retransmission timer or the persist timer is due at 350 ms.
fn zero_window_with_data_outstanding(freeze: bool) -> Endpoint {
    let c = TcpConfig {
        nagle: false,
        zero_window_freeze: freeze,
        ..cfg()
    };
    let mut a = client(c, plain_opts(), 65535);
    assert_eq!(a.write(ms(100), 5000), 5000);
    assert_eq!(drain(&mut a, ms(100)).len(), 5);
    a.handle_segment(ms(150), &peer(IRS + 1, ISS + 2001, 0));
    assert!(drain(&mut a, ms(150)).is_empty());
    assert_eq!(
        a.stats().zero_window_events,
        0,
        "nothing was waiting to be sent"
    );
    assert_eq!(a.write(ms(200), 3000), 3000);
    assert!(drain(&mut a, ms(200)).is_empty(), "the window is zero");
    assert_eq!(a.stats().zero_window_events, 0);
    a
}

#[test]
fn zero_window_freeze_stops_the_rto_and_probes_until_the_window_reopens() {
    // M-TCP's persist mode (Brown and Singh 1997, section 3), the BSF paper's frozen sender
    // (III-D): with `zero_window_freeze` no timeout, no backoff, cwnd kept; persist probes
    // of the first unacknowledged byte; the reopened window resumes with the frozen state.
    let mut a = zero_window_with_data_outstanding(true);
    let cwnd = a.cwnd();
    let rto = a.rtt().rto();
    assert_eq!(rto, Duration::from_millis(200));
    assert_eq!(a.timer(Timer::Retransmit), None, "the RTO is frozen");
    assert_eq!(a.timer(Timer::Persist), Some(ms(350)));
    a.handle_timeout(ms(350) - NS);
    assert!(drain(&mut a, ms(350) - NS).is_empty());
    a.handle_timeout(ms(350));
    let p = one(&mut a, ms(350));
    assert_eq!(
        (p.seq, p.payload_len, p.payload_tag),
        (SeqNo(ISS + 2001), 1, payload_tag(2000, 1)),
        "a probe of the first unacknowledged byte"
    );
    assert_eq!(a.timer(Timer::Retransmit), None);
    // The persist timer backs off (400 ms), the retransmission timer does not exist.
    assert_eq!(a.poll_timeout(), Some(ms(750)));
    // The probe's answer: the same zero window (not a duplicate ACK), another probe at 750.
    a.handle_segment(ms(400), &peer(IRS + 1, ISS + 2001, 0));
    a.handle_segment(ms(401), &peer(IRS + 1, ISS + 2001, 0));
    a.handle_segment(ms(402), &peer(IRS + 1, ISS + 2001, 0));
    assert!(drain(&mut a, ms(402)).is_empty(), "no fast retransmit");
    a.handle_timeout(ms(750) - NS);
    assert!(drain(&mut a, ms(750) - NS).is_empty());
    a.handle_timeout(ms(750));
    assert_eq!(one(&mut a, ms(750)).seq, SeqNo(ISS + 2001));
    let st = a.stats();
    assert_eq!((st.timeouts, st.zero_window_probes_sent), (0, 2));
    assert_eq!((st.fast_retransmits, st.retransmitted_segments), (0, 0));
    assert_eq!(a.cwnd(), cwnd, "cwnd kept through the freeze");
    assert_eq!(a.rtt().rto(), rto, "no backoff");
    // The window reopens with everything delivered: the 3000 waiting bytes go at once,
    // under the frozen cwnd, and the RTO runs again from its frozen value.
    a.handle_segment(ms(800), &peer(IRS + 1, ISS + 5001, 10_000));
    let v = drain(&mut a, ms(800));
    assert_eq!(
        v.iter()
            .map(|s| (s.seq.0 - ISS - 1, s.payload_len))
            .collect::<Vec<_>>(),
        vec![(5000, 1000), (6000, 1000), (7000, 1000)]
    );
    assert_eq!(a.timer(Timer::Persist), None);
    assert_eq!(a.timer(Timer::Retransmit), Some(ms(800) + rto));
    assert_eq!(a.stats().timeouts, 0);
}

#[test]
fn without_zero_window_freeze_the_rto_runs_through_a_zero_window() {
    // RFC 9293 3.8.6.1 (the default): the retransmission timer keeps running; at 350 ms it
    // fires, retransmits into the zero window, collapses cwnd and backs off.
    let mut a = zero_window_with_data_outstanding(false);
    assert_eq!(a.timer(Timer::Retransmit), Some(ms(350)));
    assert_eq!(
        a.timer(Timer::Persist),
        None,
        "data is outstanding: no persist timer"
    );
    a.handle_timeout(ms(350) - NS);
    assert!(drain(&mut a, ms(350) - NS).is_empty());
    assert_eq!(a.stats().timeouts, 0);
    a.handle_timeout(ms(350));
    let r = drain(&mut a, ms(350));
    assert_eq!(
        r.iter()
            .map(|s| (s.seq.0 - ISS - 1, s.payload_len))
            .collect::<Vec<_>>(),
        vec![(2000, 1000)],
        "a retransmission, not a probe"
    );
    assert_eq!(a.stats().timeouts, 1);
    assert_eq!(a.stats().zero_window_probes_sent, 0);
    assert_eq!(a.cwnd(), 1000, "RFC 5681 3.1: the loss window");
    assert_eq!(
        a.timer(Timer::Retransmit),
        Some(ms(750)),
        "backed off to 400 ms"
    );
}

#[test]
fn receiver_advertises_zero_then_sends_window_update_after_read() {
    let c = TcpConfig {
        rcv_buf_bytes: 4000,
        ..cfg()
    };
    let mut b = server(c);
    b.handle_segment(ms(100), &peer_data(0, 1000, ISS + 1));
    b.handle_segment(ms(101), &peer_data(1000, 1000, ISS + 1));
    assert_eq!(one(&mut b, ms(101)).window, 2000);
    b.handle_segment(ms(102), &peer_data(2000, 1000, ISS + 1));
    b.handle_segment(ms(103), &peer_data(3000, 1000, ISS + 1));
    let a = one(&mut b, ms(103));
    assert_eq!((a.ack, a.window), (SeqNo(IRS + 4001), 0));
    assert_eq!(b.stats().zero_windows_advertised, 1);
    // A probe byte beyond the right edge is dropped but ACKed with the current window.
    b.handle_segment(ms(300), &peer_data(4000, 1, ISS + 1));
    let a = one(&mut b, ms(300));
    assert_eq!((a.ack, a.window), (SeqNo(IRS + 4001), 0));
    // Reading 500 B is below the SWS threshold min(rcv_buf/2, MSS) = 1000: no update.
    b.read(ms(310), 500);
    assert!(drain(&mut b, ms(310)).is_empty());
    // Reading 500 more lets the edge advance by 1000: unsolicited window update.
    b.read(ms(320), 500);
    let u = one(&mut b, ms(320));
    assert_eq!((u.ack, u.window), (SeqNo(IRS + 4001), 1000));
    assert_eq!(b.stats().window_updates_sent, 1);
}

// ------------------------------------------------------------------------ loss recovery

#[test]
fn sack_fast_retransmit_on_third_dupack() {
    let mut a = client(
        // RFC 6675's pipe rule; PRR is `prr_spreads_the_reduction_over_the_round_trip`.
        TcpConfig {
            prr: PrrRule::Off,
            ..cfg()
        },
        TcpOptions {
            sack_permitted: true,
            ..plain_opts()
        },
        65535,
    );
    a.write(ms(100), 10_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(v.len(), 10);
    let sack = |blocks: &[(u32, u32)]| {
        let mut s = peer(IRS + 1, ISS + 1, 65535);
        for &(x, y) in blocks {
            s.options.push_sack(SackBlock {
                start: SeqNo(ISS + 1 + x),
                end: SeqNo(ISS + 1 + y),
            });
        }
        s
    };
    // Segment 0 is lost; 1, 2, 3 arrive.
    a.handle_segment(ms(150), &sack(&[(1000, 2000)]));
    assert!(drain(&mut a, ms(150))
        .iter()
        .all(|s| s.seq.0 >= ISS + 10_001));
    a.handle_segment(ms(151), &sack(&[(1000, 3000)]));
    drain(&mut a, ms(151));
    assert!(!a.in_recovery());
    a.handle_segment(ms(152), &sack(&[(1000, 4000)]));
    let v = drain(&mut a, ms(152));
    assert!(a.in_recovery());
    assert_eq!(
        (v[0].seq, v[0].payload_len),
        (SeqNo(ISS + 1), 1000),
        "{v:#?}"
    );
    assert_eq!(a.stats().fast_retransmits, 1);
    // RFC 6675 section 5 step 4.2: cwnd = ssthresh = FlightSize / 2.
    assert_eq!(a.cwnd(), a.ssthresh());
    assert_eq!(a.ssthresh(), 5000);
    // The retransmission arrives: full ACK ends recovery.
    a.handle_segment(ms(200), &peer(IRS + 1, ISS + 10_001, 65535));
    assert!(!a.in_recovery());
    assert!(a.all_data_acked());
    assert_eq!(a.stats().timeouts, 0);
}

/// RFC 6937 (PRR) against RFC 6675 on one loss in a 20-segment window (RFC 6937 appendix
/// A's example): the window is pipe + sndcnt on every ACK, so a PRR sender keeps sending
/// about one segment per two delivered where RFC 6675 stops until pipe falls below
/// ssthresh, and both end recovery at cwnd = ssthresh.
#[test]
fn prr_spreads_the_reduction_over_the_round_trip() {
    let mut sent = Vec::new();
    for rule in [PrrRule::Off, PrrRule::Rfc6937, PrrRule::Linux, PrrRule::Ns3] {
        let mut a = client(
            TcpConfig {
                prr: rule,
                initial_cwnd_pkts: 20,
                ..cfg()
            },
            TcpOptions {
                sack_permitted: true,
                ..plain_opts()
            },
            65535,
        );
        a.write(ms(100), 40_000);
        assert_eq!(drain(&mut a, ms(100)).len(), 20);
        let sack_to = |hi: u32| {
            let mut s = peer(IRS + 1, ISS + 1, 65535);
            s.options.push_sack(SackBlock {
                start: SeqNo(ISS + 1 + 1000),
                end: SeqNo(ISS + 1 + hi),
            });
            s
        };
        // Segment 0 is lost; segments 1 to 19 arrive one by one (19 duplicate ACKs).
        let mut per_ack = Vec::new();
        for k in 2..=20u32 {
            let t = ms(150 + k as u64);
            a.handle_segment(t, &sack_to(k * 1000));
            let v = drain(&mut a, t);
            if k == 4 {
                assert!(a.in_recovery(), "{rule:?}");
                assert_eq!(
                    v[0].seq,
                    SeqNo(ISS + 1),
                    "{rule:?}: the fast retransmission first"
                );
                // Two new segments went on the first two duplicate ACKs (RFC 6675's pipe
                // fell below cwnd): FlightSize 22 000.
                assert_eq!(a.ssthresh(), 11_000);
            }
            if k > 4 {
                per_ack.push(v.len());
            }
        }
        // The retransmission arrives: a full ACK ends recovery at cwnd = ssthresh.
        a.handle_segment(ms(300), &peer(IRS + 1, ISS + 22_001, 65535));
        assert!(!a.in_recovery(), "{rule:?}");
        assert_eq!(a.cwnd(), a.ssthresh(), "{rule:?}");
        assert_eq!(a.stats().timeouts, 0);
        sent.push(per_ack);
    }
    let first8 = |v: &Vec<usize>| v[..8].iter().sum::<usize>();
    // RFC 6675: pipe 19 after the retransmission, cwnd 11: silent for 8 ACKs, then one
    // segment per ACK.
    assert_eq!(first8(&sent[0]), 0, "{:?}", sent[0]);
    // RFC 6937 and Linux: ceil(prr_delivered * 11 / 22 or 20) - prr_out, one segment at a
    // time, about one per two delivered.
    for v in &sent[1..3] {
        assert!((3..=5).contains(&first8(v)), "{v:?}");
        assert!(v.iter().all(|&n| n <= 1), "{v:?}");
    }
    // ns-3 3.44 counts every duplicate ACK twice (SACKed bytes + one SMSS) over RecoverFS
    // = pipe 19 000, so it sends more than one segment per ACK.
    assert!(first8(&sent[3]) >= 8, "{:?}", sent[3]);
    // All four have sent the same amount by the end: pipe reaches ssthresh either way.
    let total = |v: &Vec<usize>| v.iter().sum::<usize>();
    assert!(sent.iter().all(|v| total(v) >= 8), "{sent:?}");
}

fn lossy_transfer(sack: bool, drop_offsets: &[u32]) -> common::Outcome {
    let c = TcpConfig {
        sack,
        timestamps: sack,
        ..cfg()
    };
    let isn = SeqNo(u32::MAX - 3000);
    run(Scenario {
        client: c.clone(),
        server: c,
        client_isn: isn,
        server_isn: SeqNo(77),
        fwd: Channel {
            drop_seqs: drop_offsets.iter().map(|&o| isn + 1 + o).collect(),
            ..Channel::default()
        },
        rev: Channel::default(),
        bytes: 40_000,
        read_chunk: 0,
        read_every: None,
        seed: 0,
        limit: Instant::from_secs(30),
    })
}

#[test]
fn sack_recovers_one_two_three_losses_in_a_window_without_timeout() {
    for drops in [&[3000u32][..], &[3000, 6000], &[2000, 5000, 7000]] {
        let out = lossy_transfer(true, drops);
        let s = out.a.stats();
        assert_eq!(s.timeouts, 0, "{drops:?}: {s:?}");
        assert_eq!(s.fast_retransmits, 1, "{drops:?}: {s:?}");
        assert_eq!(s.recoveries_completed, 1, "{drops:?}: {s:?}");
        assert_eq!(
            s.retransmitted_segments,
            drops.len() as u64,
            "{drops:?}: {s:?}"
        );
    }
}

#[test]
fn newreno_recovers_with_partial_acks_without_timeout() {
    for drops in [&[3000u32][..], &[3000, 6000], &[2000, 5000, 7000]] {
        let out = lossy_transfer(false, drops);
        let s = out.a.stats();
        assert_eq!(s.timeouts, 0, "{drops:?}: {s:?}");
        assert_eq!(s.fast_retransmits, 1, "{drops:?}: {s:?}");
        assert_eq!(s.recoveries_completed, 1, "{drops:?}: {s:?}");
        // RFC 6582: one retransmission per hole, each triggered by a partial ACK.
        assert_eq!(
            s.retransmitted_segments,
            drops.len() as u64,
            "{drops:?}: {s:?}"
        );
    }
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_and_deflates() {
    let mut a = client(cfg(), plain_opts(), 65535);
    a.write(ms(100), 20_000);
    assert_eq!(drain(&mut a, ms(100)).len(), 10);
    // Segments 0 and 2 lost: three dupacks for 1, 3, 4.
    for t in 150..153 {
        a.handle_segment(ms(t), &peer(IRS + 1, ISS + 1, 65535));
        if t < 152 {
            // RFC 3042 limited transmit: one new segment per early dupack.
            let v = drain(&mut a, ms(t));
            assert_eq!(v.len(), 1);
            assert!(v[0].seq.0 >= ISS + 10_001);
        }
    }
    let v = drain(&mut a, ms(152));
    assert_eq!((v[0].seq, v[0].payload_len), (SeqNo(ISS + 1), 1000));
    // RFC 6582 step 2: cwnd = ssthresh + 3 SMSS; FlightSize was 12 segments.
    assert_eq!(a.ssthresh(), 6000);
    assert_eq!(a.cwnd(), 9000);
    // Partial ACK up to the second hole: retransmit it at once, deflate by 2000, add 1000.
    a.handle_segment(ms(200), &peer(IRS + 1, ISS + 2001, 65535));
    let v = drain(&mut a, ms(200));
    assert_eq!((v[0].seq, v[0].payload_len), (SeqNo(ISS + 2001), 1000));
    assert_eq!(a.cwnd(), 8000);
    assert!(a.in_recovery());
    // Full ACK: cwnd = ssthresh.
    a.handle_segment(ms(250), &peer(IRS + 1, ISS + 12_001, 65535));
    assert!(!a.in_recovery());
    assert_eq!(a.cwnd(), 6000);
}

// ------------------------------------------------------------------------ close

#[test]
fn fin_in_both_directions() {
    let mut a = client(cfg(), plain_opts(), 65535);
    a.write(ms(100), 100);
    a.close(ms(100));
    let d = one(&mut a, ms(100));
    assert_eq!((d.flags, d.payload_len), (Flags::ACK | Flags::FIN, 100));
    assert_eq!(a.state(), EndpointState::FinWait);
    // The peer ACKs data and FIN and sends its own FIN.
    let mut f = peer(IRS + 1, ISS + 102, 65535);
    f.flags = Flags::ACK | Flags::FIN;
    a.handle_segment(ms(150), &f);
    let ack = one(&mut a, ms(150));
    assert_eq!(
        (ack.flags, ack.seq, ack.ack),
        (Flags::ACK, SeqNo(ISS + 102), SeqNo(IRS + 2))
    );
    assert_eq!(a.state(), EndpointState::Done);
    assert!(a.all_data_acked());
    // A repeated FIN (our ACK was lost) is ACKed again.
    a.handle_segment(ms(400), &f);
    assert_eq!(one(&mut a, ms(400)).ack, SeqNo(IRS + 2));
}

/// `handshake = false` (ns-2's one-way agents): both ends are established at once, with no
/// RTT sample and no counted segment, so the first data goes at once and its
/// retransmission timer runs `initial_rto` (ns-2's `rtxcur_init_` 3 s), not an RTO from a
/// handshake sample.
#[test]
fn open_without_handshake_starts_with_data_and_the_initial_rto() {
    let c = TcpConfig {
        handshake: false,
        initial_rto: Duration::from_secs(3),
        ..cfg()
    };
    let mut a = Endpoint::new(c.clone(), SeqNo(ISS));
    let mut b = Endpoint::new(c, SeqNo(IRS));
    b.listen();
    tcplab_core::tcp::open_without_handshake(&mut a, &mut b, ms(1000));
    assert_eq!(a.state(), EndpointState::Established);
    assert_eq!(b.state(), EndpointState::Established);
    assert_eq!(a.stats().segments_sent + b.stats().segments_sent, 0);
    assert_eq!(a.srtt(), None);
    a.write(ms(1000), 10_000);
    let v = drain(&mut a, ms(1000));
    assert!(!v.is_empty() && v.iter().all(|s| s.payload_len > 0 && !s.flags.syn()));
    assert_eq!(v[0].seq, SeqNo(ISS + 1));
    assert_eq!(a.timer(Timer::Retransmit), Some(ms(4000)));
    // The receiver takes the data as any established peer does (an ACK per two segments).
    b.handle_segment(ms(1050), &v[0]);
    b.handle_segment(ms(1050), &v[1]);
    let ack = drain(&mut b, ms(1050));
    assert_eq!(
        ack.last().unwrap().ack,
        SeqNo(ISS + 1 + v[0].payload_len + v[1].payload_len)
    );
}

/// `rtt_source = "one_per_rtt"` (ns-2's TcpAgent without timestamps): one segment is timed
/// per round trip, its sample counts the 10 ms ticks crossed, and a retransmission stops
/// the timing (Karn). `send_time` takes a sample from every ACK of new data.
#[test]
fn one_timed_segment_per_round_trip_in_ticks() {
    let samples = |source: RttSource| {
        let mut a = client(
            TcpConfig {
                rtt_source: source,
                ts_granularity: Duration::from_millis(10),
                initial_cwnd_pkts: 4,
                ..cfg()
            },
            plain_opts(),
            65535,
        );
        a.write(ms(100), 8_000);
        assert_eq!(drain(&mut a, ms(100)).len(), 4);
        // ACKs of segments 1-2 and 3-4 at 143 and 144 ms: 4 ticks (100 -> 143 ms) crossed.
        a.handle_segment(ms(143), &peer(IRS + 1, ISS + 2001, 65535));
        let first = Some(a.stats().last_rtt);
        drain(&mut a, ms(143));
        a.handle_segment(ms(144), &peer(IRS + 1, ISS + 4001, 65535));
        drain(&mut a, ms(144));
        (a.stats().rtt_samples, first)
    };
    // Counts include the handshake's sample.
    assert_eq!(
        samples(RttSource::OnePerRtt),
        (2, Some(Duration::from_millis(40)))
    );
    assert_eq!(
        samples(RttSource::SendTime),
        (3, Some(Duration::from_millis(43)))
    );
}

/// `rtt_source = "ns2_linux"` (ns-2.35 tcp/tcp-linux.cc without timestamps): the RTO is fed
/// by the one timed segment per round trip (`rtt_active_`, `rtt_update`), congestion
/// control on every ACK of new data by the send time of the newest segment acknowledged
/// (`pkts_acked`'s `last_ackt` from `tss[]`). Here the timed segment of the second round
/// (sent at 200 ms) and a later one (sent at 220 ms) are acknowledged together at 250 ms:
/// Vegas sees 30 ms, where `one_per_rtt` gives it only the timed segment's 50 ms.
#[test]
fn ns2_linux_rtt_times_one_segment_for_the_rto_and_every_ack_for_congestion_control() {
    let run = |source: RttSource| {
        let mut a = client(
            TcpConfig {
                rtt_source: source,
                cc: tcplab_core::cc::CcKind::Vegas,
                initial_cwnd_pkts: 10,
                ..cfg()
            },
            plain_opts(),
            65535,
        );
        a.write(ms(100), 30_000);
        assert_eq!(drain(&mut a, ms(100)).len(), 10);
        a.handle_segment(ms(200), &peer(IRS + 1, ISS + 1001, 65535));
        assert!(!drain(&mut a, ms(200)).is_empty());
        a.handle_segment(ms(220), &peer(IRS + 1, ISS + 2001, 65535));
        let late = drain(&mut a, ms(220));
        assert!(!late.is_empty());
        let top = late.last().unwrap();
        let end = top.seq.0 + top.payload_len;
        a.handle_segment(ms(250), &peer(IRS + 1, end, 65535));
        let base = match a.congestion_control() {
            tcplab_core::cc::Cc::Vegas(v) => v.base_rtt(),
            _ => unreachable!(),
        };
        (a.stats().rtt_samples, a.stats().last_rtt, base)
    };
    let ms_ = Duration::from_millis;
    // The handshake's sample, then the timed segments of 100 and 200 ms.
    assert_eq!(run(RttSource::OnePerRtt), (3, ms_(50), Some(ms_(50))));
    assert_eq!(run(RttSource::Ns2Linux), (3, ms_(50), Some(ms_(30))));
}
