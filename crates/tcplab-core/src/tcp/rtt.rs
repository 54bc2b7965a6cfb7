//! RTT estimation and the retransmission timeout (RFC 6298 sections 2 and 5), in integer
//! nanoseconds so that every run is bit-for-bit reproducible.

use crate::time::Duration;

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
        }
    }

    /// Feed one RTT measurement (Karn's rule is the caller's business).
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
