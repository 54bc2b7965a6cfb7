//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995, section 3.2 "Congestion Avoidance"
//! and 3.3 "Modified Slow-Start"), with the epoch and loss handling of Linux tcp_vegas.c:
//! once per RTT, Diff = (Expected - Actual) x BaseRTT with Expected = cwnd / BaseRTT and
//! Actual = cwnd / RTT; Diff < alpha: +1 segment, Diff > beta: -1 segment, else hold.

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};

/// Vegas thresholds in segments (the paper's alpha = 1, beta = 3 become 2 and 4 in Linux and
/// in the thesis's evaluation; gamma = 1 ends slow start).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VegasConfig {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// BaseRTT: the minimum RTT ever measured (paper 3.2).
    base_rtt: Option<Duration>,
    /// Minimum RTT sample of the current epoch (Linux: filters delayed-ACK noise).
    epoch_rtt: Option<Duration>,
    /// New bytes sent and bytes cumulatively acked since the start.
    sent: u64,
    acked: u64,
    /// The epoch (one RTT) ends with the first ACK beyond everything sent before it began
    /// (Linux `beg_snd_nxt`); `None` until the first ACK starts the first epoch.
    epoch_end: Option<u64>,
}

impl Vegas {
    pub fn new(mss: u32, initial_cwnd_bytes: u64) -> Self {
        Self::with_config(mss, initial_cwnd_bytes, VegasConfig::default())
    }

    pub fn with_config(mss: u32, initial_cwnd_bytes: u64, cfg: VegasConfig) -> Self {
        Vegas {
            cfg,
            mss: mss as u64,
            cwnd: initial_cwnd_bytes.max(2 * mss as u64),
            ssthresh: u64::MAX,
            base_rtt: None,
            epoch_rtt: None,
            sent: 0,
            acked: 0,
            epoch_end: None,
        }
    }

    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Diff in segments: cwnd x (RTT - BaseRTT) / RTT.
    fn diff(&self, rtt: Duration, base: Duration) -> f64 {
        let cwnd_pkts = self.cwnd as f64 / self.mss as f64;
        cwnd_pkts * (rtt.as_nanos() - base.as_nanos().min(rtt.as_nanos())) as f64
            / rtt.as_nanos().max(1) as f64
    }

