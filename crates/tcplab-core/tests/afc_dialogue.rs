//! Dialogue tests of AFC (Sanadhya & Sivakumar 2014, section 4.2, Algorithms 1-4) in the
//! endpoint: feed a segment at time t, assert exactly what goes out, and both sides of
//! every deadline. Each test quotes the paper line it checks.

mod common;

use common::script::{drain, ms, one, synack, IRS, ISS, NS};

use common::{run, Channel, Scenario};
use tcplab_core::fc::FcKind;
use tcplab_core::segment::payload_tag;
use tcplab_core::tcp::{Endpoint, EndpointState, TcpConfig, Timer};
use tcplab_core::{Duration, Flags, Instant, SackBlock, Segment, SeqNo, TcpOptions, Timestamps};

fn afc_cfg() -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        delayed_ack: false,
        window_scale: false,
        fc: FcKind::Afc,
        ..common::rfc_rules()
    }
}

fn peer_opts(afc: bool) -> TcpOptions {
    TcpOptions {
        mss: Some(1000),
        sack_permitted: true,
        timestamps: Some(Timestamps { tsval: 7, tsecr: 0 }),
        afc_permitted: afc,
        ..Default::default()
    }
}

/// An ACK from the data receiver: acknowledges stream offset `off`, window in bytes, the
/// AFC rate option in kbit/s, echoing `tsecr`, with SACK blocks as stream offsets.
fn rack(off: u32, window: u16, rate_kbps: u32, tsecr: u32, sack: &[(u32, u32)]) -> Segment {
    let mut s = Segment {
        seq: SeqNo(IRS + 1),
        ack: SeqNo(ISS + 1 + off),
        flags: Flags::ACK,
        window,
        ..Default::default()
    };
    s.options.timestamps = Some(Timestamps { tsval: 9, tsecr });
    s.options.afc_rate_kbps = Some(rate_kbps);
    for &(a, b) in sack {
        s.options.push_sack(SackBlock {
            start: SeqNo(ISS + 1 + a),
            end: SeqNo(ISS + 1 + b),
        });
    }
    s
}

/// Active open against a scripted peer; established at `ms(50)` (SRTT 50 ms).
fn sender(cfg: TcpConfig, peer_afc: bool) -> Endpoint {
    let mut a = Endpoint::new(cfg, SeqNo(ISS));
    a.connect(ms(0));
    let syn = one(&mut a, ms(0));
    assert_eq!(syn.flags, Flags::SYN);
    let synack = synack(65535, peer_opts(peer_afc));
    a.handle_segment(ms(50), &synack);
    one(&mut a, ms(50));
    assert_eq!(a.state(), EndpointState::Established);
    a
}

/// Passive open by a scripted peer; the receiver is established at `ms(50)`.
fn receiver(cfg: TcpConfig, peer_afc: bool) -> (Endpoint, Segment) {
    let mut b = Endpoint::new(cfg, SeqNo(ISS));
    b.listen();
    let syn = Segment {
        seq: SeqNo(IRS),
        flags: Flags::SYN,
        window: 65535,
        options: peer_opts(peer_afc),
        ..Default::default()
    };
    b.handle_segment(ms(0), &syn);
    let synack = one(&mut b, ms(0));
    let mut ack = Segment {
        seq: SeqNo(IRS + 1),
        ack: SeqNo(ISS + 1),
        flags: Flags::ACK,
        window: 65535,
        ..Default::default()
    };
    ack.options.timestamps = Some(Timestamps { tsval: 8, tsecr: 0 });
    b.handle_segment(ms(50), &ack);
    assert!(drain(&mut b, ms(50)).is_empty());
    assert_eq!(b.state(), EndpointState::Established);
    (b, synack)
}

fn data(off: u64, len: u32, tsval: u32) -> Segment {
    let mut s = Segment {
        seq: SeqNo(IRS + 1 + off as u32),
        ack: SeqNo(ISS + 1),
        flags: Flags::ACK,
        window: 65535,
        payload_len: len,
        payload_tag: payload_tag(off, len),
        ..Default::default()
    };
    s.options.timestamps = Some(Timestamps { tsval, tsecr: 0 });
    s
}

fn off_of(s: &Segment) -> u32 {
    s.seq.0 - (ISS + 1)
}

// ------------------------------------------------------------------ handshake (4.2.1)

