//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995, section 3.2 "Congestion Avoidance"
//! and 3.3 "Modified Slow-Start") as Linux tcp_vegas.c runs it, since the thesis's baseline
//! (chapter 6) is Linux's Vegas: once per RTT, with RTT the minimum sample of the epoch,
//! Diff = floor(cwnd x (RTT - BaseRTT) / BaseRTT) segments; Diff < alpha: +1 segment,
//! Diff > beta: -1 segment and ssthresh = min(ssthresh, cwnd), else hold. The last step keeps
//! a shrinking window out of slow start: without it the next ACK grows it straight back.
//! Epochs with 2 or fewer RTT samples are not judged (likely delayed ACKs only).

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};

/// Which Vegas `cc = "vegas"` runs (scenario key `vegas_variant`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasVariant {
    /// Later kernels' `tcp_vegas.c` ([`Vegas`]): diff from cwnd against BaseRTT.
    #[default]
    Linux,
    /// Linux 2.6.22's, as ns-2.35's TCP-Linux carries it ([`super::vegas_ns2::VegasNs2`]):
    /// diff from the data the last round carried, in half segments, against the round's
    /// RTT; ssthresh 2 on leaving slow start.
    Ns2,
}

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
    /// RTT samples in the current epoch (Linux `cntRTT`).
    epoch_samples: u32,
    /// New bytes sent and bytes cumulatively acked since the start.
    sent: u64,
    acked: u64,
    /// The epoch (one RTT) ends with the first ACK beyond everything sent before it began
    /// (Linux `beg_snd_nxt`); `None` until the first ACK starts the first epoch.
    epoch_end: Option<u64>,
    /// Slow-start growth per ACK at most this many bytes (RFC 3465's L x SMSS; None: up to
    /// ssthresh, Linux).
    ss_limit: Option<u64>,
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
            epoch_samples: 0,
            sent: 0,
            acked: 0,
            epoch_end: None,
            ss_limit: Some(mss as u64),
        }
    }

    /// RFC 3465 (Appropriate Byte Counting): slow start grows by at most `l` segments per
    /// ACK. 1 is RFC 5681's rule (and ns-3's); Linux adds every segment an ACK covers, which
    /// with delayed ACKs is 2.
    pub fn set_abc_limit(&mut self, l: u32) {
        self.ss_limit = super::abc_byte_limit(l, self.mss);
    }

    /// Slow start on one ACK (Linux `tcp_vegas_cong_avoid` calls `tcp_slow_start` alone).
    fn slow_start(&mut self, ack: &AckSample) {
        self.cwnd = super::slow_start(self.cwnd, self.ssthresh, ack, self.ss_limit).0;
    }

    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Diff in whole segments as Linux computes it: floor(cwnd x (RTT - BaseRTT) / BaseRTT).
    /// (The paper's (Expected - Actual) x BaseRTT divides by RTT instead; Linux's value is
    /// larger, so it backs off earlier.)
    fn diff(&self, rtt: Duration, base: Duration) -> u64 {
        let queued = rtt.as_nanos().saturating_sub(base.as_nanos()) as u128;
        (self.cwnd as u128 * queued / (base.as_nanos().max(1) as u128 * self.mss as u128)) as u64
    }

    fn end_epoch(&mut self, ack: &AckSample) {
        match (self.epoch_rtt, self.base_rtt) {
            (Some(rtt), Some(base)) if self.epoch_samples > 2 => {
                let diff = self.diff(rtt, base) as f64;
                if self.in_slow_start() && diff > self.cfg.gamma {
                    // 3.3: leave slow start when the queue grows beyond gamma; Linux sets
                    // cwnd to the expected-rate window + 1 segment.
                    let target = (self.cwnd as u128 * base.as_nanos() as u128
                        / rtt.as_nanos().max(1) as u128) as u64;
                    self.cwnd = self.cwnd.min(target + self.mss);
                    self.ssthresh = self.ssthresh.min(self.cwnd);
                } else if self.in_slow_start() {
                    self.slow_start(ack);
                } else if diff > self.cfg.beta {
                    self.cwnd -= self.mss;
                    self.ssthresh = self.ssthresh.min(self.cwnd);
                } else if diff < self.cfg.alpha {
                    self.cwnd += self.mss;
                }
                self.cwnd = self.cwnd.max(2 * self.mss);
                // Linux tcp_current_ssthresh(): ssthresh = max(ssthresh, 3/4 cwnd).
                self.ssthresh = self.ssthresh.max(self.cwnd / 2 + self.cwnd / 4);
            }
            // Too few samples to judge: Linux falls back to Reno for this ACK, which in
            // congestion avoidance adds a negligible 1/cwnd.
            _ if self.in_slow_start() => self.slow_start(ack),
            _ => {}
        }
        self.epoch_end = Some(self.sent);
        self.epoch_rtt = None;
        self.epoch_samples = 0;
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
            self.epoch_samples += 1;
        }
        self.acked += ack.bytes_acked;
        if ack.in_recovery {
            // The sender's fast recovery owns the window (Linux Vegas falls back to Reno).
            return;
        }
        let Some(end) = self.epoch_end else {
            self.epoch_end = Some(self.sent);
            if self.in_slow_start() && !ack.not_cwnd_limited {
                self.slow_start(ack);
            }
            return;
        };
        if self.acked > end {
            self.end_epoch(ack);
        } else if self.in_slow_start() && !ack.not_cwnd_limited {
            // Standard slow start between the per-RTT checks (RFC 5681 3.1).
            self.slow_start(ack);
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
        self.epoch_samples = 0;
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
        v.ssthresh = v.cwnd; // congestion avoidance, as after Vegas's slow-start exit
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
        // Linux: Diff = floor(cwnd (RTT - BaseRTT) / BaseRTT) segments, alpha = 2, beta = 4,
        // BaseRTT = 100 ms, cwnd 20:
        // round 1 (105 ms) judged in round 2: Diff = floor(20 x 5/100) = 1 < 2 -> 21;
        // round 2 (105 ms) judged in round 3 (min sample 105): Diff = 1 -> 22;
        // round 3 (125 ms) is judged with the first ACK of round 4 (also 125 ms):
        // Diff = floor(22 x 25/100) = 5 > 4 -> 21;
        // rounds 5, 6 (115 ms): Diff = floor(21 x 15/100) = 3 in [2, 4] -> hold.
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
        // bytes, ssthresh = cwnd; no more slow-start growth.
        let mut v = Vegas::new(MSS, 4 * MSS as u64);
        assert_eq!(rounds(&mut v, &[100, 100, 150]), [8, 16, 32]);
        assert_eq!(v.ssthresh(), u64::MAX);
        epoch(&mut v, 150);
        assert_eq!(v.congestion_window(), 22_333);
        assert_eq!(v.ssthresh(), 22_333);
        epoch(&mut v, 150);
        assert!(v.congestion_window() < 22_333, "{}", v.congestion_window());
    }

    #[test]
    fn a_standing_queue_shrinks_the_window_every_rtt() {
        // After slow start ends, a queue that stays above beta must take one segment off
        // every RTT. (A decrease that leaves cwnd below ssthresh re-enters slow start, which
        // grew the window straight back: Vegas sat at a fixed window on the cellular traces.)
        let mut v = Vegas::new(MSS, 4 * MSS as u64);
        // The first 300 ms round is judged with the first ACK of the next one.
        rounds(&mut v, &[100, 100, 100, 100, 300, 300]);
        assert!(!v.in_slow_start());
        let w = rounds(&mut v, &[300; 12]);
        for pair in w.windows(2) {
            assert_eq!(pair[1] + 1, pair[0], "{w:?}");
        }
    }

    #[test]
    fn an_epoch_with_two_samples_is_not_judged() {
        // Linux judges an epoch only with 3 or more RTT samples (2 are likely delayed ACKs).
        let mut v = in_avoidance(20);
        assert_eq!(rounds(&mut v, &[100, 100]), [20, 21]);
        // A round acknowledged by two stretch ACKs: its first ACK closes round 2's epoch
        // (+1); its second and the next round's first are the only samples of its own.
        v.on_packet_sent(Instant::ZERO, 22 * MSS, 0, false);
        let rtt = RttEstimator::default();
        for _ in 0..2 {
            let ack = AckSample {
                bytes_acked: 11 * MSS as u64,
                rtt: Some(Duration::from_millis(300)),
                ..Default::default()
            };
            v.on_ack(Instant::ZERO, &ack, &rtt);
        }
        assert_eq!(v.congestion_window(), 22 * MSS as u64);
        // Diff = 22 x 200/100 = 44 > beta, but that epoch is not judged; the next one is.
        assert_eq!(rounds(&mut v, &[300, 300]), [22, 21]);
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
