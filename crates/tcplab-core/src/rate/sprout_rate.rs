//! Sprout-Rate (thesis section 6.1.3, parameters Table 6.1 and 6.2.1): Sprout's stochastic
//! forecast ([`super::sprout_forecast`]) as the receive-rate module of the rate-based
//! framework. "We increased the tick duration to 100 ms"; "we computed the sending rate by
//! dividing the forecast over the number of ticks" (rho = the cautious 8-tick forecast / 8
//! ticks); sigma_f = 2.00 rho ("we had to use a rate that was double its forecast in order to
//! get comparable performance", 6.2.1), sigma_d = 0.50 rho, T_f = T_d = 50 ms, and
//! sigma_m = 0.5 sigma_d "for all the rate-based algorithms" (6.2.1). The forecast's
//! percentile is the confidence parameter the thesis varies for Fig. 6.8(c) (6.2.5).
//!
//! The forecaster lives at the sender here (the thesis's module gets the receiver's
//! deliveries through `update`, from the TCP timestamps, 4.2.1): each tick counts the bytes
//! the ACKs that arrived during it newly reported received. Binning by ACK arrival rather
//! than by the receiver's timestamps is our choice: a tick must close at a sender time, and
//! deliveries reported after their receiver-time tick closed would be lost or need a holdback;
//! at 100 ms ticks the ACK path's jitter moves little across tick boundaries.
//!
//! # Saturation (which ticks are censored), our rule
//! Sprout learns the link's rate only from ticks in which the link was busy: its receiver
//! skips silent ticks when the sender said it would not send. The thesis does not say how
//! its port judged this. Ours, from the tick's record:
//! - deliveries with a standing queue (every ACK of the tick saw a buffer delay of at least
//!   `saturation_queue`): the link never ran dry, the count is exact;
//! - deliveries without one: the link may have idled, so the count is a lower bound
//!   (censored, P(N >= count));
//! - no delivery while data was in flight from the tick's start and the tick is at least a
//!   minimum RTT long: the link had data and delivered none of it, an exact zero (this is
//!   what drives the belief into the outage state);
//! - no delivery otherwise: nothing to learn (the belief only evolves).

use super::sprout_forecast::{Observation, SproutForecast, SproutForecastConfig};
use super::{proportional_rate, RateAlgorithm, RateContext, RateState, TickRecord};
use crate::time::Duration;
use crate::units::Bandwidth;

/// Sprout-Rate parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SproutRateConfig {
    pub forecast: SproutForecastConfig,
    /// T_f = T_d.
    pub threshold: Duration,
    /// sigma_f = k_fill x rho.
    pub k_fill: f64,
    /// sigma_d = k_drain x rho.
    pub k_drain: f64,
    /// sigma_m = this x sigma_d.
    pub monitor_fraction: f64,
    /// A tick's count is exact when every ACK of it saw at least this buffer delay: above the
    /// 1 ms quantum of a 1 ms TSval clock, so a packet that found the queue empty cannot
    /// pass.
    pub saturation_queue: Duration,
}

impl SproutRateConfig {
    /// Table 6.1's "Sprout-Rate" row with the thesis's kernel port of the forecast: 100 ms
    /// ticks, otherwise the public implementation's model (8-tick horizon, 5th percentile,
    /// sigma 200 packets/s/sqrt(s), outage escape 1/s, 256 bins up to 1000 packets/s).
    pub fn table_6_1() -> Self {
        SproutRateConfig {
            forecast: SproutForecastConfig {
                tick: Duration::from_millis(100),
                ..SproutForecastConfig::default()
            },
            threshold: Duration::from_millis(50),
            k_fill: 2.0,
            k_drain: 0.5,
            monitor_fraction: 0.5,
            saturation_queue: Duration::from_millis(2),
        }
    }
}

#[derive(Clone, Debug)]
pub struct SproutRate {
    cfg: SproutRateConfig,
    fc: SproutForecast,
    /// The forecast as a rate, once a tick has been observed.
    rho: Option<Bandwidth>,
}

