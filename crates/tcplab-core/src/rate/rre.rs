//! RRE, Receiver-Rate Estimate (thesis chapter 5, section 5.1): sigma_f and sigma_d from
//! equations (5.5) and (5.6), the threshold T = rho x RTT_min (the BDP, at least 30 packets)
//! with B_max / B_min = T +- BDP/2 (at least +-10 packets) of section 5.1.2, and the
//! sliding-window receive-rate estimator of section 5.1.3.
//!
//! Units: equation (5.5) is printed as sigma_f = rho + (B_max - T) / (MSS x RTT); derived
//! from (5.4), B_max = T + (sigma_f - rho) / MSS x RTT, the packet excess (B_max - T) is
//! turned into a rate by x MSS / RTT, which is what we compute (bytes -> bit/s).
//!
//! RTT: section 6.2.1 says RRE's rates "are expressed in terms of the currently observed
//! minimum RTT", so RTT = RTT_min. Which delay divides the excess is a choice between the
//! printed (5.4) ("RTT") and the text of Figure 5.1 ("it takes t_buff + RTT for the sender to
//! receive the feedback"), which is also the form of Table 6.1's RRE row
//! (1 + (60 - 40) / (40 + RTT)). [`FeedbackDelay`] selects it; the default is the printed one.
//! A third reading, the smoothed RTT, is the feedback delay (5.4) describes when ACKs queue
//! on a slow uplink (section 5.2.3); it is offered as an ablation (scenario key
//! `rre_feedback_delay = "srtt"`).

use super::estimator::{SlidingWindowConfig, SlidingWindowRate};
use super::{RateAlgorithm, RateContext, RateState};
use crate::time::Duration;
use crate::units::Bandwidth;
use serde::{Deserialize, Serialize};

/// The delay over which the buffer excess B_max - T (or deficit T - B_min) is built up
/// (scenario key `rre_feedback_delay`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackDelay {
    /// Equations (5.4)-(5.6) as printed, with RTT = RTT_min (section 6.2.1).
    #[default]
    RttMin,
    /// Figure 5.1's text and Table 6.1: t_buff at the threshold (T x MSS / rho) + RTT_min.
    BufferPlusRttMin,
    /// Ablation: the smoothed RTT (RFC 6298 gain 1/8), which includes the ACKs' queueing on
    /// the uplink, the actual delay of the feedback loop.
    Srtt,
}

/// RRE parameters (section 5.1.2).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RreConfig {
    /// Floor on T in packets ("a minimum value for T at 30 packets").
    pub min_threshold_pkts: f64,
    /// Optional ceiling on T in packets ("a maximum value of T can also be imposed. We did
    /// not set a maximum").
    pub max_threshold_pkts: Option<f64>,
    /// B_max >= T + this and B_min <= T - this ("T + 10 and T - 10").
    pub min_margin_pkts: f64,
    pub feedback_delay: FeedbackDelay,
    pub estimator: SlidingWindowConfig,
}

impl Default for RreConfig {
    fn default() -> Self {
        RreConfig {
            min_threshold_pkts: 30.0,
            max_threshold_pkts: None,
            min_margin_pkts: 10.0,
            feedback_delay: FeedbackDelay::RttMin,
            estimator: SlidingWindowConfig::default(),
        }
    }
}

/// The quantities of section 5.1.2 for one (rho, RTT_min), in packets of MSS bytes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RreBuffer {
    pub bdp_pkts: f64,
    pub t_pkts: f64,
    pub b_max_pkts: f64,
    pub b_min_pkts: f64,
}

#[derive(Clone, Debug)]
pub struct Rre {
    cfg: RreConfig,
    est: SlidingWindowRate,
    /// sigma_d of the current Drain episode (it "is only allowed to increase").
    drain: Option<(u64, f64)>,
}

impl Default for Rre {
    fn default() -> Self {
        Rre::new(RreConfig::default())
    }
}

/// Used before any RTT sample exists (never after Slow Start, whose ACKs carry samples).
const FALLBACK_RTT: Duration = Duration::from_millis(100);

