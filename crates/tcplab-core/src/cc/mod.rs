//! Congestion control: the trait every algorithm implements and the enum of built-ins
//! (DESIGN.md "Congestion control is a trait"). The sender owns in-flight accounting and
//! loss recovery (RFC 6675 / RFC 6582); an algorithm only turns ACK and congestion signals
//! into a window (bytes) and, optionally, a pacing rate.

pub mod cubic;
pub mod cubic_ns2;
pub mod hystart;
pub mod newreno;
pub mod vegas;
pub mod vegas_ns2;
pub mod westwood;

use crate::rate::pacer::Rounding;
use crate::rate::{
    proprate, proprate_target, proteus_rate, rre, sprout, sprout_rate, RateFramework,
};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::TcpConfig;
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;
use serde::{Deserialize, Serialize};

/// What one ACK told the sender.
#[derive(Copy, Clone, Debug, Default)]
pub struct AckSample {
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub bytes_acked: u64,
    /// Bytes newly selectively acknowledged by this ACK.
    pub bytes_sacked: u64,
    /// The RTT sample this ACK produced (Karn's rule applied), if any.
    pub rtt: Option<Duration>,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: u64,
    /// Bytes in flight after.
    pub in_flight: u64,
    /// Whether the sender is in loss recovery (fast recovery) after this ACK, or the ACK
    /// carried ECN-Echo on an ECN connection: RFC 3168 6.1.2 forbids growing the window in
    /// response to one, and the window-based algorithms grow on no recovery ACK.
    pub in_recovery: bool,
    /// Whether the sender had less data than the window allowed (application-limited).
    pub app_limited: bool,
    /// `cwnd_limited_growth` only (Linux `tcp_is_cwnd_limited`): the window did not limit
    /// the sender over the last window of data (the peer's window or the application did),
    /// so the window-based algorithms do not grow it.
    pub not_cwnd_limited: bool,
    /// The peer's TSval on this ACK (RFC 7323), for delay-based estimators.
    pub peer_tsval: Option<u32>,
    // --- Filled for the rate-based framework (crate::rate); Default-able, ignored by the
    // window-based algorithms. See crate::rate for the full contract.
    /// This ACK is a duplicate ACK (RFC 5681 section 2: acknowledges nothing new, no data,
    /// same window). Only delivered to algorithms whose `wants_dup_acks()` is true.
    pub dup_ack: bool,
    /// This ACK carried at least one SACK block (new or not). A duplicate ACK without SACK
    /// blocks is counted as one MSS received (thesis section 4.1.2).
    pub has_sack_blocks: bool,
    /// The part of `bytes_acked` that had already been SACKed by earlier ACKs, so the
    /// receiver's newly received bytes are `bytes_acked - this + bytes_sacked`.
    pub bytes_acked_previously_sacked: u64,
    /// The sender's send time (its last transmission) of the data segment whose arrival this
    /// ACK reports: the latest-sent segment newly acknowledged by it (cumulatively or by
    /// SACK). `None` when the ACK newly acknowledges nothing. RD = TSval - this (thesis 4.1.3).
    pub echo_sent_at: Option<Instant>,
    /// `echo_sent_at` is the retransmission of a segment whose report this ACK is not: its
    /// TSecr predates that retransmission (RFC 3522 Eifel detection), so the receiver
    /// reported an earlier transmission (a spurious retransmission), and RD = TSval -
    /// `echo_sent_at` would pair the receiver's time with the wrong send time.
    pub echo_earlier_transmission: bool,
}

impl AckSample {
    /// Bytes this ACK newly reports delivered, cumulatively or by SACK, each byte once
    /// (RFC 6937's DeliveredData; Linux's `tcp_newly_delivered`).
    pub fn delivered(&self) -> u64 {
        self.bytes_acked - self.bytes_acked_previously_sacked + self.bytes_sacked
    }
}

/// Why the window must shrink.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CongestionEvent {
    /// Entering fast recovery (3 duplicate ACKs or the RFC 6675 loss rule).
    FastRecovery,
    /// Retransmission timeout.
    Timeout,
}

