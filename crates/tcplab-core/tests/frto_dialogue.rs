//! Dialogue tests for F-RTO (RFC 5682 sections 2 and 3) and the RFC 4015 undo: feed an ACK
//! at t, assert exactly what goes out, check both sides of the retransmission deadline.

mod common;
use common::script::{ack, drain, ms, offs, synack, ISS, NS};
use tcplab_core::tcp::{Endpoint, EndpointState, TcpConfig};
use tcplab_core::{Duration, SeqNo, TcpOptions};

fn cfg(frto: bool) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        min_rto: Duration::from_millis(200),
        timestamps: false,
        frto,
        ..common::rfc_rules()
    }
}

/// Established at 50 ms (SRTT 50 ms: RTO 200 ms), 20 segments written at 100 ms, the
/// initial window of 10 sent, no ACK until the RTO at 300 ms, which resends segment 0.
fn timed_out(frto: bool, sack: bool) -> Endpoint {
    let mut a = Endpoint::new(cfg(frto), SeqNo(ISS));
    a.connect(ms(0));
    drain(&mut a, ms(0));
    let synack = synack(
        65535,
        TcpOptions {
            mss: Some(1000),
            sack_permitted: sack,
            ..Default::default()
        },
    );
    a.handle_segment(ms(50), &synack);
    drain(&mut a, ms(50));
    assert_eq!(a.state(), EndpointState::Established);
    a.write(ms(100), 20_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(offs(&v), (0..10).map(|i| i * 1000).collect::<Vec<_>>());
    assert_eq!(a.poll_timeout(), Some(ms(300)));
    a.handle_timeout(ms(300) - NS);
    assert!(drain(&mut a, ms(300) - NS).is_empty());
    a.handle_timeout(ms(300));
    // RFC 5682 step 1 (and conventional recovery alike): only the first segment.
    assert_eq!(offs(&drain(&mut a, ms(300))), vec![0]);
    assert_eq!((a.cwnd(), a.ssthresh()), (1000, 5000));
    assert_eq!(a.stats().timeouts, 1);
    a
}

/// Step 2b: the ACK of segment 0 brings two new segments (10 and 11), not retransmissions.
fn step2(a: &mut Endpoint) {
    a.handle_segment(ms(320), &ack(1000, &[]));
    assert_eq!(offs(&drain(a, ms(320))), vec![10_000, 11_000]);
    assert_eq!(a.stats().retransmitted_segments, 1);
}

fn spurious(sack: bool) {
    let mut a = timed_out(true, sack);
    step2(&mut a);
    // Step 3b: segment 1's original transmission is acknowledged: the timeout was spurious.
    a.handle_segment(ms(330), &ack(2000, &[]));
    assert_eq!(a.stats().spurious_timeouts, 1);
    // RFC 4015 / Linux undo: the pre-timeout window and ssthresh (NewReno: IW 10 segments,
    // ssthresh unset), then this ACK's slow-start increase.
    assert_eq!(a.ssthresh(), u64::MAX);
    assert_eq!(a.cwnd(), 11_000);
    // Segments 2..11 are in flight again (not lost): one new segment fits.
    assert_eq!(a.bytes_in_flight(), 10_000);
    assert_eq!(offs(&drain(&mut a, ms(330))), vec![12_000]);
    // The rest of the window arrives: only new data follows, nothing is resent.
    let mut sent = Vec::new();
    for (i, k) in (3..=13).enumerate() {
        let t = ms(340 + i as u64);
        a.handle_segment(t, &ack(k * 1000, &[]));
        sent.extend(offs(&drain(&mut a, t)));
    }
    assert!(sent.iter().all(|&o| o >= 13_000), "{sent:?}");
    assert_eq!(a.stats().retransmitted_segments, 1);
    assert_eq!(a.stats().timeouts, 1);
    assert_eq!(a.stats().spurious_timeouts, 1);
}

#[test]
fn spurious_rto_is_undone_rfc5682_section2() {
    spurious(false);
}

#[test]
fn spurious_rto_is_undone_rfc5682_section3_sack() {
    spurious(true);
}

/// Step 3a: after the two new segments, an ACK that shows the originals lost (a duplicate
/// ACK; with SACK, one that SACKs only a segment sent after the timeout): conventional
/// go-back-N recovery, no undo.
fn genuine(sack: bool) {
    let mut a = timed_out(true, sack);
    step2(&mut a);
    let dup = if sack {
        ack(1000, &[(10_000, 11_000)])
    } else {
        ack(1000, &[])
    };
    a.handle_segment(ms(330), &dup);
    assert_eq!(a.stats().spurious_timeouts, 0);
    assert_eq!((a.cwnd(), a.ssthresh()), (2000, 5000));
    // The window (2 segments) holds segments 10 and 11 (with SACK, 10 has left the pipe:
    // segment 1 goes at once); nothing new is sent.
    let v = drain(&mut a, ms(330));
    assert!(offs(&v).iter().all(|&o| o < 10_000), "{v:#?}");
    // The next cumulative ACKs (the retransmissions arriving) clock out the segments the
    // timeout marked lost, in order: go-back-N in slow start.
    let mut sent = offs(&v);
    for (i, k) in (2..=4).enumerate() {
        let t = ms(400 + i as u64);
        a.handle_segment(
            t,
            &ack(k * 1000, if sack { &[(10_000, 11_000)] } else { &[] }),
        );
        sent.extend(offs(&drain(&mut a, t)));
    }
    assert!(!sent.is_empty());
    assert!(sent.iter().all(|&o| o < 10_000), "{sent:?}");
    assert!(sent.windows(2).all(|w| w[0] < w[1]), "{sent:?}");
    // Every segment sent after the verdict is a retransmission.
    assert_eq!(a.stats().retransmitted_segments, 1 + sent.len() as u64);
    assert_eq!(a.stats().spurious_timeouts, 0);
}

#[test]
fn genuine_rto_falls_back_to_go_back_n_rfc5682_section2() {
    genuine(false);
}

#[test]
fn genuine_rto_falls_back_to_go_back_n_rfc5682_section3_sack() {
    genuine(true);
}

/// `frto = false`: today's conventional recovery exactly: the ACK of segment 0 brings
/// retransmissions of segments 1 and 2, and the next ACK of segment 1 more of them.
#[test]
fn frto_off_retransmits_in_slow_start() {
    for sack in [false, true] {
        let mut a = timed_out(false, sack);
        a.handle_segment(ms(320), &ack(1000, &[]));
        assert_eq!(offs(&drain(&mut a, ms(320))), vec![1000, 2000]);
        a.handle_segment(ms(330), &ack(2000, &[]));
        assert_eq!(offs(&drain(&mut a, ms(330))), vec![3000, 4000]);
        assert_eq!(a.stats().retransmitted_segments, 5);
        assert_eq!(a.stats().spurious_timeouts, 0);
        assert_eq!((a.cwnd(), a.ssthresh()), (3000, 5000));
    }
}
