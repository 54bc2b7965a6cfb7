//! The rate-based congestion-control framework of the thesis, chapter 4 (Figure 4.2(b),
//! sections 4.1.1 to 4.1.5, the module API of Table 4.1 and the sender of section 4.3),
//! at the sender only: the receiver is an unmodified TCP with timestamps.
//!
//! States: Slow Start (bursts of n packets, doubling until a rate estimate exists), Buffer
//! Fill (send at sigma_f > rho until t_buff > T_f), Buffer Drain (sigma_d < rho until
//! t_buff < T_d; after the monitor timeout go to Monitor), Monitor (a burst of n, then
//! sigma_m while waiting for the burst's feedback; accept -> update RD_min, Fill; reject ->
//! Drain). A loss switches momentarily to Drain (no fast-recovery state, 4.3.3); a
//! retransmission timeout returns to Slow Start.
//!
//! # What the endpoint must do (the contract behind `CongestionControl`)
//! - Call `on_ack` for *every* ACK that carries timestamps, including duplicate ACKs and
//!   ACKs during recovery (`wants_dup_acks()` is true), filling in [`AckSample`]:
//!   `bytes_acked`, `bytes_sacked`, `bytes_acked_previously_sacked`, `dup_ack`,
//!   `has_sack_blocks`, `peer_tsval`, `echo_sent_at` (the send time of the latest-sent segment
//!   this ACK newly acknowledges), `echo_earlier_transmission` (that segment is a
//!   retransmission and the ACK's TSecr predates it, RFC 3522: the ACK reports an earlier
//!   transmission, so no RD is taken from it), `rtt` and `in_flight`.
//! - Call `on_packet_sent` for every data segment (retransmissions with `retransmit = true`).
//! - Call `on_congestion_event(FastRecovery)` on loss detection and `(Timeout)` on RTO.
//! - Send at `pacing_rate()` through a [`pacer::Pacer`] rounded by `pacing_rounding()`,
//!   continuously (not ACK-clocked), retransmissions first, within the receiver's window and
//!   `congestion_window()`. `pacing_rate() == None` means a burst: send what the window
//!   allows at once (Slow Start and the Monitor probe).
//! - Tell it the receiver's timestamp tick with `set_peer_ts_granularity` (default 1 ms).
//!
//! The Drain -> Monitor timeout is checked on every `on_ack` and `on_packet_sent`, which keep
//! coming while it sends at sigma_d > 0.
//!
//! # The tick (thesis 4.2.2)
//! "This function [`get_rate`] is called at every kernel tick to allow the congestion
//! algorithm to adjust the sending rate even when there are no updates from the receiver."
//! A module that asks for a tick ([`RateAlgorithm::tick_interval`], e.g. Sprout-Rate's
//! 100 ms, thesis 6.1.3) gets [`RateAlgorithm::on_tick`] with a [`TickRecord`] of what the
//! tick saw (bytes sent, the "time history of the exact number of bytes sent" of 4.3.1, and
//! bytes reported delivered), then `get_rate`, through the endpoint's timer table
//! (`CongestionControl::next_tick`, `Timer::CcTick`). Modules without one (RRE, PropRate) run
//! only on ACKs and sends, exactly as before: no timer is armed for them.

pub mod estimator;
pub mod pacer;
pub mod proprate;
pub mod proprate_target;
pub mod proteus_rate;
pub mod proteus_tree;
pub mod rre;
pub mod sprout;
pub mod sprout_forecast;
pub mod sprout_rate;

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::rng::Rng;
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;
use estimator::{BurstProbe, DelayEstimator, DeliveryCounter, PeerClock, ProbeResult};
use pacer::Rounding;

/// The framework's states (thesis Figure 4.2(b)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RateState {
    SlowStart,
    BufferFill,
    BufferDrain,
    Monitor,
}

/// What a module may read besides rho: the sans-IO stand-in for the kernel globals that
/// Table 4.1's functions read ("the current time can be obtained from a global variable").
#[derive(Copy, Clone, Debug)]
pub struct RateContext {
    pub now: Instant,
    pub mss: u32,
    /// Smallest RTT sample so far.
    pub min_rtt: Option<Duration>,
    /// Smoothed RTT (RFC 6298 gain 1/8 over the samples the framework saw).
    pub srtt: Option<Duration>,
    /// Incremented at every state change, so a module can tell a new episode of a state
    /// (e.g. RRE's sigma_d "is set low at the start of this state") from a continuing one.
    pub epoch: u64,
}