/// A congestion controller. Called by the sender; all byte counts are payload bytes.
pub trait CongestionControl {
    fn name(&self) -> &'static str;
    /// A segment of `bytes` left the sender; `in_flight` includes it.
    fn on_packet_sent(&mut self, _now: Instant, _bytes: u32, _in_flight: u64, _retransmit: bool) {}
    /// An ACK that advanced the cumulative point or SACKed new data (not during recovery
    /// unless the algorithm wants recovery ACKs: check `ack.in_recovery`).
    fn on_ack(&mut self, now: Instant, ack: &AckSample, rtt: &RttEstimator);
    /// A congestion signal. `in_flight` is the sender's estimate at the time (RFC 5681
    /// FlightSize for ssthresh).
    fn on_congestion_event(
        &mut self,
        now: Instant,
        event: CongestionEvent,
        in_flight: u64,
        rtt: &RttEstimator,
    );
    /// Fast recovery ended (the recovery point was acknowledged).
    fn on_recovery_exit(&mut self, _now: Instant) {}
    /// `recovery = "ns2_linux"`: the end of a recovery, or of the loss state after a
    /// timeout, in ns-2.35's TCP-Linux (tcp/tcp-linux.cc `tcp_fastretrans_alert`): a
    /// window below ssthresh is raised to ssthresh and then moderated to at most `limit`
    /// bytes (`tcp_moderate_cwnd`: in flight plus `tcp_max_burst` segments); a window at
    /// or above ssthresh stays. The window-based controllers implement it; the default,
    /// for the rate-based ones (which have no window), is [`Self::on_recovery_exit`].
    fn ns2_linux_recovery_exit(&mut self, now: Instant, _limit: u64) {
        self.on_recovery_exit(now)
    }
    /// F-RTO (RFC 5682) found the last retransmission timeout spurious: undo the reaction
    /// to its `Timeout` event. `prior` is this controller as it was just before that event
    /// (the endpoint clones it there). The default is the RFC 4015 / Linux undo: restore
    /// the pre-timeout state, cwnd and ssthresh included, as if the timeout had not fired;
    /// the few ACKs seen in between (at most two under F-RTO) are forgotten.
    fn on_spurious_timeout(&mut self, _now: Instant, prior: &Self)
    where
        Self: Sized + Clone,
    {
        *self = prior.clone();
    }
    /// The window in bytes.
    fn congestion_window(&self) -> u64;
    /// Slow-start threshold in bytes (u64::MAX while unset).
    fn ssthresh(&self) -> u64;
    /// A pacing rate; `None` means ACK-clocked bursts.
    fn pacing_rate(&self) -> Option<Bandwidth> {
        None
    }
    /// Whether `on_ack` must also be called for duplicate ACKs (with `dup_ack` set) and
    /// during recovery: the rate-based framework counts every ACK's TSval (thesis 4.1.2).
    fn wants_dup_acks(&self) -> bool {
        false
    }
    /// How a [`crate::rate::pacer::Pacer`] should round send times at `pacing_rate()`
    /// (thesis 4.3.1: up in Buffer Fill, down in Buffer Drain and Monitor).
    fn pacing_rounding(&self) -> Rounding {
        Rounding::Down
    }
    /// When the controller next wants [`Self::on_tick`] called, whether or not an ACK comes
    /// (thesis 4.2.2: `get_rate` "is called at every kernel tick to allow the congestion
    /// algorithm to adjust the sending rate even when there are no updates from the
    /// receiver"). `None`, the default, is no tick: the endpoint then arms no timer, so a
    /// controller without a tick runs exactly as before the hook existed.
    fn next_tick(&self) -> Option<Instant> {
        None
    }
    /// The tick asked for by [`Self::next_tick`] is due (`now` >= it; the endpoint calls it
    /// from its timer table, once per expiry, and the controller catches up on every tick
    /// due by `now`).
    fn on_tick(&mut self, _now: Instant) {}
}

/// Which built-in algorithm a flow uses (scenario key `cc`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    #[default]
    NewReno,
    Cubic,
    Vegas,
    Westwood,
    Rre,
    #[serde(rename = "proprate-high")]
    PropRateHigh,
    #[serde(rename = "proprate-low")]
    PropRateLow,
    /// The RRE row of thesis Table 6.1, which chapter 6 ran on its traces: T = 40 ms and
    /// sigma_{f,d} = (1 -+ 20 / (40 + RTT)) rho, in place of chapter 5's packet-based T
    /// (at least 30 packets) and B_max / B_min (at least +-10 packets).
    #[serde(rename = "rre-table6.1")]
    RreTable61,
    /// PropRate with the flow's own threshold and gains (`TcpConfig::proprate_threshold`,
    /// `proprate_k_fill`, `proprate_k_drain`; section 6.2.5's parameter sweeps). The
    /// defaults are PropRate (High)'s.
    #[serde(rename = "proprate")]
    PropRate,
    /// Sprout-Rate (thesis 6.1.3, Table 6.1): Sprout's stochastic forecast at 100 ms ticks as
    /// the rate module, with the flow's `sprout_*` keys (`TcpConfig::sprout_percentile`...).
    #[serde(rename = "sprout-rate")]
    SproutRate,
    /// PropRate for a delay target (our extension of thesis 7.1.1, `rate::proprate_target`):
    /// T and k_d tuned online so that the sender's estimate of the 95th-percentile one-way
    /// delay meets `TcpConfig::proprate_target_delay`.
    #[serde(rename = "proprate-target")]
    PropRateTarget,
    /// PROTEUS-Rate (thesis 6.1.2, Table 6.1): PROTEUS's regression-tree forecast of the next
    /// 500 ms window's throughput as rho, with the flow's `proteus_*` keys.
    #[serde(rename = "proteus-rate")]
    ProteusRate,
    /// Sprout itself (Winstein et al., NSDI 2013; the thesis' baseline, 6.1.3): the
    /// receiver's stochastic forecast on 20 ms ticks, sent back in our TCP option, and a
    /// window of the forecast over `sprout_target_delay` minus the estimated queue
    /// (`rate::sprout`). Both ends must offer the option (both `cc = "sprout"`); without
    /// it the sender falls back to CUBIC.
    #[serde(rename = "sprout")]
    Sprout,
}

