//! Sender-side estimation from TCP timestamps (thesis sections 4.1.2 to 4.1.4): the bytes the
//! receiver got per ACK (SACK-aware, a duplicate ACK without SACK = one MSS), the receiver's
//! clock from its TSval (any offset, any granularity, u32 wrap), the relative one-way delay
//! RD = t_r - t_s, the buffer delay t_buff = RD - RD_min, and the receive-rate estimator of
//! section 5.1.3 (sliding window of distinct timestamps + EWMA) shared by RRE and PropRate.

use crate::cc::AckSample;
use crate::time::Duration;
use crate::units::Bandwidth;
use std::collections::VecDeque;

/// The receiver's TSval clock, unwrapped onto a signed nanosecond axis with an arbitrary
/// origin (thesis 4.1.3: "the clocks for the sender and receiver need not be synchronized").
///
/// The receiver's clock ticks every `granularity` (RFC 7323 allows 1 ms to 1 s; Linux uses
/// 1 ms, the thesis also studies 10 ms); the sender cannot see the tick on the wire, so it
/// is configured (`FrameworkConfig::peer_ts_granularity`). A TSval maps to the *start* of its
/// tick; since only differences of receiver times are used, that constant bias cancels.
#[derive(Clone, Debug)]
pub struct PeerClock {
    granularity_ns: u64,
    /// Newest TSval seen and its unwrapped tick count.
    last: Option<(u32, i64)>,
}

impl PeerClock {
    pub fn new(granularity: Duration) -> Self {
        PeerClock {
            granularity_ns: granularity.as_nanos().max(1),
            last: None,
        }
    }

    pub fn granularity(&self) -> Duration {
        Duration(self.granularity_ns)
    }

    pub fn set_granularity(&mut self, g: Duration) {
        self.granularity_ns = g.as_nanos().max(1);
        self.last = None;
    }

    /// The receiver time of `tsval` in ns on the unwrapped axis. TSvals are compared modulo
    /// 2^32 (RFC 7323 section 5.2 PAWS arithmetic): a TSval "behind" the newest one (an ACK
    /// reordered on the return path) maps to an earlier time and does not move the clock.
    pub fn to_ns(&mut self, tsval: u32) -> i64 {
        let ticks = match self.last {
            None => {
                self.last = Some((tsval, 0));
                0
            }
            Some((ts, ext)) => {
                let delta = tsval.wrapping_sub(ts) as i32 as i64;
                let t = ext + delta;
                if delta > 0 {
                    self.last = Some((tsval, t));
                }
                t
            }
        };
        ticks * self.granularity_ns as i64
    }
}

/// How many bytes each ACK reports newly received (thesis 4.1.2).
///
/// With SACK the count is exact: newly cumulatively acked bytes that had not been SACKed
/// before, plus newly SACKed bytes. Without SACK, a duplicate ACK means one segment arrived
/// out of order, counted as one MSS; those credits are taken back from the cumulative jump
/// when the hole is filled, so no byte is counted twice.
#[derive(Clone, Debug, Default)]
pub struct DeliveryCounter {
    dup_credit: u64,
    total: u64,
}

impl DeliveryCounter {
    pub fn on_ack(&mut self, ack: &AckSample, mss: u32) -> u64 {
        let cum_new = ack
            .bytes_acked
            .saturating_sub(ack.bytes_acked_previously_sacked);
        let d =
            if ack.dup_ack && !ack.has_sack_blocks && ack.bytes_acked == 0 && ack.bytes_sacked == 0
            {
                self.dup_credit += mss as u64;
                mss as u64
            } else {
                let taken = self.dup_credit.min(cum_new);
                self.dup_credit -= taken;
                cum_new - taken + ack.bytes_sacked
            };
        self.total += d;
        d
    }

    /// Bytes delivered since the start of the connection.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// After a retransmission timeout every outstanding segment is resent: old credits are void.
    pub fn reset_credits(&mut self) {
        self.dup_credit = 0;
    }
}