#[test]
fn afc_permitted_in_the_syn_exchange() {
    // 4.2.1: "At the time of connection set-up, an AFC enabled receiver will advertise an
    // AFC-permitted flag ... If both ends of the connection agree to use AFC ... another
    // variable length option field is used to convey the application read rate".
    let mut a = Endpoint::new(afc_cfg(), SeqNo(ISS));
    a.connect(ms(0));
    assert!(one(&mut a, ms(0)).options.afc_permitted);
    let (b, synack) = receiver(afc_cfg(), true);
    assert!(synack.options.afc_permitted);
    assert!(b.afc_negotiated());
    let a = sender(afc_cfg(), true);
    assert!(a.afc_negotiated());
}

#[test]
fn afc_on_one_side_only_falls_back_to_classic() {
    // 4.2.1: "an AFC enabled network stack must be able to communicate with a default stack".
    let (mut b, synack) = receiver(afc_cfg(), false);
    assert!(!synack.options.afc_permitted);
    assert!(!b.afc_negotiated());
    b.handle_segment(ms(60), &data(0, 1000, 60));
    let ack = one(&mut b, ms(60));
    assert_eq!(ack.options.afc_rate_kbps, None);
    // A classic receiver never takes data beyond its advertised edge.
    let mut a = sender(afc_cfg(), false);
    assert!(!a.afc_negotiated());
    a.write(ms(60), 10_000);
    drain(&mut a, ms(60));
    // Even a rate option from the peer does not widen the window without negotiation.
    a.handle_segment(ms(110), &rack(1000, 2000, 8000, 60, &[]));
    assert_eq!(a.flow_window(), 2000);
    let classic = Endpoint::new(
        TcpConfig {
            fc: FcKind::Classic,
            ..afc_cfg()
        },
        SeqNo(ISS),
    );
    assert!(!classic.afc_negotiated());
}

// ------------------------------------------------------------------ receiver (Alg. 1-3)

#[test]
fn acks_carry_the_smoothed_read_rate_in_kbps() {
    // Algorithm 1 lines 28-35: "ar_update(bytes_read, now())" then "ack.rx <- smooth_rx";
    // 4.2.1: "the later octets carry the application read rate in Kbps".
    let (mut b, _) = receiver(afc_cfg(), true);
    b.handle_segment(ms(60), &data(0, 1000, 60));
    let ack = one(&mut b, ms(60));
    // The arrival sampled 0 bytes read over 10 ms.
    assert_eq!(ack.options.afc_rate_kbps, Some(0));
    // The application reads 1000 bytes 10 ms later: sample 100 kB/s, average 50 kB/s.
    b.read(ms(70), 1000);
    assert!((b.afc_read_rate() - 50_000.0).abs() < 1e-6);
    // An application waiting for data takes it at once: same sample as the arrival.
    b.handle_segment(ms(80), &data(1000, 1000, 80));
    b.read(ms(80), 1000);
    // 0.5 * 50 kB/s + 0.5 * 1000 B / 10 ms
    assert!((b.afc_read_rate() - 75_000.0).abs() < 1e-6);
    let ack = one(&mut b, ms(80));
    assert_eq!(ack.options.afc_rate_kbps, Some(600));
}

#[test]
fn proactive_ack_after_a_rate_change_waits_the_delay() {
    // Algorithm 3 lines 8-13: "ar_update(bytes_read, now()); if smooth_rx > factor *
    // last_rx ... Send ACK"; 4.1.3: "whenever a proactive ACK has to be sent by the
    // receiver, the ACK is delayed for a constant amount of time".
    let (mut b, _) = receiver(afc_cfg(), true);
    b.handle_segment(ms(60), &data(0, 1000, 60));
    one(&mut b, ms(60));
    b.read(ms(70), 1000);
    assert!(drain(&mut b, ms(70)).is_empty());
    assert_eq!(b.timer(Timer::DelayedAck), Some(ms(110)));
    b.handle_timeout(ms(110) - NS);
    assert!(drain(&mut b, ms(110) - NS).is_empty());
    b.handle_timeout(ms(110));
    let p = one(&mut b, ms(110));
    assert_eq!(p.options.afc_rate_kbps, Some(400));
    assert_eq!(p.ack, SeqNo(IRS + 1 + 1000));
    assert_eq!(p.window, 64_000);
    assert_eq!(b.stats().afc_proactive_acks, 1);
}