/// What the sender saw during one tick of a module's tick (thesis 4.2.2), for the module to
/// judge e.g. whether the link was saturated. Plain counters: recording them allocates
/// nothing.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TickRecord {
    /// The tick covers [start, end) of sender time.
    pub start: Instant,
    pub end: Instant,
    /// Payload bytes sent during the tick, retransmissions included (4.3.1: "a time history
    /// of the exact number of bytes sent is kept").
    pub bytes_sent: u64,
    /// Bytes the ACKs that arrived during the tick newly reported received (cumulatively, by
    /// SACK, or one MSS per duplicate ACK without SACK: 4.1.2), the same count `update`
    /// gets.
    pub bytes_delivered: u64,
    /// Bytes in flight at the start of the tick (the endpoint's pipe as last reported).
    pub in_flight_at_start: u64,
    /// The smallest buffer delay t_buff = RD - RD_min among the tick's ACKs that gave an RD
    /// sample (4.1.3); `None` when none did.
    pub min_buffer_delay: Option<Duration>,
    /// ACKs that arrived during the tick (with timestamps).
    pub acks: u32,
}

/// The framework's tick clock for a module that asked for one.
#[derive(Copy, Clone, Debug)]
struct Ticker {
    interval: Duration,
    /// The end of the current tick; `None` before the first send and while idle.
    next: Option<Instant>,
    /// Set when ticking stopped for want of anything to observe (nothing sent, delivered or
    /// in flight for a whole tick), so a restart can account for the ticks it skipped.
    idle_since: Option<Instant>,
    cur: TickRecord,
}

/// The most idle ticks replayed on restart. A forecaster's belief only spreads while idle
/// (no observation: 6.1.3's Brownian motion), and after this many ticks (5 s at 100 ms) more
/// spreading no longer changes it much; the bound keeps a restart after hours cheap.
const MAX_IDLE_TICKS: u64 = 50;

/// PropRate's mapping of (state, rho) to a sending rate (thesis 6.1.1, Table 6.1), shared by
/// every module that sends at fixed multiples of its rho estimate (PropRate, Sprout-Rate,
/// PROTEUS-Rate, PropRate-target): sigma_f = k_fill rho in Buffer Fill, sigma_d = k_drain rho
/// in Buffer Drain, sigma_m = monitor_fraction sigma_d in Monitor ("for all the rate-based
/// algorithms", 6.2.1); Slow Start sends bursts, not a rate.
pub(crate) fn proportional_rate(
    state: RateState,
    rho: Bandwidth,
    k_fill: f64,
    k_drain: f64,
    monitor_fraction: f64,
) -> Bandwidth {
    let scale = |k: f64| Bandwidth::from_bps_f64(rho.as_bps() as f64 * k);
    match state {
        RateState::SlowStart => Bandwidth::ZERO,
        RateState::BufferFill => scale(k_fill),
        RateState::BufferDrain => scale(k_drain),
        RateState::Monitor => scale(k_drain * monitor_fraction),
    }
}