/// The relative one-way delay RD = t_r - t_s and its minimum (thesis 4.1.3, 4.1.4).
#[derive(Clone, Debug, Default)]
pub struct DelayEstimator {
    rd_min: Option<i64>,
    last_rd: Option<i64>,
}

impl DelayEstimator {
    /// Records RD (ns, any sign: the clocks have an arbitrary offset). A new minimum lowers
    /// RD_min at once (4.1.4 "Decrease in one-way delay"); raising it is the Monitor state's job.
    pub fn on_sample(&mut self, rd_ns: i64) {
        self.last_rd = Some(rd_ns);
        self.rd_min = Some(self.rd_min.map_or(rd_ns, |m| m.min(rd_ns)));
    }

    /// The Monitor state concluded the buffer is empty: the current RD is the new floor
    /// (4.1.4 "Either way, RD_min is updated").
    pub fn reset_min(&mut self, rd_ns: i64) {
        self.rd_min = Some(rd_ns);
    }

    pub fn rd_min(&self) -> Option<i64> {
        self.rd_min
    }

    pub fn last_rd(&self) -> Option<i64> {
        self.last_rd
    }

    /// t_buff = RD - RD_min for the latest sample.
    pub fn buffer_delay(&self) -> Option<Duration> {
        match (self.last_rd, self.rd_min) {
            (Some(rd), Some(m)) => Some(Duration((rd - m).max(0) as u64)),
            _ => None,
        }
    }
}

/// Parameters of the section 5.1.3 receive-rate estimator.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SlidingWindowConfig {
    /// Distinct receiver timestamps in the window (thesis: 50).
    pub max_timestamps: usize,
    /// Longest span of the window (thesis: 500 ms).
    pub max_span: Duration,
    /// EWMA gain on each new window sample. The thesis does not give it; 1/8 is our choice
    /// (the gain of RFC 6298's SRTT), smoothing over about the last eight window advances.
    pub ewma_gain: f64,
}

impl Default for SlidingWindowConfig {
    fn default() -> Self {
        SlidingWindowConfig {
            max_timestamps: 50,
            max_span: Duration::from_millis(500),
            ewma_gain: 0.125,
        }
    }
}

/// Receive rate rho (thesis 5.1.3): "a sliding window consisting of 50 consecutive and
/// distinct timestamps with reported packet arrivals", at most 500 ms long, "the last
/// timestamp is not included", and an EWMA of the window throughput.
///
/// The window holds timestamps t_0 < ... < t_k with the bytes reported at each; t_k is still
/// open (more packets may carry the same tick) and excluded. The sample is the bytes reported
/// at t_1..t_(k-1) over t_(k-1) - t_0 (the bytes at t_0 arrived before the interval started),
/// so a burst that shares one tick is counted once its tick is complete, and every tick
/// boundary is a measurement boundary whatever the granularity. When the 500 ms cap binds the
/// interval is the fixed (t_(k-1) - 500 ms, t_(k-1)], so a gap in the arrivals (an outage)
/// lowers the estimate instead of shrinking the window to the ticks after it.
#[derive(Clone, Debug)]
pub struct SlidingWindowRate {
    cfg: SlidingWindowConfig,
    /// (receiver time ns, bytes reported with that timestamp), strictly increasing times.
    window: VecDeque<(i64, u64)>,
    rho_bps: Option<f64>,
}

impl SlidingWindowRate {
    pub fn new(cfg: SlidingWindowConfig) -> Self {
        SlidingWindowRate {
            cfg,
            window: VecDeque::new(),
            rho_bps: None,
        }
    }