#[test]
fn proactive_ack_is_dropped_when_a_reactive_ack_goes_first() {
    // 4.1.3: "If a reactive ACK (an ACK in response to data arrival) is triggered within
    // the aforementioned constant amount of time, the proactive ACK can be discarded."
    let (mut b, _) = receiver(afc_cfg(), true);
    b.handle_segment(ms(60), &data(0, 1000, 60));
    one(&mut b, ms(60));
    b.read(ms(70), 1000);
    assert_eq!(b.timer(Timer::DelayedAck), Some(ms(110)));
    b.handle_segment(ms(90), &data(1000, 1000, 90));
    let r = one(&mut b, ms(90));
    assert_eq!(r.ack, SeqNo(IRS + 1 + 2000));
    assert_eq!(b.timer(Timer::DelayedAck), None);
    b.handle_timeout(ms(110));
    assert!(drain(&mut b, ms(110)).is_empty());
    assert_eq!(
        (
            b.stats().afc_proactive_acks,
            b.stats().afc_proactive_acks_suppressed
        ),
        (0, 1)
    );
}

#[test]
fn receiver_keeps_what_fits_the_buffer_and_drops_the_rest() {
    // Algorithm 1 lines 2-3: "if seqno > read_nxt + bufsize then Drop packet"; the
    // window is "bufsize - (rcv_nxt - read_nxt)" (line 31).
    let cfg = TcpConfig {
        rcv_buf_bytes: 4000,
        ..afc_cfg()
    };
    let (mut b, _) = receiver(cfg, true);
    for i in 0..4u64 {
        b.handle_segment(ms(60), &data(i * 1000, 1000, 60));
    }
    let acks = drain(&mut b, ms(60));
    assert_eq!(acks.last().unwrap().window, 0);
    // Beyond the full buffer: dropped, but ACKed (zero window).
    b.handle_segment(ms(61), &data(4000, 1000, 61));
    let a = one(&mut b, ms(61));
    assert_eq!((a.ack, a.window), (SeqNo(IRS + 1 + 4000), 0));
    assert_eq!(b.stats().afc_overflow_drops, 1);
    // The application reads 2000 bytes; before any ACK tells the sender, data beyond the
    // advertised edge (4000) but inside read_nxt + bufsize (6000) is kept.
    b.read(ms(62), 2000);
    b.handle_segment(ms(62), &data(4000, 1000, 62));
    b.handle_segment(ms(62), &data(5000, 1000, 62));
    b.handle_segment(ms(62), &data(6000, 1000, 62));
    let acks = drain(&mut b, ms(62));
    let last = acks.last().unwrap();
    assert_eq!((last.ack, last.window), (SeqNo(IRS + 1 + 6000), 0));
    assert_eq!(b.stats().afc_overflow_drops, 2);
    assert!(b.check_invariants(ms(62)).is_ok());
    let mut got = 0;
    while let Some(c) = b.read(ms(63), u64::MAX) {
        assert_eq!(c.offset, 2000 + got);
        got += c.len;
    }
    assert_eq!(got, 4000);
}

#[test]
fn duplicates_are_ignored_without_an_ack() {
    // Algorithm 1 lines 4-5 and 13-15 mark a segment already read or buffered as a
    // duplicate, and line 32 sends an ACK only "if is_dup != true": "Duplicate packets are
    // completely ignored" (4.2.2). Classic TCP ACKs them at once (RFC 5681 4.2).
    for afc in [true, false] {
        let cfg = if afc {
            afc_cfg()
        } else {
            TcpConfig {
                fc: FcKind::Classic,
                ..afc_cfg()
            }
        };
        let (mut b, _) = receiver(cfg, afc);
        b.handle_segment(ms(60), &data(0, 1000, 60));
        b.handle_segment(ms(60), &data(2000, 1000, 60));
        assert!(!drain(&mut b, ms(60)).is_empty());
        // In order and already held, then out of order and already held.
        for off in [0, 2000] {
            b.handle_segment(ms(61), &data(off, 1000, 61));
            let acks = drain(&mut b, ms(61));
            assert_eq!(acks.len(), usize::from(!afc), "afc {afc}, {off}: {acks:?}");
        }
        // The same segment again (a timeout's retransmission whose ACK was lost) is
        // answered, so lost ACKs cannot deadlock the connection.
        b.handle_segment(ms(61), &data(2000, 1000, 61));
        assert_eq!(drain(&mut b, ms(61)).len(), 1);
        // New data is ACKed as before.
        b.handle_segment(ms(62), &data(1000, 1000, 62));
        assert_eq!(one(&mut b, ms(62)).ack, SeqNo(IRS + 1 + 3000));
        assert!(b.check_invariants(ms(62)).is_ok());
    }
}

