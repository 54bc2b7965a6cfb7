//! PropRate (thesis section 6.1.1): sigma = k x rho with k > 1 in Buffer Fill and k < 1 in
//! Buffer Drain, fixed thresholds T_f = T_d = T, sigma_m = 0.5 sigma_d (6.2.1), and the same
//! EWMA receive-rate estimator as RRE. Presets: Table 6.1 (section 6.2.1).

use super::estimator::{SlidingWindowConfig, SlidingWindowRate};
use super::{proportional_rate, RateAlgorithm, RateContext, RateState};
use crate::time::Duration;
use crate::units::Bandwidth;

/// A proportion k.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Gain {
    Fixed(f64),
    /// k = 1 + offset_ms / (base_ms + RTT_min in ms): Table 6.1's RRE row, whose rates "are
    /// expressed in terms of the currently observed minimum RTT" (6.2.1).
    RttScaled {
        offset_ms: f64,
        base_ms: f64,
    },
}

impl Gain {
    pub fn k(&self, ctx: &RateContext) -> f64 {
        match *self {
            Gain::Fixed(k) => k,
            Gain::RttScaled { offset_ms, base_ms } => {
                let rtt = ctx.min_rtt.or(ctx.srtt).map_or(0.0, |r| r.as_millis_f64());
                1.0 + offset_ms / (base_ms + rtt)
            }
        }
    }
}

/// PropRate parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PropRateConfig {
    /// T_f: Fill -> Drain when t_buff exceeds it.
    pub t_fill: Duration,
    /// T_d: Drain -> Fill when t_buff falls below it (T_f >= T_d).
    pub t_drain: Duration,
    pub k_fill: Gain,
    pub k_drain: Gain,
    /// sigma_m = this x sigma_d (6.2.1: 0.5 "for all the rate-based algorithms").
    pub monitor_fraction: f64,
    pub estimator: SlidingWindowConfig,
}

impl PropRateConfig {
    fn fixed(t_ms: u64, k_fill: f64, k_drain: f64) -> Self {
        Self::custom(Duration::from_millis(t_ms), k_fill, k_drain)
    }

    /// Any point of section 6.2.5's parameter space: T_f = T_d = `threshold`, sigma_f =
    /// `k_fill` x rho (> 1), sigma_d = `k_drain` x rho (< 1) (scenario `cc = "proprate"`).
    pub fn custom(threshold: Duration, k_fill: f64, k_drain: f64) -> Self {
        PropRateConfig {
            t_fill: threshold,
            t_drain: threshold,
            k_fill: Gain::Fixed(k_fill),
            k_drain: Gain::Fixed(k_drain),
            monitor_fraction: 0.5,
            estimator: SlidingWindowConfig::default(),
        }
    }

    /// Table 6.1 "PropRate (High)": T = 60 ms, sigma_f = 1.25 rho, sigma_d = 0.75 rho.
    pub fn high() -> Self {
        Self::fixed(60, 1.25, 0.75)
    }

    /// Table 6.1 "PropRate (Low)": T = 20 ms, sigma_f = 1.25 rho, sigma_d = 0.25 rho.
    pub fn low() -> Self {
        Self::fixed(20, 1.25, 0.25)
    }

    /// Table 6.1 "RRE": T = 40 ms, sigma_f = (1 + (60-40)/(40+RTT)) rho,
    /// sigma_d = (1 - (40-20)/(40+RTT)) rho. (The full chapter-5 RRE is [`super::rre::Rre`].)
    pub fn rre_table_6_1() -> Self {
        Self::rre_time_based(
            Duration::from_millis(40),
            Duration::from_millis(60),
            Duration::from_millis(20),
        )
    }