/// A rate-based algorithm: the three calls of thesis Table 4.1 (plus optional hooks).
/// The framework ([`RateFramework`]) owns the states, the delay estimation and the
/// transitions; a module only estimates rho and maps (state, rho) to a rate and thresholds.
pub trait RateAlgorithm {
    fn name(&self) -> &'static str;
    /// Table 4.1 `update(tstamp, bytes_recv) -> rho`: the receiver reported `bytes` received
    /// at its time `t_ns` (unwrapped TSval x granularity, arbitrary origin). Returns the
    /// latest receive-rate estimate, `None` while there is none yet.
    fn update(&mut self, t_ns: i64, bytes: u64) -> Option<Bandwidth>;
    /// Table 4.1 `get_rate(curr_state, rho) -> sigma` for Fill, Drain and Monitor. Called on
    /// every ACK and packet sent (the kernel calls it every tick).
    fn get_rate(&mut self, state: RateState, rho: Bandwidth, ctx: &RateContext) -> Bandwidth;
    /// Table 4.1 `threshold(curr_state) -> T`: the buffer delay beyond which Fill turns to
    /// Drain (`state = BufferFill`, T_f) and below which Drain turns to Fill
    /// (`state = BufferDrain`, T_d). The framework enforces T_f >= T_d (4.1.5).
    fn threshold(&self, state: RateState, rho: Bandwidth, ctx: &RateContext) -> Duration;
    /// The Monitor probe replaced rho with a fresh measurement (4.1.4 "with the new rho = rho'").
    fn set_rho(&mut self, _rho: Bandwidth) {}
    /// Start the measurement window afresh, keeping rho (see `RateFramework`'s
    /// `restart_after`: the idle time between the Slow Start burst and paced sending).
    fn restart_window(&mut self) {}
    /// A retransmission timeout: start estimating afresh.
    fn reset(&mut self) {}
    /// F-RTO found the timeout spurious: undo `reset`. The default restores the module as it
    /// was before the timeout; a module whose `reset` kept its state (a forecaster's belief
    /// about the link, which keeps ticking through the stall) overrides it to keep what it
    /// has learnt since.
    fn undo_reset(&mut self, prior: &Self)
    where
        Self: Sized + Clone,
    {
        *self = prior.clone();
    }
    /// The module's tick (thesis 4.2.2), or `None` (the default): no tick, the module runs
    /// on ACKs and sends only.
    fn tick_interval(&self) -> Option<Duration> {
        None
    }
    /// A tick ended: what it saw is in `tick`. Returns a new receive-rate estimate rho, or
    /// `None` to keep the current one. The framework calls `get_rate` right after.
    fn on_tick(&mut self, _tick: &TickRecord, _ctx: &RateContext) -> Option<Bandwidth> {
        None
    }
    /// An ACK gave a buffer-delay sample t_buff = RD - RD_min (4.1.3), the quantity the
    /// framework compares with the thresholds. The default ignores it; a module that adapts
    /// its thresholds to the delay it causes (`proprate_target`) records it. Called once per
    /// sample, before the transition it may trigger.
    fn on_buffer_delay(&mut self, _t_buff: Duration, _ctx: &RateContext) {}
}

/// Framework parameters (thesis 4.1.5 "Other parameters").
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FrameworkConfig {
    /// Initial burst n in packets (thesis default 10).
    pub initial_burst_pkts: u32,
    /// Drain -> Monitor after this many smoothed RTTs in Drain (thesis default 4).
    pub monitor_timeout_rtts: u32,
    /// Monitor accepts the probe when rho' >= this x rho. Section 4.1.1 says "greater or
    /// equal to the current estimate" (1.0); 4.1.4 says "close to", so a lower value is a
    /// tunable leniency.
    pub monitor_accept_ratio: f64,
    /// Tick of the receiver's TSval clock (the sender cannot observe it; see PeerClock).
    pub peer_ts_granularity: Duration,
    /// Error injection (thesis 6.2.4, Figure 6.7): each new receive-rate estimate the module
    /// returns is multiplied by max(0, 1 + cv x Z), Z ~ N(0, 1), before the framework uses it.
    /// The thesis states the error only as "the coefficient of variance of the estimated
    /// rate"; a zero-mean Gaussian factor per estimate is our reading. 0 disables it.
    pub rate_error_cv: f64,
    /// The error's stream: `Rng::derive(rate_error_seed, rate_error_component, ...)`.
    pub rate_error_seed: u64,
    pub rate_error_component: u64,
}

impl Default for FrameworkConfig {
    fn default() -> Self {
        FrameworkConfig {
            initial_burst_pkts: 10,
            monitor_timeout_rtts: 4,
            monitor_accept_ratio: 1.0,
            peer_ts_granularity: Duration::from_millis(1),
            rate_error_cv: 0.0,
            rate_error_seed: 0,
            rate_error_component: 0,
        }
    }
}

/// The window outside bursts: large enough never to bind. The thesis sender has no window
/// ("packets will be sent continuously at a given rate as long as there are available
/// packets", 4.2.3); the receiver's window still applies. 2^48 bytes also keeps window
/// arithmetic in the endpoint far from overflow.
pub const UNBOUNDED_CWND: u64 = 1 << 48;