// ------------------------------------------------------------------ sender (Alg. 4)

#[test]
fn flow_window_is_awnd_plus_rate_times_rtt() {
    // Algorithm 4 lines 1-5: "awnd <- ack.win; app_rate <- ack.rx; if rtt > 0 then
    // rwnd <- awnd + app_rate * rtt".
    let mut a = sender(afc_cfg(), true);
    a.write(ms(60), 30_000);
    let first = drain(&mut a, ms(60));
    assert_eq!(first.len(), 10); // the initial window
                                 // ACK of 1000 bytes, window 2000, 8000 kbit/s = 1 MB/s; SRTT 50 ms -> 50 000 bytes.
    a.handle_segment(ms(110), &rack(1000, 2000, 8000, 60, &[]));
    let srtt = a.srtt().unwrap().as_secs_f64();
    assert_eq!(a.flow_window(), 2000 + (1_000_000.0 * srtt) as u64);
    // Classic TCP would stop at snd_una + 2000 = 3000 (10 000 already sent).
    let more = drain(&mut a, ms(110));
    assert!(!more.is_empty(), "AFC sends beyond the advertised window");
    // The pure ACK carries the rate option; data segments do not (MTU).
    assert!(more.iter().all(|s| s.options.afc_rate_kbps.is_none()));
}

/// Sends 10 segments at ms(60), then the receiver's buffer fills: ACK of 2000 with a zero
/// window at ms(110).
fn zero_window_sender() -> Endpoint {
    let mut a = sender(afc_cfg(), true);
    a.write(ms(60), 30_000);
    assert_eq!(drain(&mut a, ms(60)).len(), 10);
    a.handle_segment(ms(110), &rack(2000, 0, 0, 60, &[]));
    assert!(drain(&mut a, ms(110)).is_empty());
    assert_eq!(a.stats().afc_zero_window_flags, 1);
    a
}

#[test]
fn zero_window_flag_hides_dupacks_then_open_window_resets_snd_nxt() {
    // Algorithm 4 lines 6-7: "if awnd = 0 and zw_flag = 0 then zw_flag <- 1"; 4.1.2: the
    // sender "ignores loss indicators (both triple duplicate ACKs and timeouts)" ...
    let mut a = zero_window_sender();
    for (i, s) in [(5000, 6000), (6000, 7000), (7000, 8000)]
        .iter()
        .enumerate()
    {
        a.handle_segment(ms(111 + i as u64), &rack(2000, 0, 0, 60, &[*s]));
        assert!(drain(&mut a, ms(111 + i as u64)).is_empty());
    }
    assert_eq!(a.stats().fast_retransmits, 0);
    assert_eq!(a.stats().afc_ignored_congestion_signals, 3);
    let cwnd = a.cwnd();
    // Lines 8-17: the open window: "ts_recover <- now() ... snd_nxt <- highest_ack + 1
    // ... Process SACK information ... Reset the retransmit timer" -- the lost data goes
    // out at once, skipping what the receiver holds (5000-8000), within W_fc = 4000.
    a.handle_segment(ms(200), &rack(2000, 4000, 0, 60, &[(5000, 8000)]));
    let out = drain(&mut a, ms(200));
    let offs: Vec<u32> = out.iter().map(off_of).collect();
    assert_eq!(offs, [2000, 3000, 4000]);
    assert!(out
        .iter()
        .all(|s| s.options.timestamps.unwrap().tsval == 200));
    assert_eq!(a.stats().afc_open_windows, 1);
    assert_eq!(a.stats().timeouts, 0);
    assert_eq!(a.cwnd(), cwnd);
    assert_eq!(a.timer(Timer::Retransmit), Some(ms(200) + a.rtt().rto()));
    // Lines 26-30: "if ack.ts_echo > ts_recover then Process duplicate ACK": dupacks for
    // data sent before the open window are still ignored ...
    for (i, s) in [(8000, 9000), (9000, 10_000)].iter().enumerate() {
        a.handle_segment(ms(210 + i as u64), &rack(2000, 4000, 0, 200, &[*s]));
    }
    assert_eq!(a.stats().fast_retransmits, 0);
    assert_eq!(a.stats().afc_ignored_congestion_signals, 5);
    // ... until an ACK echoes data sent after ts_recover (tsval 200 is not after 200).
    a.handle_segment(ms(260), &rack(3000, 4000, 0, 201, &[(5000, 10_000)]));
    a.handle_segment(ms(261), &rack(3000, 4000, 0, 201, &[(4000, 5000)]));
    assert_eq!(a.stats().afc_ignored_congestion_signals, 5);
    assert_eq!(a.stats().dup_acks_received, 6);
    // Once congestion signals count again, a loss in the resent window starts fast
    // recovery: Algorithm 4 sets no recovery point at the open window (issue 17: an RFC
    // 6582 `recover = snd_max` there barred fast recovery until the whole old window was
    // acknowledged, and the loss waited for the retransmission timer).
    a.handle_segment(
        ms(262),
        &rack(3000, 4000, 0, 201, &[(4000, 5000), (5000, 11_000)]),
    );
    a.handle_segment(
        ms(263),
        &rack(3000, 4000, 0, 201, &[(4000, 5000), (5000, 12_000)]),
    );
    assert_eq!(a.stats().fast_retransmits, 1);
    let out = drain(&mut a, ms(263));
    assert_eq!(out.first().map(off_of), Some(3000));
}

