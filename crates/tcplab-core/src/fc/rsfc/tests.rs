//! RSFC's state machine (RSFC paper section III) fed with hand-made segments: both sides of
//! every threshold (T, `2T + 3 RTT_min`, the rho increase), the minima updates and halving.

use super::*;

const MSS: u32 = 1000;
const TICK: Duration = Duration::from_millis(10);

/// Feeds RSFC data segments at chosen times with chosen delays, on 10 ms timestamp clocks
/// with a common origin (the paper's setting): RD and RTT come out exactly as asked.
struct Feed {
    r: Rsfc,
    /// The right edge the endpoint advertised (0: never ahead of RSFC's window).
    adv_right: u64,
}

impl Feed {
    fn new(cfg: RsfcConfig) -> Self {
        let clocks = TsClocks {
            ours: TICK,
            peer: TICK,
        };
        Feed {
            r: Rsfc::new(cfg, MSS, clocks, Instant::ZERO),
            adv_right: 0,
        }
    }

    /// A clean 1000-byte segment arriving at `at_ms` with RD = `rd_ms`, RTT = `rtt_ms`.
    fn pkt(&mut self, at_ms: u64, rd_ms: u64, rtt_ms: u64) {
        // Both timestamp clocks read 10 s at time zero (a common origin, no offset).
        let our = (at_ms / 10) as u32 + 1000;
        let d = DataArrival {
            len: MSS as u64,
            new_bytes: MSS as u64,
            clean: true,
            tsval: Some(our - (rd_ms / 10) as u32),
            tsecr: Some(our - (rtt_ms / 10) as u32),
            our_tsval: our,
        };
        let v = RcvView {
            adv_right: self.adv_right,
            ..view()
        };
        self.r.on_data(Instant::from_millis(at_ms), &d, &v);
    }

    /// Segments every `gap_ms` from `from_ms` (inclusive) to `to_ms` (exclusive).
    fn run(&mut self, from_ms: u64, to_ms: u64, gap_ms: u64, rd_ms: u64, rtt_ms: u64) {
        let mut t = from_ms;
        while t < to_ms {
            self.pkt(t, rd_ms, rtt_ms);
            t += gap_ms;
        }
    }

    fn state(&self) -> RsfcState {
        self.r.state()
    }
}

fn view() -> RcvView {
    RcvView {
        rcv_nxt: 0,
        read_off: 0,
        rcv_buf: 1 << 30,
        adv_right: 0,
        last_adv_wnd: 0,
        mss: MSS,
        fin_received: false,
    }
}

/// Minima RD = 100 ms, RTT = 200 ms (so T = 200 ms), 100 kB/s (one segment per 10 ms)
/// for a second, in the slow state.
fn settled() -> Feed {
    let mut f = Feed::new(RsfcConfig::default());
    f.run(0, 1000, 10, 100, 200);
    assert_eq!(f.state(), RsfcState::Slow);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(100)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(200)));
    assert_eq!(f.r.threshold(), Duration::from_millis(200));
    assert!((f.r.rho() - 100_000.0).abs() < 1.0, "rho {}", f.r.rho());
    f
}

#[test]
fn slow_state_grows_one_mss_per_data_packet() {
    // III-A: "we increase the rwnd by one MSS after the receiver receives each data packet"
    let mut f = Feed::new(RsfcConfig::default());
    assert_eq!(f.r.window(), 10 * MSS as u64);
    f.run(0, 50, 10, 100, 200);
    assert_eq!(f.r.window(), 15 * MSS as u64);
    // A segment with no delay sample (a hole before it) still counts as a data packet.
    let d = DataArrival {
        len: 1000,
        new_bytes: 1000,
        clean: false,
        tsval: None,
        tsecr: None,
        our_tsval: 1006,
    };
    f.r.on_data(Instant::from_millis(60), &d, &view());
    assert_eq!(f.r.window(), 16 * MSS as u64);
    assert_eq!(f.r.stats().delay_samples, 5);
}

#[test]
fn fast_state_above_t_and_not_at_t() {
    let mut f = settled();
    // t_buff = RD - RD_min = 300 - 100 = T: not above T, still slow.
    f.pkt(1000, 300, 200);
    assert_eq!(f.state(), RsfcState::Slow);
    // t_buff = 210 ms > T: fast, the window frozen at the estimated BDP,
    // ceil(rho x RTT_min / MSS) x MSS = ceil(100 kB/s x 0.2 s / 1000) x 1000 = 20,000.
    f.pkt(1010, 310, 200);
    assert_eq!(f.state(), RsfcState::Fast);
    assert_eq!(f.r.window(), 20_000);
    assert_eq!(f.r.stats().fast_entries, 1);
    // Staying above T keeps it there with the window at the BDP.
    f.pkt(1020, 310, 200);
    assert_eq!((f.state(), f.r.window()), (RsfcState::Fast, 20_000));
    // t_buff back to T: slow again, one completed cycle; the window grows from the BDP.
    f.pkt(1030, 300, 200);
    assert_eq!(f.state(), RsfcState::Slow);
    assert_eq!(f.r.stats().slow_entries, 1);
    assert_eq!(f.r.window(), 21_000);
}