impl CcKind {
    /// RRE, PropRate and Sprout-Rate: the rate-based framework of the thesis (crate::rate).
    pub fn is_rate_based(self) -> bool {
        matches!(
            self,
            CcKind::Rre
                | CcKind::PropRateHigh
                | CcKind::PropRateLow
                | CcKind::RreTable61
                | CcKind::PropRate
                | CcKind::SproutRate
                | CcKind::PropRateTarget
                | CcKind::ProteusRate
        )
    }
}

/// Slow start's growth on one ACK of `acked` bytes (RFC 5681 3.1 with RFC 3465's limit).
/// `limit` is L x SMSS: cwnd += min(acked, L x SMSS), which may overshoot ssthresh by up to
/// L segments as the RFCs allow. `None` is Linux's `tcp_slow_start` (`abc_limit_pkts = 0`):
/// cwnd += acked but no further than ssthresh, and the acknowledged bytes beyond that go on
/// to congestion avoidance (returned as the second value), so that one cumulative ACK of a
/// whole recovered window cannot lift cwnd above ssthresh.
///
/// Linux counts what the ACK newly delivered ([`AckSample::delivered`]), not what it
/// acknowledged cumulatively: segments SACKed earlier were counted when they were SACKed,
/// so the cumulative ACK that fills the last hole of a recovery (and may cover megabytes
/// of SACKed data) counts only the retransmissions.
pub(crate) fn slow_start(
    cwnd: u64,
    ssthresh: u64,
    ack: &AckSample,
    limit: Option<u64>,
) -> (u64, u64) {
    match limit {
        Some(l) => (cwnd + ack.bytes_acked.min(l), 0),
        None => {
            let acked = ack.delivered();
            let grown = cwnd.saturating_add(acked).min(ssthresh.max(cwnd));
            (grown, acked - (grown - cwnd))
        }
    }
}

/// RFC 3465's L in segments as a byte limit: 0 is no limit (Linux), see [`slow_start`].
pub(crate) fn abc_byte_limit(l: u32, mss: u64) -> Option<u64> {
    (l > 0).then(|| l as u64 * mss)
}

/// Static dispatch over the built-ins: no virtual call on the hot path. The rate-based
/// framework (about 520 bytes) is boxed, once per flow: inline it would make every
/// controller, and so every endpoint, that large (issue 18: memory per flow); the
/// window-based ones stay inline (at most 128 bytes).
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(newreno::NewReno),
    Cubic(cubic::Cubic),
    /// `cc = "cubic"` with `cubic_variant = "ns2"`.
    CubicNs2(cubic_ns2::CubicNs2),
    Vegas(vegas::Vegas),
    /// `cc = "vegas"` with `vegas_variant = "ns2"`.
    VegasNs2(vegas_ns2::VegasNs2),
    Westwood(westwood::Westwood),
    Rre(Box<RateFramework<rre::Rre>>),
    PropRate(Box<RateFramework<proprate::PropRate>>),
    SproutRate(Box<RateFramework<sprout_rate::SproutRate>>),
    PropRateTarget(Box<RateFramework<proprate_target::PropRateTarget>>),
    ProteusRate(Box<RateFramework<proteus_rate::ProteusRate>>),
    Sprout(Box<sprout::Sprout>),
}

/// Sprout's parameters from the flow's keys (both halves read them: the receiver's
/// forecaster and the sender's window). The tick is the original's 20 ms, not
/// `sprout_tick` (Sprout-Rate's 100 ms port): the option carries eight ticks' forecast and
/// the target delay is counted in them.
pub fn sprout_config(cfg: &TcpConfig) -> sprout::SproutConfig {
    let mut c = sprout::SproutConfig::original();
    c.forecast.percentile = cfg.sprout_percentile / 100.0;
    c.forecast.sigma = cfg.sprout_sigma;
    c.forecast.max_rate = cfg.sprout_max_rate;
    c.target_delay = cfg.sprout_target_delay;
    c
}

