//! The two CUBICs (`cubic_variant`) and HyStart (`hystart`) driven by an ACK clock: a
//! cwnd-limited sender over a path of fixed RTT, one delayed ACK per two segments, the
//! ACKs of a round spread over it. The same loss and timeout pattern goes to RFC 9438's
//! CUBIC and to CUBIC v2.1 as ns-2.35 runs it, and their windows are printed side by side;
//! HyStart leaves slow start on a rising RTT and on a long ACK train.

use tcplab_core::cc::cubic::CubicVariant;
use tcplab_core::cc::hystart::Exit;
use tcplab_core::cc::{AckSample, Cc, CcKind, CongestionControl, CongestionEvent};
use tcplab_core::tcp::rtt::RttEstimator;
use tcplab_core::tcp::{Profile, TcpConfig};
use tcplab_core::{Duration, Instant};

const MSS: u64 = 1000;

struct Clock {
    cc: Cc,
    rtt: RttEstimator,
    now: Instant,
    /// When the previous round began: the data a round's ACKs acknowledge was sent then.
    prev_start: Instant,
}

impl Clock {
    fn new(variant: CubicVariant, hystart: bool, iw_pkts: u64) -> Self {
        let cfg = TcpConfig {
            cubic_variant: variant,
            hystart,
            // RFC 5681 slow start (one segment per ACK), which the figures below assume.
            abc_limit_pkts: 1,
            ..TcpConfig::default()
        };
        Clock {
            cc: Cc::with_config(CcKind::Cubic, MSS as u32, iw_pkts * MSS, &cfg),
            rtt: RttEstimator::default(),
            now: Instant::from_secs(2),
            prev_start: Instant::from_secs(1),
        }
    }

    fn cwnd_pkts(&self) -> u64 {
        self.cc.congestion_window() / MSS
    }

    /// One round trip of ACKs for the window at its start: one ACK per two segments,
    /// `gap(i)` after the previous one (the first at the round's start), each carrying the
    /// RTT `rtt(i, cwnd_now)` and acknowledging data sent when the previous round began;
    /// the next round starts `period` after this one.
    fn round(
        &mut self,
        period: Duration,
        gap: impl Fn(u64, u64) -> Duration,
        rtt: impl Fn(u64, u64) -> Duration,
    ) {
        let start = self.now;
        let pkts = self.cwnd_pkts();
        let acks = pkts.div_ceil(2);
        let mut t = start;
        for i in 0..acks {
            if i > 0 {
                t = t + gap(i, acks);
            }
            let r = rtt(i, self.cwnd_pkts());
            self.rtt.on_sample(r);
            let a = AckSample {
                bytes_acked: if i + 1 == acks && pkts % 2 == 1 {
                    MSS
                } else {
                    2 * MSS
                },
                rtt: Some(r),
                prior_in_flight: self.cc.congestion_window(),
                in_flight: self.cc.congestion_window(),
                peer_tsval: Some(1),
                echo_sent_at: Some(self.prev_start),
                ..Default::default()
            };
            self.cc.on_ack(t, &a, &self.rtt);
        }
        self.prev_start = start;
        self.now = start + period;
    }

    /// A plain round: ACKs evenly spread over `rtt`.
    fn plain(&mut self, rtt: Duration) {
        self.round(rtt, |_, n| Duration(rtt.0 / n), |_, _| rtt);
    }

    fn event(&mut self, e: CongestionEvent) {
        let w = self.cc.congestion_window();
        self.cc.on_congestion_event(self.now, e, w, &self.rtt);
        self.prev_start = self.now;
    }

    fn hystart_exit(&self) -> Option<Exit> {
        match &self.cc {
            Cc::Cubic(c) => c.hystart().and_then(|h| h.found()),
            Cc::CubicNs2(c) => c.hystart().and_then(|h| h.found()),
            _ => unreachable!(),
        }
    }
}