#[test]
fn bdp_rounds_up_to_whole_segments() {
    let mut f = settled();
    // Slightly above 100 kB/s: 20.0x segments round up to 21.
    f.r.rho = 100_001.0;
    assert_eq!(f.r.bdp(), 21_000);
    f.r.rho = 0.0;
    assert_eq!(f.r.bdp(), 1_000, "never below one segment");
}

#[test]
fn monitor_after_2t_plus_3_rtt_min_in_fast_and_not_before() {
    let mut f = settled();
    f.pkt(1000, 310, 200); // fast at 1000 ms
    assert_eq!(f.state(), RsfcState::Fast);
    // 2T + 3 RTT_min = 400 + 600 ms.
    assert_eq!(f.r.monitor_deadline(), Some(Instant::from_millis(2000)));
    assert_eq!(f.r.poll_timeout(), Some(Instant::from_millis(2000)));
    f.run(1010, 2000, 10, 310, 200);
    assert_eq!(f.state(), RsfcState::Fast, "1 ms before the deadline");
    f.pkt(2000, 310, 200);
    assert_eq!(f.state(), RsfcState::Monitor);
    assert_eq!(f.r.stats().monitor_entries, 1);
    assert_eq!(f.r.poll_timeout(), None);
}

#[test]
fn the_timer_enters_monitor_without_data() {
    let mut f = settled();
    f.pkt(1000, 310, 200);
    f.r.on_timeout(Instant::from_millis(1999));
    assert_eq!(f.state(), RsfcState::Fast);
    f.r.on_timeout(Instant::from_millis(2000));
    assert_eq!(f.state(), RsfcState::Monitor);
    // Time in each state is accounted up to the transition.
    let s = f.r.stats_at(Instant::from_millis(2500));
    assert_eq!(s.ns_fast, Duration::from_millis(1000).as_nanos());
    assert_eq!(s.ns_monitor, Duration::from_millis(500).as_nanos());
    assert_eq!(s.ns_slow, Duration::from_millis(1000).as_nanos());
}

/// Fast from 1000 ms, monitor at 2000 ms with RD = 310 ms at entry and rho = 100 kB/s.
fn in_monitor() -> Feed {
    let mut f = settled();
    f.run(1000, 2010, 10, 310, 200);
    assert_eq!(f.state(), RsfcState::Monitor);
    f
}

#[test]
fn monitor_case_b_halves_both_minima_when_rd_rises_by_t() {
    let mut f = in_monitor();
    let w = f.r.window();
    // Like slow, the window grows per packet; RD up by T - 10 ms: nothing yet.
    f.pkt(2010, 500, 200);
    assert_eq!(f.state(), RsfcState::Monitor);
    assert_eq!(f.r.window(), w + MSS as u64);
    // RD up by T at an unchanged rho: "halve both RD_min and RTT_min and switch to the
    // fast state".
    f.pkt(2020, 510, 200);
    assert_eq!(f.state(), RsfcState::Fast);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(50)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(100)));
    assert_eq!(f.r.stats().minima_halvings, 1);
    assert_eq!(f.r.stats().fast_entries, 2);
    // The BDP now uses the halved RTT_min: 100 kB/s x 0.1 s.
    assert_eq!(f.r.window(), 10_000);
}

#[test]
fn monitor_case_a_rho_increase_resets_minima_to_the_monitor_ones() {
    let mut f = in_monitor();
    // The sender gets more through (one segment per 2 ms, 500 kB/s) at higher delays than
    // the old minima: RD 320 ms, RTT 400 ms. The interval (RTT_min = 200 ms) that closes
    // first shows the increase.
    f.run(2010, 2200, 2, 320, 400);
    assert_eq!(f.state(), RsfcState::Monitor, "the interval is still open");
    f.run(2200, 2220, 2, 320, 400);
    assert_eq!(f.state(), RsfcState::Slow);
    assert_eq!(f.r.stats().monitor_rho_increases, 1);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(320)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(400)));
    // "rwnd is updated to ceil(rho x RTT_min / MSS) x MSS with the new value of RTT_min"
    // (then one MSS per packet of the slow state).
    let bdp = (f.r.rho() * 0.4 / 1000.0).ceil() as u64 * 1000;
    assert!(f.r.window() >= bdp && f.r.window() <= bdp + 10_000);
}

#[test]
fn monitor_ignores_a_rise_of_rho_below_the_threshold() {
    let mut f = in_monitor();
    // 105 kB/s is below the 10% rise: no case (a); RD rising by T then gives case (b).
    // One segment per 9.5 ms is not expressible in whole ms, so alternate 9 and 10 ms.
    let mut t = 2010;
    while t < 2400 {
        f.pkt(t, 320, 400);
        t += if (t / 10) % 2 == 0 { 9 } else { 10 };
    }
    assert_eq!(f.state(), RsfcState::Monitor);
    assert_eq!(f.r.stats().monitor_rho_increases, 0);
}

