//! PropRate for a delay target (our extension; thesis section 7.1.1 "Navigating the
//! performance frontier" leaves open how to choose PropRate's parameters for a desired delay).
//! The rate rule is PropRate's (section 6.1.1: sigma_f = k_f rho, sigma_d = k_d rho,
//! sigma_m = 0.5 sigma_d, T_f = T_d = T, the same receive-rate estimator); the threshold T and
//! the gains k_f and k_d are tuned online so that the 95th percentile of the one-way delay the
//! sender estimates converges to `target`.
//!
//! # What the sender measures
//! Only what a sender has: its RTT samples and the framework's buffer delay t_buff = RD -
//! RD_min from the receiver's TCP timestamps (section 4.1.3), never the simulator's true
//! one-way delay. The one-way delay is estimated as
//! `OWD ~ min_rtt / 2 + t_buff`:
//! t_buff is the forward queueing delay above the least one seen (exact up to the receiver's
//! timestamp tick), and min_rtt / 2 stands in for the forward base delay, which one clock
//! cannot measure (RD carries the unknown offset between the two hosts' clocks). The halving
//! assumes a symmetric path: where the forward base delay exceeds the reverse one, the
//! estimate is short by half the difference and the achieved 95th percentile exceeds the
//! target by as much (and the other way round).
//!
//! The estimate is only as good as RD_min. Before the framework's RFC 3522 check (an ACK whose
//! TSecr predates the retransmission it newly acknowledges gives no RD, `crate::rate`), an
//! uplink outage that held the ACKs past the RTO paired an original's ACK with its
//! retransmission's later send time: RD_min fell by the time between the two transmissions
//! and every later t_buff read high by as much until a Monitor probe reset it (measured on
//! ATT-LTE-driving-2016 at a 100 ms target: the per-ACK estimate's 95th percentile 0.64 s
//! above the simulator's one-way delay of the same packets; with the check, 0 ms).
//!
//! # The controller
//! The recent distribution of the samples is a histogram of 1 ms bins whose weights decay
//! with time constant `window` (10 s; an exponentially weighted window, allocated once: no
//! allocation per packet). Every `tick` (200 ms, the framework's tick, thesis 4.2.2) its
//! q-quantile (q = 0.95 less what outages spent, below) gives p = min_rtt / 2 + q(t_buff),
//! and an integral controller moves one effort variable z by `g x ln(target / p)`, in logs
//! because the targets span two decades (20 ms-2 s) and the plant, p ~ base + T + overshoot,
//! has a log-gain of at most 1 in T.
//!
//! # Outages
//! The objective is the 95th percentile over the whole transfer: at most 5% of its packets
//! over the target. An ACK silence longer than the delay budget (target - base) puts every
//! packet queued or sent during it over the target whatever the parameters are (an empty
//! queue still waits out the silence), and the sender sees those delays only afterwards, when
//! the backlog's ACKs arrive. Before this rule those samples dominated the window's 95th
//! percentile for as long as they made up 5% of it (tens of seconds after a 10 s outage of
//! ATT-LTE-driving), and the controller drove the effort to its floor for that time: lower
//! throughput, the outage's delays unchanged. Now a sample over the target whose packet was
//! sent (as the sender reckons: now - min_rtt - t_buff) before the end of such a silence is
//! counted, not put in the window: its cost to the objective is its count, whatever its size,
//! as long as the silence explains it: its delay is at most the target plus the silence's
//! length. A delay beyond that was over the target before the silence began (a queue the
//! sender built, e.g. by sending into a link that had slowed: on ATT-LTE-driving-2016 at a
//! 200 ms target the one-way delay climbed from 1.2 to 7 s over the trace's last 12 s while
//! the sender, counting it all as outage, kept T at 30-40 ms; with the rule, the ten-start
//! median p95 there went from 405 to 228 ms), so it goes to the window.
//! The share o of the transfer's samples they make up is spent; the window's own samples may
//! have the rest, (0.05 - o) / (1 - o), over the target, so the controller steers that
//! quantile of the window, q = 1 - (0.05 - o) / (1 - o). Once o reaches 5% the outages alone
//! exceed the percentile; q is then 1 - `min_exceed` (0.999, "keep nearly every own sample
//! under the target", i.e. the least effort the window allows), because a lower rate still
//! queues fewer packets into the next outage. Silences shorter than the budget stay the
//! controller's business: with a queue of T standing when one starts, the parameters decide
//! whether its packets exceed the target.
//!
//! The effort moves PropRate along a path through (T, k_f, k_d), each parameter measured in
//! logs of what it costs: T, the fill's excess rate k_f - 1, the drain's deficit 1 - k_d
//! ([`PATH`]); within a segment the parameters that change move together, geometrically:
//! 1. T 5 -> 10 ms and k_d 0.25 -> 0.5, at k_f = 1.25 (Table 6.1's fill gain);
//! 2. T 10 -> 40 ms and k_f 1.25 -> 1.5, at k_d = 0.5;
//! 3. T 40 -> 80 ms and k_d 0.5 -> 0.75, at k_f = 1.5;
//! 4. past it, T grows alone, up to 2 s and at most twice the delay budget (target - base:
//!    the queue crosses T in every fill/drain cycle, so a larger T cannot meet the target;
//!    anti-windup on a link the flow cannot fill).
//!
//! The path is section 7.1.1's proposal carried out: "filter the set of parameters whose
//! result lies on the frontier" and fit the parameters to the delay. We read it from the
//! measured fixed-parameter frontiers of the `delay-target` experiment (a Fig. 6.8(a) sweep
//! over T, k_f and k_d on the Mahimahi traces, each point run from ten start times 0-9 s into
//! the trace: its p95 the median over them, its throughput the mean). Over those, the fill gain
//! is the lever: k_f = 1.25 against 1.1 at the same T and k_d = 0.25 carries 1.6-1.9x the
//! throughput for 6-30 ms more p95 on the four LTE traces (T = 5 ms: TMobile-LTE-short 4.87 ->
//! 8.15 Mbit/s, p95 75 -> 89 ms), and the points that set the frontier at 100 and 200 ms have
//! k_f = 1.25-1.5 and k_d of 0.25-0.5 (0.75 only at 200 ms with T of 60 ms and more). The
//! path before this one (k_f = 1.1 over its low half, up to T = 40 ms) met 3 of the 9 pairs
//! the ten-start frontier reaches (4 of 14 with the held-out segments below); during a burst of
//! ACK silences shorter than the budget the controller sat at its least effort, k_f = 1.1, for
//! tens of seconds (TMobile-LTE-short at 100 ms: 40 s at under 2 Mbit/s).
//!
//! How the path was chosen, and how far to trust it: candidate paths (k_f of 1.1 or 1.25 at
//! the least effort, k_f = 1.5 early or late, the last point at 40, 60 or 80 ms, k_d's rise
//! before or with T) were each run on the five in-sample traces from ten starts and on held-out
//! segments the sweep never saw (ATT-LTE-driving from 150, 250, ... 650 s; TMobile-LTE-driving
//! from 0, 60, ... 360 s with TMobile-LTE-short's uplink; TMobile-UMTS-driving from 150, 300,
//! ... 750 s), judged as the reproduction judges (below). Of the 14 pairs the ten-start
//! frontiers reach (9 in-sample, 5 held-out), this path meets 12 (8 and 4); the path before it
//! 4 (2 and 2); the other paths that start at k_f = 1.25 10-11 (ending at (40 ms, 1.25, 0.5)
//! and then (40, 1.5, 0.5) or (80, 1.5, 0.5): 11 each; the second point at T = 20 ms: 12; the
//! last two at 30 and 60 ms: 10; ending at (40 ms, 1.5, 0.75), so that T grows past 40 ms with
//! the slowest drain: 11). So the gain is the fill gain at low effort, not this path's exact
//! shape, which is fitted in-sample; the held-out segments are the check, and the reproduction
//! runs them (`delay-target-heldout`). (These counts were measured before the outage rule's
//! "the silence explains at most its length" below; with it the path meets 13 of 14: 9 and 4.)
//!
//! Why the path is not chosen online (measured on the path before this one, for its misses on
//! TMobile-LTE-short and ATT-LTE-driving-2016 at 100 ms). A slower loop that dithers the path
//! and keeps the side with the higher delivery rate has to see a difference of the order of
//! the frontier's spread between path shapes at one delay: about 10-15% on those traces, halved
//! by a dither that spans half the range. The link's own capacity changes mask it: over a
//! +,-,-,+ dither of 2 s halves (which cancels a linear trend), the capacity contrast in the
//! first 90 s of the five LTE and UMTS traces has a standard deviation of 8-55% per cycle and,
//! averaged over all eleven cycles of a transfer, 2.5-16% (5% on TMobile-LTE-short, 6% on
//! ATT-LTE-driving-2016): the loop would know the better side to about one standard deviation
//! at the transfer's end. The loop itself, tried (not kept): a blend m of two paths in log
//! coordinates, dithered by +-0.25 in 2 s halves, stepped by gamma times the +,-,-,+ contrast
//! of the delivered bytes, met no more cases than the fixed path, and m swung from end to end
//! between consecutive 8 s cycles: the contrasts it read were 5-50%, of either sign.
//!
//! Why ten starts: the p95 of a fixed setting on a cellular trace depends on where its
//! fill/drain cycles and the outages fall. From one start, the best of 81 points at a target
//! is partly the best phase: the point that set the one-start frontier on TMobile-LTE-short
//! at 100 ms (T = 10 ms, k_f = 1.25, k_d = 0.25) gives 97 ms from 0 s and 120 and 102 ms from
//! 1 s and 2 s; on TMobile-UMTS-driving one to five of the 81 points reach 200 ms from a given
//! start, a different set each time, and the ten-start median of every point is over 250 ms.
//! The controller depends on the phase too, so both sides are judged over the same starts.
//!
//! The gain: the exponential window lags by about its time constant W; an integrator K / s
//! ahead of a lag W has its crossover at K and a phase margin of 90 deg - atan(K W), so
//! K = 1 / W gives 45 deg. Per tick, g = tick / W. The memory W = 10 s holds several
//! fill/drain cycles and rate changes of a cellular trace (the objective is the 95th
//! percentile over a whole transfer, not over one cycle) and still lets the controller
//! settle within a 90 s transfer. The error is clipped to a factor of 4 each way: larger ones
//! come from what the parameters do not cause (an outage holding every ACK back, a new
//! RD_min after a Monitor probe), and at full weight they would wind the integrator to its
//! end in a few ticks. The first setting, before the window has `min_samples` samples, is
//! the point of the path whose T is a fifth of the delay budget. Along this path p95 - base is
//! 2.5-3.8 times T on ATT-LTE-driving (the trace standing in for the thesis's ISP C) and 4-12
//! times on the other LTE traces (ten-start medians, T of 5-40 ms). The start matters to a 90 s
//! transfer, whose first seconds of overshoot spend the 5% the whole transfer has: with the
//! first setting at a quarter, a fifth, 0.15 and a tenth of the budget, this path met 9, 12, 11
//! and 11 of the 14 pairs above.