/// Slow start from 10 packets to `w`, a fast retransmit, congestion avoidance until cwnd
/// is back at `w`, a retransmission timeout, then `after` rounds. Returns cwnd (packets)
/// at the timeout, the RTTs it took to regain `w` after the fast retransmit, and cwnd
/// after each round since the timeout.
fn timeout_pattern(variant: CubicVariant, w: u64, after: usize) -> (u64, usize, Vec<u64>) {
    let rtt = Duration::from_millis(100);
    let mut c = Clock::new(variant, false, 10);
    while c.cwnd_pkts() < w {
        c.plain(rtt);
    }
    c.event(CongestionEvent::FastRecovery);
    c.now = c.now + rtt;
    c.cc.on_recovery_exit(c.now);
    let mut after_fr = 0;
    while c.cwnd_pkts() < w {
        c.plain(rtt);
        after_fr += 1;
    }
    let at_timeout = c.cwnd_pkts();
    c.event(CongestionEvent::Timeout);
    // The RTO itself: two rounds' worth of silence.
    c.now = c.now + Duration::from_millis(200);
    let mut trace = Vec::new();
    for _ in 0..after {
        c.plain(rtt);
        trace.push(c.cwnd_pkts());
    }
    (at_timeout, after_fr, trace)
}

/// RTTs until cwnd is back at `w` (None: not within the trace).
fn regain(trace: &[u64], w: u64) -> Option<usize> {
    trace.iter().position(|&c| c >= w).map(|i| i + 1)
}

fn side_by_side(w: u64, after: usize) -> (Vec<u64>, Vec<u64>, Option<usize>, Option<usize>) {
    let (w_rfc, fr_rfc, rfc) = timeout_pattern(CubicVariant::Rfc9438, w, after);
    let (w_ns2, fr_ns2, ns2) = timeout_pattern(CubicVariant::Ns2, w, after);
    eprintln!(
        "w = {w}: back at w {fr_rfc} (rfc9438) and {fr_ns2} (ns2) RTTs after the fast \
         retransmit; cwnd at the timeout {w_rfc} and {w_ns2}"
    );
    eprintln!("RTTs after the timeout   rfc9438   ns2");
    for (i, (a, b)) in rfc.iter().zip(&ns2).enumerate() {
        if i % 5 == 4 || i < 6 {
            eprintln!("{:>22} {:>9} {:>5}", i + 1, a, b);
        }
    }
    let (back_rfc, back_ns2) = (regain(&rfc, w_rfc), regain(&ns2, w_ns2));
    eprintln!(
        "back at the window of the timeout after: rfc9438 {back_rfc:?}, ns2 {back_ns2:?} RTTs"
    );
    (rfc, ns2, back_rfc, back_ns2)
}

#[test]
fn after_a_timeout_cubic_2_1_regrows_more_slowly_than_rfc_9438_on_small_windows() {
    // Windows of a dozen packets, as in many ns-2 scenarios: 2.1's timeout forgets the
    // loss (`bictcp_reset`), so its congestion avoidance runs at cnt = 50, cwnd / 50
    // packets per RTT (0.2 at 10 packets) until the next fast retransmit; RFC 9438 keeps
    // its Reno-friendly line (0.53 per RTT, 1 past the window of the timeout) and a cubic
    // curve from the new window. 2.1's higher ssthresh (0.8 against 0.7) is soon lost.
    let (rfc, ns2, back_rfc, back_ns2) = side_by_side(12, 60);
    // Both slow-start back to their ssthresh (0.7 x 12 = 8.4, 0.8 x 12 = 9) in 5 RTTs.
    assert!(rfc[4] >= 8 && ns2[4] >= 9);
    // Then 2.1 takes longer to get back to the window of the timeout (15 RTTs against 11)...
    assert!(back_ns2.unwrap_or(usize::MAX) > back_rfc.unwrap() + 2);
    // ...and stays below RFC 9438 over the next seconds.
    for i in [14, 19, 29, 39, 59] {
        assert!(
            ns2[i] < rfc[i],
            "after {} RTTs: ns2 {} rfc {}",
            i + 1,
            ns2[i],
            rfc[i]
        );
    }
}