    fn end_epoch(&mut self, bytes_acked: u64) {
        if let (Some(rtt), Some(base)) = (self.epoch_rtt, self.base_rtt) {
            let diff = self.diff(rtt, base);
            if self.in_slow_start() {
                if diff <= self.cfg.gamma {
                    self.cwnd += bytes_acked.min(self.mss);
                } else {
                    // 3.3: leave slow start when the queue grows beyond gamma; Linux sets
                    // cwnd to the expected-rate window + 1 segment.
                    let target = (self.cwnd as u128 * base.as_nanos() as u128
                        / rtt.as_nanos().max(1) as u128) as u64;
                    self.cwnd = self.cwnd.min(target + self.mss);
                    self.ssthresh = self.cwnd.saturating_sub(self.mss).max(2 * self.mss);
                }
            } else if diff < self.cfg.alpha {
                self.cwnd += self.mss;
            } else if diff > self.cfg.beta {
                self.cwnd -= self.mss;
            }
            self.cwnd = self.cwnd.max(2 * self.mss);
        } else if self.in_slow_start() {
            self.cwnd += bytes_acked.min(self.mss);
        }
        self.epoch_end = Some(self.sent);
        self.epoch_rtt = None;
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_packet_sent(&mut self, _now: Instant, bytes: u32, _in_flight: u64, retransmit: bool) {
        if !retransmit {
            self.sent += bytes as u64;
        }
    }

    fn on_ack(&mut self, _now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.epoch_rtt = Some(self.epoch_rtt.map_or(r, |b| b.min(r)));
        }
        self.acked += ack.bytes_acked;
        if ack.in_recovery {
            // The sender's fast recovery owns the window (Linux Vegas falls back to Reno).
            return;
        }
        let Some(end) = self.epoch_end else {
            self.epoch_end = Some(self.sent);
            if self.in_slow_start() {
                self.cwnd += ack.bytes_acked.min(self.mss);
            }
            return;
        };
        if self.acked > end {
            self.end_epoch(ack.bytes_acked);
        } else if self.in_slow_start() {
            // Standard slow start between the per-RTT checks (RFC 5681 3.1).
            self.cwnd += ack.bytes_acked.min(self.mss);
        }
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        // Loss: Reno's response (Linux tcp_vegas uses tcp_reno_ssthresh).
        self.ssthresh = (self.cwnd / 2).max(2 * self.mss);
        self.cwnd = match event {
            CongestionEvent::FastRecovery => self.ssthresh,
            CongestionEvent::Timeout => self.mss,
        };
        self.epoch_end = Some(self.sent);
        self.epoch_rtt = None;
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

    const MSS: u32 = 1000;

    /// Runs one RTT epoch: sends `cwnd` bytes, then acks them one segment per ACK with RTT
    /// samples `rtt_ms`.
    fn epoch(v: &mut Vegas, rtt_ms: u64) {
        let cwnd = v.congestion_window();
        let mut sent = 0;
        while sent < cwnd {
            v.on_packet_sent(Instant::ZERO, MSS, sent, false);
            sent += MSS as u64;
        }
        let rtt = RttEstimator::default();
        for _ in 0..sent / MSS as u64 {
            let ack = AckSample {
                bytes_acked: MSS as u64,
                rtt: Some(Duration::from_millis(rtt_ms)),
                ..Default::default()
            };
            v.on_ack(Instant::ZERO, &ack, &rtt);
        }
    }

    fn in_avoidance(cwnd_pkts: u64) -> Vegas {
        let mut v = Vegas::new(MSS, cwnd_pkts * MSS as u64);
        v.ssthresh = 0; // congestion avoidance
        v.base_rtt = Some(Duration::from_millis(100));
        v
    }

    /// Runs rounds with the given RTTs and returns cwnd (segments) after each. Each round's
    /// RTT samples are judged at the first ACK of the next round, when the ACK passes
    /// everything sent before the epoch began.
    fn rounds(v: &mut Vegas, rtts_ms: &[u64]) -> Vec<u64> {
        rtts_ms
            .iter()
            .map(|&r| {
                epoch(v, r);
                v.congestion_window() / MSS as u64
            })
            .collect()
    }

    #[test]
    fn plus_one_minus_one_hold_per_rtt() {
        // Brakmo & Peterson 3.2: Diff = cwnd (RTT - BaseRTT) / RTT segments, alpha = 2,
        // beta = 4, BaseRTT = 100 ms, cwnd 20:
        // round 1 (105 ms) judged in round 2: Diff = 20 x 5/105 = 0.95 < 2 -> 21;
        // round 2 (105 ms) judged in round 3 (min sample 105): Diff = 1.0 -> 22;
        // round 3 (125 ms) is judged with the first ACK of round 4 (also 125 ms):
        // Diff = 22 x 25/125 = 4.4 > 4 -> 21;
        // rounds 5, 6 (115 ms): Diff = 21 x 15/115 = 2.7 in [2, 4] -> hold.
        let mut v = in_avoidance(20);
        assert_eq!(
            rounds(&mut v, &[105, 105, 125, 125, 115, 115]),
            [20, 21, 22, 21, 21, 21]
        );
    }

    #[test]
    fn only_one_adjustment_per_rtt() {
        // 20+ ACKs per round, but Vegas adjusts once per RTT.
        let mut v = in_avoidance(20);
        assert_eq!(rounds(&mut v, &[100, 100, 100, 100]), [20, 21, 22, 23]);
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        // 3.3: slow start while Diff <= gamma = 1. Rounds at 100 ms: 4 -> 8 -> 16 -> 32
        // segments. The 150 ms round is judged in the next: Diff = 32 x 50/150 = 10.7 > 1,
        // so (Linux) cwnd = min(cwnd, expected + 1) with expected = 32000 x 100/150 = 21333
        // bytes, ssthresh = cwnd - 1 segment; no more slow-start growth.
        let mut v = Vegas::new(MSS, 4 * MSS as u64);
        assert_eq!(rounds(&mut v, &[100, 100, 150]), [8, 16, 32]);
        assert_eq!(v.ssthresh(), u64::MAX);
        epoch(&mut v, 150);
        assert_eq!(v.congestion_window(), 22_333);
        assert_eq!(v.ssthresh(), 21_333);
    }

    #[test]
    fn base_rtt_is_min_rtt_and_loss_halves() {
        let mut v = in_avoidance(20);
        rounds(&mut v, &[130, 90]);
        assert_eq!(v.base_rtt(), Some(Duration::from_millis(90)));
        let w = v.congestion_window();
        let rtt = RttEstimator::default();
        v.on_congestion_event(Instant::ZERO, CongestionEvent::FastRecovery, w, &rtt);
        assert_eq!(v.congestion_window(), w / 2);
        v.on_congestion_event(Instant::ZERO, CongestionEvent::Timeout, w, &rtt);
        assert_eq!(v.congestion_window(), MSS as u64);
    }
}