use super::estimator::{SlidingWindowConfig, SlidingWindowRate};
use super::{proportional_rate, RateAlgorithm, RateContext, RateState, TickRecord};
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;

/// Histogram bins of 1 ms (the TSval tick); buffer delays of 4 s and more share the last.
const BINS: usize = 4096;

/// One point of the parameter path: PropRate's (T, k_f, k_d).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PathPoint {
    pub t: Duration,
    pub k_fill: f64,
    pub k_drain: f64,
}

const fn point(t_ms: u64, k_fill: f64, k_drain: f64) -> PathPoint {
    PathPoint {
        t: Duration::from_millis(t_ms),
        k_fill,
        k_drain,
    }
}

/// The path through (T, k_f, k_d), from least to most delay (see the module doc): between
/// consecutive points the parameters that differ move together; past the last, T grows.
pub const PATH: [PathPoint; 4] = [
    point(5, 1.25, 0.25),
    point(10, 1.25, 0.5),
    point(40, 1.5, 0.5),
    point(80, 1.5, 0.75),
];

/// PropRate-for-a-target parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PropRateTargetConfig {
    /// The 95th percentile of the one-way delay to aim for.
    pub target: Duration,
    /// The parameter path the controller moves along.
    pub path: [PathPoint; 4],
    /// The largest T (past the path's last point); also at most twice the delay budget.
    pub t_max: Duration,
    /// The first setting: the point of the path whose T is this fraction of the budget.
    pub start_fraction: f64,
    /// The sliding window of delay samples.
    pub window: Duration,
    /// The controller's period (the framework's tick).
    pub tick: Duration,
    /// A window with fewer samples does not move the controller.
    pub min_samples: u32,
    /// The least share of the window's samples allowed over the target, however much of
    /// the 5% the outages already took.
    pub min_exceed: f64,
    /// sigma_m = this x sigma_d (6.2.1).
    pub monitor_fraction: f64,
    pub estimator: SlidingWindowConfig,
}