#[test]
fn above_fifty_packets_cubic_2_1_regrows_faster_after_a_timeout() {
    // The other side of the same rule: cwnd / 50 per RTT is more than RFC 9438's
    // Reno-friendly line once the window is well above 50 packets, and 2.1 starts from 0.8
    // of the window, not 0.7.
    let (rfc, ns2, back_rfc, back_ns2) = side_by_side(120, 40);
    assert!(back_ns2.unwrap() < back_rfc.unwrap_or(usize::MAX));
    assert!(ns2[19] > rfc[19] && ns2[39] > rfc[39]);
}

#[test]
fn hystart_leaves_slow_start_when_the_rtt_rises_by_the_delay_threshold() {
    // Rounds of ACKs 3 ms apart (no ACK train) whose RTT is the path's for three rounds (10,
    // 15, 23 packets), then rises by the threshold less 0.1 ms (35 packets: no exit), then
    // by the threshold plus 0.1 ms (53 packets). The threshold is clamp(delay_min / 8,
    // 4 ms, 16 ms): 12.5 ms on a 100 ms path, 4 ms on a 20 ms one, 16 ms on a 200 ms one.
    // The test needs 8 samples: it fires on the round's 9th ACK, 8 packets of slow start
    // into it, and ssthresh is cwnd then -- slow start ends before a buffer of, say, 40
    // packets over a 30-packet pipe overflows (cwnd 70), where RFC 5681's goes on.
    for (base_ms, threshold_us) in [(100, 12_500), (20, 4_000), (200, 16_000)] {
        for variant in [CubicVariant::Rfc9438, CubicVariant::Ns2] {
            let base = Duration::from_millis(base_ms);
            let extra = |round: usize| match round {
                0..=2 => 0,
                3 => threshold_us - 100,
                _ => threshold_us + 100,
            };
            let mut on = Clock::new(variant, true, 10);
            let mut off = Clock::new(variant, false, 10);
            let mut starts = Vec::new();
            for k in 0..5 {
                starts.push(on.cwnd_pkts());
                let rtt = base + Duration::from_micros(extra(k));
                let gap = |_, _| Duration::from_millis(3);
                let period = Duration::from_millis(3 * 30 + 1);
                on.round(period, gap, |_, _| rtt);
                off.round(period, gap, |_, _| rtt);
            }
            let what = format!("{variant:?} on a {base_ms} ms path");
            eprintln!("{what}: round starts {starts:?}, cwnd {}", on.cwnd_pkts());
            assert_eq!(starts, [10, 15, 23, 35, 53], "{what}");
            assert_eq!(on.hystart_exit(), Some(Exit::Delay), "{what}");
            assert_eq!(on.cc.ssthresh(), (53 + 8) * MSS, "{what}");
            // Without HyStart slow start goes on (until a loss).
            assert_eq!(off.cc.ssthresh(), u64::MAX, "{what}");
            assert!(off.cwnd_pkts() > 70, "{what}");
        }
    }
}