impl Rre {
    pub fn new(cfg: RreConfig) -> Self {
        Rre {
            est: SlidingWindowRate::new(cfg.estimator),
            cfg,
            drain: None,
        }
    }

    fn rtt_s(ctx: &RateContext) -> f64 {
        ctx.min_rtt
            .or(ctx.srtt)
            .unwrap_or(FALLBACK_RTT)
            .as_secs_f64()
    }

    /// Section 5.1.2: BDP = rho x RTT_min / MSS, T = max(BDP, 30) (and the optional cap),
    /// B_max = T + max(BDP/2, 10), B_min = max(T - max(BDP/2, 10), 0).
    pub fn buffer(&self, rho: Bandwidth, ctx: &RateContext) -> RreBuffer {
        let mss_bits = ctx.mss as f64 * 8.0;
        let bdp = rho.as_bps() as f64 * Self::rtt_s(ctx) / mss_bits;
        let mut t = bdp.max(self.cfg.min_threshold_pkts);
        if let Some(cap) = self.cfg.max_threshold_pkts {
            t = t.min(cap);
        }
        let margin = (bdp / 2.0).max(self.cfg.min_margin_pkts);
        RreBuffer {
            bdp_pkts: bdp,
            t_pkts: t,
            b_max_pkts: t + margin,
            b_min_pkts: (t - margin).max(0.0),
        }
    }

    fn feedback_s(&self, rho: Bandwidth, b: &RreBuffer, ctx: &RateContext) -> f64 {
        let rtt = Self::rtt_s(ctx);
        match self.cfg.feedback_delay {
            FeedbackDelay::RttMin => rtt,
            FeedbackDelay::BufferPlusRttMin => {
                rtt + b.t_pkts * ctx.mss as f64 * 8.0 / (rho.as_bps().max(1) as f64)
            }
            FeedbackDelay::Srtt => ctx.srtt.map_or(rtt, |d| d.as_secs_f64()),
        }
    }

    /// Equation (5.5): sigma_f = rho + (B_max - T) x MSS / RTT, in bit/s.
    pub fn sigma_fill_bps(&self, rho: Bandwidth, ctx: &RateContext) -> f64 {
        let b = self.buffer(rho, ctx);
        let d = self.feedback_s(rho, &b, ctx);
        rho.as_bps() as f64 + (b.b_max_pkts - b.t_pkts) * ctx.mss as f64 * 8.0 / d
    }

    /// Equation (5.6): sigma_d = rho - (T - B_min) x MSS / RTT, in bit/s (may be <= 0 for
    /// tiny BDPs; the framework floors the rate it uses).
    pub fn sigma_drain_bps(&self, rho: Bandwidth, ctx: &RateContext) -> f64 {
        let b = self.buffer(rho, ctx);
        let d = self.feedback_s(rho, &b, ctx);
        rho.as_bps() as f64 - (b.t_pkts - b.b_min_pkts) * ctx.mss as f64 * 8.0 / d
    }
}

