//! CUBIC (RFC 9438 section 4): the cubic window curve (eq. 1, K from eq. 2), the
//! Reno-friendly region (4.3), fast convergence (4.7) and the timeout rule (4.8).
//! HyStart++ (RFC 9406) is not implemented: slow start is RFC 5681's, or, with the
//! `hystart` key, Linux's HyStart ([`super::hystart`]). Arithmetic is f64 with only
//! IEEE-exact operations (+, -, *, /): the cube root is our own Newton iteration, so the
//! results do not depend on the platform's libm.
//!
//! This is `cubic_variant = "rfc9438"`, the default; `"ns2"` is CUBIC v2.1 as ns-2.35's
//! TCP-Linux runs it ([`super::cubic_ns2`]).

use crate::cc::hystart::{self, HyStart};
use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};

/// Which CUBIC `cc = "cubic"` runs (scenario key `cubic_variant`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CubicVariant {
    /// RFC 9438 in fractional segments ([`Cubic`]): beta 0.7, C = 0.4, the Reno-friendly
    /// region, K = 0 after a timeout.
    #[default]
    Rfc9438,
    /// CUBIC v2.1 of Linux 2.6.22.6 as ns-2.35's TCP-Linux carries it
    /// (`tcp/linux/src/tcp_cubic.c`; [`super::cubic_ns2::CubicNs2`]): integer packets,
    /// beta 819/1024, per-ACK counting with `cnt`, the whole state forgotten at a timeout.
    Ns2,
}

/// C in RFC 9438 section 4.2, in segments / s^3.
pub const C: f64 = 0.4;
/// beta_cubic in RFC 9438 section 4.6.
pub const BETA: f64 = 0.7;

/// Cube root by bit-level seed and a fixed number of Newton steps: deterministic everywhere.
pub fn cbrt(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return if x < 0.0 { -cbrt(-x) } else { x.max(0.0) };
    }
    let mut y = f64::from_bits(x.to_bits() / 3 + 0x2A9F_7893_782D_A1CE);
    for _ in 0..8 {
        y = (2.0 * y + x / (y * y)) / 3.0;
    }
    y
}

/// RFC 9438 eq. 2: K = cbrt((W_max - cwnd_epoch) / C), in seconds.
pub fn k_seconds(w_max: f64, cwnd_epoch: f64) -> f64 {
    cbrt(((w_max - cwnd_epoch) / C).max(0.0))
}

/// RFC 9438 eq. 1: W_cubic(t) = C * (t - K)^3 + W_max, in segments.
pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    let d = t - k;
    C * d * d * d + w_max
}

#[derive(Clone, Debug)]
pub struct Cubic {
    mss: u64,
    /// Window in segments (fractional: per-ACK increments are small).
    w: f64,
    ssthresh: u64,
    /// W_max in segments (0 until the first congestion event).
    w_max: f64,
    k: f64,
    epoch_start: Option<Instant>,
    /// Reno-friendly estimate W_est (section 4.3).
    w_est: f64,
    /// cwnd just before the last reduction (section 4.3's alpha switch).
    cwnd_prior: f64,
    /// The first congestion-avoidance stage after an RTO uses K = 0 (section 4.8).
    after_timeout: bool,
    /// Slow-start growth per ACK at most this many bytes (RFC 3465's L x SMSS; None: up to
    /// ssthresh, Linux).
    ss_limit: Option<u64>,
    /// Linux's HyStart in slow start (`hystart` key); None = RFC 5681 slow start.
    hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(mss: u32, initial_cwnd_bytes: u64) -> Self {
        let mss = mss.max(1) as u64;
        Cubic {
            mss,
            w: (initial_cwnd_bytes.max(mss)) as f64 / mss as f64,
            ssthresh: u64::MAX,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            cwnd_prior: 0.0,
            after_timeout: false,
            ss_limit: Some(mss),
            hystart: None,
        }
    }

    /// [`Cubic::new`] with Linux's HyStart ending slow start when `hystart` is set.
    pub fn with_hystart(mss: u32, initial_cwnd_bytes: u64, hystart: bool) -> Self {
        let mut c = Self::new(mss, initial_cwnd_bytes);
        c.hystart = hystart.then(HyStart::new);
        c
    }

    /// HyStart's state (tests and tracing); None when it is off.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// RFC 3465 (Appropriate Byte Counting): slow start grows by at most `l` segments per
    /// ACK. 1 is RFC 5681's rule (and ns-3's); Linux adds every segment an ACK covers, which
    /// with delayed ACKs is 2.
    pub fn set_abc_limit(&mut self, l: u32) {
        self.ss_limit = super::abc_byte_limit(l, self.mss);
    }