#[test]
fn hystart_leaves_slow_start_on_a_train_of_acks_spanning_half_the_min_rtt() {
    // A 40 ms path whose ACKs come back to back, 1 ms apart, with a constant RTT (no
    // delay signal). The train threshold is (delay_min + cushion) / 2 = (40 + 1) / 2 =
    // 20.5 ms (Linux's TSO cushion is 1 ms at these rates): the train exits in the first
    // round with at least 22 ACKs (43 packets), on its 22nd ACK (21 ms after the first).
    let rtt = Duration::from_millis(40);
    let ms = Duration::from_millis(1);
    let mut c = Clock::new(CubicVariant::Rfc9438, true, 10);
    let mut starts = Vec::new();
    while c.hystart_exit().is_none() && c.cwnd_pkts() < 1000 {
        starts.push(c.cwnd_pkts());
        c.round(rtt, |_, _| ms, |_, _| rtt);
    }
    eprintln!("round starts {starts:?}, exit at cwnd {}", c.cwnd_pkts());
    assert_eq!(c.hystart_exit(), Some(Exit::AckTrain));
    let last = *starts.last().unwrap();
    assert!(last >= 43 && starts[starts.len() - 2] < 43, "{starts:?}");
    // 21 ACKs into the round, one packet each (L = 1): exit at round start + 21; the rest of
    // the round is congestion avoidance.
    assert_eq!(c.cc.ssthresh(), (last + 21) * MSS);
    // The same ACKs spread over the whole RTT (gaps above 2 ms) form no train.
    let mut spread = Clock::new(CubicVariant::Rfc9438, true, 10);
    for _ in 0..5 {
        spread.plain(Duration::from_millis(200));
    }
    assert_eq!(spread.hystart_exit(), None);
    assert!(spread.cwnd_pkts() > 70);
}

#[test]
fn hystart_waits_for_16_packets_and_starts_over_after_a_timeout() {
    // A 2 ms path with ACKs 1 ms apart: the train threshold is (2 + 1) / 2 = 1.5 ms, so
    // the third ACK of any round would end slow start -- but not below 16 packets, where
    // HyStart does nothing, not even extend a train. Rounds start at 4, 6, 9 and 14; in the
    // last the third ACK finds cwnd at 16, 2 ms (<= 2 ms) after the round's first: a train
    // 2 ms long, and slow start ends at ssthresh = 16.
    let rtt = Duration::from_millis(2);
    let mut c = Clock::new(CubicVariant::Rfc9438, true, 4);
    let mut starts = Vec::new();
    while c.hystart_exit().is_none() && c.cwnd_pkts() < 1000 {
        starts.push(c.cwnd_pkts());
        let period = Duration::from_millis(c.cwnd_pkts() + 2);
        c.round(period, |_, _| Duration::from_millis(1), |_, _| rtt);
    }
    eprintln!(
        "round starts {starts:?}, ssthresh {}",
        c.cc.ssthresh() / MSS
    );
    assert_eq!(starts, [4, 6, 9, 14]);
    assert_eq!(c.hystart_exit(), Some(Exit::AckTrain));
    assert_eq!(c.cc.ssthresh(), 16 * MSS);
    // A timeout: the exit and delay_min are forgotten (Linux's bictcp_reset) and slow start
    // runs to the new ssthresh, where HyStart may end it again.
    c.event(CongestionEvent::Timeout);
    match &c.cc {
        Cc::Cubic(x) => {
            let h = x.hystart().unwrap();
            assert_eq!((h.found(), h.delay_min_us()), (None, 0));
        }
        _ => unreachable!(),
    }
}

#[test]
fn profiles_choose_the_cubic_and_hystart() {
    // The default `linux` profile runs RFC 9438 CUBIC with HyStart, as Linux does; `rfc`
    // has no HyStart (RFC 9406's HyStart++ is another algorithm), `ns2` CUBIC 2.1 without.
    let d = TcpConfig::default();
    assert_eq!((d.cubic_variant, d.hystart), (CubicVariant::Rfc9438, true));
    match Cc::with_config(CcKind::Cubic, 1448, 14480, &d) {
        Cc::Cubic(c) => assert!(c.hystart().is_some()),
        other => panic!("{other:?}"),
    }
    let rfc = TcpConfig::for_profile(Profile::Rfc);
    assert_eq!(
        (rfc.cubic_variant, rfc.hystart),
        (CubicVariant::Rfc9438, false)
    );
    match Cc::with_config(CcKind::Cubic, 1448, 14480, &rfc) {
        Cc::Cubic(c) => assert!(c.hystart().is_none()),
        other => panic!("{other:?}"),
    }
    let ns2 = TcpConfig::for_profile(Profile::Ns2);
    assert_eq!((ns2.cubic_variant, ns2.hystart), (CubicVariant::Ns2, false));
}
