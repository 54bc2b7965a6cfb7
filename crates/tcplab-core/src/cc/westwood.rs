//! TCP Westwood+ (Mascolo et al., MobiCom 2001; Grieco & Mascolo, ACM CCR 34(2), 2004):
//! Reno growth, an end-to-end bandwidth estimate BWE from the ACK stream sampled once per
//! RTT and low-pass filtered, and after a loss ssthresh = BWE x RTT_min (adaptive decrease).
//! Sampling and filter follow the authors' Linux implementation (tcp_westwood.c).

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;

/// Samples are taken at most once per max(RTT, 50 ms) (Linux TCP_WESTWOOD_RTT_MIN): the
/// "+" of Westwood+ is sampling once per RTT, which avoids the aliasing of per-ACK samples.
const MIN_SAMPLE_INTERVAL: Duration = Duration::from_millis(50);

#[derive(Clone, Debug)]
pub struct Westwood {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged in the current sampling interval (Linux `bk`).
    bk: u64,
    win_start: Option<Instant>,
    /// Filter stages in bytes/s (Linux `bw_ns_est`, `bw_est`).
    bw_ns_est: f64,
    bw_est: f64,
    have_sample: bool,
    latest_rtt: Option<Duration>,
    min_rtt: Option<Duration>,
    /// Congestion-avoidance byte counter (RFC 5681 3.1 appropriate byte counting).
    ca_acked: u64,
    /// Slow-start growth per ACK at most this many bytes (RFC 3465's L x SMSS).
    ss_limit: Option<u64>,
}

impl Westwood {
    pub fn new(mss: u32, initial_cwnd_bytes: u64) -> Self {
        Westwood {
            mss: mss as u64,
            cwnd: initial_cwnd_bytes.max(2 * mss as u64),
            ssthresh: u64::MAX,
            bk: 0,
            win_start: None,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            have_sample: false,
            latest_rtt: None,
            min_rtt: None,
            ca_acked: 0,
            ss_limit: Some(mss as u64),
        }
    }

    /// RFC 3465 (Appropriate Byte Counting): slow start grows by at most `l` segments per
    /// ACK. 1 is RFC 5681's rule (and ns-3's); Linux adds every segment an ACK covers, which
    /// with delayed ACKs is 2.
    pub fn set_abc_limit(&mut self, l: u32) {
        self.ss_limit = super::abc_byte_limit(l, self.mss);
    }