    /// W_max and K of the current epoch (tests and tracing).
    pub fn w_max_k(&self) -> (f64, f64) {
        (self.w_max, self.k)
    }

    fn reduce(&mut self) {
        let cwnd = self.w;
        self.epoch_start = None;
        // Section 4.7 fast convergence: release bandwidth when W_max keeps shrinking.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // Section 4.6: ssthresh = cwnd * beta_cubic, at least 2 segments.
        let ss = (cwnd * BETA).max(2.0);
        self.ssthresh = (ss * self.mss as f64) as u64;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, now: Instant, ack: &AckSample, rtt: &RttEstimator) {
        if let Some(h) = self.hystart.as_mut() {
            // Linux runs HyStart from `pkts_acked`, before `cong_avoid` on the same ACK, on
            // every ACK with an RTT sample; an exit makes this ACK congestion avoidance's.
            let cwnd = ((self.w * self.mss as f64) as u64).max(self.mss);
            let info = hystart::AckInfo {
                now,
                rtt: ack.rtt,
                echo_sent_at: ack.echo_sent_at,
                cwnd_pkts: cwnd / self.mss,
                cwnd_bytes: cwnd,
                srtt: rtt.srtt,
                in_slow_start: cwnd < self.ssthresh,
                discard: self
                    .epoch_start
                    .is_some_and(|s| now.saturating_since(s) < Duration::from_secs(1)),
            };
            if h.on_ack(&info).is_some() {
                self.ssthresh = cwnd;
            }
        }
        if ack.in_recovery || ack.not_cwnd_limited || ack.bytes_acked == 0 {
            return;
        }
        let mss = self.mss as f64;
        let mut acked = ack.bytes_acked;
        let cwnd = self.congestion_window();
        if cwnd < self.ssthresh {
            // Section 4.10: standard slow start (RFC 5681), HyStart++ not implemented.
            let (grown, rest) = super::slow_start(cwnd, self.ssthresh, ack, self.ss_limit);
            self.w += (grown - cwnd) as f64 / mss;
            if rest == 0 {
                return;
            }
            // Linux (`abc_limit_pkts = 0`): what slow start could not use grows the curve.
            acked = rest;
        }
        let segs = acked as f64 / mss;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                if self.after_timeout || self.w >= self.w_max {
                    // Section 4.8 (and no earlier W_max above us): the curve starts here.
                    self.w_max = self.w;
                    self.k = 0.0;
                    self.after_timeout = false;
                } else {
                    self.k = k_seconds(self.w_max, self.w);
                }
                self.w_est = self.w;
                now
            }
        };
        let t = now.saturating_since(start).as_secs_f64();
        let rtt_s = rtt.srtt.unwrap_or(Duration::ZERO).as_secs_f64();
        // Section 4.3: W_est grows like Reno with alpha_cubic, then alpha = 1 once past
        // the window before the last reduction.
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - BETA) / (1.0 + BETA)
        };
        self.w_est += alpha * segs / self.w;
        if w_cubic(t, self.k, self.w_max) < self.w_est {
            self.w = self.w_est;
        } else {
            // Sections 4.4/4.5: target = W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd];
            // cwnd += (target - cwnd) / cwnd per acknowledged segment.
            let target = w_cubic(t + rtt_s, self.k, self.w_max).clamp(self.w, 1.5 * self.w);
            self.w += (target - self.w) / self.w * segs;
        }
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        self.reduce();
        match event {
            CongestionEvent::FastRecovery => {
                self.w = self.ssthresh as f64 / self.mss as f64;
            }
            CongestionEvent::Timeout => {
                // Section 4.8: cwnd = 1 segment, ssthresh per section 4.6.
                self.w = 1.0;
                self.after_timeout = true;
                if let Some(h) = self.hystart.as_mut() {
                    h.on_timeout();
                }
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: Instant) {
        self.w = self.w.max(self.ssthresh as f64 / self.mss as f64);
    }

    fn ns2_linux_recovery_exit(&mut self, _now: Instant, limit: u64) {
        // tcp-linux.cc: a window below ssthresh is raised to it and moderated.
        let mss = self.mss as f64;
        if self.ssthresh != u64::MAX && self.w * mss < self.ssthresh as f64 {
            self.w = (self.ssthresh.min(limit) as f64 / mss).max(1.0);
        }
    }

    fn congestion_window(&self) -> u64 {
        ((self.w * self.mss as f64) as u64).max(self.mss)
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_root_is_accurate() {
        for &x in &[1e-9, 0.001, 1.0, 8.0, 27.0, 75.0, 1e6, 1e12] {
            let y = cbrt(x);
            assert!(
                (y * y * y - x).abs() <= 1e-12 * x.max(1.0),
                "cbrt({x}) = {y}"
            );
        }
        assert_eq!(cbrt(0.0), 0.0);
    }

    #[test]
    fn window_curve_rfc9438_eq1_eq2() {
        // RFC 9438 eq. 2: K = cubic_root((W_max - cwnd_epoch) / C); with cwnd_epoch =
        // W_max * beta_cubic, K = cubic_root(W_max * (1 - beta_cubic) / C).
        let w_max = 100.0;
        let k = k_seconds(w_max, w_max * BETA);
        assert!((k - 75f64.powf(1.0 / 3.0)).abs() < 1e-9, "K = {k}");
        // Eq. 1: W_cubic(0) = cwnd_epoch, W_cubic(K) = W_max, symmetric around K.
        assert!((w_cubic(0.0, k, w_max) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k, k, w_max) - 100.0).abs() < 1e-12);
        assert!((w_cubic(2.0 * k, k, w_max) - 130.0).abs() < 1e-9);
        assert!((w_cubic(k + 1.0, k, w_max) - 100.4).abs() < 1e-12);
    }

    #[test]
    fn reduction_and_fast_convergence_rfc9438_4_6_4_7() {
        // 4.6: ssthresh = cwnd * beta_cubic. 4.7: a second loss below the previous W_max sets
        // W_max = cwnd * (1 + beta_cubic) / 2.
        let r = RttEstimator::default();
        let mut c = Cubic::new(1000, 100_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, 100_000, &r);
        assert_eq!(c.ssthresh(), 70_000);
        assert_eq!(c.congestion_window(), 70_000);
        assert_eq!(c.w_max_k().0, 100.0);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, 70_000, &r);
        assert!((c.w_max_k().0 - 70.0 * 1.7 / 2.0).abs() < 1e-9);
        assert_eq!(c.ssthresh(), 49_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::Timeout, 49_000, &r);
        assert_eq!(c.congestion_window(), 1000);
    }

    #[test]
    fn follows_the_curve_in_congestion_avoidance() {
        // After a loss at W = 100 segments, cwnd tracks W_cubic(t + RTT) (section 4.4 and 4.5)
        // and reaches W_max about K seconds later, far above Reno's 1 segment per RTT.
        let mut r = RttEstimator::default();
        r.on_sample(Duration::from_millis(100));
        let mut c = Cubic::new(1000, 100_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, 100_000, &r);
        let mut now = Instant::from_millis(1);
        let k = k_seconds(100.0, 70.0);
        // One ACK per segment, per RTT of 100 ms.
        while now.as_secs_f64() < k + 0.05 {
            let n = c.congestion_window() / 1000;
            for _ in 0..n {
                let a = AckSample {
                    bytes_acked: 1000,
                    ..Default::default()
                };
                c.on_ack(now, &a, &r);
            }
            now += Duration::from_millis(100);
        }
        let w = c.congestion_window() as f64 / 1000.0;
        assert!((98.0..=103.0).contains(&w), "w = {w} at t = K");
        // Concave approach: 1 s after the loss, W_cubic(1.1) is within one window step.
        let k2 = k_seconds(100.0, 70.0);
        let expect = w_cubic(1.1, k2, 100.0);
        assert!(expect > 70.0 && expect < 100.0);
    }

    #[test]
    fn reno_friendly_region_rfc9438_4_3() {
        // With a tiny W_max the cubic curve is flat near K; W_est (alpha = 3(1-b)/(1+b)
        // per RTT) must then drive cwnd: "if W_cubic(t) < W_est, cwnd = W_est".
        let mut r = RttEstimator::default();
        r.on_sample(Duration::from_millis(10));
        let mut c = Cubic::new(1000, 10_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, 10_000, &r);
        let w0 = c.congestion_window();
        let now = Instant::from_millis(1);
        for _ in 0..7 {
            c.on_ack(
                now,
                &AckSample {
                    bytes_acked: 1000,
                    ..Default::default()
                },
                &r,
            );
        }
        // One RTT of ACKs at t ~ 0: W_est grew by alpha ~ 0.529 segments.
        let grown = c.congestion_window() - w0;
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        assert!((grown as f64 - alpha * 1000.0).abs() < 40.0, "grew {grown}");
    }
}