/// The fill/drain/monitor state machine, generic over the module.
#[derive(Clone, Debug)]
pub struct RateFramework<A> {
    alg: A,
    cfg: FrameworkConfig,
    mss: u32,
    state: RateState,
    epoch: u64,
    state_since: Instant,
    clock: PeerClock,
    delivered: DeliveryCounter,
    delay: DelayEstimator,
    rho: Option<Bandwidth>,
    sigma: Bandwidth,
    min_rtt: Option<Duration>,
    srtt: Option<Duration>,
    in_flight: u64,
    /// Slow-start burst size in packets (doubles while no estimate arrives).
    burst_pkts: u32,
    /// Bytes of the current burst (Slow Start or Monitor probe) still to be sent unpaced.
    burst_remaining: u64,
    probe: Option<BurstProbe>,
    error_rng: Rng,
    /// Our addition to 5.1.3: after Slow Start the sender waits one RTT for the burst's
    /// feedback, so the receiver sees the burst, an idle gap it did not cause, then the paced
    /// data; a window spanning the gap would report far less than the path delivers and
    /// start Buffer Fill at a fraction of the rate. Once the delivery count passes this
    /// mark (everything sent before paced sending began), the module's window restarts.
    restart_after: Option<u64>,
    /// The module's tick; `None` for modules without one (then no tick code runs at all).
    ticker: Option<Ticker>,
}

const RATE_ERROR_PURPOSE: &str = "rate-estimation-error";

impl<A: RateAlgorithm> RateFramework<A> {
    pub fn new(mss: u32, alg: A) -> Self {
        Self::with_config(mss, alg, FrameworkConfig::default())
    }

    pub fn with_config(mss: u32, alg: A, cfg: FrameworkConfig) -> Self {
        let burst_pkts = cfg.initial_burst_pkts.max(1);
        let ticker = alg.tick_interval().map(|interval| Ticker {
            interval: interval.max(Duration(1)),
            next: None,
            idle_since: None,
            cur: TickRecord::default(),
        });
        RateFramework {
            ticker,
            alg,
            cfg,
            mss,
            state: RateState::SlowStart,
            epoch: 0,
            state_since: Instant::ZERO,
            clock: PeerClock::new(cfg.peer_ts_granularity),
            delivered: DeliveryCounter::default(),
            delay: DelayEstimator::default(),
            rho: None,
            sigma: Bandwidth::ZERO,
            min_rtt: None,
            srtt: None,
            in_flight: 0,
            burst_pkts,
            burst_remaining: burst_pkts as u64 * mss as u64,
            probe: None,
            restart_after: None,
            error_rng: Rng::derive(
                cfg.rate_error_seed,
                cfg.rate_error_component,
                RATE_ERROR_PURPOSE,
            ),
        }
    }

    /// Sets the error injection of [`FrameworkConfig::rate_error_cv`] and reseeds its stream.
    pub fn set_rate_error(&mut self, cv: f64, seed: u64, component: u64) {
        self.cfg.rate_error_cv = cv.max(0.0);
        self.cfg.rate_error_seed = seed;
        self.cfg.rate_error_component = component;
        self.error_rng = Rng::derive(seed, component, RATE_ERROR_PURPOSE);
    }

    pub fn config(&self) -> &FrameworkConfig {
        &self.cfg
    }

    /// A module's estimate with the configured error applied (identity when cv = 0, and then
    /// no random number is drawn).
    fn perturb(&mut self, r: Bandwidth) -> Bandwidth {
        let cv = self.cfg.rate_error_cv;
        if cv <= 0.0 {
            return r;
        }
        let f = (1.0 + cv * self.error_rng.normal()).max(0.0);
        Bandwidth::from_bps_f64(r.as_bps() as f64 * f)
    }

    pub fn set_peer_ts_granularity(&mut self, g: Duration) {
        self.cfg.peer_ts_granularity = g;
        self.clock.set_granularity(g);
    }

    pub fn state(&self) -> RateState {
        self.state
    }
    /// The receive-rate estimate rho.
    pub fn rho(&self) -> Option<Bandwidth> {
        self.rho
    }
    /// The current sending rate sigma (zero in Slow Start).
    pub fn sigma(&self) -> Bandwidth {
        self.sigma
    }
    /// The latest buffer delay t_buff = RD - RD_min.
    pub fn buffer_delay(&self) -> Option<Duration> {
        self.delay.buffer_delay()
    }
    pub fn rd_min(&self) -> Option<i64> {
        self.delay.rd_min()
    }
    pub fn algorithm(&self) -> &A {
        &self.alg
    }
    /// The Slow Start burst size n in packets.
    pub fn burst_pkts(&self) -> u32 {
        self.burst_pkts
    }