    /// Table 4.1 `update(tstamp, bytes_recv)`: `bytes` were received at receiver time `t_ns`.
    /// Returns the latest rho (`None` until the window first spans two complete timestamps).
    pub fn update(&mut self, t_ns: i64, bytes: u64) -> Option<Bandwidth> {
        match self.window.back_mut() {
            Some(last) if t_ns == last.0 => {
                last.1 += bytes;
                return self.rho();
            }
            Some(last) if t_ns < last.0 => {
                // A reordered ACK: its bytes belong to the newest timestamp not after it.
                if let Some(e) = self.window.iter_mut().rev().find(|e| e.0 <= t_ns) {
                    e.1 += bytes;
                }
                return self.rho();
            }
            _ => self.window.push_back((t_ns, bytes)),
        }
        // A new timestamp advanced the window: the previous one is complete.
        let complete = self.window.len() - 1;
        if complete > self.cfg.max_timestamps {
            self.window.pop_front();
        }
        let complete = self.window.len() - 1;
        if complete >= 2 {
            // At most 500 ms: the interval is (end - max_span, end], end the newest complete
            // timestamp. An entry goes once the next one is also at or before the interval's
            // start, so window[0] is the last arrival at or before the start (or the first
            // arrival, if later) and everything counted lies inside the interval. After a gap
            // longer than 500 ms (an outage) the interval starts 500 ms before `end`, not at
            // the last arrival before the gap, and not at the first arrival after it: the
            // receiver got nothing in between, and a window shrunk to the few ticks after the
            // gap would report the burst that ends an outage as the path's rate.
            let end = self.window[complete - 1].0;
            let cap_start = end - self.cfg.max_span.as_nanos() as i64;
            while self.window.len() >= 3 && self.window[1].0 <= cap_start {
                self.window.pop_front();
            }
            let complete = self.window.len() - 1;
            let span = (end - self.window[0].0.max(cap_start)) as f64;
            let bytes: u64 = self.window.iter().take(complete).skip(1).map(|e| e.1).sum();
            let sample = bytes as f64 * 8.0 * 1e9 / span;
            self.rho_bps = Some(match self.rho_bps {
                None => sample,
                Some(r) => r + self.cfg.ewma_gain * (sample - r),
            });
        }
        self.rho()
    }

    pub fn rho(&self) -> Option<Bandwidth> {
        self.rho_bps.map(Bandwidth::from_bps_f64)
    }

    /// Overwrite the EWMA with a fresh measurement (the Monitor probe's rho', thesis 4.1.4).
    pub fn set_rho(&mut self, rho: Bandwidth) {
        self.rho_bps = Some(rho.as_bps() as f64);
    }

    pub fn reset(&mut self) {
        self.window.clear();
        self.rho_bps = None;
    }

    /// Forget the window but keep rho: the next sample starts at the next timestamp.
    pub fn restart_window(&mut self) {
        self.window.clear();
    }
}

/// Measures the receive rate of one burst of packets (the Monitor probe, thesis 4.1.4):
/// the first `skip` delivered bytes belong to data sent before the burst, the next `len`
/// bytes are the burst. Once all of it is reported the rate is the bytes after the first
/// timestamp over the span of timestamps (the last timestamp is complete by then).
#[derive(Clone, Debug)]
pub struct BurstProbe {
    skip: u64,
    len: u64,
    seen: u64,
    first: Option<i64>,
    last: i64,
    bytes_after_first: u64,
    min_rd: Option<i64>,
}

/// What a completed burst told us.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProbeResult {
    /// The burst spanned at least two receiver timestamps.
    Rate(Bandwidth),
    /// The whole burst arrived within one tick: the rate is at least this.
    AtLeast(Bandwidth),
}

impl BurstProbe {
    pub fn new(skip: u64, len: u64) -> Self {
        BurstProbe {
            skip,
            len,
            seen: 0,
            first: None,
            last: 0,
            bytes_after_first: 0,
            min_rd: None,
        }
    }

