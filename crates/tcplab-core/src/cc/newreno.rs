//! NewReno window arithmetic (RFC 5681 sections 3.1-3.2; ACK-counting increase as in
//! ns-3's TcpNewReno, which tcplab is cross-validated against). Recovery itself (RFC 6582
//! inflation, RFC 6675 pipe) lives in the sender.

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct NewReno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Slow-start growth per ACK at most this many bytes (RFC 3465's L x SMSS; None: up to
    /// ssthresh, Linux).
    ss_limit: Option<u64>,
    /// `ca_exact_increase`: the fractional byte of each avoidance step carried to the next
    /// ACK (ns-2's `cwnd_` is a double); false: whole bytes, truncated (ns-3's TcpNewReno).
    pub carry_remainder: bool,
    /// That fraction, in 1/cwnd bytes.
    remainder: u64,
}

impl NewReno {
    pub fn new(mss: u32, initial_cwnd_bytes: u64) -> Self {
        NewReno {
            mss: mss.max(1) as u64,
            cwnd: initial_cwnd_bytes.max(mss as u64),
            ssthresh: u64::MAX,
            ss_limit: Some(mss.max(1) as u64),
            carry_remainder: false,
            remainder: 0,
        }
    }

    /// RFC 3465 (Appropriate Byte Counting): slow start grows by at most `l` segments per
    /// ACK. 1 is RFC 5681's rule (and ns-3's); Linux adds every segment an ACK covers, which
    /// with delayed ACKs is 2.
    pub fn set_abc_limit(&mut self, l: u32) {
        self.ss_limit = super::abc_byte_limit(l, self.mss);
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, _now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        // Fast recovery manages the window itself (RFC 6582 / RFC 6675): no growth here.
        if ack.in_recovery || ack.not_cwnd_limited || ack.bytes_acked == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            // RFC 5681 3.1 (eq. 2): cwnd += min(N, SMSS) (L x SMSS with RFC 3465's L).
            let (cwnd, rest) = super::slow_start(self.cwnd, self.ssthresh, ack, self.ss_limit);
            self.cwnd = cwnd;
            if rest == 0 {
                return;
            }
        }
        // RFC 5681 3.1 (eq. 3): cwnd += SMSS*SMSS/cwnd, at least 1 byte. Truncated, the
        // step loses up to a byte per ACK: 3% of the growth at 33 segments of 512 bytes.
        let step = self.mss * self.mss
            + if self.carry_remainder {
                self.remainder
            } else {
                0
            };
        if self.carry_remainder {
            self.remainder = step % self.cwnd;
        }
        self.cwnd += (step / self.cwnd).max(1);
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        // RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2*SMSS).
        self.ssthresh = (in_flight / 2).max(2 * self.mss);
        self.cwnd = match event {
            // RFC 6675 section 5 step 4.2 / RFC 6582 (the sender adds the 3 SMSS inflation).
            CongestionEvent::FastRecovery => self.ssthresh,
            // RFC 5681 3.1: after an RTO the loss window is one segment.
            CongestionEvent::Timeout => self.mss,
        };
    }

    fn on_recovery_exit(&mut self, _now: Instant) {
        // RFC 6582 3.2 step 3 ("full ACK"), option 2: cwnd = ssthresh.
        self.cwnd = self.ssthresh;
    }

    fn ns2_linux_recovery_exit(&mut self, _now: Instant, limit: u64) {
        // tcp-linux.cc: `if (snd_cwnd < snd_ssthresh) { snd_cwnd = snd_ssthresh;
        // tcp_moderate_cwnd(); }`
        if self.ssthresh != u64::MAX && self.cwnd < self.ssthresh {
            self.cwnd = self.ssthresh.min(limit).max(self.mss);
        }
    }

    fn congestion_window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckSample {
        AckSample {
            bytes_acked: bytes,
            ..Default::default()
        }
    }

    #[test]
    fn exact_increase_carries_the_fraction_truncation_drops() {
        // 512-byte segments at a window of 33: SMSS*SMSS/cwnd = 15.5 bytes per ACK. Over one
        // window of ACKs ns-2's double cwnd_ grows by almost one segment (the step shrinks as
        // the window grows); truncated steps of 15
        // bytes grow it by 3% less.
        let grow = |carry: bool| {
            let mut c = NewReno::new(512, 33 * 512);
            c.ssthresh = 2 * 512;
            c.carry_remainder = carry;
            let rtt = RttEstimator::default();
            for _ in 0..33 {
                c.on_ack(Instant::ZERO, &ack(512), &rtt);
            }
            c.cwnd - 33 * 512
        };
        let (exact, truncated) = (grow(true), grow(false));
        assert!((500..=512).contains(&exact), "{exact}");
        assert_eq!(truncated, 33 * 15);
    }

    #[test]
    fn slow_start_rfc5681_eq2() {
        // RFC 5681 3.1: "cwnd += min (N, SMSS)" during slow start.
        let r = RttEstimator::default();
        let mut c = NewReno::new(1000, 10_000);
        c.on_ack(Instant::ZERO, &ack(1000), &r);
        assert_eq!(c.congestion_window(), 11_000);
        c.on_ack(Instant::ZERO, &ack(3000), &r);
        assert_eq!(c.congestion_window(), 12_000);
        c.on_ack(Instant::ZERO, &ack(500), &r);
        assert_eq!(c.congestion_window(), 12_500);
    }

    #[test]
    fn congestion_avoidance_rfc5681_eq3() {
        // RFC 5681 3.1: "cwnd += SMSS*SMSS/cwnd" on every ACK in congestion avoidance.
        let r = RttEstimator::default();
        let mut c = NewReno::new(1000, 10_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, 20_000, &r);
        assert_eq!((c.ssthresh(), c.congestion_window()), (10_000, 10_000));
        c.on_ack(Instant::ZERO, &ack(1000), &r);
        assert_eq!(c.congestion_window(), 10_100);
        // One window of ACKs adds about one SMSS.
        for _ in 0..10 {
            c.on_ack(Instant::ZERO, &ack(1000), &r);
        }
        assert!(
            (11_000..11_100).contains(&c.congestion_window()),
            "{}",
            c.congestion_window()
        );
        // Huge window: the increase never rounds to zero.
        let mut c = NewReno::new(1000, 10_000);
        c.on_congestion_event(
            Instant::ZERO,
            CongestionEvent::FastRecovery,
            4_000_000_000,
            &r,
        );
        c.on_ack(Instant::ZERO, &ack(1000), &r);
        assert_eq!(c.congestion_window(), 2_000_000_001);
    }

    #[test]
    fn loss_response_rfc5681_eq4() {
        // RFC 5681 eq. 4: "ssthresh = max (FlightSize / 2, 2*SMSS)"; after an RTO cwnd = 1 SMSS.
        let r = RttEstimator::default();
        let mut c = NewReno::new(1000, 10_000);
        c.on_congestion_event(Instant::ZERO, CongestionEvent::Timeout, 3000, &r);
        assert_eq!((c.ssthresh(), c.congestion_window()), (2000, 1000));
        // No growth while in recovery.
        let mut a = ack(1000);
        a.in_recovery = true;
        c.on_ack(Instant::ZERO, &a, &r);
        assert_eq!(c.congestion_window(), 1000);
    }
}