impl Cc {
    /// A controller with initial window `initial_cwnd_bytes` for segments of `mss` bytes and
    /// the default per-algorithm settings.
    pub fn new(kind: CcKind, mss: u32, initial_cwnd_bytes: u64) -> Self {
        Self::with_config(kind, mss, initial_cwnd_bytes, &TcpConfig::default())
    }

    /// [`Cc::new`] with the flow's per-algorithm settings from `cfg`: RFC 3465's L for the
    /// window-based ones, `cc = "cubic"`'s variant and HyStart, RRE's feedback delay,
    /// `cc = "rre-table6.1"`'s T, B_max and B_min, and `cc = "proprate"`'s threshold and
    /// gains. (The seeded rate-error injection is set
    /// separately, with the seed.)
    pub fn with_config(kind: CcKind, mss: u32, initial_cwnd_bytes: u64, cfg: &TcpConfig) -> Self {
        let prop = |c: proprate::PropRateConfig| {
            Cc::PropRate(Box::new(RateFramework::new(
                mss,
                proprate::PropRate::new(c),
            )))
        };
        let mut cc = match kind {
            CcKind::NewReno => Cc::NewReno(newreno::NewReno::new(mss, initial_cwnd_bytes)),
            CcKind::Cubic => match cfg.cubic_variant {
                cubic::CubicVariant::Rfc9438 => Cc::Cubic(cubic::Cubic::with_hystart(
                    mss,
                    initial_cwnd_bytes,
                    cfg.hystart,
                )),
                cubic::CubicVariant::Ns2 => Cc::CubicNs2(cubic_ns2::CubicNs2::new(
                    mss,
                    initial_cwnd_bytes,
                    cfg.hystart,
                )),
            },
            CcKind::Vegas => match cfg.vegas_variant {
                vegas::VegasVariant::Linux => Cc::Vegas(vegas::Vegas::new(mss, initial_cwnd_bytes)),
                vegas::VegasVariant::Ns2 => {
                    Cc::VegasNs2(vegas_ns2::VegasNs2::new(mss, initial_cwnd_bytes))
                }
            },
            CcKind::Westwood => Cc::Westwood(westwood::Westwood::new(mss, initial_cwnd_bytes)),
            // The rate-based framework has no initial window: it starts with a burst of
            // n = 10 packets (thesis 4.1.5).
            CcKind::Rre => Cc::Rre(Box::new(RateFramework::new(
                mss,
                rre::Rre::new(rre::RreConfig {
                    feedback_delay: cfg.rre_feedback_delay,
                    ..Default::default()
                }),
            ))),
            CcKind::PropRateHigh => prop(proprate::PropRateConfig::high()),
            CcKind::PropRateLow => prop(proprate::PropRateConfig::low()),
            CcKind::RreTable61 => prop(proprate::PropRateConfig::rre_time_based(
                cfg.rre_threshold,
                cfg.rre_b_max,
                cfg.rre_b_min,
            )),
            CcKind::PropRate => prop(proprate::PropRateConfig::custom(
                cfg.proprate_threshold,
                cfg.proprate_k_fill,
                cfg.proprate_k_drain,
            )),
            CcKind::SproutRate => {
                let mut c = sprout_rate::SproutRateConfig::table_6_1();
                c.forecast.percentile = cfg.sprout_percentile / 100.0;
                c.forecast.tick = cfg.sprout_tick;
                c.forecast.sigma = cfg.sprout_sigma;
                c.forecast.max_rate = cfg.sprout_max_rate;
                c.threshold = cfg.sprout_threshold;
                c.k_fill = cfg.sprout_k_fill;
                c.k_drain = cfg.sprout_k_drain;
                Cc::SproutRate(Box::new(RateFramework::new(
                    mss,
                    sprout_rate::SproutRate::new(c),
                )))
            }
            CcKind::PropRateTarget => Cc::PropRateTarget(Box::new(RateFramework::new(
                mss,
                proprate_target::PropRateTarget::new(proprate_target::PropRateTargetConfig::new(
                    cfg.proprate_target_delay,
                )),
            ))),
            CcKind::ProteusRate => Cc::ProteusRate(Box::new(RateFramework::new(
                mss,
                proteus_rate::ProteusRate::new(proteus_rate::ProteusRateConfig::custom(
                    cfg.proteus_window,
                    cfg.proteus_history as usize,
                    cfg.proteus_threshold,
                    cfg.proteus_k_fill,
                    cfg.proteus_k_drain,
                )),
            ))),
            CcKind::Sprout => Cc::Sprout(Box::new(sprout::Sprout::new(
                sprout_config(cfg),
                mss,
                initial_cwnd_bytes,
            ))),
        };
        cc.set_abc_limit(cfg.abc_limit_pkts);
        if let Cc::NewReno(c) = &mut cc {
            c.carry_remainder = cfg.ca_exact_increase;
        }
        cc
    }