    fn ctx(&self, now: Instant) -> RateContext {
        RateContext {
            now,
            mss: self.mss,
            min_rtt: self.min_rtt,
            srtt: self.srtt,
            epoch: self.epoch,
        }
    }

    fn enter(&mut self, now: Instant, s: RateState) {
        self.state = s;
        self.state_since = now;
        self.epoch += 1;
        if s != RateState::Monitor {
            self.probe = None;
        }
        if s != RateState::SlowStart && s != RateState::Monitor {
            self.burst_remaining = 0;
        }
    }

    /// Thresholds with T_f >= T_d imposed (4.1.5 "the constraint T_f >= T_d is imposed").
    fn thresholds(&self, rho: Bandwidth, now: Instant) -> (Duration, Duration) {
        let ctx = self.ctx(now);
        let tf = self.alg.threshold(RateState::BufferFill, rho, &ctx);
        let td = self.alg.threshold(RateState::BufferDrain, rho, &ctx);
        (tf, td.min(tf))
    }

    fn refresh_rate(&mut self, now: Instant) {
        let Some(rho) = self.rho else {
            self.sigma = Bandwidth::ZERO;
            return;
        };
        if self.state == RateState::SlowStart {
            self.sigma = Bandwidth::ZERO;
            return;
        }
        let ctx = self.ctx(now);
        let s = self.alg.get_rate(self.state, rho, &ctx);
        // Our floor, not the thesis's, for a module that computes a rate <= 0 (RRE's
        // sigma_d when rho x RTT < 10 packets): one MSS per smoothed RTT, what a window of
        // one segment would send, keeps feedback (and the Monitor) alive. A positive rate is
        // the module's to choose and is used as it is: on a link that has slowed to a
        // trickle (a cellular outage) a floor above the module's rate would push packets into
        // the buffer faster than the link drains it, with an RTT that no ACK updates.
        self.sigma = if s > Bandwidth::ZERO {
            s
        } else {
            let rtt = self
                .srtt
                .or(self.min_rtt)
                .unwrap_or(Duration::from_millis(100));
            Bandwidth::from_bytes_per(self.mss as u64, rtt).max(Bandwidth(1))
        };
    }

    fn monitor_timeout(&self) -> Duration {
        let rtt = self.srtt.or(self.min_rtt).unwrap_or(Duration::from_secs(1));
        rtt.saturating_mul(self.cfg.monitor_timeout_rtts as u64)
    }

    fn start_monitor(&mut self, now: Instant) {
        self.enter(now, RateState::Monitor);
        let len = self.cfg.initial_burst_pkts.max(1) as u64 * self.mss as u64;
        // The data already in flight is delivered before the burst (4.1.4: "a small burst of
        // n packets is sent ... we wait for the feedback from the initial small burst").
        self.probe = Some(BurstProbe::new(self.in_flight, len));
        self.burst_remaining = len;
    }

    fn check_drain_timeout(&mut self, now: Instant) {
        if self.state == RateState::BufferDrain
            && now.saturating_since(self.state_since) >= self.monitor_timeout()
        {
            self.start_monitor(now);
        }
    }

    /// A data segment left: count it in the tick, and start the tick clock if it is not
    /// running (the first send, or the first after an idle spell: the ticks skipped while
    /// idle are replayed as empty ones, up to [`MAX_IDLE_TICKS`], so a forecaster's belief
    /// spreads for the time that passed).
    fn tick_on_sent(&mut self, now: Instant, bytes: u32) {
        let Some(t) = self.ticker.as_mut() else {
            return;
        };
        if t.next.is_none() {
            let interval = t.interval;
            if let Some(idle) = t.idle_since.take() {
                let skipped = (now.saturating_since(idle).as_nanos() / interval.as_nanos())
                    .min(MAX_IDLE_TICKS);
                for i in 0..skipped {
                    let start = idle + interval * i;
                    let rec = TickRecord {
                        start,
                        end: start + interval,
                        ..Default::default()
                    };
                    let ctx = self.ctx(rec.end);
                    self.alg.on_tick(&rec, &ctx);
                }
            }
            let t = self.ticker.as_mut().expect("ticker");
            t.cur = TickRecord {
                start: now,
                in_flight_at_start: self.in_flight.saturating_sub(bytes as u64),
                ..Default::default()
            };
            t.next = Some(now + interval);
        }
        let t = self.ticker.as_mut().expect("ticker");
        t.cur.bytes_sent += bytes as u64;
    }