/// The log-distance between two path points: the sum over the parameters that change of
/// their log-distances, each measured as T, k_f - 1 (the fill's excess rate) or 1 - k_d (the
/// drain's deficit).
fn seg_len(a: &PathPoint, b: &PathPoint) -> f64 {
    (ms(b.t) / ms(a.t)).ln().abs()
        + ((b.k_fill - 1.0) / (a.k_fill - 1.0)).ln().abs()
        + ((1.0 - a.k_drain) / (1.0 - b.k_drain)).ln().abs()
}

fn geo(a: f64, b: f64, u: f64) -> f64 {
    a * (b / a).powf(u)
}

impl PropRateTargetConfig {
    pub fn new(target: Duration) -> Self {
        PropRateTargetConfig {
            target,
            path: PATH,
            t_max: Duration::from_secs(2),
            start_fraction: 0.2,
            window: Duration::from_secs(10),
            tick: Duration::from_millis(200),
            min_samples: 20,
            min_exceed: 0.001,
            monitor_fraction: 0.5,
            estimator: SlidingWindowConfig::default(),
        }
    }

    /// The integrator's gain per tick, g = tick / window (see the module doc).
    pub fn gain(&self) -> f64 {
        self.tick.as_nanos() as f64 / self.window.as_nanos() as f64
    }

