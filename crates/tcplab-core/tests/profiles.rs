//! Dialogue tests of the stack profiles' rules (docs/profiles.md, issue 16): where an RTT
//! sample comes from (RFC 7323 TSecr, Linux, Karn's send time), what ssthresh a loss leaves
//! under each profile, and Linux's RTO floor on the variance term.

mod common;

use common::script::{ack, drain, ms, offs, ISS};
use tcplab_core::tcp::{Endpoint, EndpointState, Profile, RttSource, TcpConfig};
use tcplab_core::{Duration, Flags, Instant, Segment, SeqNo, Timestamps};

/// Delivers everything `from` sends at `at` to `to` at `at + delay`; returns the segments.
fn pass(from: &mut Endpoint, to: &mut Endpoint, at: Instant, delay: Duration) -> Vec<Segment> {
    let v = drain(from, at);
    for s in &v {
        to.handle_segment(at + delay, s);
    }
    v
}

/// A connection between two real endpoints (the receiver's ACKs and their TSecr are its
/// own), established by 30 ms over a 10 ms path.
fn pair(cfg: TcpConfig) -> (Endpoint, Endpoint) {
    let mut a = Endpoint::new(cfg.clone(), SeqNo(ISS));
    let mut b = Endpoint::new(cfg, SeqNo(77));
    b.listen();
    a.connect(ms(0));
    let d = Duration::from_millis(10);
    pass(&mut a, &mut b, ms(0), d);
    pass(&mut b, &mut a, ms(10), d);
    pass(&mut a, &mut b, ms(20), d);
    assert_eq!(a.state(), EndpointState::Established);
    assert_eq!(b.state(), EndpointState::Established);
    (a, b)
}

/// Two segments sent 10 ms apart, ACKed together by the receiver's delayed ACK: with
/// timestamps the ACK echoes the first one's TSval (RFC 7323 4.3: TS.Recent is updated
/// only by a segment at Last.ACK.sent), so the TSecr sample is the first segment's RTT,
/// the send-time sample the second's.
fn delayed_ack_sample(src: RttSource) -> (Duration, u32) {
    let cfg = TcpConfig {
        mss: 1000,
        rtt_source: src,
        nagle: false,
        ..TcpConfig::default()
    };
    let (mut a, mut b) = pair(cfg);
    let d = Duration::from_millis(20);
    a.write(ms(100), 1000);
    let s1 = pass(&mut a, &mut b, ms(100), d);
    // The first arrival (120 ms) is held by the delayed ACK.
    assert!(drain(&mut b, ms(120)).is_empty());
    a.write(ms(110), 1000);
    let s2 = pass(&mut a, &mut b, ms(110), d);
    assert_eq!((offs(&s1), offs(&s2)), (vec![0], vec![1000]));
    assert_eq!(s1[0].options.timestamps.map(|t| t.tsval), Some(100));
    // The second (130 ms) is the second full segment: ACK now.
    let acks = pass(&mut b, &mut a, ms(130), Duration::from_millis(20));
    assert_eq!(acks.len(), 1);
    let echoed = acks[0].options.timestamps.expect("timestamps").tsecr;
    (a.stats().last_rtt, echoed)
}

#[test]
fn tsecr_samples_belong_to_the_segment_whose_tsval_was_echoed() {
    // ACK at 150 ms: the first segment left at 100, the second at 110.
    let (tsecr, echoed) = delayed_ack_sample(RttSource::Tsecr);
    assert_eq!(echoed, 100);
    assert_eq!(tsecr, Duration::from_millis(50));
    // Karn's send time takes the newest acknowledged segment.
    let (send_time, _) = delayed_ack_sample(RttSource::SendTime);
    assert_eq!(send_time, Duration::from_millis(40));
    // Linux's RTO sample is the oldest newly acknowledged original (tcp_clean_rtx_queue's
    // first_ackt), the same 50 ms here.
    let (linux, _) = delayed_ack_sample(RttSource::Linux);
    assert_eq!(linux, Duration::from_millis(50));
}

