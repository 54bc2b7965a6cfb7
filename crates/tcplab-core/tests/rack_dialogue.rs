//! Dialogue tests for RACK-TLP (RFC 8985 sections 6 and 7, as Linux runs it): a lost
//! retransmission found by RACK instead of the RTO, a tail loss repaired by a loss probe
//! instead of the RTO, and reordering within the reordering window left alone. Each runs
//! with `loss_detection = "dupthresh"` too, to show what RACK-TLP changes.

mod common;
use common::script::{ack, drain, established_with_sack, ms, offs, NS};
use common::{run, Channel, Outcome, Scenario};
use tcplab_core::tcp::{Endpoint, EndpointState, LossDetection, TcpConfig, Timer};
use tcplab_core::{Duration, Instant, SeqNo};

/// The default (`linux`) profile with 1000-byte segments and the given loss detection.
fn cfg(loss_detection: LossDetection) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        loss_detection,
        ..TcpConfig::default()
    }
}

const CLIENT_ISN: SeqNo = SeqNo(7);

/// The sequence number of stream offset `off` of the client's data.
fn seq(off: u32) -> SeqNo {
    CLIENT_ISN + 1 + off
}

/// A `bytes`-long upload over 20 ms each way, the forward channel altered by `fwd`.
fn transfer(ld: LossDetection, bytes: u64, fwd: Channel) -> Outcome {
    run(Scenario {
        client: cfg(ld),
        server: cfg(ld),
        client_isn: CLIENT_ISN,
        server_isn: SeqNo(77),
        fwd,
        rev: Channel::default(),
        bytes,
        read_chunk: 0,
        read_every: None,
        seed: 0,
        limit: Instant::from_secs(30),
    })
}

#[test]
fn rack_finds_a_lost_retransmission_that_only_the_rto_finds_without_it() {
    // Segment 3000 is lost, and so is its fast retransmission. RFC 6675 marks a segment
    // lost once: the second loss waits for the RTO. RACK sees that segments sent after
    // the retransmission were delivered a round trip later and sends it again.
    let fwd = || Channel {
        drop_seqs: vec![seq(3000), seq(3000)],
        ..Channel::default()
    };
    let rack = transfer(LossDetection::RackTlp, 40_000, fwd());
    let s = rack.a.stats();
    assert_eq!(s.timeouts, 0, "{s:?}");
    assert_eq!(s.fast_retransmits, 1, "{s:?}");
    assert_eq!(s.retransmitted_segments, 2, "{s:?}");

    let dupthresh = transfer(LossDetection::Dupthresh, 40_000, fwd());
    let d = dupthresh.a.stats();
    assert_eq!(d.timeouts, 1, "{d:?}");
    assert!(
        rack.now < dupthresh.now,
        "RACK done at {:?}, dupthresh at {:?}",
        rack.now,
        dupthresh.now
    );
}

#[test]
fn a_loss_probe_repairs_a_tail_loss_that_otherwise_waits_for_the_rto() {
    // The last two segments of a 20-segment upload are lost: no ACK follows them, so
    // neither duplicate ACKs nor RACK can see the loss. The probe timeout (2 SRTT) sends
    // the last segment again; its SACK lets RACK mark the other lost after the reordering
    // window, and fast recovery repairs it.
    let fwd = || Channel {
        drop_seqs: vec![seq(18_000), seq(19_000)],
        ..Channel::default()
    };
    let rack = transfer(LossDetection::RackTlp, 20_000, fwd());
    let s = rack.a.stats();
    assert_eq!(s.timeouts, 0, "{s:?}");
    assert_eq!(s.loss_probes, 1, "{s:?}");
    assert_eq!(s.fast_retransmits, 1, "{s:?}");
    assert_eq!(s.retransmitted_segments, 2, "{s:?}");

    let dupthresh = transfer(LossDetection::Dupthresh, 20_000, fwd());
    let d = dupthresh.a.stats();
    assert_eq!(d.timeouts, 1, "{d:?}");
    assert_eq!(d.loss_probes, 0, "{d:?}");
    assert!(
        rack.now + Duration::from_millis(100) < dupthresh.now,
        "RACK-TLP done at {:?}, dupthresh at {:?}",
        rack.now,
        dupthresh.now
    );
}