    /// The effort at the path's last point (where T starts to grow alone).
    fn z_last(&self) -> f64 {
        self.path.windows(2).map(|w| seg_len(&w[0], &w[1])).sum()
    }

    /// The largest effort: T = `t_max` past the last point.
    pub fn z_max(&self) -> f64 {
        self.z_last() + (ms(self.t_max) / ms(self.path[3].t)).ln().max(0.0)
    }

    /// The map from the effort z (0 = the path's first point) to (T, k_f, k_d).
    pub fn params(&self, z: f64) -> (Duration, f64, f64) {
        let mut z = z.clamp(0.0, self.z_max());
        for w in self.path.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let len = seg_len(a, b);
            if z <= len && len > 0.0 {
                let u = z / len;
                let t = geo(ms(a.t), ms(b.t), u);
                let kf = 1.0 + geo(a.k_fill - 1.0, b.k_fill - 1.0, u);
                let kd = 1.0 - geo(1.0 - a.k_drain, 1.0 - b.k_drain, u);
                return (from_ms(t), kf, kd);
            }
            z -= len;
        }
        let last = &self.path[3];
        (from_ms(ms(last.t) * z.exp()), last.k_fill, last.k_drain)
    }

    /// The first effort at which T reaches `t_ms` (0 below the path's least T).
    pub fn z_for(&self, t_ms: f64) -> f64 {
        if t_ms < ms(self.path[0].t) {
            return 0.0;
        }
        let mut z0 = 0.0;
        for w in self.path.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let len = seg_len(a, b);
            if b.t > a.t && t_ms <= ms(b.t) {
                // T moves geometrically with the segment's other parameters: its share of
                // the way, u, is the same share of the segment's length.
                let u = (t_ms / ms(a.t)).ln().max(0.0) / (ms(b.t) / ms(a.t)).ln();
                return z0 + u * len;
            }
            z0 += len;
        }
        (z0 + (t_ms / ms(self.path[3].t)).ln().max(0.0)).min(self.z_max())
    }
}

fn ms(d: Duration) -> f64 {
    d.as_millis_f64()
}

fn at_ms(t: Instant) -> f64 {
    t.as_nanos() as f64 * 1e-6
}

fn from_ms(v: f64) -> Duration {
    Duration((v * 1e6).round().max(0.0) as u64)
}

/// The recent distribution of buffer-delay samples: a histogram of 1 ms bins whose weights
/// decay by e^(-tick / memory) every tick, so a sample counts for about `memory` of sender
/// time (an exponentially weighted window). Allocated once; a sample adds 1 to a bin.
#[derive(Clone, Debug)]
struct DelayWindow {
    hist: Vec<f64>,
    total: f64,
}

impl DelayWindow {
    fn new() -> Self {
        DelayWindow {
            hist: vec![0.0; BINS],
            total: 0.0,
        }
    }

    fn push(&mut self, t_buff: Duration) {
        let bin = ((t_buff.as_nanos() / 1_000_000) as usize).min(BINS - 1);
        self.hist[bin] += 1.0;
        self.total += 1.0;
    }

    fn decay(&mut self, f: f64) {
        for h in self.hist.iter_mut() {
            *h *= f;
        }
        self.total *= f;
    }

    /// The q-quantile in ms (the middle of its 1 ms bin).
    fn quantile_ms(&self, q: f64) -> Option<f64> {
        if self.total <= 0.0 {
            return None;
        }
        let need = q * self.total;
        let mut seen = 0.0;
        for (b, &c) in self.hist.iter().enumerate() {
            seen += c;
            if seen >= need {
                return Some(b as f64 + 0.5);
            }
        }
        Some(BINS as f64 - 0.5)
    }
}