    /// Whether this controller may ask for a tick ([`CongestionControl::next_tick`]): the
    /// rate-based framework and Sprout. The endpoint asks the others nothing on every input.
    pub fn has_tick(&self) -> bool {
        matches!(
            self,
            Cc::Rre(_)
                | Cc::PropRate(_)
                | Cc::SproutRate(_)
                | Cc::PropRateTarget(_)
                | Cc::ProteusRate(_)
                | Cc::Sprout(_)
        )
    }

    /// Rate-based controllers: inject a seeded error of coefficient of variation `cv` into
    /// every receive-rate estimate (thesis 6.2.4), drawn from
    /// `Rng::derive(seed, component, "rate-estimation-error")`. No-op for window-based ones.
    pub fn set_rate_error(&mut self, cv: f64, seed: u64, component: u64) {
        match self {
            Cc::Rre(c) => c.set_rate_error(cv, seed, component),
            Cc::PropRate(c) => c.set_rate_error(cv, seed, component),
            Cc::SproutRate(c) => c.set_rate_error(cv, seed, component),
            Cc::PropRateTarget(c) => c.set_rate_error(cv, seed, component),
            Cc::ProteusRate(c) => c.set_rate_error(cv, seed, component),
            _ => {}
        }
    }

    /// Window-based controllers: slow start grows by at most `l` segments per ACK (RFC 3465's
    /// L; 1 = RFC 5681). No-op for the rate-based ones, which have no window to grow.
    /// RFC 3465's L in segments; 0 is no limit (Linux `tcp_slow_start`: cwnd grows by
    /// every segment an ACK covers, up to ssthresh).
    pub fn set_abc_limit(&mut self, l: u32) {
        match self {
            Cc::NewReno(c) => c.set_abc_limit(l),
            Cc::Cubic(c) => c.set_abc_limit(l),
            // ns-2's CUBIC counts whole segments (its `tcp_abc` cases); 0 is every one.
            Cc::CubicNs2(c) => c.set_abc_limit(if l == 0 { u32::MAX } else { l }),
            Cc::Vegas(c) => c.set_abc_limit(l),
            // ns-2's module runs its own `tcp_abc` = 1 (vegas_ns2.rs).
            Cc::VegasNs2(_) => {}
            Cc::Westwood(c) => c.set_abc_limit(l),
            Cc::Rre(_)
            | Cc::PropRate(_)
            | Cc::SproutRate(_)
            | Cc::PropRateTarget(_)
            | Cc::ProteusRate(_)
            | Cc::Sprout(_) => {}
        }
    }

    /// The rate-based framework's state (thesis Figure 4.2(b)); None for window-based ones.
    pub fn rate_state(&self) -> Option<crate::rate::RateState> {
        match self {
            Cc::Rre(c) => Some(c.state()),
            Cc::PropRate(c) => Some(c.state()),
            Cc::SproutRate(c) => Some(c.state()),
            Cc::PropRateTarget(c) => Some(c.state()),
            Cc::ProteusRate(c) => Some(c.state()),
            _ => None,
        }
    }

    /// The rate-based framework's RD_min (thesis 4.1.3, ns on the two clocks' offset scale).
    pub fn rate_rd_min(&self) -> Option<i64> {
        match self {
            Cc::Rre(c) => c.rd_min(),
            Cc::PropRate(c) => c.rd_min(),
            Cc::SproutRate(c) => c.rd_min(),
            Cc::PropRateTarget(c) => c.rd_min(),
            Cc::ProteusRate(c) => c.rd_min(),
            _ => None,
        }
    }

    /// The rate-based framework's receive-rate estimate rho and sending rate sigma.
    pub fn rate_estimates(&self) -> Option<(Option<Bandwidth>, Bandwidth)> {
        match self {
            Cc::Rre(c) => Some((c.rho(), c.sigma())),
            Cc::PropRate(c) => Some((c.rho(), c.sigma())),
            Cc::SproutRate(c) => Some((c.rho(), c.sigma())),
            Cc::PropRateTarget(c) => Some((c.rho(), c.sigma())),
            Cc::ProteusRate(c) => Some((c.rho(), c.sigma())),
            _ => None,
        }
    }

