//! Adaptive Flow Control (Sanadhya & Sivakumar 2014, "Rethinking TCP flow control for
//! smartphones and tablets"): sections 4.1-4.2, Algorithms 1-4. The pure parts live here
//! (read-rate sampling, the option's unit, the flow window, the proactive-ACK trigger, the
//! burst gap); the endpoint glue is `tcp/endpoint/afc.rs`.

use super::classic::{read_update, WindowUpdate};
use super::{DataArrival, RcvView, ReadAction, ReceiverPolicy};
use crate::segment::Segment;
use crate::tcp::TcpStats;
use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};

/// When the receiver calls `ar_update` (scenario key `afc_rate_sampling`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RateSampling {
    /// The paper's pseudo-code: at every data arrival while data is buffered (Algorithm 1
    /// lines 28-29, `ar_update(bytes_read, now)` with `bytes_read` = 0 unless a waiting
    /// application took the data at once) and at every application read (Algorithm 3
    /// line 8).
    #[default]
    Paper,
    /// Ablation: only when the application reads (Algorithm 3 line 8), so that a data
    /// arrival never contributes a zero sample. Section 6 reads "a single sample of
    /// application read rate is computed when the receive/read module is invoked".
    ReadsOnly,
}

/// Algorithm 2 (`ar_update`): an exponential average of the application read rate,
/// sampled whenever data arrives (Algorithm 1 line 29) and whenever the application reads
/// (Algorithm 3 line 8). Rates are in bytes per second.
#[derive(Clone, Debug)]
pub struct RateSampler {
    history_factor: f64,
    /// `smooth_rx` (Table 2): the exponential average.
    smooth: f64,
    /// `last_rx` (Table 2): the value of `smooth_rx` before the latest sample.
    last: f64,
    /// `last_read` (Algorithm 2): when the procedure was last called.
    last_read: Instant,
    /// The sample taken at `last_read`: its bytes and the interval it covers, so that a
    /// second call at the same instant joins it (see `update`).
    sample_bytes: u64,
    sample_elapsed: Duration,
}

impl RateSampler {
    /// `history_factor` in [0, 1] is "the weight given to the old application rate
    /// estimate" (Algorithm 2); the paper uses 0.5 (section 5.1). `start` is when the
    /// connection was established: the first sample covers the time since then.
    pub fn new(history_factor: f64, start: Instant) -> Self {
        RateSampler {
            history_factor: history_factor.clamp(0.0, 1.0),
            smooth: 0.0,
            last: 0.0,
            last_read: start,
            sample_bytes: 0,
            sample_elapsed: Duration::ZERO,
        }
    }

    /// `ar_update(num_bytes, read_time)`.
    ///
    /// Algorithm 2 skips a call with no elapsed time ("if t_elapsed then"). A call at the
    /// same instant as the previous one is the same invocation of the receive/read module
    /// in the paper's model (data "delivered instantly to a waiting application" is part of
    /// the arrival's sample, Algorithm 1 lines 18-21 and 29; section 6: "a single sample ...
    /// is computed when the receive/read module is invoked"), so its bytes join that sample
    /// instead of being lost. Without this, an application that reads each segment the
    /// moment it arrives would be measured as reading nothing.
    pub fn update(&mut self, num_bytes: u64, now: Instant) {
        let elapsed = now.saturating_since(self.last_read);
        if elapsed > Duration::ZERO {
            self.last = self.smooth;
            self.sample_bytes = num_bytes;
            self.sample_elapsed = elapsed;
        } else if self.sample_elapsed > Duration::ZERO {
            self.sample_bytes += num_bytes;
        } else {
            return;
        }
        let inst = self.sample_bytes as f64 / self.sample_elapsed.as_secs_f64();
        self.smooth = self.history_factor * self.last + (1.0 - self.history_factor) * inst;
        self.last_read = now;
    }

    /// `smooth_rx` in bytes per second.
    pub fn smooth_rx(&self) -> f64 {
        self.smooth
    }

    /// `last_rx` in bytes per second.
    pub fn last_rx(&self) -> f64 {
        self.last
    }
}

/// Algorithm 3 line 9: a proactive ACK when `smooth_rx` moves beyond a factor of `last_rx`.
/// The pseudo-code's "smooth_rx > factor * last_rx || smooth_rx < factor * last_rx" reads
/// literally as "differs from factor * last_rx"; the text says "greater/lesser than a
/// factor times the last value" and section 6 "changes beyond a factor of the last rate",
/// so with `factor` > 1 the test is a rise above `factor` times or a fall below 1/`factor`.
pub fn proactive_due(smooth_rx: f64, last_rx: f64, factor: f64) -> bool {
    smooth_rx > factor * last_rx || smooth_rx * factor < last_rx
}