    /// BWE, the filtered bandwidth estimate.
    pub fn bandwidth_estimate(&self) -> Bandwidth {
        Bandwidth::from_bps_f64(self.bw_est * 8.0)
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    fn filter(&mut self, delta: Duration) {
        let sample = self.bk as f64 / delta.as_secs_f64();
        if !self.have_sample {
            // Initialised with the first sample (Linux 2.6.18 change by the authors).
            self.bw_ns_est = sample;
            self.bw_est = sample;
            self.have_sample = true;
        } else {
            // Two cascaded first-order low-pass stages, each b = (7 b + s) / 8.
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// ssthresh = BWE x RTT_min (at least 2 segments).
    fn bwe_window(&self) -> u64 {
        let rtt = self.min_rtt.map_or(0.0, |r| r.as_secs_f64());
        ((self.bw_est * rtt) as u64).max(2 * self.mss)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        if let Some(r) = ack.rtt {
            self.latest_rtt = Some(r);
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        // Bytes the receiver newly got (SACKed bytes count once).
        self.bk += ack
            .bytes_acked
            .saturating_sub(ack.bytes_acked_previously_sacked)
            + ack.bytes_sacked;
        match self.win_start {
            None => {
                // The first ACK opens the interval; what it acked arrived before it.
                self.win_start = Some(now);
                self.bk = 0;
            }
            Some(start) => {
                let delta = now.saturating_since(start);
                if let Some(rtt) = self.latest_rtt {
                    if delta > rtt.max(MIN_SAMPLE_INTERVAL) {
                        self.filter(delta);
                        self.bk = 0;
                        self.win_start = Some(now);
                    }
                }
            }
        }
        if ack.in_recovery || ack.not_cwnd_limited {
            return;
        }
        // Reno growth.
        let mut acked = ack.bytes_acked;
        if self.cwnd < self.ssthresh {
            let (cwnd, rest) = super::slow_start(self.cwnd, self.ssthresh, ack, self.ss_limit);
            self.cwnd = cwnd;
            acked = rest;
        }
        if acked > 0 {
            self.ca_acked += acked;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        // Mascolo et al. 2001 section 3: after 3 DUPACKs ssthresh = BWE x RTTmin / seg_size
        // (in segments) and cwin = ssthresh if cwin > ssthresh; after a timeout cwin = 1.
        self.ssthresh = self.bwe_window();
        self.ca_acked = 0;
        match event {
            CongestionEvent::FastRecovery => self.cwnd = self.cwnd.min(self.ssthresh),
            CongestionEvent::Timeout => {
                self.cwnd = self.mss;
                // Linux 2.6.18 (the authors): RTT_min is re-learned after a timeout to cope
                // with hard handovers.
                self.min_rtt = None;
            }
        }
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

    /// ACKs of `pkt` bytes every `gap`, RTT samples `rtt`, for `dur`.
    fn stream(
        w: &mut Westwood,
        from: Instant,
        dur: Duration,
        gap: Duration,
        pkt: u64,
        rtt: u64,
    ) -> Instant {
        let est = RttEstimator::default();
        let mut t = from;
        while t < from + dur {
            let ack = AckSample {
                bytes_acked: pkt,
                rtt: Some(Duration::from_millis(rtt)),
                ..Default::default()
            };
            w.on_ack(t, &ack, &est);
            t += gap;
        }
        t
    }

    #[test]
    fn bwe_converges_to_the_ack_rate() {
        // A 10 Mbit/s ACK stream (1250 B every 1 ms), RTT 80 ms: BWE -> 10 Mbit/s.
        let mut w = Westwood::new(1250, 12_500);
        let t = stream(
            &mut w,
            Instant::ZERO,
            Duration::from_secs(5),
            Duration::from_millis(1),
            1250,
            80,
        );
        let bwe = w.bandwidth_estimate().as_bps() as f64;
        assert!((bwe - 10e6).abs() / 10e6 < 0.02, "BWE {bwe}");
        // The rate halves: the low-pass filter follows within a few seconds, not at once.
        stream(
            &mut w,
            t,
            Duration::from_millis(300),
            Duration::from_millis(2),
            1250,
            80,
        );
        let mid = w.bandwidth_estimate().as_bps() as f64;
        assert!(mid > 6e6, "filtered, not instantaneous: {mid}");
        stream(
            &mut w,
            t + Duration::from_millis(300),
            Duration::from_secs(8),
            Duration::from_millis(2),
            1250,
            80,
        );
        let bwe = w.bandwidth_estimate().as_bps() as f64;
        assert!((bwe - 5e6).abs() / 5e6 < 0.02, "BWE {bwe}");
    }

    #[test]
    fn two_stage_low_pass_filter_values() {
        // Grieco & Mascolo 2004 / tcp_westwood.c westwood_filter: the first sample seeds both
        // stages; then bw_ns = (7 bw_ns + s) / 8 and bw = (7 bw + bw_ns) / 8.
        let mut w = Westwood::new(1000, 10_000);
        w.bk = 100_000;
        w.filter(Duration::from_millis(100)); // s1 = 1e6 B/s
        assert_eq!(w.bandwidth_estimate(), Bandwidth::from_mbps(8));
        w.bk = 0;
        w.filter(Duration::from_millis(100)); // s2 = 0
        assert_eq!(w.bw_ns_est, 875_000.0);
        assert_eq!(w.bw_est, 984_375.0);
        // Sampling happens once per max(RTT, 50 ms), not per ACK.
        let mut w = Westwood::new(1000, 10_000);
        let est = RttEstimator::default();
        let ack = AckSample {
            bytes_acked: 1000,
            rtt: Some(Duration::from_millis(30)),
            ..Default::default()
        };
        for t in 0..=50u64 {
            w.on_ack(Instant::from_millis(t), &ack, &est);
        }
        assert!(
            !w.have_sample,
            "30 ms RTT still samples at most every 50 ms"
        );
        w.on_ack(Instant::from_millis(51), &ack, &est);
        assert!(w.have_sample);
        // The ACKs at 1..=51 ms after the window opened at t = 0: 1000 B/ms = 8 Mbit/s.
        assert_eq!(w.bandwidth_estimate(), Bandwidth::from_mbps(8));
    }

    #[test]
    fn ssthresh_after_loss_is_bwe_times_rtt_min() {
        let mut w = Westwood::new(1250, 12_500);
        let t = stream(
            &mut w,
            Instant::ZERO,
            Duration::from_secs(5),
            Duration::from_millis(1),
            1250,
            80,
        );
        // One lower RTT sample: RTT_min = 60 ms.
        let ack = AckSample {
            bytes_acked: 1250,
            rtt: Some(Duration::from_millis(60)),
            ..Default::default()
        };
        let est = RttEstimator::default();
        w.on_ack(t, &ack, &est);
        let bwe_bytes_per_s = w.bw_est;
        let cwnd_before = w.congestion_window();
        w.on_congestion_event(t, CongestionEvent::FastRecovery, cwnd_before, &est);
        let expect = (bwe_bytes_per_s * 0.060) as u64;
        assert_eq!(w.ssthresh(), expect);
        assert!(
            (expect as f64 - 75_000.0).abs() < 1_500.0,
            "about 10 Mbit/s x 60 ms: {expect}"
        );
        assert_eq!(w.congestion_window(), cwnd_before.min(expect));
        w.on_congestion_event(t, CongestionEvent::Timeout, 0, &est);
        assert_eq!(w.congestion_window(), 1250);
        assert_eq!(w.ssthresh(), expect);
    }
}