impl SproutRate {
    pub fn new(cfg: SproutRateConfig) -> Self {
        SproutRate {
            fc: SproutForecast::new(cfg.forecast),
            cfg,
            rho: None,
        }
    }

    pub fn config(&self) -> &SproutRateConfig {
        &self.cfg
    }

    pub fn forecaster(&self) -> &SproutForecast {
        &self.fc
    }

    /// What the tick's record says about the link (module docs, "Saturation").
    pub fn classify(&self, t: &TickRecord, ctx: &RateContext) -> Option<Observation> {
        let mss = ctx.mss.max(1) as u64;
        if t.bytes_delivered == 0 {
            let long_enough = ctx
                .min_rtt
                .is_some_and(|r| t.end.saturating_since(t.start) >= r);
            return (t.in_flight_at_start > 0 && long_enough).then_some(Observation::Exact(0));
        }
        // Whole packets, as the implementation rounds (nearest; a fraction counts as one).
        let count = ((t.bytes_delivered + mss / 2) / mss).max(1);
        if t.min_buffer_delay
            .is_some_and(|b| b >= self.cfg.saturation_queue)
        {
            Some(Observation::Exact(count))
        } else {
            Some(Observation::AtLeast(count))
        }
    }

    fn forecast_rate(&self, mss: u32) -> Bandwidth {
        let f = &self.fc;
        let horizon = f.config().tick * f.config().horizon_ticks.max(1) as u64;
        Bandwidth::from_bytes_per(f.forecast_packets() * mss as u64, horizon)
    }
}