/// Section 4.1.3: feedback also "when there is a drastic change in the buffer state" --
/// the free space grew beyond `factor` times the window last advertised (and by at least
/// one segment, so that a tiny window does not trigger on every byte read).
pub fn buffer_drained(free: u64, last_advertised: u64, mss: u32, factor: f64) -> bool {
    free >= last_advertised + mss as u64 && free as f64 > factor * last_advertised as f64
}

/// The rate field of the AFC option: "the application read rate in Kbps" (section 4.2.1).
/// Rounded to the nearest kbit/s, saturating at the 32-bit field.
pub fn encode_rate_kbps(bytes_per_s: f64) -> u32 {
    let k = (bytes_per_s * 8.0 / 1000.0).round();
    if k.is_nan() || k <= 0.0 {
        0
    } else if k >= u32::MAX as f64 {
        u32::MAX
    } else {
        k as u32
    }
}

/// The option's rate back in bytes per second.
pub fn decode_rate_kbps(kbps: u32) -> f64 {
    kbps as f64 * 1000.0 / 8.0
}

/// Algorithm 4 lines 1-5 and equation (36): `W_fc = awnd + app_rate * rtt`, or the
/// advertised window alone before there is an RTT estimate.
pub fn flow_window(awnd: u64, app_rate_bytes_per_s: f64, rtt: Option<Duration>) -> u64 {
    match rtt {
        Some(r) if r > Duration::ZERO => {
            let extra = app_rate_bytes_per_s * r.as_secs_f64();
            awnd.saturating_add(if extra >= u64::MAX as f64 {
                u64::MAX
            } else {
                extra as u64
            })
        }
        _ => awnd,
    }
}

/// Section 4.1.4: "If this difference [snd_una + min(cwnd, rwnd) - snd_nxt] is above a
/// threshold, every packet is delayed by RTT/sender's window." Returns the spacing for
/// the next packet, or None when the allowed range is within the threshold (no burst).
/// `allowed` is the range in bytes, `window` = min(cwnd, W_fc) in bytes.
pub fn burst_gap(
    allowed: u64,
    threshold_bytes: u64,
    window: u64,
    mss: u32,
    rtt: Option<Duration>,
) -> Option<Duration> {
    let rtt = rtt?;
    if allowed <= threshold_bytes || window == 0 {
        return None;
    }
    // RTT / (window in packets) = RTT * mss / window.
    let gap = rtt.as_nanos() as u128 * mss as u128 / window as u128;
    Some(Duration(gap.min(rtt.as_nanos() as u128) as u64))
}

/// The receiver half of AFC as a [`ReceiverPolicy`] (Algorithms 1-3, section 4.1.3): the
/// whole free buffer as the window, data past the advertised edge kept while it fits,
/// read-rate sampling, the rate option on every pure ACK, and proactive ACKs. The endpoint
/// uses it only when both ends negotiated AFC (section 4.2.1); otherwise a receiver
/// configured for AFC is classic.
#[derive(Clone, Debug)]
pub struct AfcReceiver {
    /// `ar_update` (Algorithm 2).
    pub sampler: RateSampler,
    sampling: RateSampling,
    proactive_factor: f64,
    proactive_delay: Duration,
    /// The unsolicited window-update rule, as classic TCP.
    rule: WindowUpdate,
    /// A proactive ACK waits on the delayed-ACK timer (section 4.1.3).
    proactive_pending: bool,
    /// The delayed-ACK timer fired for the proactive ACK alone.
    proactive_firing: bool,
}

impl AfcReceiver {
    /// `start`: when the connection was established (the first rate sample's origin).
    pub fn new(cfg: &crate::tcp::TcpConfig, start: Instant) -> Self {
        AfcReceiver {
            sampler: RateSampler::new(cfg.afc_history_factor, start),
            sampling: cfg.afc_rate_sampling,
            proactive_factor: cfg.afc_proactive_factor,
            proactive_delay: cfg.afc_proactive_delay,
            rule: cfg.window_update,
            proactive_pending: false,
            proactive_firing: false,
        }
    }
}