impl RateAlgorithm for Rre {
    fn name(&self) -> &'static str {
        "rre"
    }

    fn update(&mut self, t_ns: i64, bytes: u64) -> Option<Bandwidth> {
        self.est.update(t_ns, bytes)
    }

    fn get_rate(&mut self, state: RateState, rho: Bandwidth, ctx: &RateContext) -> Bandwidth {
        match state {
            RateState::SlowStart => Bandwidth::ZERO,
            RateState::BufferFill => Bandwidth::from_bps_f64(self.sigma_fill_bps(rho, ctx)),
            RateState::BufferDrain => {
                // 5.1.1(b): "the sending rate sigma is set low at the start of this state, and
                // is only allowed to increase, as the estimated receiving rate fluctuates".
                let now = self.sigma_drain_bps(rho, ctx);
                let s = match self.drain {
                    Some((epoch, s)) if epoch == ctx.epoch => s.max(now),
                    _ => now,
                };
                self.drain = Some((ctx.epoch, s));
                Bandwidth::from_bps_f64(s)
            }
            // 5.1.1: "For the monitor mode, we simply set sigma_m = sigma_d / 2."
            RateState::Monitor => Bandwidth::from_bps_f64(self.sigma_drain_bps(rho, ctx) / 2.0),
        }
    }

    /// Equation (5.3): keep filling while t_buff < T x MSS / rho; the same T in all states.
    fn threshold(&self, _state: RateState, rho: Bandwidth, ctx: &RateContext) -> Duration {
        let t = self.buffer(rho, ctx).t_pkts;
        let secs = t * ctx.mss as f64 * 8.0 / rho.as_bps().max(1) as f64;
        Duration((secs * 1e9).min(u64::MAX as f64 / 2.0) as u64)
    }

    fn set_rho(&mut self, rho: Bandwidth) {
        self.est.set_rho(rho);
    }

    fn restart_window(&mut self) {
        self.est.restart_window();
    }

    fn reset(&mut self) {
        self.est.reset();
        self.drain = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    fn ctx(min_rtt_ms: u64, mss: u32, epoch: u64) -> RateContext {
        RateContext {
            now: Instant::ZERO,
            mss,
            min_rtt: Some(Duration::from_millis(min_rtt_ms)),
            srtt: Some(Duration::from_millis(3 * min_rtt_ms)),
            epoch,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn eq_5_5_and_5_6_by_hand_large_bdp() {
        // rho = 12 Mbit/s, RTT_min = 100 ms, MSS = 1500 B:
        // BDP = 12e6 x 0.1 / 12000 = 100 pkts; T = 100; BDP/2 = 50 > 10, so
        // B_max = 150, B_min = 50.
        // (5.5) sigma_f = 12e6 + 50 x 12000 / 0.1 = 18 Mbit/s
        // (5.6) sigma_d = 12e6 - 50 x 12000 / 0.1 = 6 Mbit/s
        let r = Rre::default();
        let c = ctx(100, 1500, 1);
        let rho = Bandwidth::from_mbps(12);
        let b = r.buffer(rho, &c);
        assert!(close(b.bdp_pkts, 100.0) && close(b.t_pkts, 100.0));
        assert!(close(b.b_max_pkts, 150.0) && close(b.b_min_pkts, 50.0));
        assert!(close(r.sigma_fill_bps(rho, &c), 18e6));
        assert!(close(r.sigma_drain_bps(rho, &c), 6e6));
        // (5.3) threshold: T x MSS / rho = 100 x 12000 / 12e6 = 100 ms.
        assert_eq!(
            r.threshold(RateState::BufferFill, rho, &c),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn t_floor_30_and_margin_floor_10() {
        // rho = 1.2 Mbit/s, RTT_min = 50 ms, MSS = 1500 B: BDP = 1.2e6 x 0.05 / 12000 = 5.
        // 5.1.2: T = max(5, 30) = 30; B_max/B_min = T +- max(2.5, 10) = 40 / 20.
        let r = Rre::default();
        let c = ctx(50, 1500, 1);
        let rho = Bandwidth::from_kbps(1200);
        let b = r.buffer(rho, &c);
        assert!(close(b.t_pkts, 30.0), "{b:?}");
        assert!(
            close(b.b_max_pkts, 40.0) && close(b.b_min_pkts, 20.0),
            "{b:?}"
        );
        // (5.5) sigma_f = 1.2e6 + 10 x 12000 / 0.05 = 3.6 Mbit/s;
        // (5.6) sigma_d = 1.2e6 - 10 x 12000 / 0.05 = -1.2 Mbit/s -> 0 (the framework floors).
        assert!(close(r.sigma_fill_bps(rho, &c), 3.6e6));
        assert!(close(r.sigma_drain_bps(rho, &c), -1.2e6));
        // Threshold time = 30 x 12000 / 1.2e6 = 300 ms.
        assert_eq!(
            r.threshold(RateState::BufferDrain, rho, &c),
            Duration::from_millis(300)
        );
        // Middle case: BDP = 40 -> T = 40, margin = max(20, 10) = 20.
        let b = r.buffer(Bandwidth::from_kbps(9600), &c);
        assert!(close(b.t_pkts, 40.0) && close(b.b_max_pkts, 60.0) && close(b.b_min_pkts, 20.0));
        // BDP = 16 -> T = 30 (floor) but margin = max(8, 10) = 10.
        let b = r.buffer(Bandwidth::from_bps(3_840_000), &c);
        assert!(close(b.t_pkts, 30.0) && close(b.b_max_pkts, 40.0) && close(b.b_min_pkts, 20.0));
    }

    #[test]
    fn buffer_plus_rtt_feedback_matches_table_6_1_rre_row() {
        // Table 6.1: RRE sigma_f = (1 + (60-40)/(40+RTT)) rho, sigma_d = (1 - (40-20)/(40+RTT))
        // rho with T = RTT_min = 40 ms; with BDP >= 60 pkts T = BDP, i.e. t_buff at the
        // threshold is RTT_min = 40 ms, and the excess BDP/2 = rho x 20 ms.
        let r = Rre::new(RreConfig {
            feedback_delay: FeedbackDelay::BufferPlusRttMin,
            ..Default::default()
        });
        let c = ctx(40, 1500, 1);
        let rho = Bandwidth::from_mbps(30); // BDP = 100 pkts
        assert!(close(r.sigma_fill_bps(rho, &c), 1.25 * 30e6));
        assert!(close(r.sigma_drain_bps(rho, &c), 0.75 * 30e6));
    }

    #[test]
    fn srtt_feedback_spreads_the_excess_over_the_smoothed_rtt() {
        // ctx(100 ms): srtt = 300 ms. rho = 12 Mbit/s, MSS 1500: BDP = 100 pkts, excess 50.
        // (5.5) sigma_f = 12e6 + 50 x 12000 / 0.3 = 14 Mbit/s (RTT_min: 18 Mbit/s);
        // (5.6) sigma_d = 12e6 - 50 x 12000 / 0.3 = 10 Mbit/s (RTT_min: 6 Mbit/s).
        let c = ctx(100, 1500, 1);
        let rho = Bandwidth::from_mbps(12);
        let srtt = Rre::new(RreConfig {
            feedback_delay: FeedbackDelay::Srtt,
            ..Default::default()
        });
        assert!(close(srtt.sigma_fill_bps(rho, &c), 14e6));
        assert!(close(srtt.sigma_drain_bps(rho, &c), 10e6));
        let min = Rre::default();
        assert!(close(min.sigma_fill_bps(rho, &c), 18e6));
        assert!(close(min.sigma_drain_bps(rho, &c), 6e6));
    }

    #[test]
    fn drain_rate_never_decreases_within_an_episode() {
        // 5.1.1(b): "sigma is never allowed to further decrease in this state".
        let mut r = Rre::default();
        let c = ctx(100, 1500, 7);
        let s0 = r.get_rate(RateState::BufferDrain, Bandwidth::from_mbps(12), &c);
        assert_eq!(s0, Bandwidth::from_mbps(6));
        let s1 = r.get_rate(RateState::BufferDrain, Bandwidth::from_mbps(8), &c);
        assert_eq!(s1, s0, "rho fell, sigma_d must hold");
        let s2 = r.get_rate(RateState::BufferDrain, Bandwidth::from_mbps(14), &c);
        assert_eq!(s2, Bandwidth::from_mbps(7), "rho rose, sigma_d may rise");
        // A new Drain episode (new epoch) starts from the current rho again.
        let c2 = ctx(100, 1500, 9);
        let s3 = r.get_rate(RateState::BufferDrain, Bandwidth::from_mbps(8), &c2);
        assert_eq!(s3, Bandwidth::from_mbps(4));
        // Monitor: sigma_m = sigma_d / 2.
        assert_eq!(
            r.get_rate(RateState::Monitor, Bandwidth::from_mbps(12), &c2),
            Bandwidth::from_mbps(3)
        );
        // Fill: (5.5).
        assert_eq!(
            r.get_rate(RateState::BufferFill, Bandwidth::from_mbps(12), &c2),
            Bandwidth::from_mbps(18)
        );
    }
}