    /// Every tick due by `now`, in order: the module sees the tick's record and may return a
    /// new rho, then (once, after the last) the transitions a new rho allows and `get_rate`.
    fn run_ticks(&mut self, now: Instant) {
        let mut ran = false;
        while let Some(t) = self.ticker.as_mut() {
            let Some(end) = t.next.filter(|&e| e <= now) else {
                break;
            };
            let mut rec = t.cur;
            rec.end = end;
            let idle = rec.bytes_sent == 0 && rec.bytes_delivered == 0 && self.in_flight == 0;
            if idle {
                // Nothing to observe until the next send; ticking on would only keep a
                // finished flow's timer alive for the rest of the run.
                t.next = None;
                t.idle_since = Some(end);
            } else {
                t.next = Some(end + t.interval);
                t.cur = TickRecord {
                    start: end,
                    in_flight_at_start: self.in_flight,
                    ..Default::default()
                };
            }
            let ctx = self.ctx(end);
            if let Some(r) = self.alg.on_tick(&rec, &ctx) {
                // As for `update`: a Monitor probe's rho' decides while it is outstanding.
                if self.state != RateState::Monitor {
                    self.rho = Some(self.perturb(r));
                }
            }
            ran = true;
        }
        if !ran {
            return;
        }
        if self.state == RateState::SlowStart && self.rho.is_some() {
            // As on an ACK: the first estimate ends Slow Start.
            self.restart_after = Some(self.delivered.total() + self.in_flight);
            self.enter(now, RateState::BufferFill);
        }
        self.check_drain_timeout(now);
        self.refresh_rate(now);
    }

    /// When the module's next tick is due (`None`: no tick, or idle).
    pub fn next_tick_at(&self) -> Option<Instant> {
        self.ticker.as_ref().and_then(|t| t.next)
    }

    fn finish_probe(&mut self, now: Instant) {
        let Some(probe) = self.probe.as_ref() else {
            return;
        };
        let Some(result) = probe.result(self.clock.granularity()) else {
            return;
        };
        let min_rd = probe.min_rd();
        let rho = self.rho.unwrap_or(Bandwidth::ZERO);
        let bar = rho.as_bps() as f64 * self.cfg.monitor_accept_ratio;
        let (measured, new_rho) = match result {
            ProbeResult::Rate(r) => (r, Some(r)),
            // Faster than one tick can resolve: a lower bound only, rho stays.
            ProbeResult::AtLeast(r) => (r, None),
        };
        if let Some(r) = new_rho {
            self.rho = Some(r);
            self.alg.set_rho(r);
        }
        if measured.as_bps() as f64 >= bar {
            // "the buffer is either empty or a competing flow reduced the rate momentarily.
            // Either way, RD_min is updated and the state is switched back to buffer fill".
            if let Some(rd) = min_rd {
                self.delay.reset_min(rd);
            }
            self.enter(now, RateState::BufferFill);
        } else {
            // "We return to the buffer drain state with the updated rho = rho' without
            // changing RD_min."
            self.enter(now, RateState::BufferDrain);
        }
    }
}