#[test]
fn tsecr_samples_come_in_whole_timestamp_ticks() {
    // A 10 ms timestamp clock: the 50 ms above becomes the difference of the ticks, and a
    // same-tick echo counts one tick (Linux's tcp_ack_update_rtt).
    let cfg = TcpConfig {
        mss: 1000,
        rtt_source: RttSource::Tsecr,
        ts_granularity: Duration::from_millis(10),
        nagle: false,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let (mut a, mut b) = pair(cfg);
    a.write(ms(104), 1000);
    pass(&mut a, &mut b, ms(104), Duration::from_millis(1));
    pass(&mut b, &mut a, ms(105), Duration::from_millis(1));
    assert_eq!(a.stats().last_rtt, Duration::from_millis(10));
    a.write(ms(200), 1000);
    pass(&mut a, &mut b, ms(200), Duration::from_millis(20));
    pass(&mut b, &mut a, ms(220), Duration::from_millis(23));
    assert_eq!(a.stats().last_rtt, Duration::from_millis(40));
}

/// The same loss under each profile: cwnd 10 segments, 6 segments in flight (the
/// application had no more), segment 0 lost and segments 1-3 SACKed. FlightSize is 6000,
/// RFC 6675's pipe 2000 (3 SACKed, 1 lost), cwnd 10000.
fn ssthresh_after_the_loss(profile: Profile) -> u64 {
    ssthresh_after_the_loss_in(profile, 65535)
}

/// The same with the receiver advertising `window` bytes throughout.
fn ssthresh_after_the_loss_in(profile: Profile, window: u16) -> u64 {
    let cfg = TcpConfig {
        mss: 1000,
        initial_cwnd_pkts: 10,
        sack: true,
        timestamps: false,
        nagle: false,
        ..TcpConfig::for_profile(profile)
    };
    let mut a = common::script::established_with_sack(cfg, window);
    a.write(ms(100), 6000);
    assert_eq!(offs(&drain(&mut a, ms(100))).len(), 6);
    assert_eq!(a.cwnd(), 10_000);
    for k in 1..=3u32 {
        let mut dup = ack(0, &[(1000, 1000 + 1000 * k)]);
        dup.window = window;
        a.handle_segment(ms(150), &dup);
    }
    assert!(a.in_recovery());
    a.ssthresh()
}

#[test]
fn each_profile_halves_its_own_measure_of_the_window() {
    assert_eq!(ssthresh_after_the_loss(Profile::Rfc), 3000); // FlightSize / 2
    assert_eq!(ssthresh_after_the_loss(Profile::Ns3), 2000); // pipe / 2, at least 2 SMSS
    assert_eq!(ssthresh_after_the_loss(Profile::Linux), 5000); // cwnd / 2
    assert_eq!(ssthresh_after_the_loss(Profile::Ns2), 5000); // min(cwnd, rwnd 65535) / 2
                                                             // The receiver's window holds the sender at 6000 bytes: ns-2 halves window() =
                                                             // min(cwnd, wnd) = 6000, Linux its cwnd of 10000.
    assert_eq!(ssthresh_after_the_loss_in(Profile::Ns2, 6000), 3000);
    assert_eq!(ssthresh_after_the_loss_in(Profile::Linux, 6000), 5000);
}

#[test]
fn linux_keeps_rto_min_above_the_smoothed_rtt() {
    // A steady 300 ms path: RFC 6298 arms SRTT + max(G, 4 RTTVAR) >= 200 ms, about 301
    // ms; Linux SRTT + max(4 RTTVAR, 200 ms) = 500 ms.
    let deadline_after = |profile: Profile| {
        let cfg = TcpConfig {
            mss: 1000,
            nagle: false,
            delayed_ack: false,
            min_rto: Duration::from_millis(200),
            ..TcpConfig::for_profile(profile)
        };
        let (mut a, mut b) = pair(cfg);
        let mut t = 100;
        for _ in 0..40 {
            a.write(ms(t), 1000);
            pass(&mut a, &mut b, ms(t), Duration::from_millis(150));
            pass(&mut b, &mut a, ms(t + 150), Duration::from_millis(150));
            t += 400;
        }
        a.write(ms(t), 1000);
        let sent = drain(&mut a, ms(t));
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].flags, Flags::ACK);
        a.poll_timeout().unwrap() - ms(t)
    };
    let rfc = deadline_after(Profile::Ns3);
    let linux = deadline_after(Profile::Linux);
    // (RFC 6298's RTTVAR still carries the handshake's 20 ms sample: about 2 ms left.)
    assert!(rfc < Duration::from_millis(320), "{rfc:?}");
    assert!(
        // (SRTT is still 1-2 ms short of 300 ms, coming from the handshake's 20 ms.)
        linux > Duration::from_millis(495) && linux < Duration::from_millis(505),
        "{linux:?}"
    );
}

#[test]
fn timestamps_option_round_trips_in_the_pair() {
    // The harness above relies on real timestamps both ways.
    let (mut a, mut b) = pair(TcpConfig::default());
    a.write(ms(100), 10);
    let s = pass(&mut a, &mut b, ms(100), Duration::from_millis(5));
    assert!(matches!(
        s[0].options.timestamps,
        Some(Timestamps { tsval: 100, .. })
    ));
}