    /// Table 6.1's RRE row for any T, B_max and B_min given as buffer delays (section 6.2.5
    /// varies them): T_f = T_d = T, sigma_f = (1 + (B_max - T) / (T + RTT_min)) rho and
    /// sigma_d = (1 - (T - B_min) / (T + RTT_min)) rho.
    pub fn rre_time_based(t: Duration, b_max: Duration, b_min: Duration) -> Self {
        let (t_ms, max_ms, min_ms) = (
            t.as_millis_f64(),
            b_max.as_millis_f64(),
            b_min.as_millis_f64(),
        );
        PropRateConfig {
            t_fill: t,
            t_drain: t,
            k_fill: Gain::RttScaled {
                offset_ms: max_ms - t_ms,
                base_ms: t_ms,
            },
            k_drain: Gain::RttScaled {
                offset_ms: -(t_ms - min_ms),
                base_ms: t_ms,
            },
            monitor_fraction: 0.5,
            estimator: SlidingWindowConfig::default(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct PropRate {
    cfg: PropRateConfig,
    est: SlidingWindowRate,
}

impl PropRate {
    pub fn new(cfg: PropRateConfig) -> Self {
        PropRate {
            est: SlidingWindowRate::new(cfg.estimator),
            cfg,
        }
    }

    pub fn config(&self) -> &PropRateConfig {
        &self.cfg
    }
}

impl RateAlgorithm for PropRate {
    fn name(&self) -> &'static str {
        "proprate"
    }

    fn update(&mut self, t_ns: i64, bytes: u64) -> Option<Bandwidth> {
        self.est.update(t_ns, bytes)
    }

    fn get_rate(&mut self, state: RateState, rho: Bandwidth, ctx: &RateContext) -> Bandwidth {
        // 6.1.1: sigma_d is allowed "to fluctuate, instead of keeping it constant as in RRE".
        proportional_rate(
            state,
            rho,
            self.cfg.k_fill.k(ctx),
            self.cfg.k_drain.k(ctx),
            self.cfg.monitor_fraction,
        )
    }

    fn threshold(&self, state: RateState, _rho: Bandwidth, _ctx: &RateContext) -> Duration {
        match state {
            RateState::BufferDrain => self.cfg.t_drain,
            _ => self.cfg.t_fill,
        }
    }

    fn set_rho(&mut self, rho: Bandwidth) {
        self.est.set_rho(rho);
    }

    fn restart_window(&mut self) {
        self.est.restart_window();
    }

    fn reset(&mut self) {
        self.est.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    fn ctx(min_rtt_ms: u64) -> RateContext {
        RateContext {
            now: Instant::ZERO,
            mss: 1448,
            min_rtt: Some(Duration::from_millis(min_rtt_ms)),
            srtt: None,
            epoch: 0,
        }
    }

    fn rates(cfg: PropRateConfig, rtt_ms: u64) -> (Duration, Duration, [Bandwidth; 3]) {
        let mut p = PropRate::new(cfg);
        let c = ctx(rtt_ms);
        let rho = Bandwidth::from_mbps(8);
        (
            p.threshold(RateState::BufferFill, rho, &c),
            p.threshold(RateState::BufferDrain, rho, &c),
            [
                p.get_rate(RateState::BufferFill, rho, &c),
                p.get_rate(RateState::BufferDrain, rho, &c),
                p.get_rate(RateState::Monitor, rho, &c),
            ],
        )
    }

    #[test]
    fn presets_equal_table_6_1() {
        // Table 6.1, PropRate (High): T_f = T_d = 60 ms, 1.25 rho, 0.75 rho;
        // sigma_m = 0.5 sigma_d (6.2.1).
        let (tf, td, s) = rates(PropRateConfig::high(), 40);
        assert_eq!(
            (tf, td),
            (Duration::from_millis(60), Duration::from_millis(60))
        );
        assert_eq!(
            s,
            [
                Bandwidth(10_000_000),
                Bandwidth(6_000_000),
                Bandwidth(3_000_000)
            ]
        );
        // PropRate (Low): 20 ms, 1.25 rho, 0.25 rho.
        let (tf, td, s) = rates(PropRateConfig::low(), 40);
        assert_eq!(
            (tf, td),
            (Duration::from_millis(20), Duration::from_millis(20))
        );
        assert_eq!(
            s,
            [
                Bandwidth(10_000_000),
                Bandwidth(2_000_000),
                Bandwidth(1_000_000)
            ]
        );
        // RRE row: 40 ms, (1 + 20/(40+RTT)) rho, (1 - 20/(40+RTT)) rho. RTT = 40 ms gives
        // 1.25 / 0.75; RTT = 60 ms gives 1.2 / 0.8.
        let (tf, td, s) = rates(PropRateConfig::rre_table_6_1(), 40);
        assert_eq!(
            (tf, td),
            (Duration::from_millis(40), Duration::from_millis(40))
        );
        assert_eq!(
            s,
            [
                Bandwidth(10_000_000),
                Bandwidth(6_000_000),
                Bandwidth(3_000_000)
            ]
        );
        let (_, _, s) = rates(PropRateConfig::rre_table_6_1(), 60);
        assert_eq!(
            s,
            [
                Bandwidth(9_600_000),
                Bandwidth(6_400_000),
                Bandwidth(3_200_000)
            ]
        );
    }
}
