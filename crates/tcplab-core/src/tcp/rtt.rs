//! RTT estimation and the retransmission timeout (RFC 6298 sections 2 and 5), in integer
//! nanoseconds so that every run is bit-for-bit reproducible; and Linux's variant of it
//! (net/ipv4/tcp_input.c `tcp_rtt_estimator`, `tcp_set_rto`), scenario key `rto_rule`.

use crate::time::Duration;
use serde::{Deserialize, Serialize};

/// How the RTO follows the RTT samples (scenario key `rto_rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRule {
    /// RFC 6298 2.2-2.5: RTO = SRTT + max(G, 4 RTTVAR), then at least `min_rto` and at
    /// most `max_rto` (ns-3's `RttMeanDeviation` and `TcpSocketBase` too).
    #[default]
    Rfc6298,
    /// Linux (tcp_rtt_estimator, tcp_set_rto, since 2.6.x): RTO = SRTT + RTTVAR', where
    /// RTTVAR' is the largest 4 x mean deviation seen in the current round trip (one
    /// flight, `rtt_seq`), at least `min_rto`, decaying by a quarter of its excess per
    /// round; a falling RTT moves the deviation with gain 1/32 instead of 1/4. So the
    /// floor is on the variance term, not the total: a steady 300 ms RTT gives an RTO of
    /// 500 ms with the 200 ms `min_rto`, where RFC 6298 gives 300 ms.
    Linux,
}

/// RFC 6298 estimator: SRTT, RTTVAR, RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: Option<Duration>,
    pub rttvar: Duration,
    /// Smallest sample seen (delay-based algorithms read it).
    pub min_rtt: Option<Duration>,
    /// The most recent sample.
    pub latest: Option<Duration>,
    /// RTO before backoff, already clamped to [min_rto, max_rto].
    base_rto: Duration,
    /// Number of consecutive doublings (RFC 6298 5.5).
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    /// Clock granularity G (RFC 6298 2.2): the timestamp tick, or 1 ms.
    granularity: Duration,
    rule: RtoRule,
    /// `RtoRule::Linux` state, in nanoseconds: `mdev_us`, `mdev_max_us`, `rttvar_us`
    /// (each 4 x a mean deviation) and `rtt_seq` (the stream position ending the round).
    mdev: u64,
    mdev_max: u64,
    linux_rttvar: u64,
    rtt_seq: u64,
}

impl Default for RttEstimator {
    /// RFC 6298 values: initial RTO 1 s, lower bound 1 s, upper bound 60 s, G = 1 ms.
    fn default() -> Self {
        RttEstimator::new(
            Duration::from_secs(1),
            Duration::from_secs(1),
            Duration::from_secs(60),
            Duration::from_millis(1),
        )
    }
}

/// K in RFC 6298 2.2.
const K: u64 = 4;