/// PropRate whose threshold and gains follow a 95th-percentile delay target.
#[derive(Clone, Debug)]
pub struct PropRateTarget {
    cfg: PropRateTargetConfig,
    est: SlidingWindowRate,
    window: DelayWindow,
    /// The controller's effort; `None` until the first update (then derived from the budget).
    z: Option<f64>,
    /// The last estimate of the window's 95th-percentile one-way delay.
    last_p95: Option<Duration>,
    /// When the last buffer-delay sample (an ACK) arrived.
    last_sample_at: Option<Instant>,
    /// The end of the last ACK silence longer than the delay budget: a link outage.
    silence_end: Option<Instant>,
    /// The length of that silence, in ms.
    silence_ms: f64,
    /// Every sample of the transfer, and those over the target whose packets were sent
    /// before the end of such a silence (the outage's, counted, not put in the window).
    samples: f64,
    outage_over: f64,
}

impl PropRateTarget {
    pub fn new(cfg: PropRateTargetConfig) -> Self {
        PropRateTarget {
            est: SlidingWindowRate::new(cfg.estimator),
            window: DelayWindow::new(),
            z: None,
            last_p95: None,
            last_sample_at: None,
            silence_end: None,
            silence_ms: 0.0,
            samples: 0.0,
            outage_over: 0.0,
            cfg,
        }
    }

    pub fn config(&self) -> &PropRateTargetConfig {
        &self.cfg
    }

    /// The forward base delay the sender assumes: half the least RTT (symmetric path).
    fn base_ms(ctx: &RateContext) -> f64 {
        ctx.min_rtt.map_or(0.0, |r| ms(r) / 2.0)
    }

    /// The queueing budget target - base, in ms (may be negative: then the least effort).
    fn budget_ms(&self, ctx: &RateContext) -> f64 {
        ms(self.cfg.target) - Self::base_ms(ctx)
    }

    /// Before the first update: T = `start_fraction` of the budget.
    fn effort(&self, ctx: &RateContext) -> f64 {
        self.z.unwrap_or_else(|| {
            self.cfg
                .z_for(self.budget_ms(ctx) * self.cfg.start_fraction)
        })
    }

    /// The current (T, k_f, k_d).
    pub fn params(&self, ctx: &RateContext) -> (Duration, f64, f64) {
        self.cfg.params(self.effort(ctx))
    }

    /// The last window estimate of the 95th-percentile one-way delay.
    pub fn estimated_p95(&self) -> Option<Duration> {
        self.last_p95
    }

    /// The share of the transfer's samples that an outage put over the target (see the
    /// module doc, "Outages").
    pub fn outage_share(&self) -> f64 {
        if self.samples > 0.0 {
            self.outage_over / self.samples
        } else {
            0.0
        }
    }

    /// The quantile of the window the controller steers to the target: the 95th, less the
    /// exceedances the outages already spent (at least `min_exceed`).
    pub fn steered_quantile(&self) -> f64 {
        let o = self.outage_share().min(0.5);
        1.0 - ((0.05 - o) / (1.0 - o)).max(self.cfg.min_exceed)
    }

    /// A buffer-delay sample from an ACK at `ctx.now`.
    fn on_sample(&mut self, t_buff: Duration, ctx: &RateContext) {
        let now = ctx.now;
        let budget = self.budget_ms(ctx).max(0.0);
        if let Some(last) = self.last_sample_at {
            if now > last && ms(now - last) > budget {
                self.silence_end = Some(now);
                self.silence_ms = ms(now - last);
            }
        }
        self.last_sample_at = Some(now);
        self.samples += 1.0;
        let owd = Self::base_ms(ctx) + ms(t_buff);
        // The packet's send time, as far as the sender can tell: now - RTT, the RTT being
        // at least min_rtt plus the forward queueing t_buff.
        let rtt = ctx.min_rtt.map_or(0.0, ms) + ms(t_buff);
        let sent_before_silence_end = self
            .silence_end
            .is_some_and(|e| at_ms(now) - rtt < at_ms(e));
        // The silence explains at most its own length above the target: a packet queued
        // behind more than that was over the target before the silence began (a queue the
        // sender built, e.g. by sending into a link that had slowed), the controller's to
        // answer for.
        let explained = owd <= ms(self.cfg.target) + self.silence_ms;
        if sent_before_silence_end && owd > ms(self.cfg.target) && explained {
            self.outage_over += 1.0;
        } else {
            self.window.push(t_buff);
        }
    }

    /// One controller step at `now` (the tick's end).
    fn control(&mut self, ctx: &RateContext) {
        let f = (-(self.cfg.tick.as_nanos() as f64) / self.cfg.window.as_nanos() as f64).exp();
        self.window.decay(f);
        if self.window.total < self.cfg.min_samples.max(1) as f64 {
            return;
        }
        let Some(q) = self.window.quantile_ms(self.steered_quantile()) else {
            return;
        };
        let p = Self::base_ms(ctx) + q;
        self.last_p95 = Some(from_ms(p));
        let err = (ms(self.cfg.target) / p.max(0.5))
            .ln()
            .clamp(-4f64.ln(), 4f64.ln());
        // Anti-windup: T at most twice the budget, but the path up to its last point stays
        // open (its T is only 40 ms).
        let z_max = self
            .cfg
            .z_for(2.0 * self.budget_ms(ctx))
            .max(self.cfg.z_last());
        let z = self.effort(ctx) + self.cfg.gain() * err;
        self.z = Some(z.clamp(0.0, z_max));
    }
}