impl RateAlgorithm for SproutRate {
    fn name(&self) -> &'static str {
        "sprout-rate"
    }

    /// The deliveries are counted per tick by the framework ([`TickRecord`]); rho is the
    /// latest forecast, none before the first observed tick.
    fn update(&mut self, _t_ns: i64, _bytes: u64) -> Option<Bandwidth> {
        self.rho
    }

    fn get_rate(&mut self, state: RateState, rho: Bandwidth, _ctx: &RateContext) -> Bandwidth {
        proportional_rate(
            state,
            rho,
            self.cfg.k_fill,
            self.cfg.k_drain,
            self.cfg.monitor_fraction,
        )
    }

    fn threshold(&self, _state: RateState, _rho: Bandwidth, _ctx: &RateContext) -> Duration {
        self.cfg.threshold
    }

    fn tick_interval(&self) -> Option<Duration> {
        Some(self.cfg.forecast.tick)
    }

    fn on_tick(&mut self, tick: &TickRecord, ctx: &RateContext) -> Option<Bandwidth> {
        let obs = self.classify(tick, ctx);
        self.fc.tick(obs);
        if self.fc.has_observed() {
            self.rho = Some(self.forecast_rate(ctx.mss));
        }
        self.rho
    }

    /// A timeout says nothing new about the link's rate process; the belief keeps ticking
    /// through it (the point of the tick, 4.2.2).
    fn reset(&mut self) {}

    fn undo_reset(&mut self, _prior: &Self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    fn ctx() -> RateContext {
        RateContext {
            now: Instant::ZERO,
            mss: 1000,
            min_rtt: Some(Duration::from_millis(50)),
            srtt: None,
            epoch: 0,
        }
    }

    fn tick(sent: u64, delivered: u64, in_flight: u64, q_ms: Option<u64>) -> TickRecord {
        TickRecord {
            start: Instant::ZERO,
            end: Instant::from_millis(100),
            bytes_sent: sent,
            bytes_delivered: delivered,
            in_flight_at_start: in_flight,
            min_buffer_delay: q_ms.map(Duration::from_millis),
            acks: 1,
        }
    }

    #[test]
    fn table_6_1_row() {
        // Table 6.1, Sprout-Rate: T_f = T_d = 50 ms, sigma_f = 2.00 rho, sigma_d = 0.50 rho;
        // sigma_m = 0.5 sigma_d (6.2.1); 100 ms ticks (6.1.3).
        let mut s = SproutRate::new(SproutRateConfig::table_6_1());
        let (c, rho) = (ctx(), Bandwidth::from_mbps(4));
        assert_eq!(
            s.threshold(RateState::BufferFill, rho, &c),
            Duration::from_millis(50)
        );
        assert_eq!(
            s.threshold(RateState::BufferDrain, rho, &c),
            Duration::from_millis(50)
        );
        assert_eq!(
            s.get_rate(RateState::BufferFill, rho, &c),
            Bandwidth::from_mbps(8)
        );
        assert_eq!(
            s.get_rate(RateState::BufferDrain, rho, &c),
            Bandwidth::from_mbps(2)
        );
        assert_eq!(
            s.get_rate(RateState::Monitor, rho, &c),
            Bandwidth::from_mbps(1)
        );
        assert_eq!(s.tick_interval(), Some(Duration::from_millis(100)));
        let f = s.cfg.forecast;
        assert_eq!((f.horizon_ticks, f.percentile, f.sigma), (8, 0.05, 200.0));
    }

    #[test]
    fn saturation_rule() {
        let s = SproutRate::new(SproutRateConfig::table_6_1());
        let c = ctx();
        // A standing queue: exact; 12.4 packets round to 12.
        assert_eq!(
            s.classify(&tick(20_000, 12_400, 30_000, Some(5)), &c),
            Some(Observation::Exact(12))
        );
        // The queue ran dry on some ACK: a lower bound; a fraction of a packet counts as one.
        assert_eq!(
            s.classify(&tick(20_000, 12_600, 30_000, Some(0)), &c),
            Some(Observation::AtLeast(13))
        );
        assert_eq!(
            s.classify(&tick(0, 300, 0, None), &c),
            Some(Observation::AtLeast(1))
        );
        // Silence with data in flight all tick: an exact zero. With nothing in flight at the
        // start (the sender just began), nothing to learn; nor when the tick is shorter than
        // the path's RTT (the ACKs could not have come back yet).
        assert_eq!(
            s.classify(&tick(5_000, 0, 8_000, None), &c),
            Some(Observation::Exact(0))
        );
        assert_eq!(s.classify(&tick(5_000, 0, 0, None), &c), None);
        let slow = RateContext {
            min_rtt: Some(Duration::from_millis(150)),
            ..c
        };
        assert_eq!(s.classify(&tick(5_000, 0, 8_000, None), &slow), None);
    }

    #[test]
    fn rho_is_the_forecast_over_the_horizon_and_falls_through_an_outage() {
        let mut s = SproutRate::new(SproutRateConfig::table_6_1());
        let c = ctx();
        assert_eq!(s.update(0, 1000), None, "no rho before a tick is observed");
        // 50 packets of 1000 bytes per 100 ms with a standing queue: 4 Mbit/s.
        let mut rho = Bandwidth::ZERO;
        for _ in 0..30 {
            rho = s
                .on_tick(&tick(100_000, 50_000, 60_000, Some(10)), &c)
                .unwrap();
        }
        // rho = forecast packets x MSS / 0.8 s, the cautious forecast below the mean.
        let f = s.forecaster().forecast_packets();
        assert_eq!(
            rho,
            Bandwidth::from_bytes_per(f * 1000, Duration::from_millis(800))
        );
        assert!(
            rho < Bandwidth::from_mbps(4) && rho > Bandwidth::from_mbps(2),
            "{rho:?}"
        );
        assert_eq!(s.update(0, 1000), Some(rho));
        // An outage: 3 s of ticks with data in flight and nothing delivered.
        let mut last = rho;
        for _ in 0..30 {
            let r = s.on_tick(&tick(1_000, 0, 60_000, None), &c).unwrap();
            assert!(r <= last);
            last = r;
        }
        assert_eq!(last, Bandwidth::ZERO);
        // A timeout keeps the belief.
        s.reset();
        assert_eq!(s.update(0, 1000), Some(Bandwidth::ZERO));
    }
}