    /// Tell a rate-based controller the tick of the receiver's TSval clock (the sender
    /// cannot read it off the wire; tcplab scenarios configure both ends alike, so the
    /// endpoint passes its `TcpConfig::ts_granularity`). No-op for window-based ones.
    pub fn set_peer_ts_granularity(&mut self, g: Duration) {
        match self {
            Cc::Rre(c) => c.set_peer_ts_granularity(g),
            Cc::PropRate(c) => c.set_peer_ts_granularity(g),
            Cc::SproutRate(c) => c.set_peer_ts_granularity(g),
            Cc::PropRateTarget(c) => c.set_peer_ts_granularity(g),
            Cc::ProteusRate(c) => c.set_peer_ts_granularity(g),
            _ => {}
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::CubicNs2($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::VegasNs2($c) => $e,
            Cc::Westwood($c) => $e,
            Cc::Rre($c) => $e,
            Cc::PropRate($c) => $e,
            Cc::SproutRate($c) => $e,
            Cc::PropRateTarget($c) => $e,
            Cc::ProteusRate($c) => $e,
            Cc::Sprout($c) => $e,
        }
    };
}

impl Cc {
    /// [`CongestionControl::on_packet_sent`] for the controllers that observe sends.
    #[inline(never)]
    fn on_packet_sent_dispatch(
        &mut self,
        now: Instant,
        bytes: u32,
        in_flight: u64,
        retransmit: bool,
    ) {
        dispatch!(self, c => c.on_packet_sent(now, bytes, in_flight, retransmit))
    }
}

impl CongestionControl for Cc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    /// Called for every segment sent. NewReno, CUBIC and Westwood keep the trait's empty
    /// default, so for them the test stays in the caller and no call is made (the
    /// out-of-line dispatch cost ~20 instructions per packet on dumbbell-10).
    #[inline]
    fn on_packet_sent(&mut self, now: Instant, bytes: u32, in_flight: u64, retransmit: bool) {
        match self {
            Cc::NewReno(_) | Cc::Cubic(_) | Cc::CubicNs2(_) | Cc::Westwood(_) => {}
            _ => self.on_packet_sent_dispatch(now, bytes, in_flight, retransmit),
        }
    }
    fn on_ack(&mut self, now: Instant, ack: &AckSample, rtt: &RttEstimator) {
        dispatch!(self, c => c.on_ack(now, ack, rtt))
    }
    fn on_congestion_event(
        &mut self,
        now: Instant,
        event: CongestionEvent,
        in_flight: u64,
        rtt: &RttEstimator,
    ) {
        dispatch!(self, c => c.on_congestion_event(now, event, in_flight, rtt))
    }
    fn on_recovery_exit(&mut self, now: Instant) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
    fn ns2_linux_recovery_exit(&mut self, now: Instant, limit: u64) {
        dispatch!(self, c => c.ns2_linux_recovery_exit(now, limit))
    }
    /// Undoes a spurious timeout when `prior` is the same algorithm (it always is: the
    /// endpoint takes the snapshot from this controller); otherwise does nothing.
    fn on_spurious_timeout(&mut self, now: Instant, prior: &Self) {
        match (self, prior) {
            (Cc::NewReno(c), Cc::NewReno(p)) => c.on_spurious_timeout(now, p),
            (Cc::Cubic(c), Cc::Cubic(p)) => c.on_spurious_timeout(now, p),
            (Cc::CubicNs2(c), Cc::CubicNs2(p)) => c.on_spurious_timeout(now, p),
            (Cc::Vegas(c), Cc::Vegas(p)) => c.on_spurious_timeout(now, p),
            (Cc::VegasNs2(c), Cc::VegasNs2(p)) => c.on_spurious_timeout(now, p),
            (Cc::Westwood(c), Cc::Westwood(p)) => c.on_spurious_timeout(now, p),
            (Cc::Rre(c), Cc::Rre(p)) => c.on_spurious_timeout(now, p),
            (Cc::PropRate(c), Cc::PropRate(p)) => c.on_spurious_timeout(now, p),
            (Cc::SproutRate(c), Cc::SproutRate(p)) => c.on_spurious_timeout(now, p),
            (Cc::PropRateTarget(c), Cc::PropRateTarget(p)) => c.on_spurious_timeout(now, p),
            (Cc::ProteusRate(c), Cc::ProteusRate(p)) => c.on_spurious_timeout(now, p),
            (Cc::Sprout(c), Cc::Sprout(p)) => c.on_spurious_timeout(now, p),
            _ => {}
        }
    }
    fn congestion_window(&self) -> u64 {
        dispatch!(self, c => c.congestion_window())
    }
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    fn pacing_rate(&self) -> Option<Bandwidth> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn wants_dup_acks(&self) -> bool {
        dispatch!(self, c => c.wants_dup_acks())
    }
    fn pacing_rounding(&self) -> Rounding {
        dispatch!(self, c => c.pacing_rounding())
    }
    fn next_tick(&self) -> Option<Instant> {
        dispatch!(self, c => c.next_tick())
    }
    fn on_tick(&mut self, now: Instant) {
        dispatch!(self, c => c.on_tick(now))
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;
    use crate::tcp::rtt::RttEstimator;

    #[test]
    fn with_config_applies_the_proprate_keys_to_cc_proprate_only() {
        let cfg = TcpConfig {
            proprate_threshold: Duration::from_millis(35),
            proprate_k_fill: 1.5,
            proprate_k_drain: 0.4,
            ..Default::default()
        };
        let params = |kind| match Cc::with_config(kind, 1448, 14480, &cfg) {
            Cc::PropRate(c) => {
                let p = *c.algorithm().config();
                (p.t_fill, p.t_drain, p.k_fill, p.k_drain)
            }
            _ => unreachable!(),
        };
        let t = Duration::from_millis;
        assert_eq!(
            params(CcKind::PropRate),
            (
                t(35),
                t(35),
                proprate::Gain::Fixed(1.5),
                proprate::Gain::Fixed(0.4)
            )
        );
        // The Table 6.1 presets keep their own values.
        assert_eq!(
            params(CcKind::PropRateLow),
            (
                t(20),
                t(20),
                proprate::Gain::Fixed(1.25),
                proprate::Gain::Fixed(0.25)
            )
        );
        // rre-table6.1 takes T, B_max and B_min; its defaults are the Table 6.1 row.
        let rre = TcpConfig {
            rre_threshold: Duration::from_millis(30),
            rre_b_max: Duration::from_millis(70),
            rre_b_min: Duration::from_millis(25),
            ..Default::default()
        };
        match Cc::with_config(CcKind::RreTable61, 1448, 14480, &rre) {
            Cc::PropRate(c) => assert_eq!(
                *c.algorithm().config(),
                proprate::PropRateConfig::rre_time_based(t(30), t(70), t(25))
            ),
            _ => unreachable!(),
        }
        match Cc::with_config(CcKind::RreTable61, 1448, 14480, &TcpConfig::default()) {
            Cc::PropRate(c) => {
                assert_eq!(
                    *c.algorithm().config(),
                    proprate::PropRateConfig::rre_table_6_1()
                )
            }
            _ => unreachable!(),
        }
        // The defaults make `proprate` PropRate (High).
        let high = Cc::with_config(CcKind::PropRate, 1448, 14480, &TcpConfig::default());
        match high {
            Cc::PropRate(c) => {
                assert_eq!(*c.algorithm().config(), proprate::PropRateConfig::high())
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn with_config_applies_the_sprout_keys_to_cc_sprout_rate() {
        use crate::rate::sprout_rate::SproutRateConfig;
        let params = |cfg: &TcpConfig| match Cc::with_config(CcKind::SproutRate, 1448, 14480, cfg) {
            Cc::SproutRate(c) => *c.algorithm().config(),
            _ => unreachable!(),
        };
        // The defaults are Table 6.1's row with the thesis's 100 ms port.
        assert_eq!(params(&TcpConfig::default()), SproutRateConfig::table_6_1());
        let cfg = TcpConfig {
            sprout_percentile: 25.0,
            sprout_tick: Duration::from_millis(20),
            sprout_sigma: 100.0,
            sprout_max_rate: 5000.0,
            sprout_threshold: Duration::from_millis(20),
            sprout_k_fill: 1.5,
            sprout_k_drain: 0.25,
            ..Default::default()
        };
        let p = params(&cfg);
        assert_eq!(
            (p.threshold, p.k_fill, p.k_drain),
            (Duration::from_millis(20), 1.5, 0.25)
        );
        let f = p.forecast;
        assert_eq!(
            (
                f.percentile,
                f.tick,
                f.sigma,
                f.max_rate,
                f.bins,
                f.horizon_ticks
            ),
            (0.25, Duration::from_millis(20), 100.0, 5000.0, 256, 8)
        );
        let c = Cc::with_config(CcKind::SproutRate, 1448, 14480, &cfg);
        assert_eq!(c.name(), "sprout-rate");
        assert!(c.wants_dup_acks() && CcKind::SproutRate.is_rate_based());
    }

    #[test]
    fn with_config_applies_the_target_delay_to_cc_proprate_target() {
        let cfg = TcpConfig {
            proprate_target_delay: Duration::from_millis(150),
            ..Default::default()
        };
        let c = Cc::with_config(CcKind::PropRateTarget, 1448, 14480, &cfg);
        match &c {
            Cc::PropRateTarget(f) => {
                assert_eq!(f.algorithm().config().target, Duration::from_millis(150));
                // The controller runs on the framework's tick.
                assert!(f.next_tick_at().is_none());
            }
            _ => unreachable!(),
        }
        assert_eq!(c.name(), "proprate-target");
        assert!(c.wants_dup_acks() && CcKind::PropRateTarget.is_rate_based());
        // The default target is 100 ms.
        match Cc::with_config(CcKind::PropRateTarget, 1448, 14480, &TcpConfig::default()) {
            Cc::PropRateTarget(f) => {
                assert_eq!(f.algorithm().config().target, Duration::from_millis(100))
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn with_config_applies_the_proteus_keys_to_cc_proteus_rate() {
        use crate::rate::proteus_rate::ProteusRateConfig;
        let params = |cfg: &TcpConfig| match Cc::with_config(CcKind::ProteusRate, 1448, 14480, cfg)
        {
            Cc::ProteusRate(c) => *c.algorithm().config(),
            _ => unreachable!(),
        };
        // The defaults are Table 6.1's row with PROTEUS's 500 ms x 64 windows.
        assert_eq!(
            params(&TcpConfig::default()),
            ProteusRateConfig::table_6_1()
        );
        let cfg = TcpConfig {
            proteus_window: Duration::from_millis(100),
            proteus_history: 16,
            proteus_threshold: Duration::from_millis(30),
            proteus_k_fill: 1.5,
            proteus_k_drain: 0.5,
            ..Default::default()
        };
        let p = params(&cfg);
        assert_eq!(
            (p.window, p.history, p.threshold, p.k_fill, p.k_drain),
            (
                Duration::from_millis(100),
                16,
                Duration::from_millis(30),
                1.5,
                0.5
            )
        );
        let c = Cc::with_config(CcKind::ProteusRate, 1448, 14480, &cfg);
        assert_eq!(c.name(), "proteus-rate");
        assert!(c.wants_dup_acks() && CcKind::ProteusRate.is_rate_based());
    }

    /// `abc_limit_pkts = 0` (Linux `tcp_slow_start`): one ACK covering a whole recovered
    /// window after a timeout grows cwnd to ssthresh, not by everything it acknowledged
    /// (before this rule, a 4 MB cumulative ACK lifted a 1-segment window to 4 MB), and
    /// counts only what it newly delivered.
    #[test]
    fn unlimited_abc_stops_slow_start_at_ssthresh() {
        let r = RttEstimator::default();
        for kind in [
            CcKind::NewReno,
            CcKind::Cubic,
            CcKind::Vegas,
            CcKind::Westwood,
        ] {
            let mut c = Cc::new(kind, 1000, 10_000);
            c.set_abc_limit(0);
            let now = crate::time::Instant::ZERO;
            c.on_congestion_event(now, CongestionEvent::Timeout, 20_000, &r);
            assert_eq!(c.congestion_window(), 1000, "{kind:?}");
            let ssthresh = c.ssthresh();
            assert!(ssthresh < 50_000, "{kind:?}: ssthresh {ssthresh}");
            // The retransmission fills the last hole below 4 MB the receiver had SACKed:
            // 50 kB newly delivered.
            let a = AckSample {
                bytes_acked: 4_000_000,
                bytes_acked_previously_sacked: 3_950_000,
                ..Default::default()
            };
            c.on_ack(now, &a, &r);
            let w = c.congestion_window();
            // At ssthresh, plus the congestion-avoidance growth of the 43 segments beyond it
            // (CUBIC's Reno-friendly W_est: alpha_cubic x 43 / 7 = 3.3 segments).
            assert!(
                w >= ssthresh && w <= ssthresh + 3500,
                "{kind:?}: cwnd {w}, ssthresh {ssthresh}"
            );
        }
    }

    #[test]
    fn abc_limit_bounds_slow_start_growth_per_ack_for_every_window_based_cc() {
        // RFC 3465 section 2.2: cwnd += min(N, L x SMSS). A delayed ACK of 2 segments and a
        // stretch ACK of 3: L = 1 grows 1 + 1 segments, L = 2 grows 2 + 2.
        let r = RttEstimator::default();
        for kind in [
            CcKind::NewReno,
            CcKind::Cubic,
            CcKind::Vegas,
            CcKind::Westwood,
        ] {
            for (l, want) in [(1, 12_000), (2, 14_000)] {
                let mut c = Cc::new(kind, 1000, 10_000);
                c.set_abc_limit(l);
                for n in [2_000, 3_000] {
                    let a = AckSample {
                        bytes_acked: n,
                        ..Default::default()
                    };
                    c.on_ack(crate::time::Instant::ZERO, &a, &r);
                }
                assert_eq!(c.congestion_window(), want, "{kind:?} L = {l}");
            }
        }
    }
}