    /// An ACK reported `delivered` new bytes at receiver time `t_ns`, with RD sample `rd`.
    pub fn on_ack(&mut self, t_ns: i64, delivered: u64, rd: Option<i64>) {
        let before = self.seen;
        self.seen += delivered;
        let lo = before.max(self.skip);
        let hi = self.seen.min(self.skip + self.len);
        if hi <= lo {
            return;
        }
        let in_burst = hi - lo;
        if let Some(rd) = rd {
            self.min_rd = Some(self.min_rd.map_or(rd, |m| m.min(rd)));
        }
        match self.first {
            None => {
                self.first = Some(t_ns);
                self.last = t_ns;
            }
            Some(f) if t_ns > f => {
                self.bytes_after_first += in_burst;
                self.last = self.last.max(t_ns);
            }
            Some(_) => {}
        }
    }

    pub fn complete(&self) -> bool {
        self.seen >= self.skip + self.len
    }

    /// The smallest RD among the burst's ACKs.
    pub fn min_rd(&self) -> Option<i64> {
        self.min_rd
    }

    /// The burst's receive rate once complete. Unresolvable bursts (one tick) give the
    /// lower bound "burst minus its first ACK's bytes within one tick".
    pub fn result(&self, granularity: Duration) -> Option<ProbeResult> {
        let first = self.first?;
        if !self.complete() {
            return None;
        }
        if self.last > first {
            Some(ProbeResult::Rate(Bandwidth::from_bytes_per(
                self.bytes_after_first,
                Duration((self.last - first) as u64),
            )))
        } else {
            Some(ProbeResult::AtLeast(Bandwidth::from_bytes_per(
                self.len.saturating_sub(1),
                granularity,
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn peer_clock_handles_offset_granularity_and_u32_wrap() {
        // Thesis 4.1.3: only differences of receiver times matter, so an arbitrary offset
        // is harmless. Receiver clock = (now + offset) / g, wrapping at 2^32.
        for g_ms in [1u64, 10] {
            let mut c = PeerClock::new(Duration::from_millis(g_ms));
            let offset_ticks: u64 = u32::MAX as u64 - 5; // wraps within 6 ticks
            let ts = |now_ms: u64| ((now_ms / g_ms + offset_ticks) % (1u64 << 32)) as u32;
            let t0 = c.to_ns(ts(0));
            for now_ms in (0..200).step_by(3) {
                let t = c.to_ns(ts(now_ms));
                let expect = (now_ms / g_ms * g_ms) as i64 * MS;
                assert_eq!(t - t0, expect, "g={g_ms} ms, now={now_ms} ms");
            }
            // A reordered (older) TSval maps backwards and does not move the clock.
            let back = c.to_ns(ts(100));
            assert_eq!(back - t0, (100 / g_ms * g_ms) as i64 * MS);
            assert_eq!(c.to_ns(ts(199)) - t0, (199 / g_ms * g_ms) as i64 * MS);
        }
    }

    #[test]
    fn delivery_counter_sack_and_dupack_rules() {
        // Thesis 4.1.2: "assuming that each duplicate ACK corresponds to one MSS packet
        // received. Also, when enabled, SACK blocks ... determine the exact number".
        let mut d = DeliveryCounter::default();
        let ack = |acked, sacked, prev, dup, sack| AckSample {
            bytes_acked: acked,
            bytes_sacked: sacked,
            bytes_acked_previously_sacked: prev,
            dup_ack: dup,
            has_sack_blocks: sack,
            ..Default::default()
        };
        assert_eq!(d.on_ack(&ack(2000, 0, 0, false, false), 1000), 2000);
        // No SACK: three dupacks count one MSS each...
        for _ in 0..3 {
            assert_eq!(d.on_ack(&ack(0, 0, 0, true, false), 1000), 1000);
        }
        // ...and the cumulative jump after the retransmission (1 lost + 3 received) only
        // counts the retransmitted segment.
        assert_eq!(d.on_ack(&ack(4000, 0, 0, false, false), 1000), 1000);
        assert_eq!(d.total(), 2000 + 3000 + 1000);
        // With SACK: newly SACKed bytes count, a repeated SACK counts nothing, and the
        // cumulative jump over SACKed data counts only the hole.
        assert_eq!(d.on_ack(&ack(0, 1000, 0, true, true), 1000), 1000);
        assert_eq!(d.on_ack(&ack(0, 0, 0, true, true), 1000), 0);
        assert_eq!(d.on_ack(&ack(2000, 0, 1000, false, true), 1000), 1000);
        assert_eq!(d.total(), 8000);
    }

    #[test]
    fn buffer_delay_is_rd_minus_rd_min_with_any_offset() {
        // Thesis 4.1.3: RD = t_r - t_s, t_buff = RD - RD_min.
        let mut e = DelayEstimator::default();
        let offset = -7_777 * MS; // receiver clock far behind the sender's
        e.on_sample(offset + 40 * MS);
        assert_eq!(e.buffer_delay(), Some(Duration::ZERO));
        e.on_sample(offset + 65 * MS);
        assert_eq!(e.buffer_delay(), Some(Duration::from_millis(25)));
        // 4.1.4: a lower RD lowers RD_min at once.
        e.on_sample(offset + 30 * MS);
        assert_eq!(e.rd_min(), Some(offset + 30 * MS));
        e.on_sample(offset + 65 * MS);
        assert_eq!(e.buffer_delay(), Some(Duration::from_millis(35)));
        // The Monitor state raises it.
        e.reset_min(offset + 60 * MS);
        assert_eq!(e.buffer_delay(), Some(Duration::from_millis(5)));
    }

    /// Feeds one ACK per packet of `pkt` bytes arriving every `gap_ns` (receiver time),
    /// stamped with a clock of granularity `g_ns`; returns the estimates.
    fn feed(
        est: &mut SlidingWindowRate,
        n: usize,
        pkt: u64,
        gap_ns: i64,
        g_ns: i64,
    ) -> Vec<Option<Bandwidth>> {
        (0..n)
            .map(|i| {
                let arrival = i as i64 * gap_ns;
                est.update(arrival / g_ns * g_ns, pkt)
            })
            .collect()
    }

    #[test]
    fn sliding_window_measures_a_constant_rate_at_1ms_and_10ms_granularity() {
        // 5.1.3 on a synthetic stream: 1500 B every 1.2 ms = 10 Mbit/s.
        for g_ms in [1i64, 10] {
            let mut est = SlidingWindowRate::new(SlidingWindowConfig::default());
            let out = feed(&mut est, 3000, 1500, 1_200_000, g_ms * MS);
            // No estimate before three distinct timestamps.
            assert_eq!(out[0], None);
            let rho = out.last().unwrap().unwrap().as_bps() as f64;
            assert!(
                (rho - 10e6).abs() / 10e6 < 0.02,
                "g={g_ms} ms: rho={rho} bit/s"
            );
        }
    }

    #[test]
    fn bursts_of_equal_timestamps_are_counted_when_their_tick_closes() {
        // 10 packets of 1000 B share each 10 ms tick (an 8 Mbit/s link delivering in
        // bursts): the estimate is exactly 8 Mbit/s, not inflated by the open last tick.
        let mut est = SlidingWindowRate::new(SlidingWindowConfig::default());
        let mut last = None;
        for tick in 0..20i64 {
            for _ in 0..10 {
                last = est.update(tick * 10 * MS, 1000);
            }
            if tick >= 2 {
                assert_eq!(last, Some(Bandwidth::from_mbps(8)), "tick {tick}");
            } else {
                assert_eq!(last, None);
            }
        }
    }

    #[test]
    fn window_is_at_most_50_timestamps_and_500ms() {
        let cfg = SlidingWindowConfig {
            ewma_gain: 1.0, // expose the raw window sample
            ..Default::default()
        };
        // 50 timestamps: at 1 pkt/ms the window covers t_(k-50)..t_(k-1); a step from
        // 1000 B/ms to 2000 B/ms at t = 100 is fully reflected once t_1 >= 100, i.e. from
        // the update at t = 149 on (t_0 = 99 carries no bytes into the sample).
        let mut est = SlidingWindowRate::new(cfg);
        for t in 0..100 {
            est.update(t * MS, 1000);
        }
        for t in 100..149 {
            let r = est.update(t * MS, 2000);
            assert!(r.unwrap() < Bandwidth::from_mbps(16), "t={t}: {r:?}");
        }
        assert_eq!(est.update(149 * MS, 2000), Some(Bandwidth::from_mbps(16)));
        // 500 ms: one packet every 100 ms, the window spans at most 500 ms (6 timestamps),
        // so a step from 1000 B to 3000 B per packet at t = 2 s is fully reflected at 2.5 s:
        // 5 x 3000 B over 500 ms.
        let mut est = SlidingWindowRate::new(cfg);
        for t in 0..20 {
            est.update(t * 100 * MS, 1000);
        }
        for t in 20..25 {
            let r = est.update(t * 100 * MS, 3000);
            assert!(r.unwrap() < Bandwidth::from_kbps(240), "t={t}: {r:?}");
        }
        assert_eq!(
            est.update(25 * 100 * MS, 3000),
            Some(Bandwidth::from_kbps(240))
        );
    }

    #[test]
    fn an_outage_lowers_the_estimate_instead_of_shrinking_the_window() {
        // 1000 B/ms for 100 ms, a 2 s outage, then the queued data arrives as a burst of
        // ten 1000 B packets 1 ms apart. The window is the last 500 ms: 9 x 1000 B over
        // 500 ms = 144 kbit/s (the last tick still open), not 1000 B/ms = 8 Mbit/s.
        let cfg = SlidingWindowConfig {
            ewma_gain: 1.0,
            ..Default::default()
        };
        let mut est = SlidingWindowRate::new(cfg);
        for t in 0..100 {
            est.update(t * MS, 1000);
        }
        let mut r = None;
        for t in 2100..2110 {
            r = est.update(t * MS, 1000);
        }
        assert_eq!(r, Some(Bandwidth::from_kbps(144)));
        // 500 ms after the outage the window holds only post-outage arrivals again.
        for t in 2110..2700 {
            r = est.update(t * MS, 1000);
        }
        assert_eq!(r, Some(Bandwidth::from_mbps(8)));
    }

    #[test]
    fn ewma_smooths_window_samples() {
        // rho <- rho + g (sample - rho), g = 1/8.
        let mut est = SlidingWindowRate::new(SlidingWindowConfig::default());
        est.update(0, 1000);
        est.update(MS, 1000);
        let r0 = est.update(2 * MS, 1000).unwrap(); // sample 8 Mbit/s
        assert_eq!(r0, Bandwidth::from_mbps(8));
        // Next sample: bytes 1000+3000 over 2 ms = 16 Mbit/s.
        est.update(2 * MS, 2000);
        let r1 = est.update(3 * MS, 1000).unwrap();
        assert_eq!(r1, Bandwidth::from_mbps(9)); // 8 + (16 - 8) / 8
    }

    #[test]
    fn burst_probe_measures_only_the_burst() {
        // 3000 B still ahead of the burst; a 10 x 1000 B burst arriving 1 ms apart.
        let mut p = BurstProbe::new(3000, 10_000);
        p.on_ack(0, 3000, Some(90 * MS));
        assert!(p.result(Duration::from_millis(1)).is_none());
        for i in 0..10 {
            p.on_ack((10 + i) * MS, 1000, Some((50 + i) * MS));
        }
        assert!(p.complete());
        assert_eq!(
            p.result(Duration::from_millis(1)),
            Some(ProbeResult::Rate(Bandwidth::from_mbps(8)))
        );
        assert_eq!(p.min_rd(), Some(50 * MS));
        // Everything within one 10 ms tick: only a lower bound.
        let mut p = BurstProbe::new(0, 10_000);
        for _ in 0..10 {
            p.on_ack(0, 1000, None);
        }
        assert_eq!(
            p.result(Duration::from_millis(10)),
            Some(ProbeResult::AtLeast(Bandwidth::from_bytes_per(
                9_999,
                Duration::from_millis(10)
            )))
        );
    }
}