impl RttEstimator {
    pub fn new(
        initial_rto: Duration,
        min_rto: Duration,
        max_rto: Duration,
        granularity: Duration,
    ) -> Self {
        let g = if granularity == Duration::ZERO {
            Duration::from_millis(1)
        } else {
            granularity
        };
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            min_rtt: None,
            latest: None,
            base_rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity: g,
            rule: RtoRule::Rfc6298,
            mdev: 0,
            mdev_max: 0,
            linux_rttvar: 0,
            rtt_seq: 0,
        }
    }

    /// The same estimator under another [`RtoRule`].
    pub fn with_rule(mut self, rule: RtoRule) -> Self {
        self.rule = rule;
        self
    }

    /// Feed one RTT measurement (Karn's rule is the caller's business). `una` and `nxt`
    /// are the sender's SND.UNA and SND.NXT as stream positions: `RtoRule::Linux` ends its
    /// round when SND.UNA passes the SND.NXT of the round's start.
    pub fn on_sample_at(&mut self, r: Duration, una: u64, nxt: u64) {
        if self.rule == RtoRule::Linux {
            self.on_sample_linux(r, una, nxt);
        } else {
            self.on_sample(r);
        }
    }

    /// net/ipv4/tcp_input.c `tcp_rtt_estimator` and `tcp_set_rto` (Linux 3.x-6.x), in
    /// nanoseconds where Linux uses microseconds.
    fn on_sample_linux(&mut self, r: Duration, una: u64, nxt: u64) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let min_rto = self.min_rto.0;
        let m = r.0 as i64;
        match self.srtt {
            None => {
                // "make sure rto = 3*rtt": mdev = 2 R, RTTVAR' = max(mdev, rto_min).
                self.srtt = Some(r);
                self.mdev = 2 * r.0;
                self.linux_rttvar = self.mdev.max(min_rto);
                self.mdev_max = self.linux_rttvar;
                self.rtt_seq = nxt;
            }
            Some(srtt) => {
                let err = m - srtt.0 as i64;
                // srtt = 7/8 srtt + 1/8 R (Linux keeps 8 srtt; the same in integers here).
                self.srtt = Some(Duration((srtt.0 as i64 + err / 8).max(1) as u64));
                let mut d = err.abs() - (self.mdev / 4) as i64;
                if err < 0 && d > 0 {
                    // An RTT below SRTT moves the deviation up with gain 1/32 only.
                    d /= 8;
                }
                self.mdev = (self.mdev as i64 + d).max(0) as u64;
                if self.mdev > self.mdev_max {
                    self.mdev_max = self.mdev;
                    self.linux_rttvar = self.linux_rttvar.max(self.mdev_max);
                }
                if una > self.rtt_seq {
                    // A round ended: RTTVAR' decays towards this round's largest deviation.
                    if self.mdev_max < self.linux_rttvar {
                        self.linux_rttvar -= (self.linux_rttvar - self.mdev_max) / 4;
                    }
                    self.rtt_seq = nxt;
                    self.mdev_max = min_rto;
                }
            }
        }
        self.rttvar = Duration(self.mdev / 4);
        let srtt = self.srtt.unwrap_or(r);
        // tcp_set_rto + tcp_bound_rto: no separate floor on the total.
        self.base_rto = (srtt + Duration(self.linux_rttvar)).min(self.max_rto);
    }

    /// Feed one RTT measurement under RFC 6298 (Karn's rule is the caller's business).
    pub fn on_sample(&mut self, r: Duration) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                // RFC 6298 2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 2.3 with alpha = 1/8, beta = 1/4; RTTVAR uses the old SRTT.
                let err = if srtt > r { srtt - r } else { r - srtt };
                self.rttvar = Duration((3 * self.rttvar.0 + err.0) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let rto = srtt + self.granularity.max(Duration(K * self.rttvar.0));
        // RFC 6298 2.4 (lower bound, configurable as Linux does) and 2.5 (upper bound).
        self.base_rto = rto.max(self.min_rto).min(self.max_rto);
    }

    /// The RTO without backoff.
    pub fn base_rto(&self) -> Duration {
        self.base_rto
    }

    /// The RTO to arm now: base RTO doubled per backoff step, capped at max_rto (RFC 6298 5.5).
    pub fn rto(&self) -> Duration {
        let mut r = self.base_rto;
        for _ in 0..self.backoff {
            r = r.saturating_mul(2);
            if r >= self.max_rto {
                return self.max_rto;
            }
        }
        r.min(self.max_rto)
    }

    /// RFC 6298 5.5: back the timer off after an expiry.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// RFC 6298 5.7: "If the timer expires awaiting the ACK of a SYN segment and the TCP
    /// implementation is using an RTO less than 3 seconds, the RTO MUST be re-initialized to
    /// 3 seconds when data transmission begins" (unless an RTT sample set it since).
    pub fn reinit_after_syn_timeout(&mut self) {
        if self.srtt.is_none() {
            self.base_rto = self.base_rto.max(Duration::from_secs(3)).min(self.max_rto);
        }
    }

    /// Forget the backoff: a new RTT sample has recomputed the RTO (Karn's algorithm).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    pub fn granularity(&self) -> Duration {
        self.granularity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_5_7_three_seconds_after_a_syn_timeout() {
        let mut r = RttEstimator::default();
        r.back_off();
        r.reinit_after_syn_timeout();
        r.reset_backoff();
        assert_eq!(r.rto(), Duration::from_secs(3));
        // A sample taken since then wins.
        let mut r = RttEstimator::default();
        r.on_sample(Duration::from_millis(100));
        r.reinit_after_syn_timeout();
        assert_eq!(r.rto(), Duration::from_secs(1));
    }

    fn est() -> RttEstimator {
        RttEstimator::new(
            Duration::from_secs(1),
            Duration::from_millis(200),
            Duration::from_secs(60),
            Duration::from_millis(1),
        )
    }

    #[test]
    fn first_sample_rfc6298_2_2() {
        // RFC 6298 2.2: "SRTT <- R, RTTVAR <- R/2, RTO <- SRTT + max (G, K*RTTVAR)".
        let mut e = est();
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.on_sample(Duration::from_millis(100));
        assert_eq!(e.srtt, Some(Duration::from_millis(100)));
        assert_eq!(e.rttvar, Duration::from_millis(50));
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn subsequent_sample_rfc6298_2_3() {
        // RFC 6298 2.3: "RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|" then
        // "SRTT <- (1 - alpha) * SRTT + alpha * R'", alpha = 1/8, beta = 1/4.
        let mut e = est();
        e.on_sample(Duration::from_millis(100));
        e.on_sample(Duration::from_millis(200));
        // RTTVAR = 3/4 * 50 + 1/4 * 100 = 62.5 ms; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5 ms.
        assert_eq!(e.rttvar, Duration::from_micros(62_500));
        assert_eq!(e.srtt, Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(112_500 + 250_000));
    }

    #[test]
    fn lower_bound_and_granularity_rfc6298_2_4() {
        // A tiny, steady RTT: K*RTTVAR -> 0, so G and then min_rto dominate.
        let mut e = est();
        for _ in 0..100 {
            e.on_sample(Duration::from_micros(10));
        }
        assert_eq!(e.rto(), Duration::from_millis(200));
        let mut e = RttEstimator::new(
            Duration::from_secs(1),
            Duration::ZERO,
            Duration::from_secs(60),
            Duration::from_millis(10),
        );
        for _ in 0..100 {
            e.on_sample(Duration::from_micros(10));
        }
        assert_eq!(
            e.rto(),
            Duration::from_micros(10) + Duration::from_millis(10)
        );
    }

    #[test]
    fn linux_floors_the_variance_term_not_the_total() {
        // A steady 300 ms RTT: RFC 6298 lets the RTO fall to max(300 ms + G, 200 ms);
        // Linux keeps RTTVAR' >= rto_min, so the RTO stays at 300 + 200 ms.
        let mut rfc = est();
        let mut linux = est().with_rule(RtoRule::Linux);
        let (mut una, mut nxt) = (0u64, 10u64);
        for _ in 0..200 {
            rfc.on_sample(Duration::from_millis(300));
            linux.on_sample_at(Duration::from_millis(300), una, nxt);
            una = nxt;
            nxt += 10;
        }
        assert_eq!(rfc.rto(), Duration::from_millis(301));
        // (Linux's integer decay leaves up to 3 units above the floor, here nanoseconds.)
        let excess = linux.rto() - Duration::from_millis(500);
        assert!(excess < Duration::from_micros(1), "{:?}", linux.rto());
        // First sample: RTO = 3 R (mdev = 2 R) when 2 R exceeds rto_min.
        let mut l = est().with_rule(RtoRule::Linux);
        l.on_sample_at(Duration::from_millis(150), 0, 10);
        assert_eq!(l.rto(), Duration::from_millis(450));
    }

    #[test]
    fn linux_rttvar_holds_the_rounds_peak_and_decays_by_quarters() {
        let mut l = est().with_rule(RtoRule::Linux);
        l.on_sample_at(Duration::from_millis(100), 0, 100);
        // Rounds of steady 100 ms: the deviation shrinks, RTTVAR' sits at rto_min.
        let mut una = 0;
        for i in 1..50u64 {
            una = i * 100;
            l.on_sample_at(Duration::from_millis(100), una, una + 100);
        }
        assert_eq!(l.rto(), Duration::from_millis(300));
        // A spike of +400 ms: mdev = 3/4 mdev + 400 ms, so RTTVAR' jumps to about 400 ms.
        l.on_sample_at(Duration::from_millis(500), una, una + 100);
        let spiked = l.rto();
        assert!(spiked > Duration::from_millis(540), "{spiked:?}");
        // Within the same round it does not fall back; over the next rounds it decays by a
        // quarter of the excess each, towards 200 ms.
        l.on_sample_at(Duration::from_millis(100), una, una + 100);
        assert!(l.rto() >= spiked - Duration::from_millis(60));
        // (The deviation itself shrinks by a quarter per sample: with one sample per round
        // the round's peak stays above rto_min for a few rounds.)
        let mut prev_var = l.rto() - l.srtt.unwrap();
        for i in 0..30u64 {
            let u = una + 1000 * (i + 1);
            l.on_sample_at(Duration::from_millis(100), u, u + 100);
            let var = l.rto() - l.srtt.unwrap();
            assert!(
                var <= prev_var && var >= Duration::from_millis(200),
                "{var:?}"
            );
            prev_var = var;
        }
        assert!(prev_var < Duration::from_millis(201), "{prev_var:?}");
    }

    #[test]
    fn backoff_doubles_and_caps_rfc6298_5_5() {
        // RFC 6298 5.5: "set RTO <- RTO * 2 ("back off the timer")"; 2.5: a maximum may be placed.
        let mut e = est();
        e.back_off();
        assert_eq!(e.rto(), Duration::from_secs(2));
        e.back_off();
        assert_eq!(e.rto(), Duration::from_secs(4));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        e.reset_backoff();
        assert_eq!(e.rto(), Duration::from_secs(1));
    }
}