#[test]
fn timeout_under_zero_window_is_a_probe_not_a_congestion_signal() {
    // Algorithm 4 line 21: "Send zero window probes to learn about open windows"; 4.1.2:
    // timeouts during the zero window are not congestion.
    let mut a = zero_window_sender();
    let cwnd = a.cwnd();
    let rto_at = a.timer(Timer::Retransmit).unwrap();
    a.handle_timeout(rto_at - NS);
    assert!(drain(&mut a, rto_at - NS).is_empty());
    a.handle_timeout(rto_at);
    let p = one(&mut a, rto_at);
    assert_eq!((off_of(&p), p.payload_len), (2000, 1000));
    assert_eq!(a.cwnd(), cwnd);
    assert_eq!(a.stats().timeouts, 1);
    assert_eq!(a.stats().afc_ignored_congestion_signals, 1);
    // Backed off: the next probe waits twice as long.
    let next = a.timer(Timer::Retransmit).unwrap();
    assert!(next - rto_at > rto_at - ms(110));
}

#[test]
fn burst_control_spaces_packets_by_rtt_over_window() {
    // 4.1.4: "The occurrence of a burst is detected by the difference in the allowed range
    // of outstanding packets ... and the next packet to be sent (snd_nxt). If this
    // difference is above a threshold, every packet is delayed by RTT/sender's window."
    let cfg = TcpConfig {
        afc_burst_threshold_pkts: 2,
        ..afc_cfg()
    };
    let mut a = sender(cfg, true);
    a.write(ms(60), 30_000);
    // Window 10 000 (cwnd), allowed range 10 000 > 2000: one packet every 50 ms / 10.
    let gap = Duration::from_millis(5);
    let mut t = ms(60);
    for k in 0..7u32 {
        let s = one(&mut a, t);
        assert_eq!(off_of(&s), k * 1000);
        assert_eq!(a.timer(Timer::Pacing), Some(t + gap));
        assert!(drain(&mut a, t + gap - NS).is_empty());
        t = t + gap;
        a.handle_timeout(t);
    }
    // The 8th packet leaves the range at 2000 -- within the threshold: the rest go at once.
    let rest = drain(&mut a, t);
    assert_eq!(
        rest.iter().map(off_of).collect::<Vec<_>>(),
        [7000, 8000, 9000]
    );
    assert!(a.stats().afc_paced_segments >= 7);
}

// ------------------------------------------------------------------ end to end

#[test]
fn afc_transfer_to_a_slow_reader_with_overflow_delivers_every_byte() {
    // Whatever overflows the buffer is recovered (4.1.2) and the byte stream is intact.
    for seed in 0..6 {
        let out = run(Scenario {
            client: TcpConfig {
                rcv_buf_bytes: 8_000,
                ..afc_cfg()
            },
            server: TcpConfig {
                rcv_buf_bytes: 8_000,
                ..afc_cfg()
            },
            client_isn: SeqNo(7),
            server_isn: SeqNo(u32::MAX - 3000),
            fwd: Channel {
                ns_per_byte: 800,
                loss: 0.01,
                jitter: Duration::from_millis(3),
                ..Channel::default()
            },
            rev: Channel::default(),
            bytes: 400_000,
            read_chunk: 1000,
            read_every: Some(Duration::from_millis(2 + seed % 3)),
            seed,
            limit: Instant::from_secs(600),
        });
        assert!(out.a.afc_negotiated() && out.b.afc_negotiated());
        assert!(
            out.b.stats().afc_overflow_drops > 0,
            "seed {seed}: the test should overflow the buffer"
        );
    }
}