/// Established at 50 ms with SACK (RTT and min_RTT 50 ms), 20 segments written at 100 ms
/// and the initial window of 10 sent.
fn ten_in_flight() -> Endpoint {
    let mut a = established_with_sack(cfg(LossDetection::RackTlp), 65535);
    assert_eq!(a.state(), EndpointState::Established);
    assert_eq!(a.rtt().min_rtt, Some(Duration::from_millis(50)));
    a.write(ms(100), 20_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(offs(&v), (0..10).map(|i| i * 1000).collect::<Vec<_>>());
    a
}

#[test]
fn reordering_within_the_window_is_not_a_loss_and_beyond_it_is() {
    // Segment 0 is overtaken by segments 1 and 2. With fewer than DupThresh segments
    // SACKed and no recovery, the reordering window is min_RTT / 4 = 12.5 ms: segment 0
    // is lost only RACK.rtt + 12.5 ms after it was sent: RACK.rtt is 51 ms, from the
    // second SACK (segment 2, sent at 100 ms, SACKed at 151 ms), and the reordering timer
    // adds Linux's 2 ms of slack.
    let deadline = ms(100) + Duration::from_micros(51_000 + 12_500 + 2_000);
    let sacks = |a: &mut Endpoint| {
        a.handle_segment(ms(150), &ack(0, &[(1000, 2000)]));
        a.handle_segment(ms(151), &ack(0, &[(1000, 3000)]));
        // Two new segments for the two delivered; segment 0 is not retransmitted.
        let mut out = drain(a, ms(151));
        out.extend(drain(a, ms(151)));
        assert_eq!(a.timer(Timer::RackReorder), Some(deadline));
        assert_eq!(a.stats().retransmitted_segments, 0);
    };

    // Segment 0 arrives 6 ms late, within the window: nothing is resent.
    let mut a = ten_in_flight();
    sacks(&mut a);
    a.handle_segment(ms(156), &ack(3000, &[]));
    drain(&mut a, ms(156));
    assert_eq!(a.timer(Timer::RackReorder), None);
    a.handle_timeout(deadline);
    assert_eq!(a.stats().retransmitted_segments, 0);
    assert_eq!(a.stats().fast_retransmits, 0);
    assert!(!a.in_recovery());

    // Segment 0 does not arrive: the reordering timer declares it lost at the deadline,
    // not before, and fast recovery resends it.
    let mut a = ten_in_flight();
    sacks(&mut a);
    a.handle_timeout(deadline - NS);
    assert!(drain(&mut a, deadline - NS).is_empty());
    a.handle_timeout(deadline);
    let out = drain(&mut a, deadline);
    assert_eq!(offs(&out)[0], 0, "{:?}", offs(&out));
    assert_eq!(a.stats().rack_reorder_timeouts, 1);
    assert_eq!(a.stats().fast_retransmits, 1);
    assert!(a.in_recovery());
}

#[test]
fn reordering_by_less_than_dupthresh_segments_is_no_loss_for_either_rule() {
    // Over a 1 Mbit/s-like link (about 1 ms per segment) segment 3000 arrives 2.5 ms late:
    // two segments overtake it. Neither RACK (window 10 ms) nor DupThresh resend it.
    for ld in [LossDetection::RackTlp, LossDetection::Dupthresh] {
        let fwd = Channel {
            ns_per_byte: 1000,
            delay_seqs: vec![(seq(3000), Duration::from_micros(2_500))],
            ..Channel::default()
        };
        let out = transfer(ld, 40_000, fwd);
        let s = out.a.stats();
        assert_eq!(s.retransmitted_segments, 0, "{ld:?}: {s:?}");
        assert_eq!(s.fast_retransmits, 0, "{ld:?}: {s:?}");
    }
}