impl<A: RateAlgorithm + Clone> CongestionControl for RateFramework<A> {
    fn name(&self) -> &'static str {
        self.alg.name()
    }

    fn on_packet_sent(&mut self, now: Instant, bytes: u32, in_flight: u64, _retransmit: bool) {
        self.in_flight = in_flight;
        self.tick_on_sent(now, bytes);
        self.burst_remaining = self.burst_remaining.saturating_sub(bytes as u64);
        self.check_drain_timeout(now);
        self.refresh_rate(now);
    }

    fn on_ack(&mut self, now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        self.in_flight = ack.in_flight;
        if let Some(r) = ack.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            // RFC 6298 SRTT (gain 1/8), kept here so the framework does not depend on the
            // endpoint's estimator internals.
            self.srtt = Some(match self.srtt {
                None => r,
                Some(s) => Duration((s.as_nanos() * 7 + r.as_nanos()) / 8),
            });
        }
        let delivered = self.delivered.on_ack(ack, self.mss);
        let newly_acked = ack.bytes_acked + ack.bytes_sacked > 0;
        let mut t_buff = None;
        if let Some(tsval) = ack.peer_tsval {
            let t_ns = self.clock.to_ns(tsval);
            // RD only from an ACK that newly acknowledges data: a duplicate ACK echoes the
            // TSval of the last in-sequence segment (4.1.3), whose send time is stale.
            // Nor from an ACK that reports an earlier transmission than the retransmission
            // whose send time it would be paired with (a spurious retransmission, e.g. after
            // an uplink outage held the ACKs back past the RTO): that RD reads low by the
            // time between the two transmissions and, as a new RD_min, would make every
            // later t_buff read high by as much.
            let rd = match ack.echo_sent_at {
                Some(sent) if newly_acked && !ack.echo_earlier_transmission => {
                    Some(t_ns - sent.as_nanos() as i64)
                }
                _ => None,
            };
            if let Some(rd) = rd {
                self.delay.on_sample(rd);
                t_buff = self.delay.buffer_delay();
                if let Some(b) = t_buff {
                    let ctx = self.ctx(now);
                    self.alg.on_buffer_delay(b, &ctx);
                }
            }
            if let Some(t) = self.ticker.as_mut() {
                t.cur.bytes_delivered += delivered;
                t.cur.acks += 1;
                if let Some(b) = t_buff {
                    t.cur.min_buffer_delay = Some(t.cur.min_buffer_delay.map_or(b, |m| m.min(b)));
                }
            }
            if delivered > 0 {
                if self
                    .restart_after
                    .is_some_and(|m| self.delivered.total() > m)
                {
                    self.restart_after = None;
                    self.alg.restart_window();
                }
                if let Some(r) = self.alg.update(t_ns, delivered) {
                    // While a Monitor probe is outstanding its rho' decides; afterwards the
                    // module's estimate (re-seeded with rho') takes over again.
                    if self.state != RateState::Monitor {
                        self.rho = Some(self.perturb(r));
                    }
                }
            }
            if let Some(p) = self.probe.as_mut() {
                p.on_ack(t_ns, delivered, rd);
            }
        }

        match self.state {
            RateState::SlowStart => {
                if self.rho.is_some() {
                    self.restart_after = Some(self.delivered.total() + ack.in_flight);
                    self.enter(now, RateState::BufferFill);
                } else if self.burst_remaining == 0 && ack.in_flight == 0 {
                    // 4.1.1: "If n packets are not sufficient to estimate the rate, then n
                    // is doubled and another burst is sent."
                    self.burst_pkts = self.burst_pkts.saturating_mul(2);
                    // The next burst is measured on its own: a window reaching back into the
                    // previous one would span the idle RTT between them.
                    self.alg.restart_window();
                    self.burst_remaining = self.burst_pkts as u64 * self.mss as u64;
                }
            }
            RateState::BufferFill => {
                let rho = self.rho.unwrap_or(Bandwidth::ZERO);
                let (tf, _) = self.thresholds(rho, now);
                if t_buff.is_some_and(|b| b > tf) {
                    self.enter(now, RateState::BufferDrain);
                }
            }
            RateState::BufferDrain => {
                let rho = self.rho.unwrap_or(Bandwidth::ZERO);
                let (_, td) = self.thresholds(rho, now);
                if t_buff.is_some_and(|b| b < td) {
                    self.enter(now, RateState::BufferFill);
                } else {
                    self.check_drain_timeout(now);
                }
            }
            RateState::Monitor => {
                if self.probe.as_ref().is_some_and(|p| p.complete()) {
                    self.finish_probe(now);
                } else if self.burst_remaining > 0
                    && now.saturating_since(self.state_since) >= self.monitor_timeout()
                {
                    // Our guard, not the thesis's: a probe the application could not fill
                    // (less than n packets to send) never completes and must not pin the flow
                    // at sigma_m. A probe that went out waits for its feedback, as 4.1.4 says
                    // ("while we wait for the feedback from the initial small burst"): on a
                    // link that has stalled, giving up would mean Drain, then Monitor and
                    // another burst of n into the stalled link every few RTTs. If the
                    // feedback never comes, the retransmission timeout ends the wait.
                    self.enter(now, RateState::BufferDrain);
                }
            }
        }
        self.refresh_rate(now);
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        event: CongestionEvent,
        in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        self.in_flight = in_flight;
        match event {
            CongestionEvent::FastRecovery => {
                // 4.3.3: "to be conservative, we switch momentarily to Buffer Drain state
                // when we encounter a packet loss". Staying in Drain keeps its timer running,
                // so repeated losses lead on to Monitor. Slow Start has no rate to drain at.
                match self.state {
                    RateState::BufferFill | RateState::Monitor => {
                        self.enter(now, RateState::BufferDrain)
                    }
                    RateState::BufferDrain | RateState::SlowStart => {}
                }
            }
            CongestionEvent::Timeout => {
                // 4.1.1: "if there is a retransmission timeout, the stack returns to the
                // Slow Start state". RD_min is kept: the path's base delay is unchanged.
                self.enter(now, RateState::SlowStart);
                self.alg.reset();
                self.delivered.reset_credits();
                self.rho = None;
                // Every outstanding segment is deemed lost (RFC 6675 5.1): the pipe is empty,
                // whatever FlightSize the endpoint passed, and the restart burst is n packets.
                self.in_flight = 0;
                self.burst_pkts = self.cfg.initial_burst_pkts.max(1);
                self.burst_remaining = self.burst_pkts as u64 * self.mss as u64;
            }
        }
        self.refresh_rate(now);
    }

    /// F-RTO found the timeout spurious (RFC 5682, RFC 4015): leave the Slow Start that
    /// 4.1.1 prescribes for a timeout and resume the state, module and rate held before
    /// it. The measurements made since (receiver clock, delivered bytes, RD_min, RTTs,
    /// in-flight) are kept. The module's estimation window is kept too: it may span the stall
    /// that caused the timeout, and that is what the receiver saw (the estimator caps the
    /// window at 500 ms); restarting it would measure the burst that ends the stall, which
    /// on a cellular link is the backlog delivered at once, as the path's rate.
    fn on_spurious_timeout(&mut self, now: Instant, prior: &Self) {
        self.alg.undo_reset(&prior.alg);
        self.state = prior.state;
        self.epoch = prior.epoch;
        self.state_since = prior.state_since;
        self.rho = prior.rho;
        self.sigma = prior.sigma;
        self.burst_pkts = prior.burst_pkts;
        self.burst_remaining = prior.burst_remaining;
        self.probe = prior.probe.clone();
        self.restart_after = prior.restart_after;
        self.refresh_rate(now);
    }

    fn congestion_window(&self) -> u64 {
        if self.burst_remaining > 0 || self.state == RateState::SlowStart {
            // A burst goes out unpaced: exactly what is in flight plus the rest of the burst,
            // in whole segments (a short, application-limited segment must not leave a
            // remainder below one MSS that the sender's SWS avoidance could never send).
            let mss = self.mss.max(1) as u64;
            self.in_flight + self.burst_remaining.div_ceil(mss) * mss
        } else {
            UNBOUNDED_CWND
        }
    }

    fn ssthresh(&self) -> u64 {
        u64::MAX
    }

    fn pacing_rate(&self) -> Option<Bandwidth> {
        if self.state == RateState::SlowStart || self.burst_remaining > 0 {
            None
        } else {
            Some(self.sigma)
        }
    }

    fn wants_dup_acks(&self) -> bool {
        true
    }

    fn pacing_rounding(&self) -> Rounding {
        // 4.3.1: "round up this value in the Buffer Fill state and round down this value in
        // the Buffer Drain and Monitor states".
        if self.state == RateState::BufferFill {
            Rounding::Up
        } else {
            Rounding::Down
        }
    }

    fn next_tick(&self) -> Option<Instant> {
        self.next_tick_at()
    }

    fn on_tick(&mut self, now: Instant) {
        self.run_ticks(now);
    }
}

#[cfg(test)]
mod tests;