impl RateAlgorithm for PropRateTarget {
    fn name(&self) -> &'static str {
        "proprate-target"
    }

    fn update(&mut self, t_ns: i64, bytes: u64) -> Option<Bandwidth> {
        self.est.update(t_ns, bytes)
    }

    fn get_rate(&mut self, state: RateState, rho: Bandwidth, ctx: &RateContext) -> Bandwidth {
        let (_, k_fill, k_drain) = self.params(ctx);
        proportional_rate(state, rho, k_fill, k_drain, self.cfg.monitor_fraction)
    }

    fn threshold(&self, _state: RateState, _rho: Bandwidth, ctx: &RateContext) -> Duration {
        self.params(ctx).0
    }

    fn set_rho(&mut self, rho: Bandwidth) {
        self.est.set_rho(rho);
    }

    fn restart_window(&mut self) {
        self.est.restart_window();
    }

    /// A timeout restarts the rate estimate. The delay window and the effort are kept: the
    /// objective is the percentile over the whole transfer, and a window holding only the
    /// samples after an outage (the backlog it queued, seconds old) would drive the effort to
    /// its floor for the rest of the transfer (measured: ATT-LTE-driving at a 100 ms target).
    fn reset(&mut self) {
        self.est.reset();
    }

    fn tick_interval(&self) -> Option<Duration> {
        Some(self.cfg.tick)
    }

    fn on_tick(&mut self, _tick: &TickRecord, ctx: &RateContext) -> Option<Bandwidth> {
        self.control(ctx);
        None
    }

    fn on_buffer_delay(&mut self, t_buff: Duration, ctx: &RateContext) {
        self.on_sample(t_buff, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(now_ms: u64, min_rtt_ms: u64) -> RateContext {
        RateContext {
            now: Instant::ZERO + Duration::from_millis(now_ms),
            mss: 1448,
            min_rtt: Some(Duration::from_millis(min_rtt_ms)),
            srtt: None,
            epoch: 0,
        }
    }

    #[test]
    fn path_map_moves_the_segment_parameters_together() {
        let c = PropRateTargetConfig::new(Duration::from_millis(100));
        let close = |(t, kf, kd): (Duration, f64, f64), (te, kfe, kde): (f64, f64, f64)| {
            assert!(
                (ms(t) - te).abs() < 1e-3 && (kf - kfe).abs() < 1e-9 && (kd - kde).abs() < 1e-9,
                "{t:?} {kf} {kd} vs {te} {kfe} {kde}"
            );
        };
        // Segment lengths: the log-distances of the parameters that move (T 5 -> 10 and the
        // drain deficit 0.75 -> 0.5; T 10 -> 40 and the fill excess 0.25 -> 0.5; T 40 -> 80
        // and the deficit 0.5 -> 0.25).
        let (l1, l2, l3) = (
            2f64.ln() + 1.5f64.ln(),
            4f64.ln() + 2f64.ln(),
            2f64.ln() + 2f64.ln(),
        );
        close(c.params(0.0), (5.0, 1.25, 0.25));
        close(c.params(-3.0), (5.0, 1.25, 0.25));
        // Halfway along segment 1: T and the deficit both at their geometric means.
        close(
            c.params(l1 / 2.0),
            (50f64.sqrt(), 1.25, 1.0 - 0.75 / 1.5f64.sqrt()),
        );
        close(c.params(l1), (10.0, 1.25, 0.5));
        // Segment 2, T at 20 ms (half its log-way): the fill excess at 0.25 x 2^0.5.
        close(
            c.params(l1 + l2 / 2.0),
            (20.0, 1.0 + 0.25 * 2f64.sqrt(), 0.5),
        );
        close(c.params(l1 + l2), (40.0, 1.5, 0.5));
        close(c.params(l1 + l2 + l3), (80.0, 1.5, 0.75));
        // Past the path: T alone, up to 2 s.
        close(c.params(l1 + l2 + l3 + 3f64.ln()), (240.0, 1.5, 0.75));
        close(c.params(100.0), (2000.0, 1.5, 0.75));
        // z_for gives the first effort at which T reaches a value, inside a segment where
        // other parameters move with T too.
        close(
            c.params(c.z_for(20.0)),
            (20.0, 1.0 + 0.25 * 2f64.sqrt(), 0.5),
        );
        let (t7, _, kd7) = c.params(c.z_for(7.0));
        assert!((ms(t7) - 7.0).abs() < 1e-3 && kd7 > 0.25 && kd7 < 0.5);
        close(c.params(c.z_for(150.0)), (150.0, 1.5, 0.75));
        close(c.params(c.z_for(1.0)), (5.0, 1.25, 0.25));
    }

    #[test]
    fn window_quantile_and_decay() {
        let mut w = DelayWindow::new();
        for i in 0..100u64 {
            w.push(Duration::from_micros(i * 1000 + 300));
        }
        // 100 samples of 0..99 ms: the 95th is the 95th smallest, 94 ms (bin middle 94.5).
        assert_eq!(w.quantile_ms(0.95), Some(94.5));
        // Decay the old ones to a tenth (0.1 per ms bin), then 100 samples at 200 ms: of the
        // 110 weights the old ones hold 10, so the 4.5th percentile (4.95 weights) is the 50th
        // old sample and the 10th (11 weights) is among the new ones.
        w.decay(0.1);
        for _ in 0..100 {
            w.push(Duration::from_millis(200));
        }
        assert!((w.total - 110.0).abs() < 1e-9);
        assert_eq!(w.quantile_ms(0.045), Some(49.5));
        assert_eq!(w.quantile_ms(0.10), Some(200.5));
        // Beyond 4 s: the last bin.
        w.push(Duration::from_secs(60));
        assert_eq!(w.quantile_ms(1.0), Some(BINS as f64 - 0.5));
        assert_eq!(DelayWindow::new().quantile_ms(0.5), None);
    }

    /// A synthetic plant: in each 10 ms step the buffer-delay samples spread evenly over
    /// [0, top], top = T + 200 ms x (k_f - 1) + 40 ms x k_d + 10 ms: the fill overshoots T in
    /// proportion to its excess rate, a slower drain (higher k_d) leaves the queue up longer,
    /// plus a fixed jitter. Its 95th percentile is 0.95 top; the controller has to find the
    /// parameters that put base + that at the target.
    fn run_plant(target_ms: u64, base_rtt_ms: u64, secs: u64) -> (PropRateTarget, f64) {
        let mut p =
            PropRateTarget::new(PropRateTargetConfig::new(Duration::from_millis(target_ms)));
        let mut last_p95 = 0.0;
        for step in 0..secs * 100 {
            let now = step * 10;
            let c = ctx(now, base_rtt_ms);
            let (t, kf, kd) = p.params(&c);
            let top = ms(t) + 200.0 * (kf - 1.0) + 40.0 * kd + 10.0;
            for j in 0..10 {
                let d = top * (j as f64 + 0.5) / 10.0;
                p.on_buffer_delay(from_ms(d), &c);
            }
            if now % 200 == 0 {
                p.on_tick(&TickRecord::default(), &c);
            }
            last_p95 = base_rtt_ms as f64 / 2.0 + 0.95 * top;
        }
        (p, last_p95)
    }

    #[test]
    fn controller_converges_on_a_synthetic_plant() {
        // Base 20 ms (min RTT 40 ms); the plant's p95 is 20 + 0.95 top.
        for (target, want) in [
            // 300 ms: past the path, T = 154.7 ms with k_f = 1.5, k_d = 0.75.
            (300u64, (154.7, 1.5, 0.75)),
            // 200 ms: segment 3, T = 54.2 ms, k_d = 0.63.
            (200, (54.2, 1.5, 0.63)),
            // 150 ms: segment 2, T = 26.1 ms, k_f = 1.40.
            (150, (26.1, 1.404, 0.5)),
            // 100 ms: segment 1, T = 7.6 ms, k_d = 0.41.
            (100, (7.63, 1.25, 0.414)),
        ] {
            let (p, p95) = run_plant(target, 40, 200);
            assert!(
                (p95 / target as f64 - 1.0).abs() < 0.03,
                "target {target}: p95 {p95}"
            );
            let (t, kf, kd) = p.params(&ctx(0, 40));
            assert!(
                (ms(t) / want.0 - 1.0).abs() < 0.06,
                "target {target}: T {t:?}"
            );
            assert!((kf - want.1).abs() < 0.01, "target {target}: k_f {kf}");
            assert!((kd - want.2).abs() < 0.02, "target {target}: k_d {kd}");
            // The sender's estimate agrees with the plant's truth.
            let est = ms(p.estimated_p95().unwrap());
            assert!(
                (est - p95).abs() < 3.0,
                "target {target}: est {est} vs {p95}"
            );
        }
    }

    #[test]
    fn unreachable_target_rests_at_the_least_effort() {
        // Base 25 ms of a 40 ms target leaves 15 ms, less than the plant gives at any
        // setting: the path's first point, and the effort bounded there.
        let (p, _) = run_plant(40, 50, 60);
        assert_eq!(
            p.params(&ctx(0, 50)),
            (Duration::from_millis(5), 1.25, 0.25)
        );
        assert_eq!(p.z, Some(0.0));
    }

    #[test]
    fn no_samples_no_move() {
        let mut p = PropRateTarget::new(PropRateTargetConfig::new(Duration::from_millis(100)));
        let c = ctx(1000, 40);
        let before = p.params(&c);
        for _ in 0..50 {
            p.on_tick(&TickRecord::default(), &c);
        }
        assert_eq!(p.params(&c), before);
        // Initial T: a fifth of the 80 ms budget, 16 ms, in segment 2 (the fill excess
        // 0.25 x 2^u, u = ln 1.6 / ln 4 of the way).
        let (t, kf, kd) = before;
        let u = 1.6f64.ln() / 4f64.ln();
        assert!((ms(t) - 16.0).abs() < 1e-3, "{t:?}");
        assert!((kf - (1.0 + 0.25 * 2f64.powf(u))).abs() < 1e-9 && kd == 0.5);
    }

    #[test]
    fn outage_samples_are_counted_not_windowed() {
        // Target 100 ms, min RTT 40 ms: budget 80 ms. A steady 10 ms of queueing, then an
        // ACK silence of 2 s (more than the budget): the backlog's samples, over the target
        // and sent before the silence ended, go to the outage count, not the window.
        let mut p = PropRateTarget::new(PropRateTargetConfig::new(Duration::from_millis(100)));
        for i in 0..900u64 {
            p.on_buffer_delay(Duration::from_millis(10), &ctx(i * 10, 40));
        }
        assert_eq!(p.outage_share(), 0.0);
        assert!((p.steered_quantile() - 0.95).abs() < 1e-12);
        // The silence ends at 11 s; 50 samples of 1.5 s down to 1.0 s of queueing arrive.
        for i in 0..50u64 {
            p.on_buffer_delay(Duration::from_millis(1500 - 10 * i), &ctx(11_000 + i, 40));
        }
        assert!((p.outage_share() - 50.0 / 950.0).abs() < 1e-12);
        // The window holds only the 10 ms samples.
        assert_eq!(p.window.quantile_ms(1.0), Some(10.5));
        // Of the 5%, 50/950 are spent: more than all of it, so the window's 99.9th percentile
        // is steered.
        assert!((p.steered_quantile() - (1.0 - p.config().min_exceed)).abs() < 1e-12);
        // ACKs every 50 ms (gaps under the budget), then one over the target of a packet
        // sent after the silence ended (its RTT of 40 + 150 ms puts its send time after
        // 11 s): the flow's own, windowed.
        for k in 1..=5u64 {
            p.on_buffer_delay(Duration::from_millis(10), &ctx(11_049 + 50 * k, 40));
        }
        p.on_buffer_delay(Duration::from_millis(150), &ctx(11_300, 40));
        assert_eq!(p.window.quantile_ms(1.0), Some(150.5));
        assert!((p.outage_share() - 50.0 / 956.0).abs() < 1e-12);
        // A gap longer than the budget is a new silence (100 ms): a sample over the target
        // sent before it ended, and within the target plus the silence (20 + 150 <= 100 +
        // 100 ms), is counted.
        p.on_buffer_delay(Duration::from_millis(150), &ctx(11_400, 40));
        assert!((p.outage_share() - 51.0 / 957.0).abs() < 1e-12);
        // Another 100 ms silence, then a sample the silence cannot explain (20 + 300 ms >
        // 100 + 100 ms): its packet was over the target before the silence began, so it is
        // the controller's, windowed.
        p.on_buffer_delay(Duration::from_millis(300), &ctx(11_500, 40));
        assert!((p.outage_share() - 51.0 / 958.0).abs() < 1e-12);
        assert_eq!(p.window.quantile_ms(1.0), Some(300.5));
    }

    #[test]
    fn steered_quantile_spends_what_the_outages_left() {
        let mut p = PropRateTarget::new(PropRateTargetConfig::new(Duration::from_millis(100)));
        p.samples = 1000.0;
        p.outage_over = 20.0;
        // 2% of the transfer over the target already: the rest may have (5 - 2) / 98 %.
        assert!((p.steered_quantile() - (1.0 - 0.03 / 0.98)).abs() < 1e-12);
    }
}