#[test]
fn a_cycle_in_which_rho_rose_raises_the_minima_iii_c_i() {
    let mut f = settled();
    // Cycle 1 (from the start): a first fast/slow round trip at the settled rate.
    f.run(1000, 1100, 10, 310, 200);
    f.pkt(1100, 300, 200);
    assert_eq!(f.state(), RsfcState::Slow);
    let updates = f.r.stats().cycle_minima_updates;
    // Cycle 2: the rate doubles in the slow state (one segment per 5 ms) while the delays
    // sit above the old minima (RD >= 150 ms, RTT >= 250 ms): t_u rose.
    f.run(1110, 1500, 5, 150, 250);
    f.run(1500, 1600, 5, 310, 250); // t_buff = 210 > T: fast
    assert_eq!(f.state(), RsfcState::Fast);
    f.pkt(1600, 300, 250); // back to slow: the cycle ends with rho up
    assert_eq!(f.state(), RsfcState::Slow);
    assert_eq!(f.r.stats().cycle_minima_updates, updates + 1);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(150)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(250)));
}

#[test]
fn a_cycle_at_a_steady_rate_keeps_the_minima() {
    let mut f = settled();
    f.run(1000, 1100, 10, 310, 200);
    f.pkt(1100, 300, 200);
    let updates = f.r.stats().cycle_minima_updates;
    f.run(1110, 1500, 10, 150, 250);
    f.run(1500, 1600, 10, 310, 250);
    f.pkt(1600, 300, 250);
    assert_eq!(f.state(), RsfcState::Slow);
    assert_eq!(f.r.stats().cycle_minima_updates, updates);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(100)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(200)));
}

#[test]
fn fig_13_variant_never_raises_the_minima_nor_monitors() {
    let cfg = RsfcConfig {
        minima_updates: false,
        ..RsfcConfig::default()
    };
    let mut f = Feed::new(cfg);
    f.run(0, 1000, 10, 100, 200);
    f.run(1000, 3000, 10, 310, 200);
    assert_eq!(
        f.state(),
        RsfcState::Fast,
        "stuck in fast: no monitor state"
    );
    assert_eq!(f.r.poll_timeout(), None);
    f.run(3000, 3400, 5, 150, 250);
    f.pkt(3400, 300, 250);
    f.run(3410, 3800, 5, 150, 250);
    assert_eq!(f.r.stats().cycle_minima_updates, 0);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(100)));
    // Lower delays still lower the minima (III-C: "simply updated").
    f.pkt(3800, 90, 190);
    assert_eq!(f.r.rd_min(), Some(Duration::from_millis(90)));
    assert_eq!(f.r.rtt_min(), Some(Duration::from_millis(190)));
}

#[test]
fn a_configured_threshold_replaces_rtt_min() {
    let cfg = RsfcConfig {
        threshold: Some(Duration::from_millis(50)),
        ..RsfcConfig::default()
    };
    let mut f = Feed::new(cfg);
    f.run(0, 1000, 10, 100, 200);
    f.pkt(1000, 150, 200);
    assert_eq!(f.state(), RsfcState::Slow);
    f.pkt(1010, 160, 200);
    assert_eq!(f.state(), RsfcState::Fast);
    // 2T + 3 RTT_min = 100 + 600 ms.
    assert_eq!(f.r.monitor_deadline(), Some(Instant::from_millis(1710)));
}

#[test]
fn the_window_is_capped_by_the_buffer_and_respects_the_sws_rule() {
    let f = settled();
    let mut v = view();
    v.rcv_buf = 8_000;
    // The buffer allows less than RSFC's window: the buffer wins.
    assert_eq!(f.r.right_edge(&v), 8_000);
    // RSFC's window below the advertised edge: the clamp (the endpoint keeps the edge).
    let mut v = view();
    v.adv_right = 10_000_000;
    assert!(f.r.right_edge(&v) < v.adv_right);
}

#[test]
fn the_fast_state_clock_starts_when_the_clamp_takes_effect() {
    // The right edge never moves left: while the edge offered in the slow state is ahead of
    // rcv_nxt + BDP the sender does not see the clamp yet, and 2T + 3 RTT_min (III-B, counted
    // from when the frozen window reaches the sender) has not started.
    let mut f = settled();
    f.adv_right = 1_000_000;
    f.pkt(1000, 310, 200);
    assert_eq!(f.state(), RsfcState::Fast);
    assert_eq!(f.r.monitor_deadline(), None);
    f.run(1010, 1500, 10, 310, 200);
    assert_eq!(f.r.monitor_deadline(), None);
    // The edge is reached (within one segment of rcv_nxt + the 20-segment BDP).
    f.adv_right = 21_000;
    f.pkt(1500, 310, 200);
    assert_eq!(f.r.monitor_deadline(), Some(Instant::from_millis(2500)));
    f.run(1510, 2500, 10, 310, 200);
    assert_eq!(f.state(), RsfcState::Fast);
    f.pkt(2500, 310, 200);
    assert_eq!(f.state(), RsfcState::Monitor);
}