impl ReceiverPolicy for AfcReceiver {
    fn name(&self) -> &'static str {
        "afc"
    }

    /// Algorithm 1 line 31, `window <- bufsize - (rcv_nxt - read_nxt)`: the whole free
    /// space, no receiver SWS rounding.
    fn right_edge(&self, v: &RcvView) -> u64 {
        v.buffer_edge().max(v.adv_right)
    }

    /// The sender may send beyond the advertised edge (its flow window adds rate x RTT);
    /// Algorithm 1 lines 2-3 keep what fits in `bufsize` past `read_nxt`.
    fn rcv_limit(&self, v: &RcvView) -> u64 {
        v.adv_right.max(v.buffer_edge())
    }

    /// Algorithm 1 lines 28-29, after a data segment was processed. Our application reads
    /// through `read`, so `bytes_read` is zero here; a read at this same instant (an
    /// application waiting for the data) joins this sample (`RateSampler::update`). The
    /// `reads_only` ablation skips it (`afc_rate_sampling`).
    fn on_data(&mut self, now: Instant, _d: &DataArrival, v: &RcvView) {
        if self.sampling == RateSampling::Paper && v.rcv_nxt > v.read_off {
            self.sampler.update(0, now);
        }
    }

    /// Algorithm 3 lines 7-14 after the application read `n` bytes, then classic TCP's
    /// window update.
    fn on_read(&mut self, now: Instant, n: u64, v: &RcvView, established: bool) -> ReadAction {
        let mut a = ReadAction::default();
        self.sampler.update(n, now);
        let s = &self.sampler;
        let factor = self.proactive_factor;
        // Algorithm 3 line 9 tests the read rate; section 4.1.3 also asks for feedback
        // "when there is a drastic change in the buffer state": "follow it up with more
        // reports about the AR and B if the application drains the buffer quickly".
        let free = v.buffer_edge().saturating_sub(v.rcv_nxt);
        let rate_moved = proactive_due(s.smooth_rx(), s.last_rx(), factor);
        let buffer_moved = buffer_drained(free, v.last_adv_wnd, v.mss, factor);
        // Section 4.1.3: "the ACK is delayed for a constant amount of time. If a reactive
        // ACK ... is triggered within [it], the proactive ACK can be discarded." It rides
        // the delayed-ACK timer, which every ACK sent disarms.
        if !v.fin_received && (rate_moved || buffer_moved) && !self.proactive_pending {
            self.proactive_pending = true;
            a.ack_by = Some(now + self.proactive_delay);
        }
        a.window_update = read_update(self.rule, v, established);
        a
    }

    /// Note whether the timer fired for the proactive ACK alone.
    fn on_delayed_ack_timer(&mut self, pending_ack_bytes: u64) {
        if self.proactive_pending && pending_ack_bytes == 0 {
            self.proactive_firing = true;
        }
    }

    /// Pure ACKs carry `smooth_rx` (Algorithm 1 line 35, Algorithm 3 line 12). Data
    /// segments do not: the rate concerns the data we receive, and the option would push a
    /// full-sized segment past the MTU.
    fn fill_option(&mut self, seg: &mut Segment, stats: &mut TcpStats) {
        if seg.payload_len == 0 && !seg.flags.syn() {
            seg.options.afc_rate_kbps = Some(encode_rate_kbps(self.sampler.smooth_rx()));
        }
        if self.proactive_pending {
            if self.proactive_firing {
                stats.afc_proactive_acks += 1;
            } else {
                stats.afc_proactive_acks_suppressed += 1;
            }
            self.proactive_pending = false;
            self.proactive_firing = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    #[test]
    fn ar_update_is_an_exponential_average_algorithm_2() {
        // "smooth_rx <- history_factor * smooth_rx + (1 - history_factor) * num_bytes/t_elapsed"
        let mut s = RateSampler::new(0.5, ms(0));
        s.update(1000, ms(1)); // 1 MB/s sample
        assert!((s.smooth_rx() - 500_000.0).abs() < 1e-6);
        assert_eq!(s.last_rx(), 0.0);
        s.update(1000, ms(2));
        assert!((s.smooth_rx() - 750_000.0).abs() < 1e-6);
        // "last_rx <- smooth_rx" before the update.
        assert!((s.last_rx() - 500_000.0).abs() < 1e-6);
        // A data arrival that delivers nothing samples zero: the average halves.
        s.update(0, ms(3));
        assert!((s.smooth_rx() - 375_000.0).abs() < 1e-6);
    }

    #[test]
    fn history_factor_weighs_the_old_estimate() {
        // "history_factor in [0, 1] is the weight given to the old application rate estimate"
        let mut s = RateSampler::new(0.0, ms(0));
        s.update(1000, ms(1));
        s.update(3000, ms(2));
        assert!((s.smooth_rx() - 3_000_000.0).abs() < 1e-6);
        let mut s = RateSampler::new(1.0, ms(0));
        s.update(1000, ms(1));
        assert_eq!(s.smooth_rx(), 0.0);
    }

    #[test]
    fn same_instant_calls_are_one_sample() {
        // "if t_elapsed then": no second sample at the same instant; the bytes an application
        // waiting for data takes at once belong to the arrival's sample (Algorithm 1 l. 18-29).
        let mut s = RateSampler::new(0.5, ms(0));
        s.update(0, ms(10)); // arrival, buffered
        s.update(1000, ms(10)); // the waiting application takes it at once
        assert!((s.smooth_rx() - 50_000.0).abs() < 1e-6); // 0.5 * 1000 B / 10 ms
        assert_eq!(s.last_rx(), 0.0);
        // Nothing at time zero: nothing to join.
        let mut s = RateSampler::new(0.5, ms(0));
        s.update(1000, ms(0));
        assert_eq!(s.smooth_rx(), 0.0);
    }

    #[test]
    fn proactive_ack_beyond_a_factor_algorithm_3() {
        // "A proactive acknowledgement is triggered if the new smooth_rx is greater/lesser
        // than a factor times the last value last_rx"
        assert!(proactive_due(2.1, 1.0, 2.0));
        assert!(!proactive_due(2.0, 1.0, 2.0));
        assert!(!proactive_due(0.5, 1.0, 2.0));
        assert!(proactive_due(0.49, 1.0, 2.0));
        assert!(proactive_due(1.0, 0.0, 2.0)); // reading resumes after idling
        assert!(!proactive_due(0.0, 0.0, 2.0));
    }

    #[test]
    fn buffer_drain_reports_section_4_1_3() {
        // "the receiver will send not merely the first open window when one MSS worth of
        // buffer is available, but also follow it up with more reports about the AR and B
        // if the application drains the buffer quickly"
        assert!(buffer_drained(5000, 2000, 1000, 2.0));
        assert!(!buffer_drained(4000, 2000, 1000, 2.0));
        assert!(!buffer_drained(500, 0, 1000, 2.0)); // less than a segment: not yet
        assert!(buffer_drained(1000, 0, 1000, 2.0));
    }

    #[test]
    fn option_carries_kbps_section_4_2_1() {
        // "the later octets carry the application read rate in Kbps"
        assert_eq!(encode_rate_kbps(750_000.0), 6000); // 6 Mbit/s
        assert_eq!(encode_rate_kbps(0.0), 0);
        assert_eq!(encode_rate_kbps(62.0), 0); // 496 bit/s rounds to 0 kbit/s
        assert_eq!(encode_rate_kbps(63.0), 1);
        assert_eq!(encode_rate_kbps(1e30), u32::MAX);
        assert_eq!(decode_rate_kbps(6000), 750_000.0);
    }

    #[test]
    fn flow_window_eq_36_algorithm_4() {
        // "rwnd <- awnd + app_rate * rtt" (only "if rtt > 0")
        let w = flow_window(10_000, 750_000.0, Some(Duration::from_millis(530)));
        assert_eq!(w, 10_000 + 397_500);
        assert_eq!(flow_window(10_000, 750_000.0, None), 10_000);
        assert_eq!(flow_window(0, 0.0, Some(Duration::from_millis(530))), 0);
    }

    #[test]
    fn rate_sampling_defaults_to_the_paper() {
        assert_eq!(RateSampling::default(), RateSampling::Paper);
        let c = crate::tcp::TcpConfig::default();
        assert_eq!(c.afc_rate_sampling, RateSampling::Paper);
        assert!(c.afc_suppress_congestion && !c.afc_open_window_in_recovery);
    }

    #[test]
    fn burst_spacing_section_4_1_4() {
        // "If this difference is above a threshold, every packet is delayed by
        // RTT/sender's window."
        let rtt = Some(Duration::from_millis(500));
        assert_eq!(burst_gap(10_000, 10_000, 100_000, 1000, rtt), None);
        assert_eq!(
            burst_gap(10_001, 10_000, 100_000, 1000, rtt),
            Some(Duration::from_millis(5)) // 500 ms / 100 packets
        );
        assert_eq!(burst_gap(50_000, 10_000, 100_000, 1000, None), None);
    }
}
